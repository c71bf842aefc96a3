"""`[auth]`: who may call the A2A server, and how a caller proves it.

    mode = "none"     (default) nobody is authenticated: the perimeter in front of the
                      harness does it and names the caller in `X-Participant-Id`
    mode = "api_key"  every A2A call presents a key (`Authorization: Bearer <key>` or
                      `X-API-Key: <key>`); the key names the participant

Keys are configured only as SHA-256 digests (hex, of the key's UTF-8 text), each mapped to
the participant it authenticates: `[[auth.api_keys]]` tables with `participant` and
`sha256`, or `TINY_HARNESS_AUTH__API_KEYS` holding a JSON array of the same objects. A
digest is not a secret (the key is 256 random bits: `tiny-harness keys new`), so the file
may hold it.
"""

from __future__ import annotations

import json
from typing import Literal, Self

from pydantic import BaseModel, Field, field_validator, model_validator

from tiny_harness.config.keys import NonEmptyStr

AuthMode = Literal["none", "api_key"]


class ApiKeyDigest(BaseModel, extra="forbid", frozen=True):
    """One accepted key, by its digest, and the participant it authenticates."""

    participant: NonEmptyStr = Field(max_length=200)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    """SHA-256 of the key's UTF-8 text, 64 lower-case hex digits."""

    @field_validator("participant")
    @classmethod
    def _one_printable_line(cls, value: str) -> str:
        if value != value.strip() or not value.isprintable():
            raise ValueError("must be one printable line without surrounding spaces")
        return value


class AuthConfig(BaseModel, extra="forbid", frozen=True):
    """How A2A callers are authenticated (see the module's docstring)."""

    mode: AuthMode = "none"
    api_keys: tuple[ApiKeyDigest, ...] = ()
    """The accepted keys in `api_key` mode, digests unique."""

    @field_validator("api_keys", mode="before")
    @classmethod
    def _parse_json(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        try:
            parsed: object = json.loads(value)
        except json.JSONDecodeError as error:
            raise ValueError(
                "api_keys must be a JSON array of {participant, sha256} objects "
                f"(not valid JSON at line {error.lineno}, column {error.colno})"
            ) from None
        if not isinstance(parsed, list):
            raise ValueError("api_keys must be a JSON array of {participant, sha256} objects")
        return parsed

    @model_validator(mode="after")
    def _keys_fit_the_mode(self) -> Self:
        if self.mode == "api_key" and not self.api_keys:
            raise ValueError(
                "mode api_key needs at least one of api_keys (make one with "
                "`tiny-harness keys new --participant <id>`)"
            )
        if self.mode == "none" and self.api_keys:
            raise ValueError('api_keys are only read in mode "api_key"')
        digests = [key.sha256 for key in self.api_keys]
        if len(set(digests)) != len(digests):
            raise ValueError("api_keys holds one digest twice")
        return self
