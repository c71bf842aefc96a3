"""`[push]`: push notifications to our own clients, and the guard's allow list."""

from __future__ import annotations

import ipaddress
import json
import re
from datetime import timedelta
from typing import Annotated

from pydantic import BaseModel, Field, field_validator

from tiny_harness.harness.settings.duration import Duration

_HOST_NAME = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*")


class PushSettings(BaseModel, extra="forbid", frozen=True, hide_input_in_errors=True):
    """Push notifications to our own clients: which targets the outbound URL guard lets
    through, how long a notification is retried, how many configs a task may have."""

    allow: tuple[str, ...] = ()
    """Host names, IP addresses or CIDR networks a push URL may target although they are
    private, loopback or link-local, or reached over plain http: for development and tests
    only. In the environment, a comma-separated list or a JSON array of strings. Normalised:
    host names lower-cased without a trailing dot, addresses in their compressed form, networks
    to their network address (``10.0.0.1/8`` is ``10.0.0.0/8``)."""
    delivery_window: Annotated[Duration, Field(ge=timedelta(seconds=1))] = timedelta(hours=1)
    """How long one notification is retried with backoff before it is dropped."""
    max_configs_per_task: int = Field(default=10, ge=1)
    """How many push configs one task may have; a new one beyond that is refused."""

    @field_validator("allow", mode="before")
    @classmethod
    def _split_allow_list(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        if value.lstrip().startswith("["):
            try:
                parsed: object = json.loads(value)
            except json.JSONDecodeError as error:
                raise ValueError(
                    "allow must be a comma-separated list or a JSON array of strings "
                    f"(not valid JSON at line {error.lineno}, column {error.colno})"
                ) from None
            return parsed
        return tuple(part for part in value.split(",") if part.strip())

    @field_validator("allow")
    @classmethod
    def _allow_entries_are_hosts_or_networks(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(_allow_entry(entry) for entry in value)


def _allow_entry(entry: str) -> str:
    """`entry` normalised, or ValueError saying it is no host name, address or network."""
    text = entry.strip().lower()
    if text.startswith("[") and text.endswith("]"):  # a bracketed IPv6 address, as in URLs
        text = text[1:-1]
    try:
        if "/" in text:
            return str(ipaddress.ip_network(text, strict=False))
        return str(ipaddress.ip_address(text))
    except ValueError:
        pass
    name = text.removesuffix(".")
    if len(name) <= 253 and _HOST_NAME.fullmatch(name):
        return name
    raise ValueError(
        f"allow entries are host names, IP addresses or CIDR networks (10.0.0.0/8); "
        f"{entry!r} is none of them"
    )
