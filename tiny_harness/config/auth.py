"""`[auth]`: who may call the A2A server, and how a caller proves it.

    mode = "none"     (default) nobody is authenticated: the perimeter in front of the
                      harness does it and names the caller in `X-Participant-Id`
    mode = "api_key"  every A2A call presents a key (`Authorization: Bearer <key>` or
                      `X-API-Key: <key>`); the key names the participant
    mode = "jwt"      every A2A call presents a bearer JWT signed by a key of `jwks_url`,
                      from `issuer`, for `audience`; its `participant_claim` names the
                      participant

Keys are configured only as SHA-256 digests (hex, of the key's UTF-8 text), each mapped to
the participant it authenticates: `[[auth.api_keys]]` tables with `participant` and
`sha256`, or `TINY_HARNESS_AUTH__API_KEYS` holding a JSON array of the same objects. A
digest is not a secret (the key is 256 random bits: `tiny-harness keys new`), so the file
may hold it.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Annotated, Literal, Self

from pydantic import AnyHttpUrl, BaseModel, Field, field_validator, model_validator

from tiny_harness.config.keys import NonEmptyStr
from tiny_harness.harness.settings.duration import Duration

AuthMode = Literal["none", "api_key", "jwt"]

JwtAlgorithm = Literal[
    "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"
]
"""Signature algorithms a JWT may use: asymmetric ones only. `none` and the HMAC ones are
not among them, so a token signed with the public key as an HMAC secret never passes."""


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
    """How a caller is known: `none` (the `X-Participant-Id` header a perimeter sets),
    `api_key` or `jwt`."""
    api_keys: tuple[ApiKeyDigest, ...] = ()
    """The accepted keys in `api_key` mode, digests unique."""
    jwks_url: AnyHttpUrl | None = None
    """`jwt` mode: where the issuer publishes its signing keys (a JWKS document)."""
    issuer: str | None = None
    """`jwt` mode: the `iss` every token must carry."""
    audience: str | None = None
    """`jwt` mode: the `aud` every token must carry (this harness, as the issuer names it)."""
    participant_claim: NonEmptyStr = "sub"
    """`jwt` mode: the claim whose text is the caller's participant id."""
    algorithms: tuple[JwtAlgorithm, ...] = Field(default=("RS256", "ES256"), min_length=1)
    """`jwt` mode: the signature algorithms accepted."""
    leeway: Annotated[Duration, Field(ge=timedelta(0), le=timedelta(minutes=5))] = timedelta(
        seconds=30
    )
    """`jwt` mode: the clock skew allowed on `exp` and `nbf` (at most 5 minutes)."""

    @field_validator("algorithms", mode="before")
    @classmethod
    def _comma_separated(cls, value: object) -> object:
        return tuple(part.strip() for part in value.split(",")) if isinstance(value, str) else value

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
        if self.mode != "api_key" and self.api_keys:
            raise ValueError('api_keys are only read in mode "api_key"')
        if self.mode == "jwt":
            missing = [
                name for name in ("jwks_url", "issuer", "audience") if not getattr(self, name)
            ]
            if missing:
                raise ValueError(f"mode jwt needs {', '.join(missing)}")
        digests = [key.sha256 for key in self.api_keys]
        if len(set(digests)) != len(digests):
            raise ValueError("api_keys holds one digest twice")
        return self
