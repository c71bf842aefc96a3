"""Security: the `Redactor`, which masks credential-shaped values before they are recorded."""

from tiny_harness.harness.security.redactor import MIN_SECRET_CHARS, Redacted, Redactor
from tiny_harness.harness.security.shapes import mask

__all__ = ["MIN_SECRET_CHARS", "Redacted", "Redactor", "mask"]
