"""Knowledge-base events (seed 002): a base's source files and the base with its readers.

``clctl kb apply`` publishes every changed file first, then one ``knowledge_base.applied``
record whose manifest names each readable path with the sha256 of its content. A reader
shows a file as processed once it holds that exact content, so the order in which the
partitions of the file topic arrive never mixes two revisions.
"""

from __future__ import annotations

from pydantic import Field

from bkn_common.contracts.event_types.base import Event, register_event


@register_event
class KnowledgeFileUpserted(Event):
    """A source file of a knowledge base, whole (path relative to the base's folder)."""

    type = "knowledge_base.file.upserted"
    kb_id: str
    path: str
    content: str
    content_sha256: str
    size_bytes: int = Field(ge=0)


@register_event
class KnowledgeFileRemoved(Event):
    """A path that the latest apply no longer has (its ``sourceFileId`` is never reused)."""

    type = "knowledge_base.file.removed"
    kb_id: str
    path: str


@register_event
class KnowledgeBaseApplied(Event):
    """A knowledge base as one apply left it: name, readers, revision and manifest."""

    type = "knowledge_base.applied"
    kb_id: str
    name: str
    readers: tuple[str, ...] = ()
    content_revision: int = Field(ge=1)
    """``activeContentRevision``: moves only when an apply changed readable content."""
    manifest: dict[str, str] = Field(default_factory=dict)
    """Readable path -> sha256 of its content in this revision."""
    link_root: str = ""
    """The URL prefix a site serves the folder under (``--link-root``): ``/x`` links after it
    resolve from the base root. Added in 2026-12; older records mean none."""
