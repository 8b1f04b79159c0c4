"""Files of a knowledge base as the API shows them: ids, kinds, read actions."""

from __future__ import annotations

import posixpath
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal
from urllib.parse import quote

from knowledge_base.domain.rendering import Rendered

FileKind = Literal["page", "index", "document", "directory_index", "index_catalogue", "graph"]
NAVIGATION_KINDS = frozenset({"index", "directory_index", "index_catalogue", "graph"})
_NAMESPACE = uuid.UUID("6f1f6c52-8d0e-4a53-9a3f-2f4b4c1d9e11")


def source_file_id(kb_id: str, path: str) -> str:
    """Stable per (base, path): survives content changes, never names another path."""
    return "source-file-" + str(uuid.uuid5(_NAMESPACE, "\n".join(("source", kb_id, path))))


def generated_file_id(kb_id: str, path: str) -> str:
    return "generated-file-" + str(uuid.uuid5(_NAMESPACE, "\n".join(("generated", kb_id, path))))


def graph_path(path: str) -> str:
    """The ``_graph`` file the service derives for a source file (callers never build it)."""
    stem = path[: -len(".md")] if path.endswith(".md") else path
    inner = stem.removeprefix("pages/") if path.startswith("pages/") else f"_files/{stem}"
    return f"_graph/by-file/{inner}.json"


def parent_of(path: str) -> str:
    return posixpath.dirname(path)


@dataclass(frozen=True, slots=True)
class KbFile:
    """One readable file: a source file or a derived navigation file.

    A source file stores its text (``stored_*``); a generated one stores none and has ``render``,
    called when a reader asks for its content, SHA-256 or size (see ``domain/rendering.py``).
    Read both kinds through ``content``, ``content_sha256``, ``size_bytes`` and ``body``."""

    kb_id: str
    file_id: str
    path: str
    kind: FileKind
    title: str
    description: str
    stored_content: str
    stored_sha256: str
    frontmatter: dict[str, Any] = field(default_factory=dict)
    stored_body: str | int = ""
    """The body, or where it starts in ``stored_content`` when it is the content's tail (most
    are: only the frontmatter is cut off), so the text is not held twice."""
    available: bool = True
    tags: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    derived: tuple[str, ...] = ()
    """Metadata fields derived because the frontmatter did not give them (title, description)."""
    render: Callable[[], Rendered] | None = field(default=None, compare=False, repr=False)
    """A generated file's content on demand (None for a source file, whose text is stored)."""

    @property
    def content(self) -> str:
        return self.stored_content if self.render is None else self.render().content

    @property
    def content_sha256(self) -> str:
        return self.stored_sha256 if self.render is None else self.render().sha256

    @property
    def body(self) -> str:
        """The text without frontmatter (a generated file has none: its whole content)."""
        if self.render is not None:
            return self.render().content
        body = self.stored_body
        return body if isinstance(body, str) else self.stored_content[body:]

    @property
    def navigation(self) -> bool:
        return self.kind in NAVIGATION_KINDS

    @property
    def source(self) -> bool:
        return not self.file_id.startswith("generated-file-")

    @property
    def size_bytes(self) -> int:
        return len(self.stored_content.encode()) if self.render is None else self.render().size_bytes

    @property
    def graph_ref(self) -> str | None:
        return graph_path(self.path) if self.source and not self.navigation else None


@lru_cache(maxsize=65536)
def _quoted(text: str) -> str:
    """``text`` percent-encoded as one path segment or query value (a search page quotes
    ~40 ids and paths, mostly the same ones again)."""
    return quote(text, safe="")


class Actions:
    """``readActions`` paths of one base, exactly as the public API serves them."""

    def __init__(self, public_path: str, kb_id: str) -> None:
        self.base = f"{public_path.rstrip('/')}/{_quoted(kb_id)}"

    def content_by_path(self, path: str) -> str:
        return f"{self.base}/files/content?path={_quoted(path)}"

    def content_by_id(self, file_id: str) -> str:
        return f"{self.base}/files/{_quoted(file_id)}/content"

    def file_by_id(self, file_id: str) -> str:
        return f"{self.base}/files/{_quoted(file_id)}"

    def related_by_id(self, file_id: str) -> str:
        return f"{self.base}/files/{_quoted(file_id)}/related"

    def graph_by_id(self, file_id: str) -> str:
        return f"{self.base}/graph/expand?fileId={_quoted(file_id)}"

    def tree(self, parent_path: str) -> str:
        return f"{self.base}/tree?parentPath={_quoted(parent_path)}"

    def for_file(self, file: KbFile, *, search: bool = False) -> dict[str, str]:
        actions = {"fileContentByPath": self.content_by_path(file.path)}
        if search:
            actions = {"fileContentById": self.content_by_id(file.file_id), **actions}
        if file.source and not file.navigation:
            actions["relatedFilesById"] = self.related_by_id(file.file_id)
            actions["graphExpansionByFileId"] = self.graph_by_id(file.file_id)
        return actions
