"""The one error tree of tiny-harness.

Every error the harness raises on purpose descends from `TinyHarnessError` and carries a
stable, machine-readable `code`. None of them ever carries a secret in its message.

    TinyHarnessError
    ├── ConfigError(variable)            configuration cannot be loaded or is invalid
    ├── RegistryError                    a registry lookup or change cannot be done
    │   ├── EntityNotFoundError          no entity answers to a reference
    │   ├── VersionNotFoundError         the entity exists, but no version matches
    │   └── RegistryConflictError        the entity is registered already (no override)
    ├── ScriptError                      a scripted-model script is malformed
    ├── ToolError                        a tool call cannot be honoured
    │   ├── ToolNotFoundError            the model named a tool nobody registered
    │   └── ToolArgumentError            the arguments fail the tool's input schema
    ├── PlanError                        a plan is malformed (duplicate ids, unknown deps)
    │   └── PlanCycleError               a plan's dependencies form a cycle
    ├── StoreError                       the store could not read or write a record
    ├── TemporalUnavailableError         the Temporal service cannot be reached or started
    ├── WatchUnavailableError            a task's workflow cannot take a watch now (read instead)
    ├── HttpBindError                    the HTTP server cannot listen on its address
    └── TaskRefusedError                 a request about a task is refused (see subclasses)
        ├── UnknownTaskError             no task with that id exists
        ├── FinalTaskError               the task is in a final state and takes no more input
        └── InvalidMessageError          the message cannot be taken as it is (no parts, say)
"""

from __future__ import annotations


class TinyHarnessError(Exception):
    """Root of every error raised on purpose by tiny-harness."""

    code: str = "tiny_harness_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ConfigError(TinyHarnessError):
    """Raised at startup when configuration is missing, unknown or invalid.

    `variable` names the environment variable or TOML key at fault, so the operator can
    fix it without reading a traceback.
    """

    code = "config_error"

    def __init__(self, message: str, *, variable: str | None = None) -> None:
        super().__init__(message)
        self.variable = variable


class RegistryError(TinyHarnessError):
    """Raised when a registry lookup or change cannot be done."""

    code = "registry_error"


class EntityNotFoundError(RegistryError):
    """Raised when no registered entity answers to a reference (or not as the kind asked)."""

    code = "entity_not_found"


class VersionNotFoundError(RegistryError):
    """Raised when an entity is registered but none of its versions matches the reference."""

    code = "version_not_found"


class RegistryConflictError(RegistryError):
    """Raised when adding an entity that is registered already, without `override=True`."""

    code = "registry_conflict"


class ScriptError(TinyHarnessError):
    """Raised when a scripted-model script cannot be read or fails validation."""

    code = "script_error"


class ToolError(TinyHarnessError):
    """Raised when a tool call cannot be honoured; the loop turns it into an error result."""

    code = "tool_error"


class ToolNotFoundError(ToolError):
    """Raised when the model calls a tool that is not registered."""

    code = "tool_not_found"


class ToolArgumentError(ToolError):
    """Raised when a tool call's arguments fail the tool's input schema."""

    code = "tool_argument_invalid"


class PlanError(TinyHarnessError):
    """Raised when a plan is malformed: duplicate step ids or unknown dependencies."""

    code = "plan_invalid"


class PlanCycleError(PlanError):
    """Raised when a plan's step dependencies form a cycle."""

    code = "plan_cycle"


class StoreError(TinyHarnessError):
    """Raised when the store cannot read or write a record."""

    code = "store_error"


class TemporalUnavailableError(TinyHarnessError):
    """Raised when the Temporal service cannot be reached, or the embedded one will not start."""

    code = "temporal_unavailable"


class WatchUnavailableError(TinyHarnessError):
    """Raised by the gateway when a task's workflow cannot take a watch (it has closed, or
    it is at its limit of in-flight updates); the event bridge then reads the log instead."""

    code = "watch_unavailable"


class HttpBindError(TinyHarnessError):
    """Raised when the HTTP server cannot listen on its address (the port is taken, say)."""

    code = "http_bind_failed"


class TaskRefusedError(TinyHarnessError):
    """Raised when a request about a task is refused; nothing about the task changes."""

    code = "task_refused"


class UnknownTaskError(TaskRefusedError):
    """Raised when a request names a task id that does not exist."""

    code = "task_not_found"


class FinalTaskError(TaskRefusedError):
    """Raised when a message is sent to a task that is already in a final state."""

    code = "task_final"


class InvalidMessageError(TaskRefusedError):
    """Raised when a message cannot be accepted as it is: no parts, or a context id that
    contradicts the task it names."""

    code = "message_invalid"
