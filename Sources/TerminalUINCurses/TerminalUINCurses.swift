// TerminalUINCurses: see ARCHITECTURE.md.
