"""bkn_context: only absent or {} is ad hoc; anything partial or misspelt is refused."""

from __future__ import annotations

import pytest

from bkn_common.contracts.errors import ApiError
from gateway.domain.context import BknContext, parse_bkn_context, validate_invocation_id


@pytest.mark.parametrize("raw", [None, {}])
def test_absent_or_empty_is_ad_hoc(raw: object) -> None:
    assert parse_bkn_context(raw) is None


def test_both_ids_make_it_managed() -> None:
    assert parse_bkn_context({"conversation_id": "c", "interaction_id": "i"}) == BknContext("c", "i")


@pytest.mark.parametrize(
    "raw",
    [
        {"conversation_id": "c"},
        {"interaction_id": "i"},
        {"conversation_id": "c", "interaction_idd": "i"},
        {"conversation_id": "c", "interaction_id": "i", "operation_key": "k"},
        {"conversation_id": "", "interaction_id": "i"},
        {"conversation_id": 1, "interaction_id": "i"},
        "c/i",
    ],
)
def test_partial_or_misspelt_is_refused(raw: object) -> None:
    with pytest.raises(ApiError) as refused:
        parse_bkn_context(raw)
    assert refused.value.code == "invalid_bkn_context" and refused.value.status == 400


@pytest.mark.parametrize("value", ["", "x" * 257, "has space", "中文", "tab\t"])
def test_invocation_ids_are_printable_ascii_up_to_256(value: str) -> None:
    with pytest.raises(ApiError):
        validate_invocation_id(value)


def test_valid_invocation_id_passes() -> None:
    assert validate_invocation_id("a" * 256) == "a" * 256
