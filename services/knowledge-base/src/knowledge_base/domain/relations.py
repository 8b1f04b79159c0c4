"""Relations between source files: Markdown links, frontmatter relations, shared tags.

Link and frontmatter relations are recorded on both ends (``outgoing`` on the file that names
the other, ``incoming`` on the named one). Files that only share tags get ``shared_tag``, a
separately typed relation whose weight stays below every real link.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Literal

from knowledge_base.domain.files import KbFile

Direction = Literal["outgoing", "incoming"]
LINK_WEIGHT = {"outgoing": 1.0, "incoming": 0.9}
FRONTMATTER_WEIGHT = {"outgoing": 0.95, "incoming": 0.85}
SHARED_TAG_BASE, SHARED_TAG_STEP, SHARED_TAG_MAX = 0.4, 0.1, 0.6
SHARED_TAG_NEIGHBOURS = 10
COMMON_TAG_FILES = 500  # a tag on more files than this relates nothing (it says too little)


@dataclass(frozen=True)
class Relation:
    source_path: str
    target_path: str
    relation_type: str  # references | related | superseded_by | shared_tag
    direction: Direction
    weight: float
    reason: str


def _add(out: dict[str, dict[tuple[str, str], Relation]], rel: Relation) -> None:
    key = (rel.target_path, rel.direction)
    current = out[rel.source_path].get(key)
    if current is None or rel.weight > current.weight:
        out[rel.source_path][key] = rel


def _pair(out: dict[str, dict[tuple[str, str], Relation]], a: str, b: str, kind: str,
          weights: dict[str, float], reason_out: str, reason_in: str) -> None:
    if a == b:
        return
    _add(out, Relation(a, b, kind, "outgoing", weights["outgoing"], reason_out))
    _add(out, Relation(b, a, kind, "incoming", weights["incoming"], reason_in))


def compute_relations(files: dict[str, KbFile],
                      links: dict[str, tuple[tuple[str, str], ...]]) -> dict[str, list[Relation]]:
    """Per source path, its relations sorted strongest first (then by path). ``links``: per
    path, the (target path, key) of each resolved link in order: key ``link`` for a body link,
    a frontmatter relation key, or ``superseded_by``."""
    out: dict[str, dict[tuple[str, str], Relation]] = defaultdict(dict)
    for path in files:
        for target, key in links.get(path, ()):
            if target not in files:
                continue
            if key == "link":
                _pair(out, path, target, "references", LINK_WEIGHT,
                      f"{path} links to {target}.", f"{target} is linked from {path}.")
            elif key == "superseded_by":
                _pair(out, path, target, "superseded_by", FRONTMATTER_WEIGHT,
                      f"{path} is superseded by {target}.", f"{target} supersedes {path}.")
            else:
                _pair(out, path, target, "related", FRONTMATTER_WEIGHT,
                      f"Frontmatter {key} of {path} names {target}.",
                      f"{target} is named by frontmatter {key} of {path}.")
    _shared_tags(files, out)
    return {
        path: sorted(rels.values(), key=lambda r: (-r.weight, r.target_path, r.direction))
        for path, rels in out.items()
    }


def _shared_tags(files: dict[str, KbFile], out: dict[str, dict[tuple[str, str], Relation]]) -> None:
    by_tag: dict[str, list[str]] = defaultdict(list)
    for path, file in sorted(files.items()):
        for tag in dict.fromkeys(t.casefold() for t in file.tags):
            by_tag[tag].append(path)
    for path, file in files.items():
        shared: dict[str, list[str]] = defaultdict(list)
        for tag in dict.fromkeys(t.casefold() for t in file.tags):
            members = by_tag[tag]
            if len(members) > COMMON_TAG_FILES:
                continue
            for other in members:
                if other != path:
                    shared[other].append(tag)
        linked = {target for target, _ in out[path]}
        ranked = sorted((o for o in shared if o not in linked), key=lambda o: (-len(shared[o]), o))
        for other in ranked[:SHARED_TAG_NEIGHBOURS]:
            tags = shared[other]
            weight = min(SHARED_TAG_MAX, SHARED_TAG_BASE + SHARED_TAG_STEP * (len(tags) - 1))
            out[path][(other, "outgoing")] = Relation(
                path, other, "shared_tag", "outgoing", round(weight, 2),
                f"Both files share tags: {', '.join(sorted(tags))}.",
            )
