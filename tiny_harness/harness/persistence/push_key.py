"""The push key: the 32-byte AES key that seals our clients' push-config secrets at rest.

`resolve_push_key` decides, once at startup, which key this process uses:

    TINY_HARNESS_PUSH_KEY set ──────────────► decode it (32 bytes, standard or urlsafe base64)
    unset, embedded Temporal ───────────────► <data_dir>/push.key, generated on first use
    unset, external Temporal ───────────────► ConfigError: every process must share one key

Limits: the generated file suits one machine running embedded Temporal. With an external
cluster, servers and workers on other machines must open what this one sealed, so the key has
to be configured; a file generated on one machine cannot be shared implicitly. Rotating the key
is not supported: secrets sealed under the old key no longer open (`PushKeyError`), and their
configs must be registered again. Neither the key nor any part of it is ever logged or put in
an exception message.
"""

from __future__ import annotations

import base64
import binascii
import logging
import os
import secrets
import stat
from pathlib import Path
from typing import Final

from pydantic import SecretStr

from tiny_harness.errors import ConfigError

__all__ = [
    "PUSH_KEY_BYTES",
    "PUSH_KEY_FILENAME",
    "PUSH_KEY_VARIABLE",
    "decode_push_key",
    "resolve_push_key",
]

logger = logging.getLogger(__name__)

PUSH_KEY_BYTES: Final[int] = 32
"""An AES-256 key."""

PUSH_KEY_FILENAME: Final[str] = "push.key"
"""The generated key's file inside the data directory (embedded mode only)."""

PUSH_KEY_VARIABLE: Final[str] = "TINY_HARNESS_PUSH_KEY"
"""The environment variable that configures the key."""

_HOW_TO_MAKE_ONE = (
    'make one with: python -c "import base64, os; print(base64.b64encode(os.urandom(32)).decode())"'
)


def decode_push_key(text: str) -> bytes:
    """The key bytes `text` encodes, in standard or urlsafe base64, padded or not.

    Raises ValueError when `text` is not base64 or does not hold exactly 32 bytes; the message
    never quotes `text`.
    """
    # One alphabet for both: "-_" are urlsafe's "+/"; padding is optional in urlsafe keys.
    body = text.strip().replace("-", "+").replace("_", "/").rstrip("=")
    try:
        key = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
    except binascii.Error:
        raise ValueError(f"the push key is not base64; {_HOW_TO_MAKE_ONE}") from None
    if len(key) != PUSH_KEY_BYTES:
        raise ValueError(
            f"the push key must be {PUSH_KEY_BYTES} bytes in base64, not {len(key)} bytes; "
            + _HOW_TO_MAKE_ONE
        )
    return key


def resolve_push_key(configured: SecretStr | None, *, data_dir: Path, embedded: bool) -> bytes:
    """The push key of this process: `configured` when given, else (embedded Temporal only)
    the key in ``<data_dir>/push.key``, generated there on first use.

    Raises `ConfigError` naming `TINY_HARNESS_PUSH_KEY` when the configured key is malformed
    or when no key is configured and Temporal is external, and naming the key file when that
    file cannot be read, written or decoded.
    """
    if configured is not None:
        try:
            return decode_push_key(configured.get_secret_value())
        except ValueError as exc:
            raise ConfigError(f"{PUSH_KEY_VARIABLE}: {exc}", variable=PUSH_KEY_VARIABLE) from None
    if not embedded:
        raise ConfigError(
            f"{PUSH_KEY_VARIABLE} is required when Temporal is external "
            "(TINY_HARNESS_TEMPORAL__ADDRESS is set): every server and worker process must "
            f"seal and open push-config secrets with the same key; {_HOW_TO_MAKE_ONE}",
            variable=PUSH_KEY_VARIABLE,
        )
    path = data_dir / PUSH_KEY_FILENAME
    key = _read_key_file(path)
    if key is not None:
        return key
    return _generate_key_file(path)


def _read_key_file(path: Path) -> bytes | None:
    """The key in `path`, or None when there is no such file."""
    try:
        text = path.read_text(encoding="ascii")
        mode = path.stat().st_mode
    except FileNotFoundError:
        return None
    except (OSError, UnicodeError) as exc:
        raise ConfigError(
            f"push key file {path} cannot be read: {_reason(exc)}", variable=str(path)
        ) from None
    try:
        key = decode_push_key(text)
    except ValueError as exc:
        raise ConfigError(
            f"push key file {path} is malformed ({exc}); delete it to have a new key generated, "
            "which makes the push configs sealed with the old one unusable",
            variable=str(path),
        ) from None
    if stat.S_IMODE(mode) & 0o077:
        logger.warning(
            "push key file %s is readable by other users (mode %o); chmod 600 it",
            path,
            stat.S_IMODE(mode),
        )
    return key


def _generate_key_file(path: Path) -> bytes:
    """Write a fresh key to `path` (mode 0600) unless another process just did; the key in it.

    The key is written to a private temporary file first and hard-linked into place, so the
    file is never seen half-written, and of two processes generating at once one key wins
    and both use it.
    """
    key = secrets.token_bytes(PUSH_KEY_BYTES)
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            os.fchmod(descriptor, 0o600)  # exactly 0600, whatever the umask
            os.write(descriptor, base64.b64encode(key) + b"\n")
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        try:
            os.link(temporary, path)
        except FileExistsError:
            existing = _read_key_file(path)
            if existing is None:  # linked, then removed at once: give up rather than loop
                raise ConfigError(
                    f"push key file {path} vanished while it was generated", variable=str(path)
                ) from None
            return existing
    except OSError as exc:
        raise ConfigError(
            f"push key file {path} cannot be written: {_reason(exc)}", variable=str(path)
        ) from None
    finally:
        temporary.unlink(missing_ok=True)
    logger.info("push: generated a new push key in %s (mode 0600)", path)
    return key


def _reason(exc: OSError | UnicodeError) -> str:
    if isinstance(exc, OSError):
        return exc.strerror or type(exc).__name__
    return "not ASCII text"
