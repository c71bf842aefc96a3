"""Behaviour of `resolve_push_key`: which key seals our clients' push-config secrets."""

from __future__ import annotations

import base64
import logging
import os
import stat
from pathlib import Path

import pytest
from pydantic import SecretStr

from tiny_harness.errors import ConfigError
from tiny_harness.harness.persistence.push_key import (
    PUSH_KEY_FILENAME,
    decode_push_key,
    resolve_push_key,
)

KEY = bytes(range(32))


def test_configured_standard_base64_key_is_used(tmp_path: Path) -> None:
    configured = SecretStr(base64.b64encode(KEY).decode())

    assert resolve_push_key(configured, data_dir=tmp_path, embedded=False) == KEY
    assert not (tmp_path / PUSH_KEY_FILENAME).exists()


def test_configured_urlsafe_key_is_used_with_or_without_padding(tmp_path: Path) -> None:
    key = bytes([0xFB, 0xFF] * 16)  # encodes to '+' and '/' in standard base64
    urlsafe = base64.urlsafe_b64encode(key).decode()
    assert "-" in urlsafe or "_" in urlsafe

    for text in (urlsafe, urlsafe.rstrip("=")):
        assert resolve_push_key(SecretStr(text), data_dir=tmp_path, embedded=True) == key


@pytest.mark.parametrize("length", [16, 31, 33, 64])
def test_configured_key_of_wrong_length_is_refused_without_echoing_it(
    tmp_path: Path, length: int
) -> None:
    text = base64.b64encode(bytes(range(length))).decode()

    with pytest.raises(ConfigError) as caught:
        resolve_push_key(SecretStr(text), data_dir=tmp_path, embedded=True)

    assert caught.value.variable == "TINY_HARNESS_PUSH_KEY"
    assert f"not {length} bytes" in str(caught.value)
    assert text not in str(caught.value)
    assert caught.value.__cause__ is None


@pytest.mark.parametrize(
    "text", ["not base64 at all!!", "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlYw=x", "%" * 44]
)
def test_configured_key_that_is_not_base64_is_refused_without_echoing_it(
    tmp_path: Path, text: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        resolve_push_key(SecretStr(text), data_dir=tmp_path, embedded=True)

    assert caught.value.variable == "TINY_HARNESS_PUSH_KEY"
    assert "not base64" in str(caught.value)
    assert text not in str(caught.value)
    assert caught.value.__cause__ is None
    assert not (tmp_path / PUSH_KEY_FILENAME).exists()


def test_external_temporal_without_a_key_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="required when Temporal is external") as caught:
        resolve_push_key(None, data_dir=tmp_path, embedded=False)

    assert caught.value.variable == "TINY_HARNESS_PUSH_KEY"
    assert not (tmp_path / PUSH_KEY_FILENAME).exists()


def test_embedded_without_a_key_generates_a_private_key_file_and_says_where(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data_dir = tmp_path / "not" / "yet" / "there"
    caplog.set_level(logging.INFO, logger="tiny_harness.harness.persistence.push_key")

    key = resolve_push_key(None, data_dir=data_dir, embedded=True)

    path = data_dir / PUSH_KEY_FILENAME
    assert len(key) == 32
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert decode_push_key(path.read_text()) == key
    assert [entry.name for entry in data_dir.iterdir()] == [PUSH_KEY_FILENAME]  # no temp left
    generated = [r for r in caplog.records if "generated" in r.getMessage()]
    assert len(generated) == 1
    assert generated[0].levelno == logging.INFO
    assert str(path) in generated[0].getMessage()
    encoded = (base64.b64encode(key).decode(), base64.urlsafe_b64encode(key).decode())
    assert not any(e.rstrip("=") in caplog.text for e in encoded)


def test_generated_key_file_is_reused_on_the_next_call(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    first = resolve_push_key(None, data_dir=tmp_path, embedded=True)
    caplog.clear()
    caplog.set_level(logging.INFO, logger="tiny_harness.harness.persistence.push_key")

    second = resolve_push_key(None, data_dir=tmp_path, embedded=True)

    assert second == first
    assert "generated" not in caplog.text


def test_generated_key_file_is_0600_even_under_a_permissive_umask(tmp_path: Path) -> None:
    previous = os.umask(0)
    try:
        resolve_push_key(None, data_dir=tmp_path, embedded=True)
    finally:
        os.umask(previous)

    assert stat.S_IMODE((tmp_path / PUSH_KEY_FILENAME).stat().st_mode) == 0o600


def test_configured_key_wins_over_the_key_file(tmp_path: Path) -> None:
    resolve_push_key(None, data_dir=tmp_path, embedded=True)
    configured = SecretStr(base64.b64encode(KEY).decode())

    assert resolve_push_key(configured, data_dir=tmp_path, embedded=True) == KEY


def test_malformed_key_file_is_named_and_not_replaced(tmp_path: Path) -> None:
    path = tmp_path / PUSH_KEY_FILENAME
    path.write_text("c2hvcnQ=\n")
    path.chmod(0o600)

    with pytest.raises(ConfigError) as caught:
        resolve_push_key(None, data_dir=tmp_path, embedded=True)

    assert caught.value.variable == str(path)
    assert "c2hvcnQ" not in str(caught.value)
    assert path.read_text() == "c2hvcnQ=\n"
