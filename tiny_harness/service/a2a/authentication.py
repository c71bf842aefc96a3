"""Who is calling: the A2A server's authentication, before any request is read.

    request ─► AuthenticationMiddleware ─► ApiKeys.authenticate
                 │  a public path (the card, /healthz, /ui, a remote agent's push):
                 │    let through unauthenticated
                 │  no key, or one no digest matches: 401 (`refuse`), the same answer
                 │    whatever was wrong, nothing read or started
                 └► request.user = the key's participant ─► ServerCallContext.user
                      (the SDK's DefaultServerCallContextBuilder) ─► `access.py`

A key comes as `Authorization: Bearer <key>` or `X-API-Key: <key>`. Only digests are
configured (`config/auth.py`): the key's SHA-256 is compared with every configured digest
in constant time, all of them every time, so neither the answer nor its timing says which
keys exist. A remote agent's push (`/a2a/push/{id}`) carries its own token, checked by the
stand-in it rings, and stays outside; the web UI's files are public (they hold no task), and
what the UI reads it reads through the A2A routes with a key.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Sequence
from typing import Final

from starlette.authentication import (
    AuthCredentials,
    AuthenticationBackend,
    AuthenticationError,
    BaseUser,
    SimpleUser,
)
from starlette.requests import HTTPConnection
from starlette.responses import JSONResponse, Response

API_KEY_HEADER: Final = "x-api-key"
KEY_PREFIX: Final = "th_"
REALM: Final = 'Bearer realm="tiny-harness"'
PUBLIC_PREFIXES: Final = ("/.well-known/", "/healthz", "/a2a/push/", "/ui")
"""Paths that answer without a credential: the card (public by A2A), the health check, a
remote agent's push (its own token) and the web UI's files."""

_REFUSAL: Final = {"error": "unauthenticated", "message": "a valid credential is required"}


class ApiKeys(AuthenticationBackend):
    """Authenticates a request by its API key: `keys` pairs each key's SHA-256 (hex) with
    the participant it names."""

    def __init__(self, keys: Sequence[tuple[str, str]]) -> None:
        if not keys:
            raise ValueError("api_key authentication needs at least one key")
        self._keys = [(bytes.fromhex(digest), participant) for digest, participant in keys]

    async def authenticate(self, conn: HTTPConnection) -> tuple[AuthCredentials, BaseUser] | None:
        """The key's participant; None on a public path. Raises `AuthenticationError`
        (answered by `refuse`) for a missing or unknown key."""
        if conn.url.path.startswith(PUBLIC_PREFIXES):
            return None
        key = presented_key(conn)
        if key is None:
            raise AuthenticationError("no key")
        digest = hashlib.sha256(key.encode()).digest()
        found = ""
        for known, participant in self._keys:
            if hmac.compare_digest(digest, known):
                found = participant
        if not found:
            raise AuthenticationError("unknown key")
        return AuthCredentials(["authenticated"]), SimpleUser(found)


def new_key() -> str:
    """A fresh key: 256 random bits, URL-safe base64, with a prefix that says what it is."""
    return KEY_PREFIX + base64.urlsafe_b64encode(secrets.token_bytes(32)).decode().rstrip("=")


def key_digest(key: str) -> str:
    """What the configuration holds of `key`: the SHA-256 of its UTF-8 text, in hex."""
    return hashlib.sha256(key.encode()).hexdigest()


def presented_key(conn: HTTPConnection) -> str | None:
    """The key a request presents, if any: a bearer token, else `X-API-Key`."""
    scheme, _, token = conn.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    key = conn.headers.get(API_KEY_HEADER, "").strip()
    return key or None


def refuse(conn: HTTPConnection, exc: AuthenticationError) -> Response:
    """The one answer to a request without a valid key, whatever was wrong with it."""
    return JSONResponse(_REFUSAL, status_code=401, headers={"WWW-Authenticate": REALM})
