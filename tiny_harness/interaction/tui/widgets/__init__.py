"""The terminal UI's widgets, one module each."""
