"""How long the Redactor takes on input built to make a naive pattern backtrack.

Each input is 256 KiB of one unit repeated (`eyJ-`, `sk-`, a URL's `a://b:`, a PEM header,
`api_key=`, …): a credential pattern written carelessly goes quadratic on them. The script
masks each `--runs` times and prints the median and the slowest, then the same for a 256 KiB
text of ordinary prose with a few credentials in it, for comparison. Target: every hostile
input within 10x the prose time (linear, not quadratic).

Run (from the repository root):

    .venv/bin/python bench/redactor.py [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

from tiny_harness.harness.security import Redactor

SIZE = 262_144
HOSTILE_UNITS = ("eyJ-", "a-", "sk-", "a://b:", "-----BEGIN PRIVATE KEY-----", "api_key=")
PROSE = (
    "The deploy ran at noon; the key sk-proj-abcdefghijklmnopqrstuvwx was rotated and "
    "https://user:hunter2@example.com/db is retired. "
)


def _times(redactor: Redactor, text: str, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        redactor.text(text)
        times.append(time.perf_counter() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    redactor = Redactor()
    prose = _times(redactor, PROSE * (SIZE // len(PROSE)), args.runs)
    baseline = statistics.median(prose)
    print(f"{'prose with credentials':32} median {baseline * 1000:7.1f} ms")
    for unit in HOSTILE_UNITS:
        times = _times(redactor, unit * (SIZE // len(unit)), args.runs)
        median = statistics.median(times)
        verdict = "met" if median < 10 * baseline else "NOT met"
        print(
            f"{unit[:30]!r:32} median {median * 1000:7.1f} ms   max {max(times) * 1000:7.1f} ms"
            f"   within 10x prose: {verdict}"
        )


if __name__ == "__main__":
    main()
