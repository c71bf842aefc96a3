"""The credential a remote agent requires, matched to its card and sent on every call.

    spec.auth (bearer | api_key) ─► the card's schemes it fits ─► `SchemeCredential`
        ─► a2a-sdk's `AuthInterceptor` puts it on every call the client makes: SendMessage,
           GetTask, SubscribeToTask, CancelTask, push configs (the RemoteAgent's and its
           stand-ins' alike)

A bearer credential fits an HTTP `Bearer` scheme, OAuth2 or OpenID Connect; an API key
fits an `apiKey` scheme in a header of the configured name. The secret comes from the
environment variable the configuration names, read when the agent is connected.
"""

from __future__ import annotations

from a2a.client import ClientCallContext
from a2a.client.auth import CredentialService
from a2a.types import AgentCard, SecurityScheme

from tiny_harness.harness.agents.spec import AgentAuth


class SchemeCredential(CredentialService):
    """`secret` for the card's schemes named `schemes`, nothing for any other."""

    def __init__(self, secret: str, schemes: frozenset[str]) -> None:
        self._secret = secret
        self._schemes = schemes

    async def get_credentials(
        self, security_scheme_name: str, context: ClientCallContext | None
    ) -> str | None:
        """The secret, for a scheme it fits."""
        return self._secret if security_scheme_name in self._schemes else None


def fitting_schemes(card: AgentCard, auth: AgentAuth) -> frozenset[str]:
    """The names of the card's required schemes that `auth` fits."""
    required = {name for r in card.security_requirements for name in r.schemes}
    return frozenset(
        name
        for name in required
        if name in card.security_schemes and _fits(card.security_schemes[name], auth)
    )


def _fits(scheme: SecurityScheme, auth: AgentAuth) -> bool:
    if auth.scheme == "bearer":
        http = scheme.http_auth_security_scheme
        bearer = scheme.HasField("http_auth_security_scheme") and http.scheme.lower() == "bearer"
        oauth = scheme.HasField("oauth2_security_scheme")
        return bearer or oauth or scheme.HasField("open_id_connect_security_scheme")
    key = scheme.api_key_security_scheme
    return (
        scheme.HasField("api_key_security_scheme")
        and key.location.lower() == "header"
        and key.name.lower() == auth.header.lower()
    )
