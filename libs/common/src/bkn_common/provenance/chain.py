"""The hash chain over an interaction's records, and its signed heads.

Each record is a (kind, ref, data) triple: ``kind`` one of :data:`KINDS`, ``ref`` the record's
id, ``data`` its fields. Its entry holds the hash of each field (canonical JSON, so a changed
field can be named) and ``record_hash`` over kind, ref and those hashes. Entry ``i`` links to
the one before: ``link_i = H({"index": i, "prev": link_(i-1), "record": record_hash_i})``,
``link_-1`` being the interaction's genesis ``H({"chain": "bkn.interaction", "interaction_id":
...})``, so entries cannot move to another position or another interaction. A head is the link
after ``length`` entries, signed (Ed25519, the ``seal`` role) over :func:`seal_payload`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from bkn_common.contracts.events import SealedEntry
from bkn_common.provenance.canonical import canonical_hash, canonical_json

KINDS = ("interaction.started", "operation.begun", "operation.completed", "execution.receipt",
         "evidence", "interaction.finished")


def genesis(interaction_id: str) -> str:
    return canonical_hash({"chain": "bkn.interaction", "interaction_id": interaction_id})


def field_hashes(data: dict[str, Any]) -> dict[str, str]:
    return {name: canonical_hash(value) for name, value in data.items()}


def record_hash(kind: str, ref: str, fields: dict[str, str]) -> str:
    return canonical_hash({"kind": kind, "ref": ref, "fields": fields})


def entry(kind: str, ref: str, data: dict[str, Any]) -> SealedEntry:
    fields = field_hashes(data)
    return SealedEntry(kind=kind, ref=ref, fields=fields, record_hash=record_hash(kind, ref, fields))


def link(prev: str, index: int, record: str) -> str:
    return canonical_hash({"index": index, "prev": prev, "record": record})


def extend(head: str, start: int, entries: Iterable[SealedEntry]) -> str:
    """The chain's head after ``entries`` appended at index ``start`` to a chain at ``head``."""
    for offset, item in enumerate(entries):
        head = link(head, start + offset, item.record_hash)
    return head


def seal_payload(interaction_id: str, seq: int, length: int, head: str, sealed_at: str,
                 key_id: str) -> bytes:
    """What a head's signature covers (``sealed_at`` as ISO text, exactly as carried)."""
    return canonical_json({"type": "bkn.interaction.seal", "interaction_id": interaction_id,
                           "seq": seq, "length": length, "head": head, "sealed_at": sealed_at,
                           "key_id": key_id})
