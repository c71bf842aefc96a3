"""How long the `tiny-harness` command takes to start: importing its module, and `--help`.

Each is run `--runs` times as a fresh process (the cold cost a person waits for when they
type the command); the script prints the median, the fastest and the slowest. Target: under
0.5 s for both. The server's own imports (the SDKs, Temporal, the providers) are paid only
by `serve` and `worker`, when they run.

Run (from the repository root):

    .venv/bin/python bench/cli_startup.py [--runs 10]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = {
    'python -c "import tiny_harness.cli"': [sys.executable, "-c", "import tiny_harness.cli"],
    "tiny-harness --help": [sys.executable, "-m", "tiny_harness", "--help"],
    "tiny-harness tui --help": [sys.executable, "-m", "tiny_harness", "tui", "--help"],
}
SERVER = {
    # What `serve` imports before it starts anything, on the scripted model with no MCP
    # server: the provider SDKs and the MCP client are not among it.
    'python -c "import tiny_harness.service.runtime"': [
        sys.executable,
        "-c",
        "import tiny_harness.service.runtime",
    ],
}


def _seconds(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    for name, command in {**COMMANDS, **SERVER}.items():
        _seconds(command)  # warm the file cache, as a second invocation would be
        times = [_seconds(command) for _ in range(args.runs)]
        median = statistics.median(times)
        verdict = "met" if median < 0.5 else "NOT met"
        target = f"target < 0.5 s: {verdict}" if name in COMMANDS else "(no target)"
        print(
            f"{name:48} median {median:5.2f} s   min {min(times):5.2f} s   "
            f"max {max(times):5.2f} s   {target}"
        )


if __name__ == "__main__":
    main()
