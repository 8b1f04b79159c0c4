"""An interaction's export bundle (``bkn_common.provenance.bundle`` says its shape and how it
is checked): its records in chain order, the chain's entries and signed heads from its seals,
its spans, and the ids of the keys that signed."""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime
from typing import Any

from bkn_common.provenance.bundle import FORMAT
from bkn_common.provenance.chain import genesis
from trace_recorder.service_layer.chain_records import chain_records
from trace_recorder.service_layer.view_ports import SealReads


def interaction_bundle(store: SealReads, interaction_id: str, exported_at: datetime) -> dict[str, Any] | None:
    """The bundle as the view holds it now (None: no such interaction). A sealed record the
    view no longer has is simply absent: the verifier names it missing."""
    records = store.interaction_records(interaction_id)
    if records is None:
        return None
    seals = store.seals_of(interaction_id)
    entries = [e for s in seals for e in s.entries]
    current = {(kind, ref): data for kind, ref, data in chain_records(records)}
    ordered: list[dict[str, Any]] = []
    for index, sealed in enumerate(entries):
        pair = (sealed["kind"], sealed["ref"])
        if pair in current:
            ordered.append({"index": index, "kind": pair[0], "ref": pair[1], "data": current.pop(pair)})
    ordered += [{"index": None, "kind": kind, "ref": ref, "data": data} for (kind, ref), data in current.items()]
    key_ids = {s.key_id for s in seals} | {
        str(r["data"]["key_id"]) for r in ordered
        if r["kind"] == "execution.receipt" and r["data"].get("key_id")}
    return {
        "format": FORMAT,
        "interaction_id": interaction_id,
        "conversation_id": records.interaction.conversation_id,
        "account": records.interaction.account,
        "exported_at": exported_at.isoformat(),
        "records": ordered,
        "chain": {
            "genesis": genesis(interaction_id),
            "entries": [{"index": i, **e} for i, e in enumerate(entries)],
            "heads": [{"seq": s.seq, "length": s.length, "head": s.head, "sealed_at": s.sealed_at,
                       "key_id": s.key_id, "signature": s.signature} for s in seals],
        },
        "spans": [asdict(s) for s in records.spans],
        "key_ids": sorted(key_ids),
    }
