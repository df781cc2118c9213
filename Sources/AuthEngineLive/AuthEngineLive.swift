// AuthEngineLive: see ARCHITECTURE.md.
