"""What a hook executor is, how one vetoes an operation, and how a local one is loaded.

An executor subscribes to hook points and handles the context of each; it returns a new
context to replace it, None to pass it on, or raises `HookAbort` to cancel the operation.
Local executors live in this process and are found by an import path
(`package.module:attribute`); remote ones are in `remote.py`. Loading imports code, so
import paths must come from trusted configuration only.
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass
from typing import Protocol, TypeGuard, runtime_checkable

from pydantic import BaseModel

from tiny_harness.errors import HookLoadError, TinyHarnessError
from tiny_harness.harness.hooks.contexts import HookContext
from tiny_harness.harness.hooks.points import HookPoint

DEFAULT_PRIORITY = 1000
"""The priority of the built-in executors and default bodies; lower numbers run first."""


@runtime_checkable
class HookExecutor(Protocol):
    """Something that handles the contexts of the points it subscribes to.

    `handle` gets the current context of one of `points` and returns a replacement of the
    same class (same `task_id` and `correlation_id`), None to pass it on unchanged, or raises
    `HookAbort` to cancel the operation. It must not mutate the context it was given.
    """

    @property
    def name(self) -> str:
        """Unique among the executors of one manager."""
        ...

    @property
    def priority(self) -> int:
        """Lower runs first; built-in defaults are `DEFAULT_PRIORITY`."""
        ...

    @property
    def points(self) -> frozenset[HookPoint]:
        """The points this executor is called at."""
        ...

    async def handle(self, point: HookPoint, ctx: HookContext) -> HookContext | None:
        """Replace, pass on (None) or abort (raise `HookAbort`) the context at `point`."""
        ...


class AbortReason(BaseModel, frozen=True):
    """Why an executor cancelled an operation: a stable `code` and a human message."""

    code: str
    message: str


class HookAbort(TinyHarnessError):  # noqa: N818 - the design's name: a veto, not a fault
    """Raised by an executor to cancel the operation; carries a typed reason.

    Not a failure of the hook machinery: the operation is refused on purpose, so it is
    never retried.
    """

    code = "hook_abort"

    def __init__(self, reason: AbortReason) -> None:
        super().__init__(f"{reason.code}: {reason.message}")
        self.reason = reason

    def __reduce__(self) -> tuple[type[HookAbort], tuple[AbortReason]]:
        return (type(self), (self.reason,))


@dataclass(frozen=True)
class LocalHookExecutor:
    """An in-process executor loaded from `import_path`; every call goes to `target`."""

    import_path: str
    target: HookExecutor

    @property
    def name(self) -> str:
        """The target's name."""
        return self.target.name

    @property
    def priority(self) -> int:
        """The target's priority."""
        return self.target.priority

    @property
    def points(self) -> frozenset[HookPoint]:
        """The target's points."""
        return self.target.points

    async def handle(self, point: HookPoint, ctx: HookContext) -> HookContext | None:
        """The target's answer."""
        return await self.target.handle(point, ctx)


def load_executor(import_path: str) -> LocalHookExecutor:
    """The executor `import_path` ("package.module:attribute") names.

    The attribute (dots allowed: `module:Holder.hook`) is an executor instance, or a
    zero-argument callable returning one (a class counts as such a callable). Raises
    `HookLoadError` when the path is malformed, the import or the factory fails, or what it
    leads to is not an executor.
    """
    module_name, colon, attribute = import_path.partition(":")
    if not colon or not module_name or not attribute:
        raise HookLoadError(f"{import_path!r} is not an import path like 'package.module:name'")
    try:
        found: object = importlib.import_module(module_name)
    except Exception as error:  # importing runs arbitrary code; any failure is a load failure
        raise HookLoadError(
            f"cannot import {module_name!r} for {import_path!r}: {error}"
        ) from error
    for part in attribute.split("."):
        try:
            found = getattr(found, part)
        except AttributeError as error:
            raise HookLoadError(f"{import_path!r}: no attribute {part!r}") from error
    if not _is_executor(found) and callable(found):
        try:
            found = found()
        except Exception as error:  # the factory is foreign code
            raise HookLoadError(f"{import_path!r}: the factory failed: {error}") from error
    if not _is_executor(found):
        raise HookLoadError(
            f"{import_path!r} is not a hook executor (needs name: str, priority: int, "
            f"points: frozenset[HookPoint] and an async handle), got {type(found).__name__}"
        )
    return LocalHookExecutor(import_path=import_path, target=found)


def _is_executor(value: object) -> TypeGuard[HookExecutor]:
    # isinstance against a runtime-checkable protocol only checks that the members exist;
    # a class object would pass too, so check the instance's values as well.
    if isinstance(value, type) or not isinstance(value, HookExecutor):
        return False
    points = value.points
    return (
        isinstance(value.name, str)
        and bool(value.name)
        and isinstance(value.priority, int)
        and not isinstance(value.priority, bool)
        and isinstance(points, frozenset)
        and all(isinstance(point, HookPoint) for point in points)
        and inspect.iscoroutinefunction(value.handle)
    )
