"""Errors of push notifications to our clients: configs, their limit, the URL guard, the key."""

from __future__ import annotations

from tiny_harness.errors.base import TinyHarnessError


class PushError(TinyHarnessError):
    """Raised when a push-notification config cannot be stored or a push cannot be sent
    (see subclasses); the message never carries a token or a credential."""

    code = "push_error"


class PushConfigError(PushError):
    """Raised when a client's push config is malformed: a token, scheme or credential with
    a CR or LF (header injection), an empty URL, or a task id that does not match."""

    code = "push.config_invalid"


class PushConfigLimitError(PushError):
    """Raised when a task already has `push.max_configs_per_task` configs and a new one
    (not a replacement of an existing id) is added."""

    code = "push.config_limit"


class PushUrlRefusedError(PushError):
    """Raised when a push URL fails the guard, when the config is created and again before
    each delivery: not HTTPS, credentials in the URL, or a host resolving to a private,
    loopback, link-local or otherwise non-public address that is not allow-listed.
    `reason` is a short, fixed phrase safe to return to the client."""

    code = "push.url_refused"

    def __init__(self, message: str, *, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class PushKeyError(PushError):
    """Raised when a sealed push secret cannot be opened: the push key changed since it was
    sealed, or the sealed value was altered or moved to another config."""

    code = "push.key_mismatch"
