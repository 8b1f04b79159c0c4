"""docs/architecture.md is a map: each "Where to look" row names a module that exists and
functions or classes defined in it; every gateway tool and every event a service consumes has
a row. The checker is tools/architecture_map.py (it reads syntax trees, it imports nothing it
names)."""

from __future__ import annotations

import re
from pathlib import Path

from tools.architecture_map import (
    DOC,
    gateway_tools,
    problems,
    row_problems,
    section_service,
    unmapped_events,
    unmapped_tools,
    where_to_look_rows,
)

SERVICES = ("gateway", "capability-index", "tool-executor", "trace-recorder", "ontology-query", "knowledge-base")
HOW_TO_FIX = ("fix the row in docs/architecture.md (or the code it names); "
              "`.venv/bin/python tools/architecture_map.py` lists them all")


def _doc() -> str:
    return DOC.read_text(encoding="utf-8")


def test_every_row_names_a_module_and_functions_that_exist() -> None:
    rows = where_to_look_rows(_doc())
    found = row_problems(rows)
    assert not found, HOW_TO_FIX + ":\n" + "\n".join(found)


def test_every_tool_the_gateway_exposes_has_a_row() -> None:
    tools = gateway_tools()
    assert {"execute_tool", "search_capabilities", "run_sql", "execute_skill", "search_native_tools"} <= set(tools)
    missing = unmapped_tools(where_to_look_rows(_doc()), tools)
    assert not missing, f"add these tools to the gateway's Where to look table: {missing}"


def test_every_consumed_event_has_a_row_in_its_service_section() -> None:
    assert problems(_doc()) == []


def test_every_service_has_a_where_to_look_table() -> None:
    sections = {section_service(row.section) for row in where_to_look_rows(_doc())}
    assert set(SERVICES) <= sections


def test_the_five_lookups_each_name_one_or_two_files() -> None:
    lookups = [row for row in where_to_look_rows(_doc()) if row.section == "Five common lookups"]
    assert len(lookups) >= 5
    assert all(len(row.names) <= 3 for row in lookups)


# -- the checker itself ----------------------------------------------------------------------

MODULE = '''
CONSTANT = 1
LIMIT: int = 2


def top() -> None:
    def inner() -> None: ...


class Store:
    size = 0

    def apply(self) -> None: ...

    async def search(self) -> None: ...
'''


def _table(*rows: str, section: str = "gateway") -> str:
    return "\n".join([f"## {section}", "", "| behaviour | module | function |", "|---|---|---|", *rows, ""])


def _tree(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(MODULE, encoding="utf-8")
    return tmp_path


def test_names_defined_in_the_module_pass(tmp_path: Path) -> None:
    names = "`top`, `top.inner`, `Store.apply`, `Store.search`, `CONSTANT`, `LIMIT`, `Store.size`"
    text = _table(f"| `execute_tool` | `pkg/mod.py` | {names} |")
    assert row_problems(where_to_look_rows(text), _tree(tmp_path)) == []


def test_a_missing_module_is_named(tmp_path: Path) -> None:
    text = _table("| the lookup | `pkg/gone.py` | `top` |")
    found = row_problems(where_to_look_rows(text), _tree(tmp_path))
    assert len(found) == 1
    assert "module pkg/gone.py does not exist" in found[0]
    assert "docs/architecture.md:5" in found[0]


def test_a_missing_function_or_method_is_named(tmp_path: Path) -> None:
    text = _table("| the lookup | `pkg/mod.py` | `top`, `gone`, `Store.gone`, `inner` |")
    found = row_problems(where_to_look_rows(text), _tree(tmp_path))
    assert [p.split(": ", 1)[1] for p in found] == [
        "pkg/mod.py defines no gone", "pkg/mod.py defines no Store.gone", "pkg/mod.py defines no inner",
    ]


def test_a_row_without_a_module_path_or_names_is_refused(tmp_path: Path) -> None:
    text = _table("| two modules | `pkg/mod.py`, `pkg/other.py` | `top` |", "| no names | `pkg/mod.py` | — |")
    found = row_problems(where_to_look_rows(text), _tree(tmp_path))
    assert len(found) == 2
    assert "one repo-relative .py path" in found[0]
    assert "no function or class named" in found[1]


def test_an_escaped_pipe_stays_in_its_cell() -> None:
    (row,) = where_to_look_rows(_table(r"| `json\|toon` output | `pkg/mod.py` | `top` |"))
    assert (row.behaviour, row.module, row.names) == ("`json|toon` output", "pkg/mod.py", ("top",))


def test_other_tables_are_not_where_to_look_tables() -> None:
    text = "## gateway\n\n| endpoint | what |\n|---|---|\n| `POST /x` | `nothing.py` |\n"
    assert where_to_look_rows(text) == []


def test_a_tool_without_a_row_in_the_gateway_section_is_reported() -> None:
    rows = where_to_look_rows(
        _table("| `search_capabilities` | `a.py` | `f` |")
        + _table("| `execute_tool` | `a.py` | `f` |", section="tool-executor")
    )
    assert unmapped_tools(rows, ["search_capabilities", "execute_tool"]) == ["execute_tool"]


def test_an_event_without_a_row_in_its_service_section_is_reported() -> None:
    rows = where_to_look_rows(
        _table("| fold `binding.mounted` | `a.py` | `f` |", section="capability-index: ranking")
        + _table("| fold `binding.unmounted` | `a.py` | `f` |", section="ontology-query")
    )
    consumed = {"capability-index": ["binding.mounted", "binding.unmounted"], "ontology-query": ["binding.unmounted"]}
    assert unmapped_events(rows, consumed) == ["capability-index: binding.unmounted"]


# -- links of the map, the decision records and performance.md ----------------------------

LINK = re.compile(r"\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    return {_slug(line.lstrip("#")) for line in path.read_text(encoding="utf-8").splitlines()
            if line.startswith("#")}


def test_links_between_the_architecture_docs_resolve() -> None:
    docs = DOC.parent
    pages = [DOC, docs / "performance.md", *sorted((docs / "decisions").glob("*.md"))]
    assert len(pages) > 10
    broken = []
    for page in pages:
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if "://" in target:
                continue
            file, _, anchor = target.partition("#")
            resolved = (page.parent / file).resolve() if file else page
            if not resolved.exists():
                broken.append(f"{page.name}: {target} (no such file)")
            elif anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
                broken.append(f"{page.name}: {target} (no such heading)")
    assert not broken, "\n".join(broken)
