"""Reading a plugin file's text with the reader's limits: a regular file, capped, UTF-8.

Callers resolve the path inside the plugin root first (`paths.resolve_inside`); this module
only refuses what must never be opened or believed: a directory, a FIFO or device (which
could block the reader), a file over the size cap, and bytes that are not UTF-8.
"""

from __future__ import annotations

from pathlib import Path

from tiny_harness.errors import PluginError

MAX_FILE_BYTES = 1024 * 1024
"""The largest plugin file the reader will open (manifest, mcp.json, hooks, prompts)."""


def read_text(path: Path, *, source: str) -> str:
    """The text of the regular file at `path`; anything else raises `PluginError`."""
    if not path.exists():
        raise PluginError(f"{source}: not found")
    if not path.is_file():
        raise PluginError(f"{source}: not a regular file")
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise PluginError(f"{source}: larger than {MAX_FILE_BYTES} bytes")
        data = path.read_bytes()
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise PluginError(f"{source}: unreadable ({reason})") from error
    if len(data) > MAX_FILE_BYTES:  # it grew between the stat and the read
        raise PluginError(f"{source}: larger than {MAX_FILE_BYTES} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise PluginError(f"{source}: not UTF-8 text") from error


def present(path: Path) -> bool:
    """Whether anything (a dangling symlink included) is at `path`."""
    return path.is_symlink() or path.exists()
