"""How people interact with tasks beyond text: A2UI surfaces (`a2ui`)."""
