"""Workflow code: the task and stand-in workflows and the deterministic helpers they use."""
