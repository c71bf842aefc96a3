"""Write, or check, the committed JSON schemas of the task, call and channel extensions.

Run with: `python -m tiny_harness.harness.tasks.extension_schemas [--check | --write] [--dir D]`

The schemas in docs/a2a/ext/ are generated from the models in `harness.tasks.extension`,
`harness.tasks.calls` and `harness.channels.extension`; other agents, renderers and the
contract tests read the committed files, so a model change must come with regenerated
files. `--write` regenerates them; `--check` (the default) exits 1 with a diff summary
when a committed file is missing or differs from what the models generate.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from pydantic import JsonValue

from tiny_harness.harness.channels.extension import SCHEMA_FILE as CHANNEL_SCHEMA_FILE
from tiny_harness.harness.channels.extension import channel_message_schema
from tiny_harness.harness.tasks.calls import SCHEMA_FILE as CALL_SCHEMA_FILE
from tiny_harness.harness.tasks.calls import call_event_schema
from tiny_harness.harness.tasks.extension import event_envelope_schema, task_extension_schema

# The repository's docs/a2a/ext/, found from this file (tiny_harness/harness/core/).
SCHEMA_DIR: Final = Path(__file__).resolve().parents[3] / "docs" / "a2a" / "ext"
_DIFF_LINES: Final = 40


def render(schema: dict[str, JsonValue]) -> str:
    """A schema as committed: sorted keys, two-space indent, trailing newline."""
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def rendered_schemas() -> dict[str, str]:
    """Each schema file's name and the text it must hold."""
    return {
        "task.schema.json": render(task_extension_schema()),
        "event.schema.json": render(event_envelope_schema()),
        CHANNEL_SCHEMA_FILE: render(channel_message_schema()),
        CALL_SCHEMA_FILE: render(call_event_schema()),
    }


def write(directory: Path) -> list[Path]:
    """Write every schema file into `directory`; returns the paths written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in rendered_schemas().items():
        path = directory / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def drift(directory: Path) -> list[str]:
    """One summary per schema file in `directory` that is missing or differs; empty if none."""
    problems = []
    for name, expected in rendered_schemas().items():
        path = directory / name
        if not path.is_file():
            problems.append(f"{path}: missing")
            continue
        committed = path.read_text(encoding="utf-8")
        if committed != expected:
            diff = difflib.unified_diff(
                committed.splitlines(),
                expected.splitlines(),
                fromfile=f"{path} (committed)",
                tofile=f"{path} (generated)",
                lineterm="",
            )
            lines = list(diff)
            shown = lines[:_DIFF_LINES]
            if len(lines) > _DIFF_LINES:
                shown.append(f"... {len(lines) - _DIFF_LINES} more diff lines")
            problems.append("\n".join(shown))
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    """Check (default) or write the schema files; 0 when they are up to date or written."""
    parser = argparse.ArgumentParser(
        prog="python -m tiny_harness.harness.tasks.extension_schemas",
        description=(__doc__ or "").splitlines()[0],
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="compare (the default)")
    mode.add_argument("--write", action="store_true", help="regenerate the files")
    parser.add_argument("--dir", type=Path, default=SCHEMA_DIR, help="the schema directory")
    args = parser.parse_args(argv)
    directory: Path = args.dir
    if args.write:
        for path in write(directory):
            sys.stdout.write(f"wrote {path}\n")
        return 0
    problems = drift(directory)
    for problem in problems:
        sys.stderr.write(problem + "\n")
    if problems:
        sys.stderr.write(
            "extension schemas are out of date; regenerate with "
            "`python -m tiny_harness.harness.tasks.extension_schemas --write`\n"
        )
        return 1
    sys.stdout.write(f"extension schemas in {directory} are up to date\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
