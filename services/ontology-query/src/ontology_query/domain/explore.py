"""``explore_subgraph``: fan out from start objects without a known topology.

Semantics:

* Start objects are the instances of ``source_object_type_id`` matching ``condition``
  (which filters starts only), ordered by ``sort`` then id. ``total_count`` counts them all;
  ``limit``/``offset``/``search_after`` pick one page of them — they count starts, never
  paths or objects. ``search_after`` of the result is the position of the page's last start
  (sort values, then id), ``None`` on the last page.
* From each start, paths follow relation instances: ``forward`` along the definition
  (source → target), ``backward`` against it, ``bidirectional`` both. Paths are simple (no
  object twice). With ``concept_groups``, only relation types in one of the groups whose
  both end object types are in one of the groups (the start type is always allowed) are
  walked.
* ``relation_paths`` holds the complete paths (exactly ``path_length`` edges) and, with
  ``include_incomplete_path``, the paths of 1..path_length-1 edges that cannot be extended
  at all; a zero-edge path is never returned.
* ``isolated_objects`` holds the starts with no walkable edge at all; ``objects`` holds the
  other starts of the page and every object on a returned path.
* At most ``max_paths`` paths are returned; ``truncated`` tells when the cap cut in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ontology_query.domain.conditions import bind_condition
from ontology_query.domain.errors import DomainError, QueryErrorCode
from ontology_query.domain.instances import (
    check_limit,
    check_offset,
    require_object_type,
    select_instances,
)
from ontology_query.domain.model import ObjectInstance, ObjectType, RelationType
from ontology_query.domain.ordering import Ordering, parse_sort
from ontology_query.domain.results import (
    EdgeDirection,
    NodeKey,
    ObjectView,
    PathEdge,
    RelationPath,
    Subgraph,
)
from ontology_query.domain.store import OntologyStore

EXPLORE_DIRECTIONS = ("forward", "backward", "bidirectional")
MIN_PATH_LENGTH, MAX_PATH_LENGTH = 1, 3
DEFAULT_MAX_PATHS = 100_000


@dataclass(frozen=True, slots=True)
class _Step:
    relation_type: RelationType
    forward: bool
    next_type: ObjectType


def explore_subgraph(
    store: OntologyStore,
    *,
    source_object_type_id: str,
    direction: str,
    path_length: object,
    condition: object = None,
    concept_groups: Sequence[str] | None = None,
    include_incomplete_path: bool = False,
    limit: int | None = None,
    sort: object = None,
    offset: int | None = None,
    search_after: object = None,
    max_paths: int = DEFAULT_MAX_PATHS,
) -> Subgraph:
    """Explore from one page of start objects; see the module docstring."""
    start_type = require_object_type(store, source_object_type_id)
    if direction not in EXPLORE_DIRECTIONS:
        raise DomainError(
            QueryErrorCode.INVALID_DIRECTION, {"value": direction, "allowed": list(EXPLORE_DIRECTIONS)}
        )
    if (
        isinstance(path_length, bool)
        or not isinstance(path_length, int)
        or not MIN_PATH_LENGTH <= path_length <= MAX_PATH_LENGTH
    ):
        raise DomainError(
            QueryErrorCode.INVALID_PATH_LENGTH,
            {"value": path_length, "min": MIN_PATH_LENGTH, "max": MAX_PATH_LENGTH},
        )
    page_size = check_limit(limit)
    skip = check_offset(offset, search_after, "search_after")
    bound = bind_condition(condition, start_type)
    ordering = Ordering(start_type, parse_sort(sort, start_type))
    after = ordering.decode(search_after, "search_after") if search_after is not None else None
    selection = select_instances(
        store, start_type, bound, ordering, limit=page_size, offset=skip, after=after
    )
    walker = _Walker(
        store,
        _steps(store, direction, start_type.id, concept_groups),
        path_length,
        include_incomplete_path,
        max_paths,
    )
    isolated: dict[NodeKey, ObjectView] = {}
    for start in selection.objects:
        view = ObjectView.of(start, start_type)
        if walker.explore(start, start_type):
            walker.objects.setdefault(view.key, view)
        else:
            isolated[view.key] = view
    next_page = None
    if selection.has_more and selection.objects:
        next_page = ordering.sort_values(selection.objects[-1])
    return Subgraph(
        objects=walker.objects,
        relation_paths=walker.paths,
        isolated_objects=isolated,
        total_count=selection.total_count,
        search_after=next_page,
        truncated=walker.truncated,
    )


def _steps(
    store: OntologyStore, direction: str, start_id: str, groups: Sequence[str] | None
) -> dict[str, list[_Step]]:
    """Per object type id, the (relation type, orientation) pairs that leave it."""
    types = store.object_types()
    wanted = set(groups or ())
    allowed = {start_id} | {
        ot_id for ot_id, ot in types.items() if not wanted or wanted & set(ot.concept_groups)
    }
    steps: dict[str, list[_Step]] = {}
    for rt_id in sorted(store.relation_types()):
        rt = store.relation_types()[rt_id]
        source, target = rt.source_object_type_id, rt.target_object_type_id
        if source not in allowed or target not in allowed:
            continue
        if wanted and not wanted & set(rt.concept_groups):
            continue
        if direction in ("forward", "bidirectional"):
            steps.setdefault(source, []).append(_Step(rt, True, types[target]))
        if direction in ("backward", "bidirectional"):
            steps.setdefault(target, []).append(_Step(rt, False, types[source]))
    return steps


class _Walker:
    """Depth-first enumeration of simple paths, collecting paths and the objects on them."""

    def __init__(
        self,
        store: OntologyStore,
        steps: dict[str, list[_Step]],
        path_length: int,
        include_incomplete: bool,
        max_paths: int,
    ) -> None:
        self._store, self._steps = store, steps
        self._length, self._incomplete, self._max = path_length, include_incomplete, max_paths
        self.objects: dict[NodeKey, ObjectView] = {}
        self.paths: list[RelationPath] = []
        self.truncated = False
        self._nodes: list[tuple[ObjectInstance, ObjectType]] = []
        self._edges: list[PathEdge] = []
        self._on_path: set[NodeKey] = set()

    def explore(self, start: ObjectInstance, start_type: ObjectType) -> bool:
        """Walk from ``start``; False when it has no walkable edge (isolated)."""
        self._nodes, self._edges = [(start, start_type)], []
        self._on_path = {(start.ot_id, start.id)}
        return self._walk(start)

    def _walk(self, node: ObjectInstance) -> bool:
        extended = False
        if len(self._edges) < self._length:
            for step in self._steps.get(node.ot_id, ()):
                extended |= self._follow(node, step)
        if self._edges and (
            len(self._edges) == self._length or (self._incomplete and not extended)
        ):
            self._emit()
        return extended

    def _follow(self, node: ObjectInstance, step: _Step) -> bool:
        objects = self._store.objects(step.next_type.id)
        rt = step.relation_type
        extended = False
        for other_id in self._store.neighbours(rt.id, node.id, forward=step.forward):
            key = (step.next_type.id, other_id)
            other = objects.get(other_id)
            if other is None or key in self._on_path:
                continue
            extended = True
            if self.truncated:
                break
            source, target = (node.id, other_id) if step.forward else (other_id, node.id)
            direction: EdgeDirection = "forward" if step.forward else "backward"
            self._edges.append(
                PathEdge(
                    rt.id, rt.source_object_type_id, source,
                    rt.target_object_type_id, target, direction,
                )
            )  # fmt: skip
            self._nodes.append((other, step.next_type))
            self._on_path.add(key)
            self._walk(other)
            self._on_path.discard(key)
            self._nodes.pop()
            self._edges.pop()
        return extended

    def _emit(self) -> None:
        if len(self.paths) >= self._max:
            self.truncated = True
            return
        self.paths.append(tuple(self._edges))
        for obj, object_type in self._nodes:
            key = (obj.ot_id, obj.id)
            if key not in self.objects:
                self.objects[key] = ObjectView.of(obj, object_type)
