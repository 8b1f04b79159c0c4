"""Generic bilingual (en/zh) enterprise glossary used for query-side synonym expansion.

Each group lists phrases that mean (nearly) the same thing in business software.  The list
is deliberately generic — common ERP/CRM/HR/ITSM vocabulary, not tuned to any dataset.
Phrases may appear in several groups.

Groups come in three kinds (:data:`GROUP_KINDS`), because a query word's kind says how much
it tells about *which* capability is wanted: an ``operation`` (create, approve, export) is
shared by capabilities of every entity, a ``period`` (this month, last year) is usually an
argument of the call rather than part of the capability, and a ``term`` (invoice, supplier,
payroll) names the business object.  The ranker weights the first two kinds lower.

The words live in the packaged data file ``glossary.txt`` (format in its header), read once
at import by :func:`parse`.
"""

from __future__ import annotations

import re
from importlib.resources import files

_CJK_ONLY = re.compile(r"^[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{2,8}$")
KINDS = ("operation", "period", "term")
EXTRA = "extra words"


def parse(text: str) -> tuple[dict[str, list[tuple[str, ...]]], tuple[str, ...]]:
    """The groups per kind (in file order) and the extra words of a glossary file."""
    groups: dict[str, list[tuple[str, ...]]] = {kind: [] for kind in KINDS}
    extra: list[str] = []
    section: str | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
            if section not in groups and section != EXTRA:
                raise ValueError(f"glossary line {number}: unknown section {line}")
        elif section == EXTRA:
            extra.append(line)
        elif section is None:
            raise ValueError(f"glossary line {number}: a group before any [section]")
        else:
            groups[section].append(tuple(p.strip() for p in line.split("|")))
    return groups, tuple(extra)


_GROUPS, EXTRA_WORDS = parse(
    files(__package__ or "capability_index.domain").joinpath("glossary.txt").read_text("utf-8"))
OPERATIONS: tuple[tuple[str, ...], ...] = tuple(_GROUPS["operation"])
PERIODS: tuple[tuple[str, ...], ...] = tuple(_GROUPS["period"])
TERMS: tuple[tuple[str, ...], ...] = tuple(_GROUPS["term"])

GLOSSARY: tuple[tuple[str, ...], ...] = OPERATIONS + PERIODS + TERMS
GROUP_KINDS: tuple[str, ...] = (
    ("operation",) * len(OPERATIONS) + ("period",) * len(PERIODS) + ("term",) * len(TERMS)
)


def domain_words() -> list[str]:
    """Chinese words to add to the segmenter dictionary (glossary phrases + extras)."""
    words = {p for group in GLOSSARY for p in group if _CJK_ONLY.match(p)}
    words.update(EXTRA_WORDS)
    return sorted(words)
