"""Fail when a module of tiny_harness/ passes 500 lines or a function passes 60.

The limits keep each module one noun and each function readable at a glance; `make lint`
runs this beside ruff, mypy and import-linter. Prints every offender, exit 1 if any.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 60


def offenders(root: Path) -> list[str]:
    """Every module and function of `root` over its limit, as `path[:line]: what`."""
    found: list[str] = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines = text.count("\n") + 1
        if lines > MAX_MODULE_LINES:
            found.append(f"{path}: {lines} lines (at most {MAX_MODULE_LINES})")
        for node in ast.walk(ast.parse(text, filename=str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    found.append(
                        f"{path}:{node.lineno}: {node.name} is {length} lines "
                        f"(at most {MAX_FUNCTION_LINES})"
                    )
    return found


def main() -> int:
    found = offenders(Path(sys.argv[1] if len(sys.argv) > 1 else "tiny_harness"))
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
