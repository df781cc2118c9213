// TerminalUI: see ARCHITECTURE.md.
