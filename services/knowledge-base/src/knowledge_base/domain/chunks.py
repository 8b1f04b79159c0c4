"""Chunks of a source file for content vectors: a head (title, aliases, description, tags)
and the body in paragraph-aligned pieces, so a fact deep in a long page has its own vector.

A chunk keeps its key and place, not its text: the texts are a second copy of every body
(~45 MiB on a 20,000-file base), needed only until they are embedded."""

from __future__ import annotations

import re
from dataclasses import dataclass

from knowledge_base.domain.files import KbFile
from knowledge_base.domain.view import sha256_text

_PARAGRAPH = re.compile(r"\n\s*\n")


@dataclass(frozen=True, slots=True)
class Chunk:
    file_id: str
    start: int
    """Offset of the chunk in the file's body (-1 for the head chunk)."""
    key: str
    """sha256 of the text embedded for it (``view.sha256_text``): its vector's key."""


def _pieces(body: str, size: int) -> list[tuple[int, str]]:
    pieces: list[tuple[int, str]] = []
    start, current = 0, ""
    position = 0
    for part in _PARAGRAPH.split(body):
        offset = body.find(part, position)
        position = offset + len(part)
        if not part.strip():
            continue
        if current and len(current) + len(part) > size:
            pieces.append((start, current))
            current = ""
        if not current:
            start = offset
        while len(part) > size:
            cut = part.rfind(" ", 0, size)
            cut = cut if cut > size // 2 else size
            if current:
                pieces.append((start, current))
                current = ""
            pieces.append((offset, part[:cut]))
            offset += cut
            part = part[cut:]
            start = offset
        current = f"{current}\n\n{part}" if current else part
    if current.strip():
        pieces.append((start, current))
    return pieces


def file_chunks(file: KbFile, size: int) -> list[tuple[Chunk, str]]:
    """The file's chunks, each with the text embedded for it."""
    head = ". ".join(p for p in [file.title, *file.aliases, file.description,
                                 ", ".join(file.tags)] if p)
    texts = [(-1, head)] + [(start, f"{file.title}. {text.strip()}") for start, text in _pieces(file.body, size)]
    return [(Chunk(file.file_id, start, sha256_text(text)), text) for start, text in texts]
