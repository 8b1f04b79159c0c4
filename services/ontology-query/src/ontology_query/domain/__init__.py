"""Pure domain of ontology-query: the ontology model, its in-memory store, and the queries.

No I/O here: adapters feed the :class:`OntologyStore` from events, entry points call the
query functions and render :class:`DomainError` with its ``code`` and ``details``.
"""

from ontology_query.domain.errors import (
    NOT_FOUND_CODES,
    DomainError,
    QueryErrorCode,
    TypePathError,
    TypePathMismatch,
)
from ontology_query.domain.explore import explore_subgraph
from ontology_query.domain.instances import InstancePage, query_object_instance
from ontology_query.domain.model import (
    DataProperty,
    ObjectInstance,
    ObjectType,
    RelationInstance,
    RelationType,
)
from ontology_query.domain.results import NodeKey, ObjectView, PathEdge, Subgraph
from ontology_query.domain.store import OntologyStore
from ontology_query.domain.subgraph import query_instance_subgraph

__all__ = [
    "NOT_FOUND_CODES",
    "DataProperty",
    "DomainError",
    "InstancePage",
    "NodeKey",
    "ObjectInstance",
    "ObjectType",
    "ObjectView",
    "OntologyStore",
    "PathEdge",
    "QueryErrorCode",
    "RelationInstance",
    "RelationType",
    "Subgraph",
    "TypePathError",
    "TypePathMismatch",
    "explore_subgraph",
    "query_instance_subgraph",
    "query_object_instance",
]
