"""The agent card: what this server tells clients it can do, and nothing more, and the
route that serves it with caching headers."""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import format_datetime, parsedate_to_datetime
from typing import Final

from a2a.server.routes import create_agent_card_routes
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentExtension,
    AgentInterface,
    AgentSkill,
    APIKeySecurityScheme,
    HTTPAuthSecurityScheme,
    SecurityScheme,
)
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tiny_harness import __version__
from tiny_harness.harness.a2ui.messages import (
    A2UI_EXTENSION_URI,
    A2UI_MEDIA_TYPE,
    A2UI_VERSION,
    BASIC_CATALOG_ID,
)
from tiny_harness.harness.channels.extension import CHANNEL_EXTENSION_URI, CHANNEL_MEDIA_TYPE
from tiny_harness.harness.tasks.extension import TASK_EXTENSION_URI

JSONRPC_PATH: Final = "/"
REST_PATH: Final = "/rest"
PROTOCOL_VERSION: Final = "1.0"
CARD_CACHE_CONTROL: Final = "public, max-age=300"
"""Clients may keep the card five minutes, then revalidate (ETag or Last-Modified)."""


def build_agent_card(base_url: str, *, model: str, push: bool, auth: str = "none") -> AgentCard:
    """The card for a server reachable at `base_url` (no trailing slash).

    It advertises streaming (the event bridge), both bindings, push notifications when
    `push` (the server has an outbound push store), the task extension (optional: a
    message may carry a task envelope) and the channel extension (optional: a message may
    post to its task's channel; both in docs/a2a/ext/); there is no extended card. `auth`
    is the server's `[auth] mode`: with "api_key" it declares the two ways a call presents
    its key, either of which is required (`authentication.py`); with "jwt", a bearer JWT
    (`jwt_bearer.py`). The card itself stays public.
    """
    card = AgentCard(
        name="tiny-harness",
        description=(
            "A durable agent: every task runs as a Temporal workflow that plans, calls tools "
            f"and asks for input when it needs it. Model: {model}."
        ),
        version=__version__,
        supported_interfaces=[
            AgentInterface(
                url=base_url + JSONRPC_PATH,
                protocol_binding="JSONRPC",
                protocol_version=PROTOCOL_VERSION,
            ),
            AgentInterface(
                url=base_url + REST_PATH,
                protocol_binding="HTTP+JSON",
                protocol_version=PROTOCOL_VERSION,
            ),
        ],
        capabilities=AgentCapabilities(
            streaming=True,
            push_notifications=push,
            extensions=_extensions(),
        ),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[
            AgentSkill(
                id="general-task",
                name="General task",
                description=(
                    "Carries out a task described in plain text, asking when it needs input."
                ),
                tags=["general", "planning"],
                examples=["Summarise the steps to rotate an API key."],
            )
        ],
    )
    if auth == "api_key":
        _declare_api_keys(card)
    elif auth == "jwt":
        jwt = HTTPAuthSecurityScheme(
            scheme="Bearer", bearer_format="JWT", description="A JWT from this harness's issuer."
        )
        card.security_schemes["bearer"].CopyFrom(SecurityScheme(http_auth_security_scheme=jwt))
        card.security_requirements.add().schemes["bearer"].SetInParent()
    return card


def _declare_api_keys(card: AgentCard) -> None:
    """The key as a bearer token or in `X-API-Key`: either scheme alone satisfies."""
    bearer = HTTPAuthSecurityScheme(
        scheme="Bearer", description="An API key of this harness, as a bearer token."
    )
    header = APIKeySecurityScheme(
        location="header", name="X-API-Key", description="An API key of this harness."
    )
    card.security_schemes["bearer"].CopyFrom(SecurityScheme(http_auth_security_scheme=bearer))
    card.security_schemes["api_key"].CopyFrom(SecurityScheme(api_key_security_scheme=header))
    for name in ("bearer", "api_key"):
        requirement = card.security_requirements.add()
        requirement.schemes[name].SetInParent()


def _extensions() -> list[AgentExtension]:
    """The extensions the card offers, none required: the task, channel and A2UI ones."""
    return [
        AgentExtension(
            uri=TASK_EXTENSION_URI,
            description=(
                "Task envelopes: a data part of media type "
                "application/vnd.tiny-harness.event+json carrying what A2A's Task "
                "lacks (name, goal, acceptance criteria, parent tasks)."
            ),
            required=False,
        ),
        AgentExtension(
            uri=CHANNEL_EXTENSION_URI,
            description=(
                f"Channel messages: a data part of media type {CHANNEL_MEDIA_TYPE} "
                "posting to the task's channel (its participants), such as a help "
                "request or its reply."
            ),
            required=False,
        ),
        a2ui_extension(),
    ]


def card_route(card: AgentCard, *, modified: datetime) -> Route:
    """`GET /.well-known/agent-card.json`: the SDK's own card endpoint (its JSON, `ETag`,
    `If-None-Match`, `Cache-Control`), plus `Last-Modified: modified` and `If-Modified-Since`.

    `modified` is when this card came to be (the app's creation); it is sent to the second,
    as HTTP dates are. Mount it in place of the SDK's card route (it answers for it).
    """
    (sdk_route,) = create_agent_card_routes(card, cache_control=CARD_CACHE_CONTROL)
    serve = sdk_route.endpoint
    to_the_second = modified.astimezone(UTC).replace(microsecond=0)
    last_modified = format_datetime(to_the_second, usegmt=True)

    async def get_card(request: Request) -> Response:
        response: Response = await serve(request)
        response.headers["Last-Modified"] = last_modified
        if response.status_code == 200 and _unchanged_since(request, to_the_second):
            kept = ("etag", "cache-control", "last-modified")
            headers = {name: response.headers[name] for name in kept if name in response.headers}
            return Response(status_code=304, headers=headers)
        return response

    return Route(sdk_route.path, get_card, methods=["GET"])


def _unchanged_since(request: Request, modified: datetime) -> bool:
    """Whether the request's If-Modified-Since covers `modified` (RFC 9110 13.1.3: ignored
    when If-None-Match is present, or when it is not one valid HTTP date)."""
    if "if-none-match" in request.headers:
        return False
    header = request.headers.get("if-modified-since")
    if header is None:
        return False
    try:
        date = parsedate_to_datetime(header)
    except (TypeError, ValueError):
        return False
    if date.tzinfo is None:
        return False  # no zone, or "-0000": not an HTTP date, which is always GMT
    return modified <= date


def a2ui_extension() -> AgentExtension:
    """The A2UI extension as the card offers it: the basic catalog, no inline catalogs."""
    extension = AgentExtension(
        uri=A2UI_EXTENSION_URI,
        description=(
            f"A2UI {A2UI_VERSION}: surfaces drawn in data parts of media type "
            f"{A2UI_MEDIA_TYPE}; a user's action on one comes back the same way."
        ),
        required=False,
    )
    extension.params.update(
        {"supportedCatalogIds": [BASIC_CATALOG_ID], "acceptsInlineCatalogs": False}
    )
    return extension
