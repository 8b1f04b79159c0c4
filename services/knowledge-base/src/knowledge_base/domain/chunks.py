"""Chunks of a source file for content vectors: a head (title, aliases, description, tags)
and the body in paragraph-aligned pieces, so a fact deep in a long page has its own vector."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from knowledge_base.domain.files import KbFile

_PARAGRAPH = re.compile(r"\n\s*\n")


@dataclass(frozen=True)
class Chunk:
    file_id: str
    start: int
    """Offset of the chunk in the file's body (-1 for the head chunk)."""
    text: str

    @property
    def key(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()


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


def file_chunks(file: KbFile, size: int) -> list[Chunk]:
    head = ". ".join(p for p in [file.title, *file.aliases, file.description,
                                 ", ".join(file.tags)] if p)
    chunks = [Chunk(file.file_id, -1, head)]
    for start, text in _pieces(file.body, size):
        chunks.append(Chunk(file.file_id, start, f"{file.title}. {text.strip()}"))
    return chunks
