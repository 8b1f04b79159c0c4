"""Networks and their schema as the tools return them: list, detail, types by id, search.

Schema reads are network-level: a caller that may ``view_detail`` the network sees every type
definition (object-type resource grants narrow instances only, see :mod:`permissions`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from bkn_common.contracts import events as ev
from bkn_common.contracts.errors import ApiError
from bkn_common.contracts.i18n import register_messages
from ontology_query.service_layer.projection import NetworkSchemaExtras, OntologyState
from ontology_query.service_layer.refusals import require_network
from ontology_query.service_layer.schema_search import (
    KIND_KEYS,
    ConceptKind,
    build_concepts,
    rank,
)

SEARCH_SCOPE_CODE = "OntologyQuery.KnowledgeNetwork.InvalidParameter.SearchScope"
register_messages({
    SEARCH_SCOPE_CODE: {
        "zh-CN": "search_object_types、search_relation_types、search_action_types、search_metrics "
                 "至少要有一个为 true",
        "en-US": "at least one of search_object_types, search_relation_types, "
                 "search_action_types and search_metrics must be true",
    },
})  # fmt: skip

T = TypeVar("T", ev.ObjectTypeUpserted, ev.RelationTypeUpserted)


def _extras(state: OntologyState, kn_id: str) -> NetworkSchemaExtras:
    return state.schema.get(kn_id) or NetworkSchemaExtras()


def _network_sort_key(state: OntologyState, sort: str) -> Any:
    if sort == "name":
        return lambda n: (n.name, n.kn_id)
    if sort == "update_time":
        return lambda n: (state.network_updated.get(n.kn_id, ""), n.kn_id)
    return lambda n: n.kn_id


def list_networks(
    state: OntologyState, account: str, name_pattern: str | None, limit: int, offset: int,
    sort: str | None = None, direction: str | None = None,
) -> dict[str, Any]:
    """Networks the account may ``view_detail``, by id unless ``sort`` (``update_time``: the
    last upsert, ``name``, ``id``; ``direction`` default ``desc`` then); ``name_pattern`` is a
    case-insensitive substring of the name or the id."""
    needle = (name_pattern or "").strip().casefold()
    visible = [
        n for kn_id, n in sorted(state.access.networks.items())
        if state.access.has(kn_id, account, "view_detail")
        and (not needle or needle in n.name.casefold() or needle in kn_id.casefold())
    ]  # fmt: skip
    if sort is not None:
        visible.sort(key=_network_sort_key(state, sort), reverse=(direction or "desc") == "desc")
    elif direction == "desc":
        visible.reverse()
    page = visible[offset : offset + limit]
    return {
        "knowledge_networks": [_network_summary(state, n) for n in page],
        "total_count": len(visible),
    }


def _network_summary(state: OntologyState, network: ev.NetworkUpserted) -> dict[str, Any]:
    extras = _extras(state, network.kn_id)
    return {
        "id": network.kn_id,
        "name": network.name,
        "description": network.description,
        "object_type_count": len(extras.object_types),
        "relation_type_count": len(extras.relation_types),
        "action_type_count": len(extras.action_types),
    }


def kn_detail(state: OntologyState, kn_id: str, detail_level: str) -> dict[str, Any]:
    """The network, its concept groups and types; ``full`` adds properties and parameters."""
    network = require_network(state, kn_id)
    extras = _extras(state, kn_id)
    full = detail_level == "full"
    body: dict[str, Any] = {
        "id": network.kn_id,
        "name": network.name,
        "description": network.description,
        "concept_groups": [
            {"id": g.id, "name": g.name, "description": g.description}
            for g in extras.concept_groups.values()
        ],
        "object_types": [
            object_type_view(ot) if full else _brief(ot) for ot in extras.object_types.values()
        ],
        "relation_types": [relation_type_view(rt) for rt in extras.relation_types.values()],
        "action_types": [
            action_type_view(at) if full else {**_brief(at), "object_type_id": at.object_type_id}
            for at in extras.action_types.values()
        ],
    }
    counts = state.mounted_counts(kn_id)
    if counts is not None:  # absent: unknown, so say nothing rather than 0
        body["mounted_capabilities"] = dict(sorted(counts.items()))
    return body


def _brief(item: ev.ObjectTypeUpserted | ev.ActionTypeUpserted) -> dict[str, Any]:
    return {"id": item.id, "name": item.name, "description": item.description}


def object_type_view(ot: ev.ObjectTypeUpserted) -> dict[str, Any]:
    return {
        "id": ot.id,
        "name": ot.name,
        "description": ot.description,
        "primary_keys": list(ot.primary_keys),
        "display_key": ot.display_key,
        "concept_groups": list(ot.concept_groups),
        "properties": [p.model_dump(mode="json") for p in ot.properties],
        "data_source": ot.data_source.model_dump(mode="json") if ot.data_source else None,
        "logic_properties": [
            {"name": lp.name, "display_name": lp.display_name, "description": lp.description,
             "kind": lp.kind, "parameters": list(lp.parameters)}
            for lp in ot.logic_properties
        ],
    }  # fmt: skip


def relation_type_view(rt: ev.RelationTypeUpserted) -> dict[str, Any]:
    return {
        "id": rt.id,
        "name": rt.name,
        "description": rt.description,
        "source_object_type_id": rt.source_object_type_id,
        "target_object_type_id": rt.target_object_type_id,
        "concept_groups": list(rt.concept_groups),
    }


def action_type_view(at: ev.ActionTypeUpserted) -> dict[str, Any]:
    return {
        "id": at.id,
        "name": at.name,
        "description": at.description,
        "object_type_id": at.object_type_id,
        "mode": at.mode,
        "concept_groups": list(at.concept_groups),
    }


def _by_ids(items: dict[str, T], ids: Sequence[str] | None) -> tuple[list[T], list[str]]:
    """Items by id (all when ``ids`` is None); an id that is no id but a name matches by name."""
    if ids is None:
        return list(items.values()), []
    found: dict[str, T] = {}
    missing: list[str] = []
    for wanted in ids:
        item = items.get(wanted)
        matches = [item] if item is not None else [i for i in items.values() if i.name == wanted]
        if not matches:
            missing.append(wanted)
        for match in matches:
            found.setdefault(match.id, match)
    return list(found.values()), missing


def get_object_types(
    state: OntologyState, kn_id: str, ids: Sequence[str] | None,
    offset: int | None = None, limit: int | None = None,
) -> dict[str, Any]:
    """Types by id (name fallback); without ids every type, paged when offset or limit is
    given (``total_count`` and, while more remain, ``next_offset``)."""
    require_network(state, kn_id)
    found, missing = _by_ids(_extras(state, kn_id).object_types, ids)
    body: dict[str, Any] = {"missing": missing}
    if ids is None and (offset is not None or limit is not None):
        start = offset or 0
        window = found[start: start + (limit or 50)]
        body["total_count"] = len(found)
        if start + len(window) < len(found):
            body["next_offset"] = start + len(window)
        found = window
    return {"object_types": [object_type_view(ot) for ot in found], **body}


def get_relation_types(
    state: OntologyState, kn_id: str, ids: Sequence[str] | None
) -> dict[str, Any]:
    require_network(state, kn_id)
    found, missing = _by_ids(_extras(state, kn_id).relation_types, ids)
    return {"relation_types": [relation_type_view(rt) for rt in found], "missing": missing}


@dataclass(frozen=True)
class SchemaShape:
    """How search_schema answers: ``brief`` keeps properties as name / type (no descriptions,
    display names, primary or display keys); ``rerank`` puts relation types that connect the
    matched object types first (both ends, then one end, each by score); ``columns`` adds each
    property's physical ``column`` and the type's ``data_source``."""

    brief: bool = False
    rerank: bool = False
    columns: bool = False

    def apply(
        self, body: dict[str, Any], object_types: Mapping[str, ev.ObjectTypeUpserted]
    ) -> dict[str, Any]:
        types = body.get("object_types")
        if types is not None:
            body["object_types"] = [self._object_type(t, object_types.get(t["id"])) for t in types]
            if self.rerank and body.get("relation_types"):
                matched = {t["id"] for t in types}
                body["relation_types"] = sorted(body["relation_types"], key=lambda r: -(
                    (r["source_object_type_id"] in matched) + (r["target_object_type_id"] in matched)))
        return body

    def _object_type(
        self, view: dict[str, Any], ot: ev.ObjectTypeUpserted | None
    ) -> dict[str, Any]:
        out = dict(view)
        if self.brief:
            for key in ("primary_keys", "display_key"):
                out.pop(key, None)
            out["properties"] = [{"name": p["name"], "type": p["type"]} for p in view["properties"]]
        if self.columns and ot is not None:
            mapped = {p.name: p.mapped_field or p.name for p in ot.properties}
            out["properties"] = [{**p, "column": mapped.get(p["name"], p["name"])}
                                 for p in out["properties"]]
            out["data_source"] = ot.data_source.model_dump(mode="json") if ot.data_source else None
        return out


def search_schema(
    state: OntologyState,
    kn_id: str,
    query: str,
    *,
    kinds: frozenset[ConceptKind],
    concept_groups: Sequence[str] | None,
    max_concepts: int,
    shape: SchemaShape | None = None,
) -> dict[str, Any]:
    """The best ``max_concepts`` concepts over the selected kinds, grouped by kind, shaped
    by ``shape`` (brief, reranked relation types, physical columns)."""
    if not kinds:
        raise ApiError(SEARCH_SCOPE_CODE, 400, details={"reason": "no_scope"})
    require_network(state, kn_id)
    extras = _extras(state, kn_id)
    concepts = build_concepts(
        extras.object_types.values(), extras.relation_types.values(), extras.action_types.values()
    )
    ranked, total = rank(
        concepts, query, kinds=kinds, concept_groups=concept_groups, limit=max_concepts
    )
    body: dict[str, Any] = {KIND_KEYS[kind]: [] for kind in KIND_KEYS if kind in kinds}
    for concept, score in ranked:
        body[KIND_KEYS[concept.kind]].append({**concept.body, "score": round(score, 4)})
    body["total_matched"] = total
    return (shape or SchemaShape()).apply(body, extras.object_types)
