"""Listings (catalog, tags, directories) are JSON as ``json.dumps(..., ensure_ascii=False,
indent=2, sort_keys=True)`` wrote it, byte for byte, now that orjson writes them."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from knowledge_base.domain.navigation import _listing_json

_TEXT = st.text(max_size=12)  # any code point: CJK, controls, U+2028, astral planes
_LEAF = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | _TEXT  # what a listing holds
_DATA = st.recursive(_LEAF, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
                     max_leaves=20)


def _stdlib(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


@settings(max_examples=400, deadline=None)
@given(_DATA)
def test_the_json_is_what_the_standard_library_writes(data: Any) -> None:
    assert _listing_json(data) == _stdlib(data)


def test_a_lone_surrogate_is_written_as_the_standard_library_does() -> None:
    data = {"title": "broken \ud800 text", "tags": [], "revision": 3}
    assert _listing_json(data) == _stdlib(data)
