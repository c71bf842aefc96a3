"""`Toolsets`: the tools a model call offers, kept in the store once and named by digest.

    prepare_turn ─ keep(task, tools) ─► ToolsetRef (digest, names, idempotency) ─► history
                        │                                                │
                        └─ store blob (once per content, claimed         ▼
                           by the task), process cache ◄──── tools(ref) ─ invoke_llm

A turn's request offers every tool with its JSON schema: some 10 kB on a harness with only
its own tools, the same bytes turn after turn, task after task. Carried in the request, they
went through Temporal twice a turn (`prepare_turn`'s result, `invoke_llm`'s input), each
time serialised, masked, written to history and parsed again. Now the request in history
names its tools and points at the set by digest; the definitions are a blob in the store
(masked like any payload, written before their reference leaves the activity, claimed by
the task so they go with it) and in a small cache of the process, so a worker that
assembled a turn reads nothing to call its model, and any other worker reads them once.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

from pydantic import TypeAdapter

from tiny_harness.errors import MissingPayloadError
from tiny_harness.harness.context.window import prefix_chars
from tiny_harness.harness.persistence.store import Store, blob_digest
from tiny_harness.harness.security import Redactor
from tiny_harness.harness.tools.definition import ToolDefinition
from tiny_harness.service.durable.payloads import OfferedTool, ToolsetRef

_TOOLS: Final = TypeAdapter(tuple[ToolDefinition, ...])
_SETS: Final = 64
"""Tool sets kept in the process: one per distinct set of tools (a skill loaded makes one)."""
_CLAIMS: Final = 4096
"""(task, set) claims the process remembers having written, so a task claims a set once."""


@dataclass(frozen=True)
class _Kept:
    """A set of tools as given, as kept (masked), serialised, and its reference."""

    tools: tuple[ToolDefinition, ...]
    masked: tuple[ToolDefinition, ...]
    data: bytes
    ref: ToolsetRef


class Toolsets:
    """The tool sets of the turns one worker process assembles and calls."""

    def __init__(self, store: Callable[[], Awaitable[Store]], redactor: Redactor) -> None:
        """`store` opens the store the sets are kept in; `redactor` masks them first."""
        self._store = store
        self._redactor = redactor
        self._sets: OrderedDict[str, tuple[ToolDefinition, ...]] = OrderedDict()
        self._claimed: OrderedDict[tuple[str, str], None] = OrderedDict()
        self._known: OrderedDict[tuple[int, ...], _Kept] = OrderedDict()

    async def keep(self, task_id: str, tools: Sequence[ToolDefinition]) -> ToolsetRef:
        """Keep `tools` (masked) for `task_id`; the reference a request carries instead."""
        kept = self._kept(tools)
        if (task_id, kept.ref.digest) not in self._claimed:
            store = await self._store()
            await store.put_blob(kept.data, owner=task_id, stored_at=datetime.now(UTC))
            _remember(self._claimed, (task_id, kept.ref.digest), None, _CLAIMS)
        _remember(self._sets, kept.ref.digest, kept.masked, _SETS)
        return kept.ref

    def _kept(self, tools: Sequence[ToolDefinition]) -> _Kept:
        """`tools` masked, serialised and named. The harness hands the same definition
        objects turn after turn, so a set is known by the identity of its tools (the
        entry holds them, so no identity is reused while it is kept)."""
        key = tuple(id(tool) for tool in tools)
        kept = self._known.get(key)
        if kept is None:
            masked = tuple(self._redactor.model(tool) for tool in tools)
            data = _TOOLS.dump_json(masked)
            offered = tuple(OfferedTool(name=t.name, idempotency=t.idempotency) for t in masked)
            ref = ToolsetRef(
                digest=blob_digest(data), offered=offered, chars=prefix_chars("", masked)
            )
            kept = _Kept(tools=tuple(tools), masked=masked, data=data, ref=ref)
        _remember(self._known, key, kept, _SETS)
        return kept

    async def tools(self, ref: ToolsetRef) -> tuple[ToolDefinition, ...]:
        """The tools `ref` names, from the process's cache or the store. Raises
        `MissingPayloadError` when the store no longer has them (their task was purged)."""
        cached = self._sets.get(ref.digest)
        if cached is not None:
            self._sets.move_to_end(ref.digest)
            return cached
        data = await (await self._store()).get_blob(ref.digest)
        if data is None:
            raise MissingPayloadError(f"the tool set {ref.digest[:16]} is not in the store")
        tools = _TOOLS.validate_json(data)
        _remember(self._sets, ref.digest, tools, _SETS)
        return tools


def _remember[K, V](table: OrderedDict[K, V], key: K, value: V, size: int) -> None:
    """Put `key` in `table` as its newest entry, dropping the oldest past `size`."""
    table[key] = value
    table.move_to_end(key)
    while len(table) > size:
        table.popitem(last=False)
