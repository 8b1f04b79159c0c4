"""The instances a logic property or an action is asked about, named by ``_instance_identity``
(their primary key values, as queries return them)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ontology_query.domain.model import ObjectInstance, ObjectType
from ontology_query.domain.store import OntologyStore
from ontology_query.service_layer.refusals import invalid_identity


def canonical_identity(object_type: ObjectType, raw: object, index: int) -> dict[str, Any]:
    """``raw`` checked to name exactly the primary keys (returned in primary-key order)."""
    if not isinstance(raw, Mapping):
        raise invalid_identity(index, "it must be an object of primary key → value")
    keys = set(object_type.primary_keys)
    missing = [k for k in object_type.primary_keys if raw.get(k) is None]
    unknown = sorted(set(raw) - keys)
    if missing or unknown:
        parts = ([f"missing primary key(s) {', '.join(missing)}"] if missing else []) + (
            [f"unknown key(s) {', '.join(unknown)}"] if unknown else [])
        raise invalid_identity(index, "; ".join(parts), missing=missing, unknown=unknown)
    return {k: raw[k] for k in object_type.primary_keys}


def find_instance(
    store: OntologyStore, object_type: ObjectType, identity: Mapping[str, Any]
) -> ObjectInstance | None:
    """The instance whose id is its primary key values joined by ``|`` (as bundles key them)."""
    obj_id = "|".join(str(identity[k]) for k in object_type.primary_keys)
    return store.get_object(object_type.id, obj_id)


def identity_text(identities: Sequence[Mapping[str, Any]]) -> str:
    """``po_id=PO-1; po_id=PO-2`` for messages."""
    return "; ".join(", ".join(f"{k}={v}" for k, v in i.items()) for i in identities)
