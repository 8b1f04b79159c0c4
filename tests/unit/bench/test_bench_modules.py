"""Every benchmark ``make bench`` runs imports and has its ``main()``: an import that a
refactor broke (bench/capability_eval imported ``embedder_from_setting`` from where it no
longer lived) stops ``make bench`` at its first module, and no test ran the benchmarks."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "scripts"))

from bench.run_all import BENCHMARKS  # noqa: E402


@pytest.mark.parametrize("module_name", BENCHMARKS)
def test_each_benchmark_imports_and_has_a_main(module_name: str) -> None:
    module = importlib.import_module(module_name)
    assert callable(getattr(module, "main", None)), f"{module_name} has no main()"
