"""The terminal UI's screens over the main one: a confirmation, the agent card."""
