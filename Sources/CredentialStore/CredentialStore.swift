// CredentialStore: see ARCHITECTURE.md.
