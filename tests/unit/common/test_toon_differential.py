"""Differential tests: ``encode_toon`` against the reference library ``toon-format``.

``bkn_common.domain.toon`` has its own encoder (``bkn_common.domain._toon_encoder``) for plain JSON data and
hands everything else to ``toon_format.encode``. These tests hold the two to byte-for-byte
identical output, and to the same exception type (and message, where the reference raises it)
for inputs that cannot be encoded.

The property tests call the fast encoder directly as well as ``encode_toon``, so a silent
fallback to the reference library cannot make them pass.
"""

from __future__ import annotations

import collections
import dataclasses
import datetime
import decimal
import enum
import math
import sys
from typing import Any

import pytest
import toon_format
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bkn_common.domain import _toon_encoder
from bkn_common.domain.toon import encode_toon

DELIMITERS = (",", "\t", "|")


def reference(value: Any, indent: int = 2, delimiter: str = ",") -> str:
    return toon_format.encode(value, indent_size=indent, delimiter=delimiter)


def assert_same(value: Any, indent: int = 2, delimiter: str = ",") -> None:
    """Same text from the fast path, from ``encode_toon`` and from the reference."""
    expected = reference(value, indent, delimiter)
    assert _toon_encoder.encode_json(value, indent, delimiter) == expected
    assert encode_toon(value, indent=indent, delimiter=delimiter) == expected


def assert_same_outcome(value: Any, indent: int = 2, delimiter: str = ",") -> None:
    """Same text, or the same exception, from ``encode_toon`` and the reference."""
    try:
        expected = reference(value, indent, delimiter)
    except (TypeError, ValueError) as exc:
        with pytest.raises(type(exc)) as caught:
            encode_toon(value, indent=indent, delimiter=delimiter)
        assert str(caught.value) == str(exc)
    else:
        assert encode_toon(value, indent=indent, delimiter=delimiter) == expected


# --------------------------------------------------------------------------------------
# Strategies
# --------------------------------------------------------------------------------------

# Strings that sit on or near a quoting rule (§7.2, §7.3), plus text the project really sends.
TRICKY_STRINGS = [
    "", " ", "  ", "\t", "a ", " a", "a\t", "true", "false", "null", "True", "NULL", "NaN",
    "nan", "Infinity", "-Infinity", "inf", "-", "--", "-x", "- item", "-1", "#", "#a", "a#",
    "0", "05", "-0", "+1", "+", "1.", ".5", "1.5", "-3.14", "1e6", "1E-6", "1e+6", "1e", "e5",
    "0x10", "1_000", "1,000", "١٢٣", "１２", "a:b", ":", "a,b", "a|b", "a\tb", "[x]", "]",
    "{x}", "}", '"q"', "'q'", "a\\b", "line\nbreak", "cr\rx", "\x00", "\x1f", "\x7f", "\x85",
    "\u2028", "\u00a0", "\u3000x", "\ufeff", "\ufeff8", "x\ufeff", "a.b", ".a", "a.", "_", "_x",
    "x_1", "a-b", "a b", "ª", "ℕ", "é", "café", "汇率", "汇率 月报", "汇率，月报", "（美元/人民币）",
    "金额须为正数。", "👋", "a,🚀", "Ｔrue", "true ", " true", "[5]", "- ", "x: y",
]

_TRICKY_ALPHABET = ' \t\n\r-#:,|"\\[]{}.+eE019aZ_汇é\x00\x1f\x7f\ufeff\u2028'

texts = st.one_of(
    st.sampled_from(TRICKY_STRINGS),
    st.text(alphabet=_TRICKY_ALPHABET, max_size=6),
    st.text(max_size=12),  # any code point except surrogates, CJK and controls included
    st.from_regex(r"[+-]?[0-9]{1,3}(\.[0-9]{1,3})?([eE][+-]?[0-9]{1,2})?", fullmatch=True),
)

# Keys: the same material, plus identifier-like and dotted keys.
keys = st.one_of(texts, st.from_regex(r"[A-Za-z_][A-Za-z0-9_.]{0,6}", fullmatch=True))

SPECIAL_FLOATS = [
    0.0, -0.0, 1.0, -1.0, 1.5, 0.1, 0.30000000000000004, 1e6, 1e15, 1e16, 1e17, 2.0**53,
    2.0**53 + 2, 2.0**60, 1e20, 123456789012345680000.0, 1e21, -1e21, 1.5e21, 1e22, 1e300,
    1.7976931348623157e308, 1e-4, 1e-5, 1.5e-5, -1.5e-5, 1e-6, -1e-6, 9.999999999999999e-07,
    1.0000000000000002e-06, 1e-7, 1.2345e-7, -1e-7, 5e-324, 2.2250738585072014e-308,
    math.nan, math.inf, -math.inf,
]

numbers = st.one_of(
    st.integers(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.floats(),  # NaN and ±Infinity included
    st.floats(min_value=-1e-3, max_value=1e-3),
    st.sampled_from(SPECIAL_FLOATS),
)

primitives = st.one_of(st.none(), st.booleans(), numbers, texts)


@st.composite
def uniform_objects(draw: st.DrawFn, children: st.SearchStrategy[Any]) -> list[dict[str, Any]]:
    """A list of objects that share their keys, mostly tabular (§9.3), sometimes not quite."""
    names = draw(st.lists(keys, min_size=1, max_size=4, unique=True))
    kinds = [draw(st.sampled_from(["primitive", "primitive", "group", "any"])) for _ in names]
    groups = {
        name: draw(st.lists(keys, min_size=1, max_size=3, unique=True))
        for name, kind in zip(names, kinds, strict=True)
        if kind == "group"
    }
    rows = []
    for _ in range(draw(st.integers(1, 4))):
        row: dict[str, Any] = {}
        for name, kind in zip(names, kinds, strict=True):
            if kind == "primitive":
                row[name] = draw(primitives)
            elif kind == "group":
                row[name] = {field: draw(primitives) for field in groups[name]}
            else:
                row[name] = draw(children)
        if draw(st.booleans()):
            row = dict(reversed(row.items()))  # same keys, another order
        rows.append(row)
    mutation = draw(st.sampled_from(["none", "none", "none", "drop", "add", "empty"]))
    victim = rows[draw(st.integers(0, len(rows) - 1))]
    if mutation == "drop":
        victim.pop(next(iter(victim)))
    elif mutation == "add":
        victim[draw(keys)] = draw(primitives)
    elif mutation == "empty":
        rows.append({})
    return rows


@st.composite
def keyed_objects(draw: st.DrawFn, children: st.SearchStrategy[Any]) -> dict[str, Any]:
    """An object whose values are uniform objects: the keyed table form (§9.5)."""
    rows = draw(uniform_objects(children))
    names = draw(st.lists(keys, min_size=len(rows), max_size=len(rows), unique=True))
    return dict(zip(names, rows, strict=True))


def _containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(children, max_size=4),
        st.lists(primitives, max_size=5),
        st.lists(children, max_size=3).map(tuple),
        st.dictionaries(keys, children, max_size=4),
        uniform_objects(children),
        keyed_objects(children),
        st.just([]),
        st.just({}),
        st.just([{}]),
        st.just([[]]),
    )


json_values = st.recursive(primitives, _containers, max_leaves=24)
options = st.tuples(st.integers(1, 4), st.sampled_from(DELIMITERS))


# --------------------------------------------------------------------------------------
# Property tests
# --------------------------------------------------------------------------------------


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=json_values, opts=options)
def test_matches_reference_on_random_json(value: Any, opts: tuple[int, str]) -> None:
    assert_same(value, *opts)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=uniform_objects(primitives), opts=options)
def test_matches_reference_on_tables(rows: list[dict[str, Any]], opts: tuple[int, str]) -> None:
    assert_same({"items": rows}, *opts)
    assert_same(rows, *opts)  # root table
    assert_same([{"items": rows, "after": 1}], *opts)  # table as the first field of a list item


@settings(max_examples=150, deadline=None)
@given(value=st.one_of(primitives, st.lists(primitives, max_size=4)), key=keys, opts=options)
def test_matches_reference_on_primitives_and_keys(value: Any, key: str, opts: tuple[int, str]) -> None:
    assert_same(value, *opts)
    assert_same({key: value}, *opts)
    assert_same([value, {key: value}], *opts)


# --------------------------------------------------------------------------------------
# Regressions and edge cases
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("delimiter", DELIMITERS)
def test_tricky_strings_in_every_position(delimiter: str) -> None:
    for text in TRICKY_STRINGS:
        for value in (
            text,  # root
            {"k": text},
            {text: 1},
            {text: {"a": 1}},
            {text: [1, 2]},
            {text: []},
            {"k": [text, text]},
            [text],
            [[text]],
            [{text: text}, {text: text}],  # table: field name and cell
            [{"g": {text: text}}, {"g": {text: 1}}],  # field group
            {"t": {"a": {text: text}, "b": {text: 1}}},  # keyed table
            {"t": {text: {"x": 1}, "b": {"x": 2}}},  # keyed table: entry key
            [{"a": text}, 1],
            [{text: 1, "b": 2}],  # first field of a list item
        ):
            assert_same(value, 2, delimiter)


@pytest.mark.parametrize("number", SPECIAL_FLOATS)
def test_special_floats(number: float) -> None:
    assert_same(number)
    assert_same({"n": [number, -number]})


def test_floats_near_every_power_of_ten() -> None:
    for exponent in range(-325, 309):
        base = 10.0**exponent if exponent > -324 else 5e-324
        for value in (base, math.nextafter(base, 0.0), math.nextafter(base, math.inf), 1.5 * base, -base):
            if math.isfinite(value):
                assert _toon_encoder.format_float(value) == reference(value), value


def test_big_integers() -> None:
    for value in (2**53, 2**63, -(2**64), 10**21, 10**100, -(10**300)):
        assert_same(value)
        assert_same({"v": [value]})


def test_integer_beyond_str_digit_limit() -> None:
    assert_same_outcome(10 ** (sys.get_int_max_str_digits() + 1))


@pytest.mark.parametrize("indent", [1, 2, 3, 4, 8])
def test_list_item_objects_with_every_indent(indent: int) -> None:
    value = {
        "items": [
            {"users": [{"id": 1, "name": "Ada"}, {"id": 2, "name": "Bob"}], "status": "active"},
            {"matrix": [[1, 2], [{"a": 1}]], "n": {"deep": {"x": 1}}},
            {"keyed": {"a": {"x": 1}, "b": {"x": 2}}, "z": {}},
            {"e": {}},
            [{"a": 1}, {"a": 2}],  # a keyless array as a list item is never a table
            [],
            {},
        ]
    }
    assert_same(value, indent)
    assert_same(value, indent, "\t")


def test_keyed_table_at_root_and_with_field_groups() -> None:
    assert_same({"a": {"x": 1, "y": {"p": 1}}, "b": {"x": 2, "y": {"p": 2}}})
    assert_same({"a": {"x": 1}, "b": {"x": 2}}, 3, "|")
    assert_same({"only": {"x": 1}})  # a single entry stays nested
    assert_same({"a": {"x": 1}, "b": {"y": 1}})  # different keys
    assert_same({"a": {"x": 1}, "b": 2})


def test_field_group_shapes() -> None:
    assert_same([{"a": {"b": {"c": 1}}}, {"a": {"b": {"c": 2}}}])  # two levels of groups
    assert_same([{"a": {"b": 1}}, {"a": {"b": [1]}}])  # array inside a group column
    assert_same([{"a": {"b": 1}, "c": 1}, {"a": 1, "c": {"b": 1}}])  # objects in other columns
    assert_same([{"a": {}}, {"a": {}}])  # empty objects in a column
    assert_same([{"a": {"x": 1}}, {"a": {"x": 1, "y": 2}}])
    assert_same([{"a": 1, "b": 2}, {"b": 3, "a": 4}])  # key order of the first object wins


def test_tuples_are_arrays() -> None:
    assert_same((1, "a", None))
    assert_same({"t": ({"a": 1}, {"a": 2}), "u": (), "v": ((1, 2), [])})


def test_delimiter_enum_member_is_accepted() -> None:
    value = {"tags": ["a|b", "c"], "rows": [{"x": 1, "y": "p,q"}, {"x": 2, "y": "r"}]}
    for member in toon_format.Delimiter:
        assert encode_toon(value, delimiter=member) == reference(value, 2, member.value)


def test_key_cache_overflow_keeps_output_identical() -> None:
    value = {f"k{i}": i for i in range(2 * _toon_encoder._KEYS_MAX + 10)}
    value.update({f"名{i}": i for i in range(100)})
    assert_same(value)
    assert len(_toon_encoder._KEYS) <= _toon_encoder._KEYS_MAX


def _nested_dicts(depth: int, leaf: Any = "leaf") -> Any:
    value = leaf
    for _ in range(depth):
        value = {"a": value}
    return value


def _nested_lists(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = [value, 1]
    return value


def test_deep_nesting_on_the_fast_path() -> None:
    assert_same(_nested_dicts(150))
    assert_same(_nested_lists(150))
    assert_same([{"g": _nested_dicts(150, i)} for i in range(2)])  # deep field groups


@pytest.mark.parametrize("depth", [250, 300])
def test_deeper_nesting_is_left_to_the_reference(depth: int) -> None:
    for value in (_nested_dicts(depth), _nested_lists(depth), [{"g": _nested_dicts(depth, i)} for i in range(2)]):
        with pytest.raises(_toon_encoder.Unsupported):
            _toon_encoder.encode_json(value, 2, ",")
        assert_same_outcome(value)


def test_nesting_too_deep_for_the_reference_is_a_value_error() -> None:
    value = _nested_dicts(sys.getrecursionlimit() * 2)
    with pytest.raises(ValueError, match="nested too deeply"):
        encode_toon(value)


# --------------------------------------------------------------------------------------
# Errors and values outside the JSON model: same outcome as the reference
# --------------------------------------------------------------------------------------


def _cycles() -> list[Any]:
    loop_dict: dict[str, Any] = {"x": 1}
    loop_dict["self"] = loop_dict
    loop_list: list[Any] = [1]
    loop_list.append(loop_list)
    row: dict[str, Any] = {"a": 1}
    row["b"] = row
    inner: dict[str, Any] = {}
    inner["x"] = {"y": inner}
    return [loop_dict, loop_list, [row, row], {"t": [row, row]}, {"k": inner, "m": inner}, [loop_list]]


@pytest.mark.parametrize("value", _cycles())
def test_reference_cycles_raise_like_the_reference(value: Any) -> None:
    with pytest.raises(ValueError, match="Circular reference"):
        encode_toon(value)
    assert_same_outcome(value)


SURROGATE_CASES = [
    "a\ud800",
    "\udc00",
    "\ufeff\ud800",
    {"k": "x\udfff"},
    {"k\ud800": 1},
    {"\ud800": {"a": 1}},
    {"k": ["ok", "b\ud800"]},
    [{"a": "x"}, {"a": "\ud800"}],
    [{"\ud800": 1}, {"\ud800": 2}],
    {"t": {"\ud800": {"x": 1}, "b": {"x": 2}}},
    {"first\ud800": 1, "later": "\udc00"},
    {"a": 1.5, "b": [{"c": "\ud83d"}]},
    "汇率\ud800",
    "a,\ud800",
]


@pytest.mark.parametrize("value", SURROGATE_CASES)
def test_unpaired_surrogates_raise_like_the_reference(value: Any) -> None:
    with pytest.raises(ValueError, match="surrogate"):
        encode_toon(value)
    assert_same_outcome(value)


class Colour(enum.Enum):
    RED = "red"


class Size(enum.IntEnum):
    SMALL = 1


class Tag(str):
    pass


@dataclasses.dataclass
class Point:
    x: int
    y: int


NON_JSON_CASES = [
    object(),
    {"a": object()},
    [1, {"b": {1, 2}}],
    {"when": datetime.date(2024, 1, 2), "at": datetime.datetime(2024, 1, 2, 3, 4, 5)},
    {"price": decimal.Decimal("1.50"), "nan": decimal.Decimal("NaN"), "tiny": decimal.Decimal("1e-9")},
    {1: "int key", 2.5: "float key", None: "null key"},
    {True: "bool key", "x": [{False: 1}]},
    {1: "a", "1": "b"},  # keys collide after conversion
    {(1, 2): "tuple key"},
    {"colour": Colour.RED, "size": Size.SMALL},
    {"tag": Tag("x"), Tag("k"): 1},
    collections.OrderedDict(a=1, b=[collections.OrderedDict(x=1), collections.OrderedDict(x=2)]),
    {"p": Point(1, 2), "ps": [Point(1, 2), Point(3, 4)]},
    frozenset({3, 1, 2}),
    b"bytes",
    {"f": 1.5, "sub": type("F", (float,), {})(2.5)},
    [{"a": 1}, {"a": decimal.Decimal(2)}],
]


@pytest.mark.parametrize("value", NON_JSON_CASES, ids=range(len(NON_JSON_CASES)))
def test_values_outside_json_behave_like_the_reference(value: Any) -> None:
    assert_same_outcome(value)
    assert_same_outcome(value, 3, "|")


@pytest.mark.parametrize(
    ("indent", "delimiter", "error"),
    [
        (0, ",", ValueError),
        (-1, ",", ValueError),
        (True, ",", TypeError),
        (2.0, ",", TypeError),
        ("2", ",", TypeError),
        (2, ";", ValueError),
        (2, "", ValueError),
        (2, ",,", ValueError),
        (2, None, ValueError),
        (0, ";", ValueError),  # the delimiter is checked first, as in the reference
    ],
)
def test_invalid_options_raise_like_the_reference(indent: Any, delimiter: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        reference({"a": 1}, indent, delimiter)
    with pytest.raises(error):
        encode_toon({"a": 1}, indent=indent, delimiter=delimiter)
