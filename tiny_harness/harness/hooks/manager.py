"""`HookManager`: runs the chain of executors subscribed to a hook point.

    run(point, ctx)                       run_body(point, ctx, body)
    ───────────────                       ──────────────────────────
    ctx ─▶ e1 ─▶ e2 ─▶ … ─▶ ctx'          ctx ─▶ e(prio<1000)… ─▶ [body if result is None]
          (priority, registration)              ─▶ e(prio≥1000)… ─▶ ctx' (result set)

The contract, for both:
- The executors subscribed to `point` run one after another, ordered by (priority,
  registration order); lower priorities run first. The set is taken when the run starts:
  registering or unregistering during a run does not change it.
- Each executor gets the current context. A returned context replaces it for the next
  executor and for the caller; None passes the current one on unchanged.
- A replacement must be of exactly the context's class and keep its `task_id` and
  `correlation_id`; anything else raises `HookContractError` and stops the chain.
- `HookAbort` (and any other exception an executor raises, `HookTransportError` of a remote
  executor included) stops the chain and propagates to the caller unchanged: the operation
  does not happen.
- The context's class must be the one `context_type(point)` names, else `HookContractError`
  (an unknown point raises `UnknownHookPointError`).

`run` is for `pre` and `post` points. `run_body` is for `in` points, whose context has a
`result`: the default `body` sits in the chain at `DEFAULT_PRIORITY`, ahead of executors of
that same priority (it belongs to the built-ins, registered first). It is called only if no
earlier executor has set `result`; so an executor with a lower priority number that sets
`result` wins over the default, and executors with a priority of `DEFAULT_PRIORITY` or more
see (and may replace) whichever result was produced. The body gets and returns the context
under the same rules as an executor. After the chain, `result` must be set, else
`HookContractError`.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from tiny_harness.errors import (
    EntityNotFoundError,
    HookContractError,
    RegistryConflictError,
)
from tiny_harness.harness.hooks.contexts import BodyContext, HookContext, context_type
from tiny_harness.harness.hooks.executor import DEFAULT_PRIORITY, HookAbort, HookExecutor
from tiny_harness.harness.hooks.points import HookPoint, Phase

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Registration:
    executor: HookExecutor
    order: int

    @property
    def key(self) -> tuple[int, int]:
        return (self.executor.priority, self.order)


class HookManager:
    """The executors of one harness, and the chains they form at each point."""

    def __init__(self) -> None:
        self._registrations: dict[str, _Registration] = {}
        self._counter = itertools.count()

    def register(self, executor: HookExecutor) -> None:
        """Add `executor`; raises `RegistryConflictError` when its name is taken."""
        if executor.name in self._registrations:
            raise RegistryConflictError(f"a hook executor named {executor.name!r} is registered")
        self._registrations[executor.name] = _Registration(executor, next(self._counter))

    def unregister(self, name: str) -> None:
        """Remove the executor called `name`; raises `EntityNotFoundError` when there is none."""
        if self._registrations.pop(name, None) is None:
            raise EntityNotFoundError(f"no hook executor named {name!r} is registered")

    def subscribers(self, point: HookPoint) -> tuple[HookExecutor, ...]:
        """The executors called at `point`, in the order they run."""
        chosen = [r for r in self._registrations.values() if point in r.executor.points]
        return tuple(r.executor for r in sorted(chosen, key=lambda r: r.key))

    async def run[C: HookContext](self, point: HookPoint, ctx: C) -> C:
        """Pass `ctx` through the executors of a `pre` or `post` point (module docstring)."""
        if point.phase is Phase.IN:
            raise HookContractError(f"{point} replaces a body: run it with run_body")
        _check_context(point, ctx)
        return await self._chain(point, ctx, self.subscribers(point))

    async def run_body[C: BodyContext](
        self, point: HookPoint, ctx: C, body: Callable[[C], Awaitable[C]]
    ) -> C:
        """Run the chain of an `in` point around its default `body` (module docstring)."""
        if point.phase is not Phase.IN:
            raise HookContractError(f"{point} has no body to replace: run it with run")
        _check_context(point, ctx)
        executors = self.subscribers(point)
        before = tuple(e for e in executors if e.priority < DEFAULT_PRIORITY)
        after = tuple(e for e in executors if e.priority >= DEFAULT_PRIORITY)
        current = await self._chain(point, ctx, before)
        if current.result is None:
            current = _accept(point, "the default body", current, await body(current))
        current = await self._chain(point, current, after)
        if current.result is None:
            raise HookContractError(f"{point}: the chain ended without a result")
        return current

    async def _chain[C: HookContext](
        self, point: HookPoint, ctx: C, executors: Sequence[HookExecutor]
    ) -> C:
        current = ctx
        for executor in executors:
            try:
                replacement = await executor.handle(point, current)
            except HookAbort as abort:
                logger.info(
                    "%s: executor %s aborted the operation of task %s (%s)",
                    point,
                    executor.name,
                    current.task_id,
                    abort.reason.code,
                )
                raise
            if replacement is not None:
                current = _accept(point, f"executor {executor.name!r}", current, replacement)
                logger.debug("%s: executor %s replaced the context", point, executor.name)
        return current


def _check_context(point: HookPoint, ctx: HookContext) -> None:
    expected = context_type(point)
    if type(ctx) is not expected:
        raise HookContractError(
            f"{point} takes a {expected.__name__} context, got {type(ctx).__name__}"
        )


def _accept[C: HookContext](point: HookPoint, source: str, current: C, replacement: object) -> C:
    """`replacement` as the new context, if it keeps the contract."""
    # Exactly the same class: a subclass (a Post for a Pre, say) would break the caller.
    if not isinstance(replacement, type(current)) or type(replacement) is not type(current):
        raise HookContractError(
            f"{point}: {source} returned a {type(replacement).__name__}, "
            f"expected {type(current).__name__} or None"
        )
    if (replacement.task_id, replacement.correlation_id) != (
        current.task_id,
        current.correlation_id,
    ):
        raise HookContractError(f"{point}: {source} changed the task or correlation id")
    return replacement
