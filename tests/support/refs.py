"""Local ``$ref`` pointers of a generated document (OpenAPI, AsyncAPI): every one must resolve."""

from __future__ import annotations

from typing import Any


def local_refs(node: Any) -> list[str]:
    """Every ``$ref`` string in ``node``, depth first."""
    if isinstance(node, dict):
        own = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return own + [ref for value in node.values() for ref in local_refs(value)]
    if isinstance(node, list):
        return [ref for value in node for ref in local_refs(value)]
    return []


def assert_refs_resolve(document: dict[str, Any]) -> None:
    """The document has references and each ``#/a/b`` names a node of it."""
    refs = local_refs(document)
    assert refs
    for ref in refs:
        node: Any = document
        for part in ref.removeprefix("#/").split("/"):
            assert part in node, f"unresolved {ref}"
            node = node[part]
