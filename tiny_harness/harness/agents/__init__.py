"""Agents the harness delegates to (R7): the `Agent` entity and its A2A implementation."""
