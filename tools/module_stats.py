"""Prints how big the Python modules of services/ and libs/ are: count, median and p90 lines,
and the largest modules.

    .venv/bin/python tools/module_stats.py            # the source of every package
    .venv/bin/python tools/module_stats.py --top 10   # and the ten largest modules

A module is a ``.py`` file under ``services/*/src`` or ``libs/*/src``; its size is its number of
lines. Empty files (package markers) are counted apart, not in the median.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("services/*/src", "libs/*/src")


@dataclass(frozen=True)
class Module:
    path: str
    lines: int


def modules(root: Path = ROOT) -> list[Module]:
    found = []
    for pattern in SOURCES:
        for source in sorted(root.glob(pattern)):
            for path in sorted(source.rglob("*.py")):
                with path.open(encoding="utf-8") as text:
                    found.append(Module(str(path.relative_to(root)), sum(1 for _ in text)))
    return found


def percentile(values: Sequence[int], share: float) -> int:
    """The nearest-rank percentile: the smallest value with at least ``share`` of values at or below it."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def report(found: Sequence[Module], top: int) -> list[str]:
    sized = [m for m in found if m.lines > 0]
    sizes = [m.lines for m in sized]
    largest = sorted(sized, key=lambda m: (-m.lines, m.path))
    lines = [
        f"modules: {len(found)} ({len(found) - len(sized)} empty package markers not counted below)",
        f"median lines: {statistics.median(sizes):g}",
        f"p90 lines: {percentile(sizes, 0.9)}",
        f"over 300 lines: {sum(1 for s in sizes if s > 300)}; over 400 lines: {sum(1 for s in sizes if s > 400)}",
        f"largest: {largest[0].path} ({largest[0].lines} lines)",
    ]
    lines += [f"  {m.lines:5d}  {m.path}" for m in largest[:top]]
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--top", type=int, default=5, help="how many of the largest modules to list")
    args = parser.parse_args(argv)
    print("\n".join(report(modules(), args.top)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
