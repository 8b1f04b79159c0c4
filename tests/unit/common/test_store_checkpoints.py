"""Each checkpointed store: restored from a checkpoint taken part-way through the log and fed
the rest, it equals the store that folded the whole log (same digest, same answers)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from bkn_common.contracts import events as ev
from bkn_common.contracts.events import decode_event, encode_event
from bkn_common.framework import checkpoint as ck
from bkn_common.framework.digest import state_digest
from capability_index.service_layer.projection import CapabilityIndex
from clctl.bundle.loader import load_bundle
from clctl.bundle.to_events import bundle_events
from ontology_query.service_layer.projection import OntologyState
from tool_executor.service_layer.projection import FactoryState

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
STORES: dict[str, Callable[[], Any]] = {
    "capability-index": CapabilityIndex, "tool-executor": FactoryState, "ontology-query": OntologyState,
}
QUERIES = ("汇率换算", "inventory", "shipment status", "supplier", "订单")


def _churn(base: Sequence[ev.Event], seed: int = 3) -> list[ev.Event]:
    """Mounts, unmounts, lifecycle flips, a toolbox losing a tool, more instances and links."""
    rng = random.Random(seed)
    boxes = [e for e in base if isinstance(e, ev.ToolboxUpserted)]
    refs = [ev.CapabilityRef(capability_type="function", capability_id=t.id, owner_id=b.id)
            for b in boxes for t in b.tools]
    out: list[ev.Event] = []
    for _ in range(150):
        ref = rng.choice(refs)
        kn = rng.choice(("supply_chain", "other_network"))
        roll = rng.random()
        if roll < 0.4:
            out.append(ev.BindingMounted(kn_id=kn, capability=ref))
        elif roll < 0.6:
            out.append(ev.BindingUnmounted(kn_id=kn, capability=ref))
        elif roll < 0.8:
            out.append(ev.ToolStateChanged(owner_id=ref.owner_id or "", tool_id=ref.capability_id,
                                           enabled=rng.random() < 0.7))
        else:
            out.append(ev.OwnerStateChanged(owner_kind="toolbox", owner_id=ref.owner_id or "",
                                            state=rng.choice(("published", "offline"))))
    first = boxes[0]
    out.append(first.model_copy(update={"tools": first.tools[1:]}))  # frees an index slot
    out.append(first)  # and takes it again
    objects = [e for e in base if isinstance(e, ev.ObjectInstanceUpserted)]
    relations = [e for e in base if isinstance(e, ev.RelationInstanceUpserted)]
    for i, obj in enumerate(objects[:40]):
        out.append(obj.model_copy(update={"properties": {**obj.properties, "note": f"rev {i}"}}))
    for rel in relations[:60]:
        out.append(rel.model_copy(update={"source_id": rng.choice(objects).id}))
    out.append(ev.ObjectTypeUpserted(  # an indexed datetime and number: canonical values in JSON
        kn_id="supply_chain", id="shipment_event", name="shipment event", primary_keys=("eid",),
        display_key="eid", properties=(ev.DataProperty(name="eid", indexed=True),
                                       ev.DataProperty(name="at", type="datetime", indexed=True),
                                       ev.DataProperty(name="weight", type="number", indexed=True))))
    for i in range(30):
        out.append(ev.ObjectInstanceUpserted(
            kn_id="supply_chain", ot_id="shipment_event", id=f"e{i % 20}",
            properties={"eid": f"e{i % 20}", "at": f"2026-0{1 + i % 9}-0{1 + i % 7}T08:00:00+08:00",
                        "weight": [1, 2.5, "3"][i % 3]}))
    return out


def history() -> list[ev.Event]:
    base = [e for folder in ("supply_chain", "other_network")
            for e in bundle_events(load_bundle(EXAMPLES / folder))]
    return base + _churn(base)


HISTORY = history()


def fold(store: Any, events: Sequence[ev.Event]) -> Any:
    for event in events:
        store.apply(decode_event(encode_event(event)))
    return store


def through_file(store: Any, name: str) -> Any:
    raw = ck.encode(name, store.checkpoint_version, {}, 0, store.checkpoint_data())
    restored = STORES[name]()
    restored.restore_checkpoint(ck.decode(raw, name, store.checkpoint_version).data)
    return restored


def answers(name: str, store: Any) -> Any:
    """What the service answers from its store, beyond the digest."""
    if name == "capability-index":
        return [[h.as_dict() for h in store.search(kn, query=q, limit=50).hits]
                for kn in ("supply_chain", "other_network") for q in (*QUERIES, None)]
    if name == "tool-executor":
        return {kn: [[r.key, store.catalog.gate(r).reason] for r in store.catalog.mounted(kn)]
                for kn in store.catalog.bindings}
    return {kn: [{k: v for k, v in s.instance_state().items() if k != "indexes"},  # (sets inside)
                 {ot: sorted(s.sorted_ids(ot)) for ot in s.object_types()}, s._indexes, s.counts()]
            for kn, s in store.stores.items()}


@pytest.mark.parametrize("name", sorted(STORES))
@pytest.mark.parametrize("cut", [0.0, 0.3, 0.7, 1.0])
def test_restored_then_caught_up_equals_folded_from_zero(name: str, cut: float) -> None:
    whole = fold(STORES[name](), HISTORY)
    at = int(len(HISTORY) * cut)
    resumed = fold(through_file(fold(STORES[name](), HISTORY[:at]), name), HISTORY[at:])
    assert state_digest(resumed.snapshot()) == state_digest(whole.snapshot())
    assert answers(name, resumed) == answers(name, whole)


def test_the_lexical_index_is_restored_slot_for_slot() -> None:
    whole = fold(CapabilityIndex(), HISTORY)
    restored = through_file(whole, "capability-index")
    assert restored.lexical.state() == whole.lexical.state()
    assert restored.catalog.version == whole.catalog.version


@pytest.mark.parametrize("name", sorted(STORES))
def test_a_restore_that_fails_leaves_the_store_empty(name: str) -> None:
    data = fold(STORES[name](), HISTORY).checkpoint_data()
    broken = {**data}
    broken.popitem()  # its last part is missing
    store = STORES[name]()
    with pytest.raises(KeyError):
        store.restore_checkpoint(ck.decode(ck.encode(name, 1, {}, 0, broken), name, 1).data)
    assert store.snapshot() == STORES[name]().snapshot()


def test_postings_of_another_tokenizer_are_refused() -> None:
    data = fold(CapabilityIndex(), HISTORY).checkpoint_data()
    data["lexical"] = {**data["lexical"], "tokenizer": "another"}
    store = CapabilityIndex()
    with pytest.raises(ValueError, match="another tokenizer"):
        store.restore_checkpoint(ck.decode(ck.encode("capability-index", 1, {}, 0, data),
                                           "capability-index", 1).data)
    assert len(store.lexical) == 0


def _as_read(data: Any) -> Any:
    """``data`` as a checkpoint file gives it back (JSON: lists for tuples)."""
    return ck.decode(ck.encode("capability-index", 1, {}, 0, data), "capability-index", 1).data


def _lexical_state_with(**changes: Any) -> dict[str, Any]:
    data = _as_read(fold(CapabilityIndex(), HISTORY).checkpoint_data())
    return {**data, "lexical": {**data["lexical"], **changes}}


@pytest.mark.parametrize("part", ["term_docs", "term_shapes", "doc_terms", "term_sizes"])
def test_index_tables_that_do_not_add_up_are_refused_and_leave_the_index_empty(part: str) -> None:
    lexical = _as_read(fold(CapabilityIndex(), HISTORY).checkpoint_data())["lexical"]
    store = CapabilityIndex()
    with pytest.raises(ValueError, match="do not describe the same documents"):
        store.restore_checkpoint(_lexical_state_with(**{part: lexical[part][:-1]}))
    assert len(store.lexical) == 0
    assert store.snapshot() == CapabilityIndex().snapshot()


def test_an_index_table_pointing_past_its_documents_is_refused_and_leaves_the_index_empty() -> None:
    lexical = _as_read(fold(CapabilityIndex(), HISTORY).checkpoint_data())["lexical"]
    store = CapabilityIndex()
    with pytest.raises(IndexError):
        store.restore_checkpoint(_lexical_state_with(
            term_docs=[*lexical["term_docs"][:-1], len(lexical["docs"])]))
    assert store.snapshot() == CapabilityIndex().snapshot()


def test_equal_postings_are_restored_as_one_shared_value() -> None:
    restored = through_file(fold(CapabilityIndex(), HISTORY), "capability-index")
    postings = [p for plist in restored.lexical._store.postings.values() for p in plist.values()]
    assert len({id(p) for p in postings}) == len(set(postings)) < len(postings)


def test_the_catalog_restored_finds_every_tool_it_folded() -> None:
    whole = fold(CapabilityIndex(), HISTORY)
    restored = through_file(whole, "capability-index")
    refs = [ref for kn in whole.catalog.bindings.values() for ref in kn.values()]
    assert refs
    assert [restored.catalog.tool_entry(r) for r in refs] == [whole.catalog.tool_entry(r) for r in refs]
    assert restored.catalog._tools == whole.catalog._tools
