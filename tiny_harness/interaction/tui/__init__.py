"""The terminal UI: a Textual app that is a plain A2A 1.0 client of a running harness (or
of any A2A agent), through the a2a-sdk client.

Run with: tiny-harness tui [--url URL] [--as NAME]
"""

from tiny_harness.interaction.tui.app import TinyHarnessApp

__all__ = ["TinyHarnessApp"]
