"""bkn_common.contracts.json_codec: orjson speed without orjson's losses on free-form JSON."""

from __future__ import annotations

import json
import math

import pytest

from bkn_common.contracts import json_codec
from bkn_common.contracts.event_types.base import PoisonMessage
from bkn_common.contracts.events import decode_event, encode_event


def test_integers_beyond_64_bits_keep_every_digit() -> None:
    value = {"amount": 123456789012345678901234567890, "neg": -(2**70), "small": 2**63 - 1}
    raw = json_codec.dumps(value)
    assert json.loads(raw) == value
    decoded = json_codec.loads(raw)
    assert decoded == value and isinstance(decoded["amount"], int)


@pytest.mark.parametrize("number", [2**64, -(2**63) - 1, 10**19])
def test_a_big_integer_after_long_non_ascii_text_keeps_every_digit(number: int) -> None:
    raw = json.dumps({"text": "汇率月报 " * 500, "rows": [[1, 2.5], {"n": number}]}, ensure_ascii=False)
    assert json_codec.loads(raw.encode())["rows"][1]["n"] == number


def test_output_matches_the_standard_library_compact_form() -> None:
    value = {"名称": "汇率月报", "list": [1, 2.5, None, True], "nested": {"a": ""}}
    expected = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
    assert json_codec.dumps(value) == expected
    assert json_codec.loads(expected.decode()) == value


def test_what_the_standard_library_accepted_is_still_accepted() -> None:
    assert math.isnan(json_codec.loads(b'{"x": NaN}')["x"])


@pytest.mark.parametrize("raw", [b"{not json", b"\xff\xfe", b""])
def test_invalid_text_raises_value_error(raw: bytes) -> None:
    with pytest.raises(ValueError):
        json_codec.loads(raw)


def test_events_carry_big_integers_and_refuse_invalid_json() -> None:
    from bkn_common.contracts import events as ev

    receipt = ev.OperationRecorded(
        operation_id="op_1", operation_key="k", conversation_id="c", interaction_id="i",
        tool_name="execute_tool", input_hash="h", receipt_id="rcpt_00000000",
        receipt_status="completed", evidence_durability="durable",
        recorded_at="2026-01-01T00:00:00+00:00", correlation="x",
        result={"id": 2**80},
    )
    assert decode_event(encode_event(receipt)).event.result == {"id": 2**80}  # type: ignore[attr-defined]
    with pytest.raises(PoisonMessage):
        decode_event(b"{broken")
