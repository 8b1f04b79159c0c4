"""What provenance costs per call, in process (no mesh): signing a receipt as tool-executor
does before it publishes (canonical JSON + Ed25519), checking one as a verifier does, hashing
a 2 KiB answer for ``response_hash``, and chaining and signing an interaction of three calls
as trace-recorder does off the caller's path (field hashes, links, signed head).

    python bench/provenance_signing.py
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.harness import latency_summary, print_table, write_result  # noqa: E402
from bkn_common.contracts import events as ev  # noqa: E402
from bkn_common.provenance.canonical import sha256_of  # noqa: E402
from bkn_common.provenance.chain import entry, extend, genesis, seal_payload  # noqa: E402
from bkn_common.provenance.keys import keyring_from_jwks, new_keyring  # noqa: E402
from bkn_common.provenance.receipts import receipt_problem, receipt_record, sign_receipt  # noqa: E402

ROUNDS = 2000


def _receipt() -> ev.ExecutionReceiptRecorded:
    return ev.ExecutionReceiptRecorded(
        receipt_id="rcpt_" + "a" * 32, operation_id="op_" + "b" * 32, conversation_id="conv_" + "c" * 32,
        interaction_id="int_" + "d" * 32, kn_id="supply_chain", owner_id="box_finance",
        tool_id="tool_fx_convert", capability_type="openapi_tool", caller="dev", proxy_id="px_supply",
        arguments_hash="sha256:" + "e" * 64, outcome="succeeded", status_code=200, latency_ms=12.345,
        executed_at=datetime.now(UTC), trace_id="f" * 32, response_hash="sha256:" + "0" * 64)


def _timed(step: Callable[[], Any], rounds: int = ROUNDS) -> dict[str, float]:
    for _ in range(50):
        step()
    samples = []
    for _ in range(rounds):
        began = time.perf_counter()
        step()
        samples.append((time.perf_counter() - began) * 1000)
    return latency_summary(samples)


def _seal(key: Any, records: list[tuple[str, str, dict[str, Any]]]) -> Callable[[], Any]:
    """What trace-recorder computes to seal an interaction: field hashes, links, a signed head."""

    def seal() -> str:
        entries = [entry(kind, ref, data) for kind, ref, data in records]
        head = extend(genesis("int_1"), 0, entries)
        return str(key.sign(seal_payload("int_1", 1, len(entries), head, "2026-01-01T00:00:00+00:00", key.kid)))

    return seal


def _turn_records(calls: int) -> list[tuple[str, str, dict[str, Any]]]:
    """A turn of ``calls`` tool calls as the chain takes it (begin, completion, receipt, two
    evidence records each, plus start and finish): about the fields the view holds."""
    record = receipt_record(_receipt())
    out: list[tuple[str, str, dict[str, Any]]] = [("interaction.started", "int_1", {
        "interaction_id": "int_1", "conversation_id": "conv_1", "account": "dev", "agent_name": "agent",
        "question": "汇率是多少?", "capture_enabled": True, "started_at": "2026-01-01T00:00:00+00:00",
        "new_conversation": True, "invocation_id": None, "input_hash": "sha256:" + "1" * 64})]
    for n in range(calls):
        out += [("operation.begun", f"op_{n}", {"operation_id": f"op_{n}", "tool_name": "execute_tool",
                                                "input_hash": "sha256:" + "2" * 64, "begun_at": "2026"}),
                ("operation.completed", f"op_{n}", {"operation_id": f"op_{n}", "receipt_status": "completed",
                                                    "result": {"converted": 72.0, "rate": 7.2}}),
                ("execution.receipt", f"rcpt_{n}", record),
                ("evidence", f"ev_{n}_a", {"evidence_type": "execution", "attributes": dict(record)}),
                ("evidence", f"ev_{n}_b", {"evidence_type": "execution", "attributes": {"receipt_id": f"rcpt_{n}"}})]
    return [*out, ("interaction.finished", "int_1", {"status": "finished", "outcome": "completed"})]


def main() -> dict[str, Any]:
    ring = keyring_from_jwks(new_keyring())
    key = ring.signer("receipt")
    assert key is not None
    receipt = _receipt()
    signed_record = receipt_record(sign_receipt(receipt, key))
    answer = b'{"rows": [' + b",".join(b'{"id": %d, "name": "row"}' % i for i in range(90)) + b"]}"
    seal_key = ring.signer("seal")
    assert seal_key is not None
    rows = [
        {"step": "sign a receipt (tool-executor, on the call's path)", **_timed(lambda: sign_receipt(receipt, key))},
        {"step": "verify a receipt (clctl trace verify, faults)", **_timed(lambda: receipt_problem(signed_record,
                                                                                                  ring.public))},
        {"step": f"response_hash of a {len(answer)} B answer", **_timed(lambda: sha256_of(answer))},
        {"step": "chain and sign a 3-call interaction (trace-recorder, off the path)",
         **_timed(_seal(seal_key, _turn_records(3)), 500)},
    ]
    print_table("provenance signing cost per call", rows)
    payload = {"rows": rows, "rounds": ROUNDS}
    write_result("provenance_signing", payload)
    return payload


if __name__ == "__main__":
    main()
