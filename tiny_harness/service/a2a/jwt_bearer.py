"""`JwtBearer`: authenticates an A2A call by its bearer JWT (`[auth] mode = "jwt"`).

    Authorization: Bearer <JWT> ─► its header: an allowed algorithm, a key id
        ─► the issuer's key of that id (`Jwks`: fetched once, kept; fetched again once
           when a token names a key it lacks, at most every REFETCH_SECONDS)
        ─► PyJWT verifies the signature with that key and the allowed algorithms only,
           then `iss`, `aud`, `exp` and `nbf` (with the configured leeway)
        ─► the participant: the configured claim, one printable line

Everything wrong (no token, a malformed one, an algorithm not allowed, `none`, an HMAC
token, an unknown key, a bad signature, the wrong issuer or audience, expired, not yet
valid, no participant claim) is the same 401 (`authentication.refuse`); the reason is
logged at INFO, never the token. The JWKS is fetched with httpx (PyJWT's own client
fetches with blocking urllib), its size bounded, redirects not followed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Final

import httpx
import jwt
from starlette.authentication import (
    AuthCredentials,
    AuthenticationBackend,
    AuthenticationError,
    BaseUser,
    SimpleUser,
)
from starlette.requests import HTTPConnection

from tiny_harness.service.a2a.authentication import PUBLIC_PREFIXES

logger = logging.getLogger(__name__)

MAX_JWKS_BYTES: Final = 65_536
FETCH_SECONDS: Final = 10.0
REFETCH_SECONDS: Final = 30.0
"""The least time between two fetches of the JWKS for an unknown key id: a flood of tokens
with made-up key ids costs the issuer one request per interval."""
MAX_PARTICIPANT: Final = 200


class Jwks:
    """The signing keys published at `url`, by key id."""

    def __init__(self, url: str, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.url = url
        self.fetches = 0
        self._clock = clock
        self._keys: dict[str, jwt.PyJWK] | None = None
        self._fetched_at = -REFETCH_SECONDS
        self._lock = asyncio.Lock()

    async def key(self, kid: str | None) -> jwt.PyJWK | None:
        """The key `kid` names (the only key, for a token without one), fetching the set
        the first time and once more when it lacks `kid`; None when there is none."""
        async with self._lock:
            if self._keys is None:
                await self._fetch()
            found = self._find(kid)
            if found is None and self._clock() - self._fetched_at >= REFETCH_SECONDS:
                await self._fetch()
                found = self._find(kid)
            return found

    def _find(self, kid: str | None) -> jwt.PyJWK | None:
        keys = self._keys or {}
        if kid is None:
            return next(iter(keys.values())) if len(keys) == 1 else None
        return keys.get(kid)

    async def _fetch(self) -> None:
        """Read the set again; on failure keep the keys known (logged)."""
        self._fetched_at = self._clock()
        self.fetches += 1
        try:
            document = await _read_capped(self.url)
            keys = _keys_of(json.loads(document))
        except (httpx.HTTPError, ValueError) as error:
            logger.warning("auth: the JWKS at %s cannot be read: %s", self.url, error)
            self._keys = self._keys or {}
            return
        self._keys = keys


class JwtBearer(AuthenticationBackend):
    """Authenticates a request by its bearer JWT (see the module's docstring)."""

    def __init__(
        self,
        jwks: Jwks,
        *,
        issuer: str,
        audience: str,
        algorithms: tuple[str, ...],
        participant_claim: str = "sub",
        leeway: timedelta = timedelta(seconds=30),
    ) -> None:
        self.jwks = jwks
        self._issuer = issuer
        self._audience = audience
        self._algorithms = list(algorithms)
        self._claim = participant_claim
        self._leeway = leeway

    async def authenticate(self, conn: HTTPConnection) -> tuple[AuthCredentials, BaseUser] | None:
        """The token's participant; None on a public path. Raises `AuthenticationError`."""
        if conn.url.path.startswith(PUBLIC_PREFIXES):
            return None
        scheme, _, token = conn.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise AuthenticationError("no bearer token")
        participant = await self.participant(token.strip())
        return AuthCredentials(["authenticated"]), SimpleUser(participant)

    async def participant(self, token: str) -> str:
        """The participant `token` names, once it is verified; `AuthenticationError`."""
        try:
            header = jwt.get_unverified_header(token)
            algorithm = header.get("alg")
            if algorithm not in self._algorithms:
                raise AuthenticationError(f"algorithm {str(algorithm)[:20]!r} is not allowed")
            kid = header.get("kid")
            key = await self.jwks.key(kid if isinstance(kid, str) else None)
            if key is None:
                raise AuthenticationError("no key of the issuer has the token's key id")
            claims = jwt.decode(
                token,
                key,
                algorithms=self._algorithms,
                audience=self._audience,
                issuer=self._issuer,
                leeway=self._leeway,
                options={"require": ["exp", "iss", "aud"]},
            )
        except jwt.PyJWTError as error:
            logger.info("auth: a token was refused: %s", type(error).__name__)
            raise AuthenticationError("invalid token") from None
        except AuthenticationError as error:
            logger.info("auth: a token was refused: %s", error)
            raise
        named = claims.get(self._claim)
        if not isinstance(named, str) or not _participant_like(named):
            logger.info("auth: a token has no usable %r claim", self._claim)
            raise AuthenticationError("no participant")
        return named


def _participant_like(text: str) -> bool:
    return 0 < len(text) <= MAX_PARTICIPANT and text == text.strip() and text.isprintable()


async def _read_capped(url: str) -> bytes:
    """The body at `url`, refused (ValueError) past `MAX_JWKS_BYTES` or on an error status."""
    async with (
        httpx.AsyncClient(timeout=FETCH_SECONDS, follow_redirects=False) as http,
        http.stream("GET", url, headers={"Accept": "application/json"}) as response,
    ):
        if response.status_code != 200:
            raise ValueError(f"status {response.status_code}")
        body = bytearray()
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) > MAX_JWKS_BYTES:
                raise ValueError(f"larger than {MAX_JWKS_BYTES} bytes")
    return bytes(body)


def _keys_of(document: object) -> dict[str, jwt.PyJWK]:
    """The usable keys of a JWKS document by key id (keys without one under "")."""
    if not isinstance(document, dict) or not isinstance(document.get("keys"), list):
        raise ValueError("not a JWKS document (no keys array)")
    keys: dict[str, jwt.PyJWK] = {}
    for entry in document["keys"]:
        if not isinstance(entry, dict) or entry.get("use", "sig") != "sig":
            continue
        try:
            key = jwt.PyJWK(entry)
        except jwt.PyJWTError:
            continue  # a key type or algorithm this server cannot use
        keys[str(entry.get("kid", ""))] = key
    return keys
