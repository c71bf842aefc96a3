"""tiny-harness: a durable agent server with A2A 1.0 in front and Temporal behind."""

__version__ = "0.1.0"
