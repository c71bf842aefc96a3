"""The Redactor masks credential shapes and configured secrets, and leaves prose and ids be."""

from __future__ import annotations

import hashlib
import uuid

import pytest
from a2a.helpers import new_text_message
from a2a.types import Message, Part, Role
from google.protobuf.json_format import MessageToDict
from google.protobuf.struct_pb2 import Struct, Value
from pydantic import BaseModel, JsonValue, SecretStr

import tiny_harness.harness.security as security
from tiny_harness.harness.security import Redactor, mask

OPENAI_KEY = "sk-Ab3dEfGh1jKlMnOpQrStUvWx0123456789yzABCDEFGHij"
PROJECT_KEY = "sk-proj-Ab3dEfGh1jKlMnOpQr_StUvWx-0123456789yzABCDEFGHijKLmnOPqr"
ANTHROPIC_KEY = "sk-ant-api03-Ab3dEfGh1jKlMnOpQrStUvWx0123456789-yzABCDEF_GHijKLmn"
GITHUB_TOKEN = "ghp_" + "a1B2c3D4e5F6" * 3
GITHUB_PAT = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF"
AWS_KEY_ID = "AKIAIOSFODNN7EXAMPLE"
JWT = "eyJhbGciOiJFUzI1NiIsImtpZCI6Ik1" + ".eyJzdWIiOiJzdmMtYWNjdCIsImV4cCI6MTc" + ".aBcD1234_-xyz"
TEMPORAL_KEY = "tmprl_Ab12Cd34Ef56Gh78Ij90KlMn"
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n"
    "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n"
    "-----END RSA PRIVATE KEY-----"
)

REDACTOR = Redactor()


def test_public_surface_is_exactly_all() -> None:
    public = {name for name in vars(security) if not name.startswith("_")}
    assert set(security.__all__) == public - {"redactor", "shapes"}
    assert sorted(security.__all__) == ["MIN_SECRET_CHARS", "Redacted", "Redactor", "mask"]


def test_redactor_masks_tokens() -> None:
    text = (
        f"Authorization: Bearer abc123def456ghi789\nkey {OPENAI_KEY}, token {GITHUB_TOKEN}, "
        f"id {AWS_KEY_ID}"
    )
    redacted = REDACTOR.counted_text(text)
    assert redacted.masked == 4
    for secret in ("abc123def456ghi789", OPENAI_KEY, GITHUB_TOKEN, AWS_KEY_ID):
        assert secret not in redacted.value
    assert redacted.value == (
        "Authorization: Bearer [redacted:authorization]\nkey [redacted:openai-key], "
        "token [redacted:github-token], id [redacted:aws-access-key-id]"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("call with Bearer abc123def456ghi789 now", "call with Bearer [redacted:bearer] now"),
        ("curl -H 'bearer: x' -H 'Bearer Zm9vYmFyYmF6cXV4'", "[redacted:bearer]'"),
        ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "Basic [redacted:authorization]"),
        ('{"Authorization": "Token abc123def456"}', '"Token [redacted:authorization]"}'),
        ("Proxy-Authorization: Negotiate YIIB3gYGKwYBBQ", "Negotiate [redacted:authorization]"),
        (
            'Authorization: Digest username="bob", response="6629fae49393a05397450978507c4ef1"',
            "Authorization: Digest [redacted:authorization]",
        ),
        ("Authorization: abc123def456ghi789jkl", "Authorization: [redacted:authorization]"),
        (f"OPENAI key {OPENAI_KEY}.", "OPENAI key [redacted:openai-key]."),
        (f"project {PROJECT_KEY}", "project [redacted:openai-key]"),
        (f"claude {ANTHROPIC_KEY}", "claude [redacted:anthropic-key]"),
        (f"{GITHUB_PAT} is mine", "[redacted:github-token] is mine"),
        (f"aws {AWS_KEY_ID}", "aws [redacted:aws-access-key-id]"),
        (f"temporal {TEMPORAL_KEY}", "temporal [redacted:temporal-key]"),
        (f"temporal cloud key {JWT}", "temporal cloud key [redacted:jwt]"),
        (f"key:\n{PEM}\nend", "key:\n[redacted:private-key]\nend"),
        ("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0B", "[redacted:private-key]"),
        ("https://bob:s3cret-pass@db.example.com/x", "https://bob:[redacted:password]@db"),
        ("GET /v1?access_token=abc&page=2", "?access_token=[redacted:query]&page=2"),
        ("export OPENAI_API_KEY=hunter2hunter2", "OPENAI_API_KEY=[redacted:credential-field]"),
        ('{"db_password": "Tr0ub4dor&3"}', '"db_password": "[redacted:credential-field]"'),
    ],
)
def test_each_shape_is_masked_with_its_kind(text: str, expected: str) -> None:
    redacted = REDACTOR.counted_text(text)
    assert redacted.masked == 1
    assert expected in redacted.value


@pytest.mark.parametrize(
    "text",
    [
        "The bearer of this letter may pass. Bearer bonds are old; bearer tokens expire.",
        "Authorization: required for every endpoint. The Authorization header is optional.",
        "Secret: environment only. Password: see the wiki. token: the smallest unit.",
        "sk-learn-2024-release-notes are a risk-free read about task-skills.",
        "Set max_tokens: 4096 and next_page_token=abc to page; the key is 42.",
        "Temporal runs at my-namespace.abc12.tmprl.cloud:7233 with tmprl_staging_worker_crt.",
        "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----",
        "Visit https://example.com:8443/path?page=2&sort=asc#top, or mail bob@example.com.",
        "",
    ],
)
def test_ordinary_text_is_not_masked(text: str) -> None:
    assert REDACTOR.counted_text(text).masked == 0
    assert REDACTOR.text(text) == text


def test_ids_and_digests_are_not_masked() -> None:
    ids = [str(uuid.uuid4()) for _ in range(50)]
    digests = [hashlib.sha256(str(i).encode()).hexdigest() for i in range(50)]
    upper = [d.upper() for d in digests]
    text = "\n".join(
        f"task {i} digest {d} sha256:{u} context {i}-{d[:12]}"
        for i, d, u in zip(ids, digests, upper, strict=True)
    )
    assert REDACTOR.text(text) == text


def test_configured_secrets_are_masked_anywhere() -> None:
    redactor = Redactor(
        [SecretStr("plainpassword"), SecretStr("plainpasswordplus"), "Q2xlYXJseVNlY3JldA==", None]
    )
    text = "a plainpasswordplus, then plainpassword and xQ2xlYXJseVNlY3JldA==x"
    redacted = redactor.counted_text(text)
    assert redacted.masked == 3
    assert redacted.value == "a [redacted:secret], then [redacted:secret] and x[redacted:secret]x"


def test_empty_and_short_configured_secrets_are_ignored() -> None:
    redactor = Redactor([SecretStr(""), SecretStr("short"), SecretStr("1234567"), None])
    text = "a short note: 1234567 is not a secret"
    assert redactor.text(text) == text


def test_masking_twice_changes_nothing() -> None:
    once = REDACTOR.text(f"Authorization: Bearer {OPENAI_KEY} and Bearer abc123def456ghi789")
    twice = REDACTOR.counted_text(once)
    assert twice.masked == 0
    assert twice.value == once


def _message_with_every_part() -> Message:
    data = Struct()
    data.update(
        {
            "note": f"use {OPENAI_KEY}",
            "config": {"api_key": "plain-but-named", "items": ["ok", f"Bearer {JWT}", 3]},
            "page_token": "abcdef",
        }
    )
    message = new_text_message(f"Authorization: Bearer {GITHUB_TOKEN}", role=Role.ROLE_USER)
    message.parts.append(Part(data=Value(struct_value=data)))
    message.parts.append(
        Part(url=f"https://bob:pw@files.example.com/a.txt?sig=abcdef&v=1&x={AWS_KEY_ID}")
    )
    message.parts.append(Part(raw=f"token={JWT}".encode(), filename="notes.txt"))
    message.parts.append(Part(raw=b"\xff\xfe binary " + AWS_KEY_ID.encode()))
    message.metadata.update({"participantId": "alice", "client": {"secret": "s3cr3t-v4lue"}})
    return message


def test_message_copy_masks_every_part_and_leaves_the_original() -> None:
    message = _message_with_every_part()
    before = message.SerializeToString()

    redacted = REDACTOR.counted_message(message)

    assert message.SerializeToString() == before
    copy = redacted.value
    assert copy.message_id == message.message_id
    assert copy.parts[0].text == "Authorization: Bearer [redacted:github-token]"
    data = MessageToDict(copy.parts[1].data)
    assert data == {
        "note": "use [redacted:openai-key]",
        "config": {
            "api_key": "[redacted:credential-field]",
            "items": ["ok", f"Bearer {mask('jwt')}", 3.0],
        },
        "page_token": "abcdef",
    }
    assert copy.parts[2].url == (
        "https://%5Bredacted%3Auserinfo%5D@files.example.com/a.txt"
        "?sig=%5Bredacted%3Aquery%5D&v=1&x=%5Bredacted%3Aquery%5D"
    )
    assert copy.parts[3].raw == b"token=[redacted:jwt]"
    assert copy.parts[4].raw == message.parts[4].raw  # binary: not read (a documented limit)
    assert MessageToDict(copy.metadata) == {
        "participantId": "alice",
        "client": {"secret": "[redacted:credential-field]"},
    }
    assert redacted.masked == 9
    assert REDACTOR.message(message) == copy


def test_message_without_credentials_is_an_equal_copy() -> None:
    message = new_text_message("hello, what is the weather?", role=Role.ROLE_USER)
    message.metadata.update({"participantId": "bob"})
    redacted = REDACTOR.counted_message(message)
    assert redacted.masked == 0
    assert redacted.value == message
    assert redacted.value is not message


def test_json_masks_every_string_and_credential_fields_and_keeps_the_rest() -> None:
    value: JsonValue = {
        "conversation": [{"text": f"use {GITHUB_TOKEN}"}, {"text": "hello"}],
        "api_key": "plain-looking-value",
        "count": 3,
        "ok": True,
        "nothing": None,
        GITHUB_TOKEN: "keys are not scanned",
    }
    redacted = REDACTOR.counted_json(value)
    assert redacted.masked == 2
    assert redacted.value == {
        "conversation": [{"text": f"use {mask('github-token')}"}, {"text": "hello"}],
        "api_key": mask("credential-field"),
        "count": 3,
        "ok": True,
        "nothing": None,
        GITHUB_TOKEN: "keys are not scanned",
    }


def test_a_model_with_nothing_to_mask_is_returned_as_it_is() -> None:
    class Note(BaseModel):
        text: str

    clean = Note(text="nothing secret")
    leaky = Note(text=f"key {AWS_KEY_ID}")
    assert REDACTOR.model(clean) is clean
    assert REDACTOR.model(leaky) == Note(text=f"key {mask('aws-access-key-id')}")
    assert leaky.text == f"key {AWS_KEY_ID}"  # the original is left alone


HOSTILE_UNITS = ("eyJ-", "a-", "sk-", "a://b:", "-----BEGIN PRIVATE KEY-----", "api_key=")
"""Units that make a carelessly written credential pattern backtrack (`bench/redactor.py`)."""


@pytest.mark.timeout(60)
@pytest.mark.parametrize("unit", HOSTILE_UNITS)
def test_input_built_to_make_a_pattern_backtrack_is_masked_in_bounded_time(unit: str) -> None:
    """The bound is the test's timeout, not a clock: a linear mask of 128 KiB takes
    milliseconds, a quadratic one minutes, so no machine is loaded enough to blur the two
    (`bench/redactor.py` measures the times)."""
    hostile = unit * (131_072 // len(unit))
    masked = Redactor().text(f"{hostile} then {GITHUB_TOKEN}")

    assert GITHUB_TOKEN[4:] not in masked  # the real credential after it is found, whole
    assert masked.endswith(mask("github-token"))


def test_a_private_key_cut_short_does_not_swallow_the_prefix_of_a_key_after_it() -> None:
    text = f"-----BEGIN PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU then {GITHUB_TOKEN}"

    masked = Redactor().text(text)

    assert masked == mask("private-key") + mask("github-token")
