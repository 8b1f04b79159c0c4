"""Hybrid search over one revision of a base: lanes fused by weighted reciprocal rank fusion.

Lanes: exact path, exact title / alias, titles named inside the question, BM25 (words and
Chinese), content vectors (chunked bodies) and graph neighbours of the top hits. Only source
files are indexed: a navigation page of the source (``index.md``, ``README.md``, ``_index.md``,
``SUMMARY.md``, ``TOC*.md``) is a candidate only when the query is its exact path or title;
derived navigation files never are.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import numpy as np

from knowledge_base.domain.chunks import Chunk, file_chunks
from knowledge_base.domain.files import KbFile
from knowledge_base.domain.fusion import fuse, fuse_new
from knowledge_base.domain.lexical import Bm25Index, field_names
from knowledge_base.domain.text import is_bigram, normalized, tokens
from knowledge_base.domain.view import BaseView

Mode = Literal["hybrid", "file", "graph", "vector", "bm25"]
POOL = 200
VECTOR_FLOOR = 0.30
VECTOR_ONLY_FLOOR = 0.38
MENTION_MIN = 4  # shorter titles are not looked for inside a question
BM25_FLOOR_SHARE = 0.25  # a BM25 hit below this share of the best score is noise
BM25_FLOOR_SHARE_WITH_VECTORS = 0.6
"""With the vector lane on, the BM25 lane keeps only hits at this share of its best score or
above: the weak tail (pages sharing one common word with the question) otherwise outweighs,
by rank fusion, the pages the vectors found."""
COVERAGE_MIN = 0.1
"""With the vector lane on, the BM25 lane weighs ``weight * coverage ** 2`` (at least this
share): coverage is the share of the query's words (Latin words and jieba words; not the CJK
bigrams, which straddle word edges and mostly occur nowhere: counted, they sank the coverage of
a mixed question, Chinese around an English term) the base holds. A question in another
language than the pages (a Chinese question over English pages) matches only its few shared
words ("Markdown", "JSON"), and those would outrank what the vectors found."""
WEIGHTS: dict[str, dict[str, float]] = {
    "hybrid": {"path": 12.0, "title": 10.0, "mention": 2.0, "bm25": 1.0, "vector": 1.6, "graph": 0.35},
    "file": {"path": 12.0, "title": 10.0, "mention": 2.0, "bm25": 1.0},
    "graph": {"path": 12.0, "title": 10.0, "mention": 2.0, "bm25": 1.0, "vector": 1.6, "graph": 1.0},
    "vector": {"vector": 1.0},
    "bm25": {"bm25": 1.0},
}
EVIDENCE = {"path": "path", "title": "title", "mention": "title", "bm25": "content",
            "vector": "content", "graph": "graph"}
# the matched field a lane adds to its hits (the BM25 lane adds the fields its tokens matched)
LANE_FIELDS = {"path": "path", "title": "title", "mention": "title", "vector": "content"}
_WORDISH = re.compile(r"\w", re.UNICODE)
_LATIN_WORD = re.compile(r"[0-9a-z]")
VectorHits = list[tuple[str, float, int]] | BaseException
"""The vector lane's (file id, cosine, chunk start) best first, or why it failed."""


class Vectors(Protocol):
    """Content vectors by chunk key (None while a chunk is not embedded yet)."""

    def get(self, key: str) -> np.ndarray | None: ...

    def embed_query(self, text: str) -> np.ndarray: ...

    def share(self, keys: Sequence[str], matrix: np.ndarray) -> None:
        """Keep the vectors of ``keys`` as the rows of ``matrix`` (same values, one copy)."""


@dataclass
class Hit:
    file: KbFile
    score: float
    lanes: list[str] = field(default_factory=list)
    fields: list[str] = field(default_factory=list)
    chunk_start: int | None = None
    via: str | None = None  # the file a graph neighbour was reached from

    @property
    def match_type(self) -> str:
        return "graph_neighbor" if self.lanes == ["graph"] else "file_direct"


@dataclass(frozen=True)
class ChunkMatrix:
    """The embedded chunks of an index: one unit row per chunk, its file's slot and start."""

    matrix: np.ndarray
    files: np.ndarray
    starts: np.ndarray


@dataclass
class Outcome:
    hits: list[Hit]
    semantic: tuple[str, str | None]
    lanes: dict[str, int]


class SearchIndex:
    """Everything one revision's searches need; built once per revision."""

    def __init__(self, view: BaseView, chunk_chars: int) -> None:
        self.view = view
        self.revision = view.revision
        self.docs: dict[str, KbFile] = {f.file_id: f for f in view.sources() if f.available}
        self.by_path: dict[str, KbFile] = {f.path: f for f in self.docs.values()}
        self.navigation: dict[str, KbFile] = {f.file_id: f for f in view.files.values()
                                              if f.source and f.navigation and f.available}
        self.files = {**self.docs, **self.navigation}
        """Every file a search may answer with (navigation pages only by exact path or title)."""
        self.nav_paths: dict[str, str] = {}
        self.nav_titles: dict[str, list[str]] = {}
        for file in self.navigation.values():
            self.nav_paths.setdefault(file.path, file.file_id)
            self.nav_paths.setdefault(file.path.lower(), file.file_id)
            for name in (file.title, *file.aliases):
                if normalized(name):
                    self.nav_titles.setdefault(normalized(name), []).append(file.file_id)
        self.bm25 = Bm25Index()
        self.paths: dict[str, str] = {}
        self.titles: dict[str, list[str]] = {}
        self.chunk_chars = chunk_chars
        self.chunks: list[Chunk] = []
        for file in self.docs.values():
            self.bm25.add(file.file_id, {
                "title": tokens(file.title), "aliases": tokens(" ".join(file.aliases)),
                "tags": tokens(" ".join(file.tags)), "description": tokens(file.description),
                "path": tokens(file.path.removesuffix(".md").replace("/", " ")),  # not ".md": every page has it
                "content": tokens(file.body),
            })
            for variant in _path_variants(file.path):
                self.paths.setdefault(variant, file.file_id)
            for name in (file.title, *file.aliases):
                key = normalized(name)
                if key:
                    self.titles.setdefault(key, []).append(file.file_id)
            self.chunks.extend(chunk for chunk, _ in file_chunks(file, chunk_chars))
        self.mentions = sorted(((k, v) for k, v in self.titles.items() if len(k) >= MENTION_MIN),
                               key=lambda kv: -len(kv[0]))
        # mentionable titles by their first characters, then by length: at each position of a
        # query only the few lengths of titles starting there are looked up, not every title
        self._mention_rank = {title: rank for rank, (title, _) in enumerate(self.mentions)}
        lengths: dict[str, set[int]] = {}
        for title, _ in self.mentions:
            lengths.setdefault(title[:MENTION_MIN], set()).add(len(title))
        self._mention_heads = {head: sorted(found) for head, found in lengths.items()}
        self.bm25.freeze()
        self._file_ids = list(self.docs)
        self._embedded: ChunkMatrix | None = None
        self.missing_vectors = len(self.chunks)

    def chunk_texts(self, wanted: Callable[[str], bool] = lambda key: True) -> Iterator[tuple[str, str]]:
        """(key, text) of the chunks whose key ``wanted`` accepts, a chunk shared by several
        files once. The texts are not kept: the files holding a wanted chunk are chunked again."""
        files = dict.fromkeys(c.file_id for c in self.chunks if wanted(c.key))
        given: set[str] = set()
        for file_id in files:
            for chunk, text in file_chunks(self.docs[file_id], self.chunk_chars):
                if chunk.key not in given and wanted(chunk.key):
                    given.add(chunk.key)
                    yield chunk.key, text

    def refresh_vectors(self, vectors: Vectors) -> None:
        """Gather the chunk vectors embedded so far into one matrix (replaced as a whole, so
        a search in another thread sees the old matrix or the new one, never half of each);
        the store then keeps its rows as views of that matrix, not as a second copy."""
        slot_of = {fid: slot for slot, fid in enumerate(self._file_ids)}
        found, keys, files, starts = [], [], [], []
        for chunk in self.chunks:
            vec = vectors.get(chunk.key)
            if vec is not None:
                found.append(vec)
                keys.append(chunk.key)
                files.append(slot_of[chunk.file_id])
                starts.append(chunk.start)
        if found:
            matrix = np.asarray(np.vstack(found), dtype=np.float32)
            del found
            vectors.share(keys, matrix)
            self._embedded = ChunkMatrix(matrix, np.asarray(files, dtype=np.int64), np.asarray(starts, dtype=np.int64))
        else:
            self._embedded = None
        self.missing_vectors = len(self.chunks) - len(keys)

    @property
    def embedded(self) -> ChunkMatrix | None:
        """The embedded chunks (None while none is)."""
        return self._embedded

    # -- lanes -------------------------------------------------------------------------
    def exact_path(self, query: str) -> list[str]:
        key = query.strip().strip("`'\"").lstrip("/")
        hit = (self.paths.get(key) or self.paths.get(key.lower())
               or self.nav_paths.get(key) or self.nav_paths.get(key.lower()))
        return [hit] if hit else []

    def exact_title(self, query: str) -> list[str]:
        key = normalized(query)
        found = self.titles.get(key, []) + self.nav_titles.get(key, [])
        return sorted(found, key=lambda i: (self.files[i].navigation, self.files[i].path))

    def mention(self, query: str) -> list[str]:
        """Titles (and aliases) named inside the question, longest first: a title in Latin
        letters or digits counts only as whole words ("Mark" is not named in "Markdown")."""
        text = normalized(query)
        heads, rank_of = self._mention_heads, self._mention_rank
        ranks = set()
        for i in range(len(text) - MENTION_MIN + 1):
            if i and _inside_word(text, i):
                continue
            for size in heads.get(text[i:i + MENTION_MIN], ()):
                if i + size < len(text) and _inside_word(text, i + size):
                    continue
                rank = rank_of.get(text[i:i + size])
                if rank is not None:
                    ranks.add(rank)
        found: list[str] = []
        for rank in sorted(ranks):
            title, ids = self.mentions[rank]
            if title != text:
                found.extend(i for i in ids if i not in found)
        return found[:20]

    def lexical(self, query: str, query_tokens: list[str] | None = None) -> list[tuple[str, float, int]]:
        """(file id, BM25 score, bits of the fields matched: ``lexical.field_names``)."""
        ranked = self.bm25.search_bits(tokens(query) if query_tokens is None else query_tokens, POOL)
        if not ranked:
            return []
        floor = ranked[0][1] * BM25_FLOOR_SHARE
        return [r for r in ranked if r[1] >= floor]

    def semantic(self, query_vector: np.ndarray) -> list[tuple[str, float, int]]:
        """(file id, best chunk cosine, best chunk start) over the embedded chunks."""
        embedded = self._embedded
        if embedded is None:
            return []
        return self.semantic_ranked(embedded, embedded.matrix @ query_vector.astype(np.float32))

    def semantic_ranked(self, embedded: ChunkMatrix, sims: np.ndarray) -> list[tuple[str, float, int]]:
        """The vector lane from the cosines of every row of ``embedded`` (one query): of the
        ``POOL * 4`` best chunks at or above the floor, each file's best, best first (ties by
        row), at most ``POOL`` files. Array operations only: a partition instead of a full
        sort, the first row of each file found by ``np.unique`` instead of a loop."""
        window = POOL * 4
        if len(sims) > window:
            top = np.argpartition(sims, len(sims) - window)[len(sims) - window:]
            top.sort()
        else:
            top = np.arange(len(sims))
        top = top[sims[top] >= VECTOR_FLOOR]
        top = top[np.argsort(-sims[top], kind="stable")]
        _, first = np.unique(embedded.files[top], return_index=True)
        best = top[np.sort(first)][:POOL]
        ids = self._file_ids
        return list(zip([ids[slot] for slot in embedded.files[best].tolist()], sims[best].tolist(),
                        embedded.starts[best].tolist(), strict=True))

    def neighbours(self, seeds: Sequence[str], depth: int, fanout: int) -> list[tuple[str, str]]:
        """(neighbour id, reached from id) by relation weight, depth hops from the seeds."""
        by_path = self.by_path
        seen, out = set(seeds), []
        frontier = list(seeds)
        for _ in range(depth):
            following = []
            for fid in frontier:
                taken = 0
                for rel in self.view.relations.get(self.files[fid].path, []):
                    target = by_path.get(rel.target_path)
                    if target is None or target.file_id in seen or taken >= fanout:
                        continue
                    seen.add(target.file_id)
                    out.append((target.file_id, fid))
                    following.append(target.file_id)
                    taken += 1
            frontier = following
        return out

    # -- the search --------------------------------------------------------------------
    def search(self, query: str, mode: Mode, *, vectors: Vectors | None, graph_depth: int = 1,
               graph_fanout: int = 10, semantic_off_reason: str | None = None,
               check: Callable[[], None] = lambda: None, limit: int | None = None,
               vector_hits: VectorHits | None = None) -> Outcome:
        """The fused hits, best first (the first ``limit`` of them when given).
        ``vector_hits``: the vector lane as the caller ranked it (:meth:`semantic_ranked`;
        an exception: it failed); without it the lane embeds the query here."""
        weights = WEIGHTS[mode]
        lanes: dict[str, list[str]] = {}
        bm25_bits: dict[str, int] = {}
        chunk_at: dict[str, int] = {}
        coverage = 1.0
        lexical: list[tuple[str, float, int]] = []
        if "path" in weights:
            lanes["path"] = self.exact_path(query)
            lanes["title"] = self.exact_title(query)
            lanes["mention"] = self.mention(query)
        if "bm25" in weights:
            query_tokens = tokens(query)
            lexical = self.lexical(query, query_tokens)
            lanes["bm25"] = [fid for fid, _, _ in lexical]
            bm25_bits = {fid: bits for fid, _, bits in lexical}
            coverage = self.bm25.coverage(t for t in query_tokens if not is_bigram(t))
        check()
        semantic = _semantic_state(self, vectors, semantic_off_reason, "vector" in weights)
        if "vector" in weights and vectors is not None and semantic[0] != "unavailable" \
                and semantic[1] not in NO_ENCODER:
            if vector_hits is None:
                try:
                    vector_hits = self.semantic(vectors.embed_query(query))
                except Exception as exc:
                    vector_hits = exc
            ranked: list[tuple[str, float, int]] = []
            if isinstance(vector_hits, BaseException):  # say so, answer from the other lanes
                semantic = ("degraded", "VECTOR_LANE_FAILED")
            else:
                ranked = vector_hits
            if lexical:  # see BM25_FLOOR_SHARE_WITH_VECTORS
                floor = lexical[0][1] * BM25_FLOOR_SHARE_WITH_VECTORS
                lanes["bm25"] = [fid for fid, score, _ in lexical if score >= floor]
            strong_lexical = set(lanes.get("bm25", [])) | set(lanes.get("title", []))
            lanes["vector"] = [fid for fid, sim, _ in ranked
                               if sim >= VECTOR_ONLY_FLOOR or fid in strong_lexical]
            for fid, _, start in ranked:
                chunk_at[fid] = start
        check()
        if "vector" in lanes and "bm25" in lanes:  # see COVERAGE_MIN, BM25_FLOOR_SHARE_WITH_VECTORS
            share = max(coverage, COVERAGE_MIN)
            weights = {**weights, "bm25": weights["bm25"] * share * share}
        fused = fuse(lanes, weights)
        via: dict[str, str] = {}
        if "graph" in weights and graph_depth > 0 and fused:
            seeds = [fid for fid, _ in fused[:3]]
            direct = {fid for fid, _ in fused}
            # neighbours the other lanes did not find: the graph lane adds candidates, it does
            # not reorder the direct hits (a small boost would outweigh their rank differences)
            reached = [(fid, via) for fid, via in self.neighbours(seeds, graph_depth, graph_fanout)
                       if fid not in direct]
            lanes["graph"] = [fid for fid, _ in reached]
            via = dict(reached)
            fused = fuse_new(fused, lanes["graph"], weights["graph"])
        members = [(lane, set(ids)) for lane, ids in lanes.items() if weights.get(lane, 0) > 0]
        # most hits share one of a few (lanes, BM25 fields) shapes: each is spelled out once
        shapes: dict[tuple[int, int], tuple[list[str], list[str]]] = {}
        hits = []
        for fid, score in fused if limit is None else fused[:limit]:
            mask = 0
            for bit, (_, ids) in enumerate(members):
                if fid in ids:
                    mask |= 1 << bit
            key = (mask, bm25_bits.get(fid, 0))
            shape = shapes.get(key)
            if shape is None:
                found_in = [lane for bit, (lane, _) in enumerate(members) if mask >> bit & 1]
                fields = set(field_names(key[1]))
                fields.update(LANE_FIELDS[lane] for lane in found_in if lane in LANE_FIELDS)
                shape = shapes[key] = (found_in, sorted(fields))
            found_in, fields_of = shape
            hits.append(Hit(self.files[fid], score, found_in, fields_of,
                            chunk_at.get(fid), via.get(fid) if found_in == ["graph"] else None))
        return Outcome(hits, semantic, {k: len(v) for k, v in lanes.items()})


NO_ENCODER = ("ENCODER_LOADING", "ENCODER_LOAD_FAILED")
"""The encoder is not there to embed the query: no vector lane at all."""


def _semantic_state(index: SearchIndex, vectors: Vectors | None, off_reason: str | None,
                    wanted: bool) -> tuple[str, str | None]:
    if not wanted:
        return ("unavailable", "SEMANTIC_NOT_IN_MODE")
    if vectors is None:
        return ("unavailable", off_reason or "EMBEDDINGS_DISABLED")
    if not getattr(vectors, "loaded", True):
        return ("degraded", "ENCODER_LOAD_FAILED" if getattr(vectors, "failed", None) else "ENCODER_LOADING")
    if index.chunks and index.missing_vectors == len(index.chunks):
        return ("degraded", "VECTORS_PENDING")
    if index.missing_vectors:
        return ("degraded", "VECTORS_PARTIAL")
    return ("ready", None)


def _inside_word(text: str, at: int) -> bool:
    """Whether position ``at`` of ``text`` splits a run of Latin letters or digits."""
    return _LATIN_WORD.match(text, at - 1) is not None and _LATIN_WORD.match(text, at) is not None


def _path_variants(path: str) -> list[str]:
    stem = path[:-3] if path.endswith(".md") else path
    variants = [path, stem, path.lower(), stem.lower()]
    if path.startswith("pages/"):
        inner = path.removeprefix("pages/")
        variants += [inner, inner[:-3] if inner.endswith(".md") else inner]
    return variants


def excerpt_needles(query: str) -> list[str]:
    """What an excerpt looks for in a body: the query's tokens, longest first, then by text."""
    needles = [tok.lstrip("~") for tok in sorted(set(tokens(query)), key=lambda t: (-len(t), t))]
    return [n for n in needles if len(n) >= 2 and _WORDISH.search(n)]


def excerpt(file: KbFile, query: str, hit: Hit, size: int, needles: list[str] | None = None) -> str:
    """A bounded piece of the source text around the match (the best chunk for vectors);
    ``needles``: :func:`excerpt_needles` of the query, when a page already has them."""
    body = file.body.strip("\n")
    if not body:
        return file.description[:size]
    position = -1
    lowered = body.lower()
    for needle in excerpt_needles(query) if needles is None else needles:
        position = lowered.find(needle)
        if position >= 0:
            break
    if position < 0 and hit.chunk_start is not None and hit.chunk_start >= 0:
        position = hit.chunk_start
    start = max(0, position - size // 3) if position >= 0 else 0
    if start:
        space = body.rfind(" ", 0, start)
        start = space + 1 if space >= start - 20 else start
    text = body[start:start + size].strip()
    return ("…" if start else "") + text + ("…" if start + size < len(body) else "")


def item_fields(hit: Hit) -> dict[str, Any]:
    return {"matchedFields": hit.fields or (["relations"] if hit.via else []),
            "evidenceTypes": list(dict.fromkeys(EVIDENCE[lane] for lane in hit.lanes)),
            "matchType": hit.match_type}
