"""The terminal UI: a Textual app that is a plain A2A 1.0 client of a running harness (or
of any A2A agent), through the a2a-sdk client.

Run with: tiny-harness tui [--url URL] [--as NAME]. The app is `app.TinyHarnessApp`; this
package imports nothing heavy, so the CLI can build its help without Textual or the SDK.
"""

from typing import Final

DEFAULT_URL: Final = "http://127.0.0.1:8080"
"""The agent the TUI opens when no --url is given: `make serve`'s address."""
