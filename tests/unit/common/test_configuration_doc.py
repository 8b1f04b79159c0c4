"""docs/configuration.md is what tools/configuration_doc.py generates from the settings classes,
and every environment variable in it says what it means."""

from __future__ import annotations

import difflib
from pathlib import Path

from tools.configuration_doc import render

DOC = Path(__file__).resolve().parents[3] / "docs" / "configuration.md"
REGENERATE = ".venv/bin/python tools/configuration_doc.py > docs/configuration.md"


def test_the_document_is_what_the_settings_generate() -> None:
    generated = render()
    committed = DOC.read_text(encoding="utf-8")
    diff = "\n".join(difflib.unified_diff(committed.splitlines(), generated.splitlines(),
                                          "docs/configuration.md", "generated", lineterm="", n=1))
    assert committed == generated, f"regenerate with `{REGENERATE}`:\n{diff[:3000]}"


def test_every_variable_has_a_type_a_default_and_a_meaning() -> None:
    rows = [line for line in render().splitlines() if line.startswith("| `")]
    assert len(rows) > 100
    for row in rows:
        name, type_, default, meaning = (cell.strip() for cell in row.strip("|").split(" | ", 3))
        assert type_ and default and meaning, f"{name} lacks a meaning: add a docstring under its field"


def test_the_charts_values_point_to_the_document() -> None:
    values = (DOC.parents[1] / "deploy" / "helm" / "context-loader" / "values.yaml").read_text(encoding="utf-8")
    lines = values.splitlines()
    pointers = [i for i, line in enumerate(lines) if line.lstrip().startswith("#") and "docs/configuration.md" in line]
    assert len(pointers) >= 3, "values.yaml's header, infrastructure and components comments name docs/configuration.md"
    extra_env = next(i for i, line in enumerate(lines) if line.strip().startswith("extraEnv:"))
    assert any(extra_env - 3 <= i < extra_env for i in pointers), "the comment above defaults.extraEnv names it"
