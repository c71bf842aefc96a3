"""A task beyond the loop: its states, extension, plan and participants."""
