"""Registers the task workflows' search attributes (`durable/search_attributes.py`) on the
namespace when a process connects, where the namespace allows it.

A dev server and a self-hosted cluster let a client add them (Temporal's operator API);
Temporal Cloud does not (they are created in its UI or with `tcld`): then the attributes
already there are used, and without them tasks are not searchable by their A2A fields,
which is logged once, with the command that would create them.
"""

from __future__ import annotations

import logging

from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import (
    AddSearchAttributesRequest,
    ListSearchAttributesRequest,
)
from temporalio.client import Client
from temporalio.service import RPCError, RPCStatusCode

from tiny_harness.service.durable.search_attributes import KEYS

logger = logging.getLogger(__name__)

_KEYWORD = IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD


async def register_search_attributes(client: Client, namespace: str) -> bool:
    """Whether every attribute is registered on `namespace` now (adding the missing ones
    when the namespace lets this client)."""
    try:
        missing = await _missing(client, namespace)
        if missing:
            await _add(client, namespace, missing)
            missing = await _missing(client, namespace)
    except RPCError as error:
        missing = [key.name for key in KEYS]
        reason = error.message
    else:
        reason = "another type has one of their names"
    if not missing:
        return True
    create = " ".join(f"--name {name} --type Keyword" for name in missing)
    logger.warning(
        "temporal: tasks are not searchable by %s on the namespace %s (%s); create them "
        "with `temporal operator search-attribute create %s` (or in Temporal Cloud's UI) "
        "and restart",
        ", ".join(missing),
        namespace,
        reason,
        create,
    )
    return False


async def _add(client: Client, namespace: str, names: list[str]) -> None:
    request = AddSearchAttributesRequest(
        namespace=namespace, search_attributes=dict.fromkeys(names, _KEYWORD)
    )
    try:
        await client.operator_service.add_search_attributes(request)
    except RPCError as error:
        if error.status != RPCStatusCode.ALREADY_EXISTS:  # another process added them
            raise


async def _missing(client: Client, namespace: str) -> list[str]:
    """The attributes the namespace does not have as keywords."""
    listed = await client.operator_service.list_search_attributes(
        ListSearchAttributesRequest(namespace=namespace)
    )
    custom = dict(listed.custom_attributes)
    return [key.name for key in KEYS if custom.get(key.name) != _KEYWORD]
