"""The agent card: what this server tells clients it can do, and nothing more."""

from __future__ import annotations

from typing import Final

from a2a.types import AgentCapabilities, AgentCard, AgentExtension, AgentInterface, AgentSkill

from tiny_harness import __version__
from tiny_harness.harness.core.task_ext import TASK_EXTENSION_URI

JSONRPC_PATH: Final = "/"
REST_PATH: Final = "/rest"
PROTOCOL_VERSION: Final = "1.0"


def build_agent_card(base_url: str, *, model: str, push: bool) -> AgentCard:
    """The card for a server reachable at `base_url` (no trailing slash).

    It advertises streaming (the event bridge), both bindings, push notifications when
    `push` (the server has an outbound push store) and the task extension (optional: a
    message may carry a task envelope; docs/a2a/ext/); there is no extended card.
    """
    return AgentCard(
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
            extensions=[
                AgentExtension(
                    uri=TASK_EXTENSION_URI,
                    description=(
                        "Task envelopes: a data part of media type "
                        "application/vnd.tiny-harness.event+json carrying what A2A's Task "
                        "lacks (name, goal, acceptance criteria, parent tasks)."
                    ),
                    required=False,
                )
            ],
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
