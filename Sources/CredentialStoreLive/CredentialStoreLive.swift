// CredentialStoreLive: see ARCHITECTURE.md.
