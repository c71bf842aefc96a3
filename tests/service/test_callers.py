"""Who may call: `[auth]` turned into the server's authentication, and the warning an open
server gets (decided from the settings; no traffic)."""

from __future__ import annotations

import logging

import pytest

from tiny_harness.config import load_settings
from tiny_harness.service.a2a.authentication import ApiKeys
from tiny_harness.service.callers import authenticator


@pytest.mark.parametrize(
    ("host", "warned"),
    [("127.0.0.1", False), ("::1", False), ("localhost", False), ("0.0.0.0", True)],
)
def test_no_authentication_is_warned_about_beyond_loopback_only(
    host: str, warned: bool, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    settings = load_settings(environ={"TINY_HARNESS_SERVER__HOST": host})

    assert authenticator(settings) is None
    warnings = [r.getMessage() for r in caplog.records if "any caller can claim" in r.getMessage()]
    assert len(warnings) == (1 if warned else 0)


def test_api_key_mode_authenticates_every_call_and_declares_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    settings = load_settings(
        environ={
            "TINY_HARNESS_SERVER__HOST": "0.0.0.0",
            "TINY_HARNESS_AUTH__MODE": "api_key",
            "TINY_HARNESS_AUTH__API_KEYS": f'[{{"participant": "a", "sha256": "{"ab" * 32}"}}]',
        }
    )

    assert isinstance(authenticator(settings), ApiKeys)
    assert not any("any caller can claim" in r.getMessage() for r in caplog.records)
