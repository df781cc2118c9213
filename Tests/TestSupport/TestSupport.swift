// Test support: fixture processes for tests.
