"""``search_files``: validate, rank within the deadline, page through an opaque cursor.

A timeout is SEARCH_TIMEOUT and a failing index or cursor store is SEARCH_UNAVAILABLE: an
error is never turned into an empty result. ``no_candidates`` is the successful empty answer.

The cursor keeps the ranked pool as bare hits (file id, score, lanes, matched fields); the
items of a page (excerpt, read actions) are built from the same revision's files when the
page is served. Ranking runs on the event loop (about a millisecond on 10,000 files: a worker
thread only added GIL hand-offs), checking the deadline between lanes; only the vector lane
(the query's embedding and the product with the chunk matrix, the heavy steps) goes to a worker
thread, batched with the searches running beside it (:mod:`vector_lane`).
"""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import dataclass
from typing import Any

from bkn_common.contracts.i18n import Language, register_messages, render_message
from bkn_common.contracts.openapi_errors import OpenApiCode, OpenApiError
from knowledge_base.domain import errors
from knowledge_base.domain.files import Actions
from knowledge_base.domain.search import (
    WEIGHTS,
    Hit,
    Outcome,
    VectorHits,
    excerpt,
    excerpt_needles,
    item_fields,
)
from knowledge_base.domain.view import BaseView
from knowledge_base.service_layer.indexes import Indexes
from knowledge_base.service_layer.ports import CursorStore
from knowledge_base.service_layer.projection import KnowledgeState
from knowledge_base.service_layer.reading import Reader, bounded, readable
from knowledge_base.service_layer.vector_lane import VectorLane
from knowledge_base.service_layer.vectors import VectorStore

MODES = ("hybrid", "file", "graph")
RESULT_POOL = 100

register_messages({
    "kb.no_candidates": {
        "zh-CN": "没有找到可读的来源文件候选；请换用知识库中的说法重新表述，或用 list_tree 浏览目录。",
        "en-US": ("No readable source file matched; rephrase with words the knowledge base uses, "
                  "or browse with list_tree."),
    },
})


@dataclass(frozen=True)
class SearchRequest:
    kb_id: str
    query: str
    mode: str = "hybrid"
    graph_depth: int | None = None
    graph_fanout: int | None = None
    rerank: bool = False
    limit: int | None = None
    cursor: str | None = None


@dataclass
class Searcher:
    state: KnowledgeState
    indexes: Indexes
    cursors: CursorStore
    deadline_seconds: float
    excerpt_chars: int
    cursor_ttl_seconds: int
    semantic_off_reason: str | None = None
    _lane: VectorLane | None = None

    async def search(self, reader: Reader, request: SearchRequest, language: Language) -> dict[str, Any]:
        view = readable(self.state, request.kb_id, reader.account)
        query = request.query.strip() if isinstance(request.query, str) else ""
        if not 2 <= len(query) <= 512:
            raise errors.validation("query must have 2 to 512 characters", field="query")
        if request.mode not in MODES:
            raise errors.validation("mode must be hybrid, file or graph", field="mode")
        limit = bounded("limit", request.limit, (1, 50, 10))
        depth = bounded("graphDepth", request.graph_depth, (0, 2, 1))
        fanout = bounded("graphFanout", request.graph_fanout,
                         (1, reader.max_graph_fanout, min(10, reader.max_graph_fanout)))
        binding = {"query": query, "mode": request.mode, "revision": view.revision,
                   "graphDepth": depth, "graphFanout": fanout, "limit": limit,
                   "account": reader.account, "kb": request.kb_id}
        actions = Actions(reader.public_path, request.kb_id)
        if request.cursor:
            return await self._continue(request.cursor, binding, view, actions)
        try:
            outcome, ranked = await asyncio.wait_for(
                self._rank(request.kb_id, query, request.mode, depth, fanout),
                timeout=self.deadline_seconds)
        except TimeoutError:
            raise OpenApiError(OpenApiCode.SEARCH_TIMEOUT,
                               params={"seconds": self.deadline_seconds},
                               details={"deadlineSeconds": self.deadline_seconds}) from None
        except OpenApiError:
            raise
        except Exception as exc:
            raise OpenApiError(OpenApiCode.SEARCH_UNAVAILABLE, params={"reason": type(exc).__name__},
                               details={"reason": "index_failed"}) from exc
        pool = [_bare(hit) for hit in outcome.hits]
        status = {
            "activeContentRevision": ranked.revision,
            "searchStatus": "ok" if pool else "no_candidates",
            "searchMode": request.mode,
            "semanticStatus": {"state": outcome.semantic[0], "safeCode": outcome.semantic[1]},
            "rerankerStatus": ({"state": "not_configured", "safeCode": "RERANKER_NOT_CONFIGURED"}
                               if request.rerank else {"state": "skipped", "safeCode": "RERANKER_DISABLED"}),
            "message": None if pool else render_message("kb.no_candidates", language, {}),
            "nextActions": [] if pool else [
                {"tool": "list_tree", "arguments": {"parentPath": ""}},
                {"tool": "search_files", "arguments": {"mode": "hybrid"}, "hint": "rephrase"},
            ],
        }
        binding["revision"] = ranked.revision
        return await self._page(pool, 0, status, binding, ranked, actions)

    async def _rank(self, kb_id: str, query: str, mode: str, depth: int, fanout: int) -> tuple[Outcome, BaseView]:
        started = time.monotonic()
        index = await self.indexes.index(kb_id)
        if index is None:
            raise errors.base_not_found(kb_id)
        vectors = self.indexes.vectors
        vector_hits: VectorHits | None = None
        if vectors is not None and WEIGHTS[mode].get("vector") and vectors.loaded:
            # encoder and matrix product in the lane's worker thread, batched with the
            # searches running beside this one (a failure: VECTOR_LANE_FAILED below)
            vector_hits = await self.vector_lane(vectors).rank(index, query)
        deadline = started + self.deadline_seconds

        def check() -> None:
            if time.monotonic() >= deadline:
                raise TimeoutError

        check()
        outcome = index.search(query, mode, vectors=vectors, graph_depth=depth,  # type: ignore[arg-type]
                               graph_fanout=fanout, semantic_off_reason=self.semantic_off_reason,
                               check=check, limit=RESULT_POOL, vector_hits=vector_hits)
        return outcome, index.view

    def vector_lane(self, vectors: VectorStore) -> VectorLane:
        if self._lane is None or self._lane.vectors is not vectors:
            self._lane = VectorLane(vectors)
        return self._lane

    def _item(self, bare: list[Any], view: BaseView, query: tuple[str, list[str]],
              actions: Actions) -> dict[str, Any]:
        file_id, score, lanes, fields, chunk_start, via = bare
        file = view.by_id.get(file_id)
        if file is None:  # same revision, so never expected: refuse rather than guess
            raise errors.stale_cursor("a file it listed is no longer in the base")
        hit = Hit(file, score, lanes, fields, chunk_start, via)
        item = {
            "fileId": file.file_id, "sourceFileId": file.file_id, "path": file.path,
            "title": file.title, "description": file.description,
            "score": round(hit.score * 1000, 3),
            **item_fields(hit),
            "sourceExcerpt": excerpt(file, query[0], hit, self.excerpt_chars, query[1]),
            "contentAvailable": file.available,
            "readActions": actions.for_file(file, search=True),
        }
        if hit.via is not None:
            item["viaFileId"] = hit.via
        return item

    async def _page(self, pool: list[list[Any]], offset: int, status: dict[str, Any],
                    binding: dict[str, Any], view: BaseView, actions: Actions) -> dict[str, Any]:
        limit = binding["limit"]
        query = (binding["query"], excerpt_needles(binding["query"]))
        chunk = [self._item(bare, view, query, actions) for bare in pool[offset: offset + limit]]
        next_cursor = None
        if offset + limit < len(pool):
            next_cursor = "sc_" + secrets.token_urlsafe(18)
            try:
                await self.cursors.put(next_cursor, {"binding": binding, "offset": offset + limit,
                                                     "pool": pool, "status": status},
                                       self.cursor_ttl_seconds)
            except Exception as exc:
                raise OpenApiError(OpenApiCode.SEARCH_UNAVAILABLE, params={"reason": "cursor store"},
                                   details={"reason": "cursor_store_unavailable"}) from exc
        return {**status, "items": chunk, "nextCursor": next_cursor}

    async def _continue(self, cursor: str, binding: dict[str, Any], view: BaseView,
                        actions: Actions) -> dict[str, Any]:
        try:
            stored = await self.cursors.get(cursor)
        except Exception as exc:
            raise OpenApiError(OpenApiCode.SEARCH_UNAVAILABLE, params={"reason": "cursor store"},
                               details={"reason": "cursor_store_unavailable"}) from exc
        if stored is None:
            raise errors.stale_cursor("it expired or was never issued")
        kept = stored["binding"]
        if kept.get("revision") != binding["revision"]:
            raise errors.stale_cursor(
                f"activeContentRevision moved from {kept.get('revision')} to {binding['revision']}")
        if kept != binding or "pool" not in stored:  # "pool": bare hits as lists
            raise errors.stale_cursor("it was issued for another query, mode or limit")
        return await self._page(stored["pool"], int(stored["offset"]), stored["status"], binding,
                                view, actions)


def _bare(hit: Hit) -> list[Any]:
    """A ranked hit as the cursor keeps it (JSON): [file id, score, lanes, matched fields,
    best chunk start, reached-from file id]."""
    return [hit.file.file_id, hit.score, hit.lanes, hit.fields, hit.chunk_start, hit.via]
