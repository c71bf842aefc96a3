"""`ConnectionBanner`: a line across the top saying the agent cannot be reached.

Hidden while all is well; shown with what failed and when the next try is while the UI
reconnects.
"""

from __future__ import annotations

from textual.widgets import Static

__all__ = ["ConnectionBanner"]


class ConnectionBanner(Static):
    """Shown while the agent does not answer."""

    def on_mount(self) -> None:
        """Called when first shown: hidden until something fails."""
        self.display = False

    def down(self, reason: str, retry_in: float) -> None:
        """Say the agent is unreachable and when the next try is."""
        self.update(f"⚠ Cannot reach the agent ({reason}). Retrying in {retry_in:.0f} s…")
        self.display = True

    def up(self) -> None:
        """The agent answers again."""
        self.display = False
