"""Reading a knowledge base: tree, file metadata, content, related files, graph expansion.

Access: a base is readable by the accounts its latest apply named. Every other caller gets
NOT_FOUND for the base, exactly as for a base that does not exist (no existence leak);
FORBIDDEN is not used for reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from knowledge_base.domain import errors
from knowledge_base.domain.files import Actions, KbFile
from knowledge_base.domain.paging import decode_cursor, encode_cursor, page
from knowledge_base.domain.relations import Relation
from knowledge_base.domain.view import BaseView
from knowledge_base.service_layer.projection import KnowledgeState

TREE_LIMIT = (1, 200, 50)
RELATED_LIMIT = (1, 100, 20)
GRAPH_LIMIT = (1, 200, 50)


@dataclass(frozen=True)
class Reader:
    """What reading needs besides the state: who asks and the deployment's limits."""

    account: str
    public_path: str
    read_max_bytes: int
    max_graph_fanout: int


def readable(state: KnowledgeState, kb_id: str, account: str) -> BaseView:
    view = state.view(kb_id)
    if view is None or account not in view.readers:
        raise errors.base_not_found(kb_id)
    return view


def bounded(name: str, value: int | None, bounds: tuple[int, int, int]) -> int:
    low, high, default = bounds
    if value is None:
        return default
    if not low <= value <= high:
        raise errors.validation(f"{name} must be between {low} and {high}", field=name, value=value)
    return value


def file_status(file: KbFile) -> str:
    return "current_available" if file.available else "unavailable"


def metadata(view: BaseView, file: KbFile, actions: Actions) -> dict[str, Any]:
    return {
        "activeContentRevision": view.revision,
        "fileId": file.file_id,
        "sourceFileId": file.file_id if file.source else None,
        "path": file.path,
        "title": file.title,
        "fileKind": file.kind,
        "description": file.description,
        "frontmatter": file.frontmatter,
        "derivedFields": list(file.derived),
        "navigation": file.navigation,
        "generatedOutputStatus": file_status(file),
        "contentAvailable": file.available,
        "contentSha256": file.content_sha256 if file.available else None,
        "graphRef": file.graph_ref,
        "readActions": actions.for_file(file),
    }


def find(view: BaseView, file_id: str | None, path: str | None) -> KbFile:
    if (file_id is None) == (path is None):
        raise errors.validation("give exactly one of fileId or path", fields=["fileId", "path"])
    file = view.by_id.get(file_id) if file_id is not None else view.files.get(path or "")
    if file is None:
        raise errors.file_not_found(file_id or path or "")
    return file


def list_tree(state: KnowledgeState, reader: Reader, kb_id: str, parent_path: str | None,
              cursor: str | None, limit: int | None, entry_type: str | None = None) -> dict[str, Any]:
    view = readable(state, kb_id, reader.account)
    size = bounded("limit", limit, TREE_LIMIT)
    parent = (parent_path or "").strip("/")
    if entry_type not in (None, "file", "directory"):
        raise errors.validation("entryType must be file or directory", field="entryType")
    if parent and parent not in view.directories:
        raise errors.file_not_found(parent)
    shape = {"parentPath": parent, "limit": size, "entryType": entry_type}
    offset = decode_cursor(cursor, "tree", view.revision, shape)
    actions = Actions(reader.public_path, kb_id)
    entries = [(p, f) for p, f in view.children(parent)
               if entry_type is None or (entry_type == "file") == (f is not None)]
    chunk, nxt = page(entries, offset, size)
    items = []
    for path, file in chunk:
        if file is None:
            items.append({"fileId": None, "sourceFileId": None, "path": path,
                          "title": path.rsplit("/", 1)[-1], "entryType": "directory",
                          "fileKind": None, "contentAvailable": False, "navigation": False,
                          "readActions": {"treeByParentPath": actions.tree(path)}})
        else:
            items.append({"fileId": file.file_id, "sourceFileId": file.file_id if file.source else None,
                          "path": path, "title": file.title, "entryType": "file",
                          "fileKind": file.kind, "contentAvailable": file.available,
                          "navigation": file.navigation,
                          "generatedOutputStatus": file_status(file),
                          "readActions": {"fileContentByPath": actions.content_by_path(path)}})
    return {
        "activeContentRevision": view.revision,
        "items": items,
        "nextCursor": None if nxt is None else encode_cursor("tree", view.revision, nxt, shape),
    }


def get_file(state: KnowledgeState, reader: Reader, kb_id: str, file_id: str) -> dict[str, Any]:
    view = readable(state, kb_id, reader.account)
    return metadata(view, find(view, file_id, None), Actions(reader.public_path, kb_id))


def read_file(state: KnowledgeState, reader: Reader, kb_id: str, file_id: str | None,
              path: str | None) -> dict[str, Any]:
    view = readable(state, kb_id, reader.account)
    file = find(view, file_id, path)
    if not file.available:
        raise errors.not_processed(file.path)
    if file.size_bytes > reader.read_max_bytes:
        raise errors.too_large(file.path, file.size_bytes, reader.read_max_bytes)
    info = metadata(view, file, Actions(reader.public_path, kb_id))
    for key in ("description", "contentAvailable"):
        info.pop(key)
    return {"file": info, "content": file.content}


def _record(view: BaseView, rel: Relation, actions: Actions) -> dict[str, Any] | None:
    target = view.files.get(rel.target_path)
    if target is None:
        return None
    return {"fileId": target.file_id, "path": target.path, "title": target.title,
            "relationType": rel.relation_type, "direction": rel.direction, "weight": rel.weight,
            "reason": rel.reason, "contentAvailable": target.available,
            "readActions": {"fileContentByPath": actions.content_by_path(target.path),
                            "graphExpansionByFileId": actions.graph_by_id(target.file_id)}}


def _evidence_file(view: BaseView, file_id: str) -> KbFile:
    file = find(view, file_id, None)
    if not file.source or file.navigation:
        raise errors.validation("relations exist for source files only, not navigation files",
                                field="fileId", fileKind=file.kind)
    return file


def read_related(state: KnowledgeState, reader: Reader, kb_id: str, file_id: str,
                 cursor: str | None, limit: int | None) -> dict[str, Any]:
    view = readable(state, kb_id, reader.account)
    size = bounded("limit", limit, RELATED_LIMIT)
    file = _evidence_file(view, file_id)
    shape = {"fileId": file.file_id, "limit": size}
    offset = decode_cursor(cursor, "related", view.revision, shape)
    actions = Actions(reader.public_path, kb_id)
    chunk, nxt = page(view.relations.get(file.path, []), offset, size)
    return {
        "activeContentRevision": view.revision,
        "fileId": file.file_id,
        "graphRef": file.graph_ref,
        "items": [r for rel in chunk if (r := _record(view, rel, actions)) is not None],
        "nextCursor": None if nxt is None else encode_cursor("related", view.revision, nxt, shape),
    }


def _walk(view: BaseView, start: KbFile, depth: int, fanout: int) -> list[tuple[int, str, Relation]]:
    """Breadth first from ``start``: each node's ``fanout`` strongest relations, once per file."""
    seen = {start.path}
    frontier = [start.path]
    found: list[tuple[int, str, Relation]] = []
    for level in range(1, depth + 1):
        following = []
        for node in frontier:
            taken = 0
            for rel in view.relations.get(node, []):
                if taken >= fanout:
                    break
                if rel.target_path in seen:
                    continue
                seen.add(rel.target_path)
                found.append((level, node, rel))
                following.append(rel.target_path)
                taken += 1
        frontier = following
    return found


def expand_graph(state: KnowledgeState, reader: Reader, kb_id: str, file_id: str,
                 depth: int | None, fanout: int | None, limit: int | None,
                 cursor: str | None) -> dict[str, Any]:
    view = readable(state, kb_id, reader.account)
    hops = bounded("depth", depth, (0, 2, 1))
    width = bounded("fanout", fanout, (1, reader.max_graph_fanout, min(10, reader.max_graph_fanout)))
    size = bounded("limit", limit, GRAPH_LIMIT)
    start = _evidence_file(view, file_id)
    shape = {"fileId": start.file_id, "depth": hops, "fanout": width, "limit": size}
    offset = decode_cursor(cursor, "graph", view.revision, shape)
    actions = Actions(reader.public_path, kb_id)
    walked = _walk(view, start, hops, width)
    chunk, nxt = page(walked, offset, size)
    relationships = []
    for level, node, rel in chunk:
        record = _record(view, rel, actions)
        if record is not None:
            source = view.files[node]
            record.pop("contentAvailable")
            relationships.append({**record, "depth": level, "fromFileId": source.file_id,
                                  "fromPath": source.path})
    graph_paths = [p for p in [start.graph_ref, *(view.files[r.target_path].graph_ref
                                                 for _, _, r in chunk)] if p]
    return {
        "activeContentRevision": view.revision,
        "seedFile": {"fileId": start.file_id, "path": start.path, "title": start.title},
        "relationships": relationships,
        "graphPaths": list(dict.fromkeys(graph_paths)),
        "nextCursor": None if nxt is None else encode_cursor("graph", view.revision, nxt, shape),
    }
