"""Who may call this server: the authentication `[auth]` asks for (`config/auth.py`).

`api_key` mode authenticates every A2A call by its key (`a2a/authentication.py`), `jwt`
mode by its bearer JWT (`a2a/jwt_bearer.py`). In
`none` mode nobody is authenticated and a caller is whoever it says it is, which is right
only behind a perimeter that authenticates: listening on anything but a loopback address
that way is logged as a warning at startup.
"""

from __future__ import annotations

import logging

from starlette.authentication import AuthenticationBackend

from tiny_harness.config import Settings
from tiny_harness.harness.plugins.manifest import is_loopback_host
from tiny_harness.service.a2a.authentication import ApiKeys
from tiny_harness.service.a2a.jwt_bearer import Jwks, JwtBearer

logger = logging.getLogger(__name__)


def authenticator(settings: Settings) -> AuthenticationBackend | None:
    """The authentication of every A2A call, or None when `[auth] mode` is none (warned
    about when the server listens beyond loopback)."""
    auth = settings.auth
    if auth.mode == "api_key":
        logger.info("auth: api_key, %d key(s)", len(auth.api_keys))
        return ApiKeys([(key.sha256, key.participant) for key in auth.api_keys])
    if auth.mode == "jwt":
        logger.info("auth: jwt from %s, keys at %s", auth.issuer, auth.jwks_url)
        return JwtBearer(
            Jwks(str(auth.jwks_url)),
            issuer=auth.issuer or "",
            audience=auth.audience or "",
            algorithms=auth.algorithms,
            participant_claim=auth.participant_claim,
            leeway=auth.leeway,
        )
    if not is_loopback_host(settings.server.host):
        logger.warning(
            "auth: none, while listening on %s: any caller can claim to be any participant. "
            "Put an authenticating proxy in front, or set TINY_HARNESS_AUTH__MODE=api_key "
            "(keys from `tiny-harness keys new`)",
            settings.server.host,
        )
    return None
