"""tools/module_stats.py counts the modules of services/ and libs/ and their sizes."""

from __future__ import annotations

from pathlib import Path

from tools.module_stats import Module, modules, percentile, report


def test_percentile_is_the_nearest_rank() -> None:
    assert percentile([5, 1, 4, 2, 3], 0.5) == 3
    assert percentile(list(range(1, 11)), 0.9) == 9
    assert percentile([7], 0.9) == 7


def test_modules_are_the_python_files_of_every_package_source(tmp_path: Path) -> None:
    for relative, text in {
        "services/a/src/a/__init__.py": "",
        "services/a/src/a/big.py": "x = 1\n" * 12,
        "libs/b/src/b/small.py": "y = 2\n",
        "services/a/tests/test_big.py": "z = 3\n",  # not a package source
        "tools/other.py": "w = 4\n",
    }.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    found = modules(tmp_path)
    assert sorted(found, key=lambda m: m.path) == [
        Module("libs/b/src/b/small.py", 1), Module("services/a/src/a/__init__.py", 0),
        Module("services/a/src/a/big.py", 12),
    ]
    lines = report(found, top=1)
    assert lines[0] == "modules: 3 (1 empty package markers not counted below)"
    assert "median lines: 6.5" in lines
    assert lines[4] == "largest: services/a/src/a/big.py (12 lines)"
