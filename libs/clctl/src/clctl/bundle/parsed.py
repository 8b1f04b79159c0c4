"""A parsed bundle and what loading it found wrong: the types the loader and the reference
checks share (loader.py builds them, references.py reads them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clctl.bundle.models import Strict


@dataclass(frozen=True)
class Problem:
    file: str
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.path or '<document>'}: {self.message}"


@dataclass
class Document:
    file: Path
    index: int
    model: Strict


@dataclass
class Bundle:
    root: Path
    documents: list[Document] = field(default_factory=list)
    skill_files: dict[str, dict[str, str]] = field(default_factory=dict)
    function_sources: dict[tuple[str, str], str] = field(default_factory=dict)

    def of(self, kind: type[Strict]) -> list[Any]:
        return [d.model for d in self.documents if isinstance(d.model, kind)]


class BundleError(Exception):
    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("\n".join(str(p) for p in problems))
        self.problems = problems
