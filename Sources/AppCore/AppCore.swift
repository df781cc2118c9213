// AppCore: see ARCHITECTURE.md.
