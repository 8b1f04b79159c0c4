"""Checking an exported interaction bundle offline: every hash recomputed, every signature
checked, the chain walked; one row per check and one verdict (``clctl trace verify``).

A bundle (``format`` :data:`FORMAT`, made by trace-recorder's
``GET /internal/v1/interactions/{id}/bundle``)::

    {"format": ..., "interaction_id": ..., "conversation_id": ..., "exported_at": ...,
     "records": [{"index": 0, "kind": "interaction.started", "ref": ..., "data": {...}}, ...],
     "chain": {"genesis": ..., "entries": [{"index", "kind", "ref", "fields", "record_hash"}],
               "heads": [{"seq", "length", "head", "sealed_at", "key_id", "signature"}]},
     "spans": [...], "key_ids": [...]}

``records`` are in chain order (a record not sealed yet has ``"index": null``); spans are
telemetry and not chained. Rows come in chain order (each record: its place, its fields, a
receipt's own signature), then the chain's links, then the heads' signatures; the first failing
row is the verdict's reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bkn_common.provenance.chain import field_hashes, genesis, link, record_hash, seal_payload
from bkn_common.provenance.keys import KeySet, signature_problem
from bkn_common.provenance.receipts import receipt_problem

FORMAT = "bkn.provenance.bundle/1"


@dataclass(frozen=True)
class Row:
    record: str
    check: str
    ok: bool
    detail: str = ""


@dataclass
class Report:
    rows: list[Row] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.rows) and all(r.ok for r in self.rows)

    @property
    def first_broken(self) -> Row | None:
        return next((r for r in self.rows if not r.ok), None)

    def add(self, record: str, check: str, problem: str | None, fine: str = "ok") -> None:
        self.rows.append(Row(record, check, problem is None, problem or fine))


def _name(kind: str, ref: str) -> str:
    return f"{kind} {ref}"


def verify_bundle(bundle: dict[str, Any], keys: KeySet) -> Report:
    report = Report()
    if bundle.get("format") != FORMAT:
        report.add("bundle", "format", f"not a {FORMAT} bundle (format {bundle.get('format')!r})")
        return report
    interaction_id = str(bundle.get("interaction_id", ""))
    chain = bundle.get("chain") or {}
    entries: list[dict[str, Any]] = list(chain.get("entries") or [])
    heads: list[dict[str, Any]] = sorted(chain.get("heads") or [], key=lambda h: int(h.get("seq", 0)))
    records: list[dict[str, Any]] = list(bundle.get("records") or [])
    _check_records(report, records, entries, keys)
    _check_links(report, interaction_id, chain, entries, heads)
    _check_heads(report, interaction_id, heads, keys)
    return report


def _check_records(report: Report, records: list[dict[str, Any]], entries: list[dict[str, Any]],
                   keys: KeySet) -> None:
    """Each sealed entry has its record, in the sealed order, with the fields it had when
    sealed; each receipt carries a valid signature of its own."""
    position = {(str(r.get("kind")), str(r.get("ref"))): i for i, r in enumerate(records)}
    sealed_at = {(str(e.get("kind")), str(e.get("ref"))): i for i, e in enumerate(entries)}
    out_of_order = _out_of_order(records, sealed_at)
    for sealed in entries:
        pair = (str(sealed.get("kind")), str(sealed.get("ref")))
        name = _name(*pair)
        at = position.get(pair)
        if at is None:
            report.add(name, "present", f"missing record: chain entry {sealed_at[pair]} ({name}) has no "
                                        "record in the bundle")
            continue
        report.add(name, "order", out_of_order.get(pair))
        data = records[at].get("data")
        if not isinstance(data, dict):
            report.add(name, "fields", f"{name}: no data")
            continue
        report.add(name, "fields", _field_problem(name, field_hashes(data), sealed.get("fields") or {}))
        if pair[0] == "execution.receipt":
            problem = receipt_problem(data, keys)
            if problem == "unsigned":
                problem = f"unsigned receipt {pair[1]}: it carries no signature, so nothing shows who recorded it"
            elif problem is not None:
                problem = f"receipt {pair[1]}: {problem}"
            report.add(name, "receipt signature", problem)
    for record in records:
        pair = (str(record.get("kind")), str(record.get("ref")))
        if pair not in sealed_at:
            report.add(_name(*pair), "sealed", f"record not sealed: {_name(*pair)} is not in the chain "
                                               "(it arrived after the last seal, or was added)")


def _out_of_order(records: list[dict[str, Any]], sealed_at: dict[tuple[str, str], int]) -> dict[tuple[str, str], str]:
    """Records that come later in the bundle than one sealed after them."""
    found: dict[tuple[str, str], str] = {}
    latest, latest_name = -1, ""
    for record in records:
        pair = (str(record.get("kind")), str(record.get("ref")))
        index = sealed_at.get(pair)
        if index is None:
            continue
        if index < latest:
            found[pair] = (f"reordered: {_name(*pair)} (chain entry {index}) comes after {latest_name} "
                           f"(chain entry {latest}) in the bundle")
        else:
            latest, latest_name = index, _name(*pair)
    return found


def _field_problem(name: str, found: dict[str, str], sealed: dict[str, str]) -> str | None:
    changed = sorted(f for f in set(found) | set(sealed) if found.get(f) != sealed.get(f))
    if not changed:
        return None
    what = []
    for f in changed:
        if f not in found:
            what.append(f"{f} (removed)")
        elif f not in sealed:
            what.append(f"{f} (added)")
        else:
            what.append(f)
    return f"changed field: {name} field {', '.join(what)} differs from what was sealed"


def _check_links(report: Report, interaction_id: str, chain: dict[str, Any],
                 entries: list[dict[str, Any]], heads: list[dict[str, Any]]) -> None:
    """Entries follow each other with no gap, each entry's hash follows from its fields, and
    the links reach every signed head."""
    if chain.get("genesis") != genesis(interaction_id):
        report.add("chain", "genesis", f"the chain does not start at interaction {interaction_id}'s genesis")
        return
    head_at = {int(h.get("length", -1)): h for h in heads}
    current = genesis(interaction_id)
    for position, sealed in enumerate(entries):
        name = _name(str(sealed.get("kind")), str(sealed.get("ref")))
        if sealed.get("index") != position:
            report.add("chain", "links", f"gap in the chain: entry {position} is {name}, sealed as entry "
                                         f"{sealed.get('index')} (an entry was removed, added or moved)")
            return
        expected = record_hash(str(sealed.get("kind")), str(sealed.get("ref")), dict(sealed.get("fields") or {}))
        if sealed.get("record_hash") != expected:
            report.add("chain", "links", f"chain entry {position} ({name}) was edited: its hash does not "
                                         "follow from its fields")
            return
        current = link(current, position, expected)
        head = head_at.get(position + 1)
        if head is not None and head.get("head") != current:
            report.add("chain", "links", f"the chain does not reach signed head #{head.get('seq')} at entry "
                                         f"{position}: an entry before it was removed, added or changed")
            return
    if not heads:
        report.add("chain", "sealed", "the interaction has no signed head (not sealed yet)")
        return
    last = heads[-1]
    if int(last.get("length", -1)) != len(entries):
        report.add("chain", "sealed", f"the last signed head covers {last.get('length')} entries, the chain "
                                      f"has {len(entries)}")
        return
    report.add("chain", "links", None, f"{len(entries)} entries, {len(heads)} signed head(s)")


def _check_heads(report: Report, interaction_id: str, heads: list[dict[str, Any]], keys: KeySet) -> None:
    for expected_seq, head in enumerate(heads, start=1):
        seq = int(head.get("seq", 0))
        name = f"seal #{seq}"
        if seq != expected_seq:
            report.add(name, "sequence", f"seal #{expected_seq} is missing from the history of heads")
            continue
        try:
            sealed_at = datetime.fromisoformat(str(head.get("sealed_at")).replace("Z", "+00:00"))
        except ValueError:
            report.add(name, "signature", "sealed_at is not a time")
            continue
        payload = seal_payload(interaction_id, seq, int(head.get("length", -1)), str(head.get("head")),
                               str(head.get("sealed_at")), str(head.get("key_id")))
        problem = signature_problem(keys, head.get("key_id"), "seal", payload, head.get("signature"), sealed_at)
        report.add(name, "signature", f"seal #{seq}: {problem}" if problem else None,
                   f"by {head.get('key_id')}")
