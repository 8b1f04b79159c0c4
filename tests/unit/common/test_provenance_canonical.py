"""The canonical JSON every provenance hash and signature is computed over."""

from __future__ import annotations

import json
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bkn_common.provenance.canonical import canonical_hash, canonical_json, es_number

# RFC 8785 appendix B: IEEE 754 doubles and their ECMAScript text
NUMBERS = [
    (0.0, "0"), (-0.0, "0"), (5e-324, "5e-324"), (1.7976931348623157e308, "1.7976931348623157e+308"),
    (9007199254740992.0, "9007199254740992"), (295147905179352830000.0, "295147905179352830000"),
    (1e21, "1e+21"), (1e-7, "1e-7"), (0.000001, "0.000001"), (333333333.3333333, "333333333.3333333"),
    (4.5, "4.5"), (2e-3, "0.002"), (5.0, "5"), (-1.5, "-1.5"),
]


@pytest.mark.parametrize(("value", "text"), NUMBERS)
def test_numbers_are_written_as_ecmascript_writes_them(value: float, text: str) -> None:
    assert es_number(value) == text


def test_the_rfc_8785_example_sorts_names_by_utf16_code_units() -> None:
    data = {"\u20ac": "Euro Sign", "\r": "Carriage Return", "1": "One",
            "\U0001f600": "Emoji: Grinning Face", "\u0080": "Control", "\u00f6": "Latin Small Letter O With Diaeresis"}
    names = list(json.loads(canonical_json(data)))
    assert names == ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\U0001f600"]


def test_strings_use_the_minimal_escapes() -> None:
    assert canonical_json("a\"b\\c\n\u0001\u007f/é") == '"a\\"b\\\\c\\n\\u0001\u007f/é"'.encode()


def test_non_finite_numbers_and_other_types_are_refused() -> None:
    with pytest.raises(ValueError):
        canonical_json(float("nan"))
    with pytest.raises(TypeError):
        canonical_json({1: "x"})
    with pytest.raises(TypeError):
        canonical_json({"x": object()})


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


@given(st.dictionaries(st.text(max_size=8), json_values, max_size=8), st.randoms(use_true_random=False))
def test_member_order_does_not_change_the_encoding(data: dict[str, object], rnd: object) -> None:
    items = list(data.items())
    rnd.shuffle(items)  # type: ignore[attr-defined]
    assert canonical_json(dict(items)) == canonical_json(data)


@given(json_values)
def test_the_encoding_is_json_that_decodes_to_the_value_and_encodes_again_the_same(value: object) -> None:
    encoded = canonical_json(value)
    assert canonical_json(json.loads(encoded)) == encoded


@given(st.text(max_size=20))
def test_composed_and_decomposed_text_encode_alike(text: str) -> None:
    nfc, nfd = unicodedata.normalize("NFC", text), unicodedata.normalize("NFD", text)
    assert canonical_json({nfd: nfd}) == canonical_json({nfc: nfc})
    assert canonical_hash(["caf\u00e9"]) == canonical_hash(["cafe\u0301"])


def test_a_different_value_hashes_differently() -> None:
    assert canonical_hash({"a": 1}) != canonical_hash({"a": 2})
    assert canonical_hash({"a": "1"}) != canonical_hash({"a": 1})
