"""Snapshots of tiny-harness's public interfaces, for the contract tests.

`api_snapshot()` describes every public name of the public packages: its kind, and for
functions and methods their signatures, for classes their bases, methods, properties and
attributes, for pydantic models and dataclasses their fields, for enums their members, for
errors their `code`. `schemas()` returns the JSON schemas other processes rely on: every hook
context (remote executors receive and return them) and the configuration.

Everything is plain JSON, sorted on write, and free of memory addresses, so the committed
files under `snapshots/` only change when an interface does. After a deliberate change run

    python -m tests.contract.snapshot --write

and commit the updated files; without `--write` the command only reports what differs.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import enum
import functools
import importlib
import inspect
import json
import re
import sys
import types
import typing
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePath
from typing import Final

from pydantic import BaseModel
from pydantic.fields import FieldInfo

type Json = bool | int | float | str | list[Json] | dict[str, Json] | None
type JsonObject = dict[str, Json]

UPDATE_COMMAND: Final = "python -m tests.contract.snapshot --write"

SNAPSHOT_DIR: Final = Path(__file__).resolve().parent / "snapshots"

FILES: Final[Mapping[str, str]] = {
    "api": "api.json",
    "hook_contexts": "hook_contexts.schema.json",
    "config": "config.schema.json",
}
"""Snapshot kind -> file name under `SNAPSHOT_DIR`."""

MODULES: Final[tuple[str, ...]] = (
    "tiny_harness.config",
    "tiny_harness.errors",
    "tiny_harness.harness.context.compaction",
    "tiny_harness.harness.context.window",
    "tiny_harness.harness.runtime.monitor",
    "tiny_harness.harness.settings.retry",
    "tiny_harness.harness.entities",
    "tiny_harness.harness.hooks",
    "tiny_harness.harness.models.anthropic",
    "tiny_harness.harness.models.factory",
    "tiny_harness.harness.models.llm",
    "tiny_harness.harness.models.openai",
    "tiny_harness.harness.models.openai_chat",
    "tiny_harness.harness.models.scripted",
    "tiny_harness.harness.models.system_one",
    "tiny_harness.harness.models.wire",
    "tiny_harness.harness.persistence.records",
    "tiny_harness.harness.persistence.retention",
    "tiny_harness.harness.persistence.sqlite",
    "tiny_harness.harness.persistence.store",
    "tiny_harness.harness.plugins",
    "tiny_harness.harness.prompts",
    "tiny_harness.harness.skills",
    "tiny_harness.harness.tools.definition",
    "tiny_harness.harness.tools.intrinsics",
    "tiny_harness.harness.tools.mcp",
    "tiny_harness.harness.tools.render",
    "tiny_harness.harness.tools.tool",
    "tiny_harness.harness.tools.validation",
)
"""The modules whose public names are pinned: the packages that declare `__all__`, and the
modules of the packages that do not (`tools`, `models`, `persistence`)."""

_OWN_PACKAGE: Final = "tiny_harness"

_DUNDERS: Final = frozenset(
    {
        "__init__",
        "__call__",
        "__str__",
        "__enter__",
        "__exit__",
        "__aenter__",
        "__aexit__",
        "__iter__",
        "__aiter__",
        "__len__",
        "__contains__",
        "__getitem__",
        "__bool__",
    }
)
"""Special methods that are part of a class's interface when tiny-harness defines them."""

_ADDRESS: Final = re.compile(r" at 0x[0-9a-fA-F]+")

_GROUP_DEPTH: Final[Mapping[str, int]] = {"api": 2, "hook_contexts": 1, "config": 0}
"""How deep a diff groups changes: module and name; hook point; the whole schema."""

_MAX_DETAILS: Final = 8
_MAX_LINES: Final = 80
_SHORT: Final = 70


# --------------------------------------------------------------------------------------------
# The public API


def api_snapshot() -> JsonObject:
    """Every public name of every module in `MODULES`, described (see the module docstring)."""
    snapshot: JsonObject = {}
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        snapshot[module_name] = {
            name: describe(getattr(module, name)) for name in public_names(module)
        }
    return normalise(snapshot)


def bind_type_checking_names(module: types.ModuleType) -> None:
    """Run the module's `if TYPE_CHECKING:` imports in it, so the type aliases that name a
    lazily imported SDK (the MCP client's `StdioServerParameters`) can be read here. The
    harness imports those SDKs only when it uses them; describing its API may import them."""
    tree = ast.parse(inspect.getsource(module))
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            imports: list[ast.stmt] = [
                n for n in node.body if isinstance(n, (ast.Import, ast.ImportFrom))
            ]
            code = compile(ast.Module(body=imports, type_ignores=[]), module.__name__, "exec")
            exec(code, module.__dict__)


def public_names(module: types.ModuleType) -> list[str]:
    """The module's `__all__`, or else every public name its own source binds at top level
    (imported names are someone else's API)."""
    declared: object = getattr(module, "__all__", None)
    if isinstance(declared, list | tuple):
        return sorted(str(name) for name in declared)
    tree = ast.parse(inspect.getsource(module))
    names: set[str] = set()
    for node in tree.body:
        match node:
            case ast.ClassDef(name=name) | ast.FunctionDef(name=name):
                names.add(name)
            case ast.AsyncFunctionDef(name=name):
                names.add(name)
            case ast.Assign(targets=targets):
                names.update(t.id for t in targets if isinstance(t, ast.Name))
            case ast.AnnAssign(target=ast.Name(id=name), value=value) if value is not None:
                names.add(name)
            case ast.TypeAlias(name=ast.Name(id=name)):
                names.add(name)
            case _:
                pass
    return sorted(name for name in names if not name.startswith("_") and hasattr(module, name))


def describe(value: object) -> JsonObject:
    """The description of one public name's value."""
    if isinstance(value, typing.TypeAliasType):
        bind_type_checking_names(sys.modules[str(value.__module__)])
        alias: JsonObject = {"kind": "type alias", "value": format_type(value.__value__)}
        if value.__type_params__:
            alias["type_params"] = [_type_param(p) for p in value.__type_params__]
        return alias
    if isinstance(value, type):
        return _describe_class(value)
    if inspect.isbuiltin(value) or (callable(value) and inspect.isfunction(inspect.unwrap(value))):
        return _describe_function(value)
    if typing.get_origin(value) is not None or isinstance(value, types.UnionType):
        return {"kind": "type alias", "value": format_type(value)}
    return {"kind": "constant", "type": format_type(type(value)), "value": render_value(value)}


def _describe_function(function: object) -> JsonObject:
    described: JsonObject = {"kind": "function", "signature": signature(function)}
    if _is_async(function):
        described["async"] = True
    if hasattr(function, "cache_info"):
        described["cached"] = True
    type_params: tuple[object, ...] = getattr(function, "__type_params__", ())
    if type_params:
        described["type_params"] = [_type_param(p) for p in type_params]
    return described


def _describe_class(cls: type) -> JsonObject:
    described: JsonObject = {
        "kind": "class",
        "bases": [format_type(base) for base in types.get_original_bases(cls)],
    }
    if cls.__type_params__:
        described["type_params"] = [_type_param(p) for p in cls.__type_params__]
    abstract: frozenset[str] = getattr(cls, "__abstractmethods__", frozenset())
    if abstract:
        abstract_names: list[Json] = [*sorted(abstract)]
        described["abstract_methods"] = abstract_names
    if getattr(cls, "_is_protocol", False):
        described["protocol"] = True
        described["runtime_checkable"] = bool(getattr(cls, "_is_runtime_protocol", False))

    fields = _fields(cls)
    if fields is not None:
        described["fields"] = fields
    if issubclass(cls, BaseModel):
        config = _explicit_config(cls)
        if config:
            described["model_config"] = config
    if dataclasses.is_dataclass(cls):
        params: object = getattr(cls, "__dataclass_params__", None)
        described["frozen"] = bool(getattr(params, "frozen", False))
    if issubclass(cls, enum.Enum):
        described["members"] = {member.name: render_value(member.value) for member in cls}
    code: object = getattr(cls, "code", None)
    if issubclass(cls, BaseException) and code is not None:
        described["code"] = render_value(code)

    skip = set(fields or {}) | {"model_config"}
    if issubclass(cls, BaseException):
        skip.add("code")
    methods: JsonObject = {}
    properties: JsonObject = {}
    attributes: JsonObject = {}
    constants: JsonObject = {}
    for name, raw in _own_members(cls):
        if name in skip or (isinstance(cls, enum.EnumType) and isinstance(raw, cls)):
            continue
        if inspect.isfunction(raw) and not _is_own_function(raw):
            continue  # made by a library for the class (`Protocol.__init__`, say)
        if isinstance(raw, property | functools.cached_property):
            properties[name] = _describe_property(raw)
        elif isinstance(raw, classmethod | staticmethod) or inspect.isfunction(raw):
            methods[name] = _describe_method(cls, name, raw)
        elif raw is None or isinstance(raw, bool | int | float | str):
            constants[name] = raw
    if fields is None:
        for name, annotation in _own_annotations(cls).items():
            if name not in skip | methods.keys() | properties.keys() | constants.keys():
                attributes[name] = format_type(annotation)
    for key, section in (
        ("methods", methods),
        ("properties", properties),
        ("attributes", attributes),
        ("class_attributes", constants),
    ):
        if section:
            described[key] = section
    return described


def _own_members(cls: type) -> list[tuple[str, object]]:
    """(name, raw attribute) of the public members a tiny-harness class in the MRO defines."""
    members: list[tuple[str, object]] = []
    for name in sorted(dir(cls)):
        if name.startswith("_") and name not in _DUNDERS:
            continue
        owner = next((k for k in cls.__mro__ if name in vars(k)), None)
        if owner is None or not _is_own(owner):
            continue
        members.append((name, vars(owner)[name]))
    return members


def _own_annotations(cls: type) -> dict[str, object]:
    """Public annotated attributes declared by tiny-harness classes in the MRO."""
    annotations: dict[str, object] = {}
    for klass in reversed(cls.__mro__):
        if _is_own(klass):
            for name, annotation in inspect.get_annotations(klass).items():
                if not name.startswith("_"):
                    annotations[name] = annotation
    return annotations


def _is_own(cls: type) -> bool:
    return _in_own_package(cls.__module__)


def _is_own_function(function: types.FunctionType) -> bool:
    return _in_own_package(function.__module__)


def _in_own_package(module: str) -> bool:
    return module == _OWN_PACKAGE or module.startswith(_OWN_PACKAGE + ".")


def _describe_property(raw: property | functools.cached_property[object]) -> JsonObject:
    getter = raw.fget if isinstance(raw, property) else raw.func
    described: JsonObject = {"type": _return_annotation(getter)}
    if isinstance(raw, functools.cached_property):
        described["cached"] = True
    elif raw.fset is not None:
        described["settable"] = True
    return described


def _describe_method(cls: type, name: str, raw: object) -> JsonObject:
    described: JsonObject
    if isinstance(raw, classmethod):
        described = {"signature": signature(getattr(cls, name)), "decorator": "classmethod"}
        function: object = raw.__func__
    elif isinstance(raw, staticmethod):
        described = {"signature": signature(raw.__func__), "decorator": "staticmethod"}
        function = raw.__func__
    else:
        described = {"signature": signature(raw)}
        function = raw
    if _is_async(function):
        described["async"] = True
    return described


def _fields(cls: type) -> JsonObject | None:
    """The fields of a pydantic model, dataclass, named tuple or TypedDict; None otherwise."""
    if issubclass(cls, BaseModel):
        return {name: _pydantic_field(info) for name, info in cls.model_fields.items()}
    if dataclasses.is_dataclass(cls):
        return {field.name: _dataclass_field(field) for field in dataclasses.fields(cls)}
    if issubclass(cls, tuple) and hasattr(cls, "_fields"):
        annotations = inspect.get_annotations(cls)
        defaults: Mapping[str, object] = getattr(cls, "_field_defaults", {})
        named: JsonObject = {}
        for name in getattr(cls, "_fields", ()):
            entry: JsonObject = {
                "annotation": format_type(annotations.get(name, "")),
                "required": True,
            }
            if name in defaults:
                entry["required"] = False
                entry["default"] = default_repr(defaults[name])
            named[name] = entry
        return named
    if typing.is_typeddict(cls):
        required: frozenset[str] = getattr(cls, "__required_keys__", frozenset())
        return {
            name: {"annotation": format_type(annotation), "required": name in required}
            for name, annotation in inspect.get_annotations(cls).items()
        }
    return None


def _pydantic_field(info: FieldInfo) -> JsonObject:
    field: JsonObject = {"annotation": format_type(info.annotation), "required": info.is_required()}
    if not info.is_required():
        if info.default_factory is not None:
            field["default_factory"] = format_type(info.default_factory)
        else:
            field["default"] = default_repr(info.default)
    if info.alias is not None:
        field["alias"] = info.alias
    if info.discriminator is not None:
        field["discriminator"] = sanitise(repr(info.discriminator))
    if info.metadata:
        field["constraints"] = [_metadata(item) for item in info.metadata]
    return field


def _dataclass_field(field: dataclasses.Field[object]) -> JsonObject:
    described: JsonObject = {"annotation": format_type(field.type), "required": True}
    if field.default is not dataclasses.MISSING:
        described["required"] = False
        described["default"] = default_repr(field.default)
    elif field.default_factory is not dataclasses.MISSING:
        described["required"] = False
        described["default_factory"] = format_type(field.default_factory)
    if field.kw_only is True:
        described["kw_only"] = True
    return described


def _explicit_config(cls: type[BaseModel]) -> JsonObject:
    """The `model_config` entries tiny-harness sets, not the defaults of pydantic's base."""
    base = next(
        (k for k in cls.__mro__[1:] if issubclass(k, BaseModel) and not _is_own(k)), BaseModel
    )
    defaults: Mapping[str, object] = base.model_config
    config: Mapping[str, object] = cls.model_config
    return {
        key: render_value(value)
        for key, value in config.items()
        if key not in defaults or defaults[key] != value
    }


# --------------------------------------------------------------------------------------------
# Rendering values and types without memory addresses


def sanitise(text: str) -> str:
    """`text` without memory addresses (`<function f at 0x7f...>` -> `<function f>`)."""
    return _ADDRESS.sub("", text)


def signature(function: object) -> str:
    """`str(inspect.signature(function))`, without memory addresses in default values."""
    if not callable(function):
        return "<not callable>"
    try:
        return sanitise(str(inspect.signature(function)))
    except (TypeError, ValueError):
        return "<no signature>"


def _is_async(function: object) -> bool:
    return inspect.iscoroutinefunction(function) or inspect.isasyncgenfunction(function)


def _return_annotation(function: object) -> str:
    if not callable(function):
        return ""
    annotation = inspect.signature(function).return_annotation
    return "" if annotation is inspect.Signature.empty else format_type(annotation)


def _type_param(param: object) -> str:
    name = str(getattr(param, "__name__", param))
    bound: object = getattr(param, "__bound__", None)
    return name if bound is None else f"{name}: {format_type(bound)}"


def qualified_name(value: object) -> str:
    """`module.Qualname` of a class or function, by the shortest module path that exports
    it (`pathlib.Path`, not `pathlib._local.Path`), so moving a definition between private
    modules changes nothing; builtins go without their module."""
    module: object = getattr(value, "__module__", None)
    name = str(getattr(value, "__qualname__", getattr(value, "__name__", value)))
    if not isinstance(module, str) or module == "builtins":
        return name
    parts = module.split(".")
    for end in range(1, len(parts)):
        if _resolves(".".join(parts[:end]), name, value):
            return f"{'.'.join(parts[:end])}.{name}"
    return f"{module}.{name}"


def _resolves(module_name: str, qualname: str, value: object) -> bool:
    """Whether the already imported module `module_name` exports `value` as `qualname`."""
    found: object = sys.modules.get(module_name)
    if found is None:
        return False
    for part in qualname.split("."):
        try:
            found = getattr(found, part)
        except Exception:  # noqa: BLE001 - a lazy module attribute may fail in any way
            return False
    return found is value


def format_type(annotation: object) -> str:
    """A stable text for a type annotation: a string (postponed annotation) as written, a
    class as `module.Qualname`, generic, union, literal and annotated types spelled out."""
    if isinstance(annotation, str):
        return annotation
    if isinstance(annotation, typing.ForwardRef):
        return annotation.__forward_arg__
    if annotation is None or annotation is type(None):
        return "None"
    if annotation is Ellipsis:
        return "..."
    if isinstance(annotation, typing.TypeAliasType | typing.TypeVar | typing.ParamSpec):
        return annotation.__name__
    if isinstance(annotation, list):
        return "[" + ", ".join(format_type(item) for item in annotation) + "]"
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        metadata = ", ".join(_metadata(item) for item in args[1:])
        return f"Annotated[{format_type(args[0])}, {metadata}]"
    if origin is typing.Union or origin is types.UnionType:
        return " | ".join(format_type(arg) for arg in args)
    if origin is typing.Literal:
        return "Literal[" + ", ".join(sanitise(repr(arg)) for arg in args) + "]"
    if origin is not None and origin is not annotation:
        if not args:
            return format_type(origin)
        return f"{format_type(origin)}[{', '.join(format_type(arg) for arg in args)}]"
    if isinstance(annotation, type) or inspect.isroutine(annotation):
        return qualified_name(annotation)
    return sanitise(repr(annotation))


def _metadata(item: object) -> str:
    if inspect.isroutine(item) or isinstance(item, type):
        return qualified_name(item)
    return sanitise(repr(item))


def default_repr(value: object) -> str:
    """The repr of a default value; a path reads the same on every platform."""
    if isinstance(value, PurePath):
        return f"Path({value.as_posix()!r})"
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    return sanitise(repr(value))


def render_value(value: object) -> Json:
    """A constant's value as JSON: data as data, classes and functions by name, an object
    of a tiny-harness class by its public attributes, any other object by its type only."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    if isinstance(value, PurePath):
        return value.as_posix()
    if isinstance(value, BaseModel):
        return render_value(value.model_dump(mode="json"))
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return {
            str(name): render_value(item) for name, item in zip(value._fields, value, strict=True)
        }
    if isinstance(value, Mapping):
        return {sanitise(str(key)): render_value(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [render_value(item) for item in value]
    if isinstance(value, set | frozenset):
        return sorted((render_value(item) for item in value), key=_sort_key)
    if isinstance(value, type) or inspect.isroutine(value):
        return qualified_name(value)
    if isinstance(value, typing.TypeAliasType) or typing.get_origin(value) is not None:
        return format_type(value)
    if _is_own(type(value)) and hasattr(value, "__dict__"):
        # One of ours (an intrinsic tool, say): its type and public attributes.
        state: JsonObject = {"__type__": qualified_name(type(value))}
        for name, item in vars(value).items():
            if not name.startswith("_"):
                state[name] = render_value(item)
        return state
    return f"<{qualified_name(type(value))} instance>"


def _sort_key(value: Json) -> str:
    return json.dumps(value, sort_keys=True)


# --------------------------------------------------------------------------------------------
# Schemas


def schemas() -> dict[str, JsonObject]:
    """The JSON schemas other processes rely on, by snapshot kind: `hook_contexts` (the
    schema of each hook point's context, keyed by the point as written, `tool.invoked.pre`)
    and `config` (`Settings`)."""
    from tiny_harness.config import Settings
    from tiny_harness.harness.hooks import CONTEXTS

    hook_contexts: JsonObject = {
        str(point): model.model_json_schema() for point, model in CONTEXTS.items()
    }
    return {
        "hook_contexts": normalise(hook_contexts),
        "config": normalise(Settings.model_json_schema()),
    }


# --------------------------------------------------------------------------------------------
# Files, comparison and diffs


def current() -> dict[str, JsonObject]:
    """Every snapshot as the code is now, by kind (the keys of `FILES`)."""
    return {"api": api_snapshot(), **schemas()}


def render(document: Json) -> str:
    """The committed form of a snapshot: indent 2, sorted keys, a trailing newline."""
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def normalise(document: JsonObject) -> JsonObject:
    """`document` as it reads back from its file (tuples become lists, keys become text)."""
    loaded: Json = json.loads(render(document))
    if not isinstance(loaded, dict):
        raise TypeError("a snapshot is a JSON object")
    return loaded


def path_of(kind: str) -> Path:
    return SNAPSHOT_DIR / FILES[kind]


def load(kind: str) -> Json:
    """The committed snapshot of `kind`; None when the file does not exist."""
    path = path_of(kind)
    if not path.exists():
        return None
    loaded: Json = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def check(kind: str, actual: Json | None = None) -> str | None:
    """None when the committed snapshot of `kind` matches the code (or `actual`), else a
    message: what was added, removed and changed, and how to update the snapshot."""
    if actual is None:
        actual = current()[kind]
    path = path_of(kind)
    expected = load(kind)
    if expected is None:
        return f"{path} does not exist.\nCreate it with: {UPDATE_COMMAND}"
    if expected == actual:
        return None
    lines = diff(expected, actual, group_depth=_GROUP_DEPTH[kind])
    if len(lines) > _MAX_LINES:
        lines = [*lines[:_MAX_LINES], f"  … and {len(lines) - _MAX_LINES} more lines"]
    return "\n".join(
        [
            f"{path.relative_to(SNAPSHOT_DIR.parents[2])} no longer matches the code "
            "(- snapshot, + code):",
            *lines,
            "",
            "An incompatible change to a public interface breaks its users. If this change is",
            f"deliberate, update the snapshot with `{UPDATE_COMMAND}`",
            "and commit the changed file with the change.",
        ]
    )


def diff(expected: Json, actual: Json, *, group_depth: int) -> list[str]:
    """Compact lines naming what `actual` added, removed and changed relative to `expected`;
    the first `group_depth` levels of keys name the things compared (module and name for
    the API, hook point for the contexts)."""
    lines: list[str] = []
    _diff_groups(expected, actual, (), group_depth, lines)
    return lines


def _diff_groups(
    expected: Json, actual: Json, path: tuple[str, ...], depth: int, lines: list[str]
) -> None:
    if expected == actual:
        return
    if depth > 0 and isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(expected.keys() | actual.keys()):
            here = (*path, key)
            if key not in actual:
                lines.append(f"  removed: {'.'.join(here)}")
            elif key not in expected:
                lines.append(f"  added:   {'.'.join(here)}")
            else:
                _diff_groups(expected[key], actual[key], here, depth - 1, lines)
        return
    details = _changes(expected, actual, ())
    if path:
        lines.append(f"  changed: {'.'.join(path)}")
    indent = "      " if path else "  "
    shown = details[:_MAX_DETAILS]
    lines.extend(indent + line for line in shown)
    if len(details) > len(shown):
        lines.append(f"{indent}… and {len(details) - len(shown)} more")


def _changes(expected: Json, actual: Json, path: tuple[str, ...]) -> list[str]:
    where = _dotted(path) or "(whole value)"
    if isinstance(expected, dict) and isinstance(actual, dict):
        found: list[str] = []
        for key in sorted(expected.keys() | actual.keys()):
            if key not in actual:
                found.append(f"- {_dotted((*path, key))}: {_short(expected[key])}")
            elif key not in expected:
                found.append(f"+ {_dotted((*path, key))}: {_short(actual[key])}")
            else:
                found.extend(_changes(expected[key], actual[key], (*path, key)))
        return found
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        found = []
        for index, (old, new) in enumerate(zip(expected, actual, strict=True)):
            found.extend(_changes(old, new, (*path, f"[{index}]")))
        return found
    if expected == actual:
        return []
    return [f"~ {where}: {_short(expected)} -> {_short(actual)}"]


def _dotted(path: tuple[str, ...]) -> str:
    """`a.b[0].c` for the path ("a", "b", "[0]", "c")."""
    text = ""
    for part in path:
        text += part if not text or part.startswith("[") else f".{part}"
    return text


def _short(value: Json) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= _SHORT else text[: _SHORT - 1] + "…"


# --------------------------------------------------------------------------------------------
# Command line


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.contract.snapshot",
        description="Check (default) or rewrite the contract snapshots in "
        "tests/contract/snapshots/.",
    )
    parser.add_argument(
        "--write", action="store_true", help="rewrite the snapshot files from the code"
    )
    write: bool = parser.parse_args(argv).write
    documents = current()
    if write:
        SNAPSHOT_DIR.mkdir(exist_ok=True)
        for kind, document in documents.items():
            path = path_of(kind)
            text = render(document)
            old = path.read_text(encoding="utf-8") if path.exists() else None
            path.write_text(text, encoding="utf-8")
            state = "unchanged" if old == text else ("created" if old is None else "updated")
            sys.stdout.write(f"{state}: {path} ({len(text.encode())} bytes)\n")
        return 0
    problems = [p for kind, doc in documents.items() if (p := check(kind, doc)) is not None]
    for problem in problems:
        sys.stdout.write(problem + "\n\n")
    if not problems:
        sys.stdout.write("every contract snapshot matches the code\n")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
