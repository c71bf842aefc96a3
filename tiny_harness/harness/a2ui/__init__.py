"""A2UI 0.9.1 over A2A: the messages the agent sends to draw surfaces, the actions a
renderer sends back, and the record of what a task drew (so a forged action is known)."""
