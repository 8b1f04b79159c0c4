"""The import-linter contracts in ``.importlinter`` hold for the whole tree (layers per service,
services independent, bkn_common and clctl import no service, no import cycle), and the
contract that finds module cycles (tools/import_cycles.py) finds them, type-only ones included."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import grimp
import pytest

from tools.import_cycles import NoModuleCyclesContract, module_cycles

ROOT = Path(__file__).resolve().parents[3]


def test_every_contract_of_the_tree_is_kept() -> None:
    lint_imports = Path(sys.executable).parent / "lint-imports"
    done = subprocess.run([str(lint_imports), "--no-cache", "--no-logo"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout


def test_an_acyclic_graph_has_no_cycle() -> None:
    assert module_cycles({"a": {"b", "c"}, "b": {"c"}, "c": set(), "d": {"d"}}) == []


def test_each_cycle_is_named_once_by_its_shortest_path() -> None:
    imports = {"a": {"b"}, "b": {"c", "a"}, "c": {"a"}, "x": {"y"}, "y": {"z"}, "z": {"x"}, "q": {"a"}}
    assert module_cycles(imports) == [["a", "b"], ["x", "y", "z"]]


def _package(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def _check(package: str) -> tuple[bool, list[list[str]]]:
    contract = NoModuleCyclesContract(name="cycles", session_options={},
                                      contract_options={"containers": [package]})
    check = contract.check(grimp.build_graph(package, cache_dir=None), verbose=False)
    return check.kept, check.metadata["cycles"]


def test_a_cycle_through_a_package_init_and_a_type_only_import_is_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _package(tmp_path, {
        "cyclic_home/__init__.py": "from cyclic_home.rooms import Room\n",
        "cyclic_home/rooms.py": """
            from typing import TYPE_CHECKING
            if TYPE_CHECKING:
                from cyclic_home import Room as Room
            class Room: ...
        """,
        "cyclic_home/doors.py": "def door():\n    from cyclic_home.walls import Wall\n    return Wall\n",
        "cyclic_home/walls.py": "from cyclic_home.doors import door\nclass Wall: ...\n",
    })
    monkeypatch.syspath_prepend(str(tmp_path))
    kept, cycles = _check("cyclic_home")
    assert not kept
    assert cycles == [["cyclic_home", "cyclic_home.rooms"], ["cyclic_home.doors", "cyclic_home.walls"]]


def test_a_package_init_that_re_exports_a_child_importing_a_sibling_is_a_cycle(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _package(tmp_path, {
        "facade_home/__init__.py": "from facade_home.rooms import Room\n",
        "facade_home/rooms.py": "from facade_home.walls import Wall\nclass Room(Wall): ...\n",
        "facade_home/walls.py": "class Wall: ...\n",
    })
    monkeypatch.syspath_prepend(str(tmp_path))
    assert _check("facade_home") == (False, [["facade_home", "facade_home.rooms"]])


def test_a_package_whose_modules_import_one_way_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _package(tmp_path, {
        "acyclic_home/__init__.py": '"""Rooms and walls."""\n',
        "acyclic_home/rooms.py": "from acyclic_home.walls import Wall\nclass Room(Wall): ...\n",
        "acyclic_home/walls.py": "class Wall: ...\n",
    })
    monkeypatch.syspath_prepend(str(tmp_path))
    assert _check("acyclic_home") == (True, [])
