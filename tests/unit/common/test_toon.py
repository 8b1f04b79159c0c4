"""Conformance tests for ``bkn_common.domain.toon.encode_toon``.

Most cases are encode fixtures from the TOON spec's conformance suite
(``toon-format/spec``, ``tests/fixtures/encode/*.json``, spec v4.x), re-typed as test vectors;
each id starts with the spec section it checks. Cases marked "project" use this project's own
data shapes (Chinese text, capability lists). Fixtures for encoder options this API does not
expose (key folding, ``objectArrayLayout``, ``ignoreNullOrEmpty``, ``excludeEmptyArrays``) are
not included.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from bkn_common.domain.toon import encode_toon


def case(rule: str, value: Any, expected: str, **options: Any) -> Any:
    return pytest.param(value, expected, options, id=rule)


CASES = [
    # §2 Data model: canonical numbers, booleans, null.
    case("s2-positive-integer", 42, "42"),
    case("s2-decimal", 3.14, "3.14"),
    case("s2-negative-integer", -7, "-7"),
    case("s2-zero", 0, "0"),
    case("s2-negative-zero-is-zero", -0.0, "0"),
    case("s2-1e6-without-exponent", 1e6, "1000000"),
    case("s2-1e-6-without-exponent", 0.000001, "0.000001"),
    case("s2-large-integer", 100000000000000000000, "100000000000000000000"),
    case("s2-max-safe-integer", 9007199254740991, "9007199254740991"),
    case(
        "s2-shortest-round-trip-digits",
        [0.3333333333333333, 0.30000000000000004, -0.000001],
        "[3]: 0.3333333333333333,0.30000000000000004,-0.000001",
    ),
    case("s2-no-trailing-zeros-integral-float-as-int", {"a": 1.5000, "b": 1.0}, "a: 1.5\nb: 1"),
    case("s2-true", True, "true"),
    case("s2-false", False, "false"),
    case("s2-null", None, "null"),
    # §3 Normalization: non-finite numbers become null.
    case(
        "s3-nan-and-infinity-become-null",
        {"a": math.nan, "b": math.inf, "c": -math.inf},
        "a: null\nb: null\nc: null",
    ),
    # §7.1 Escapes.
    case(
        "s7.1-escapes-newline-tab-carriage-return",
        ["line1\nline2", "tab\there", "return\rcarriage"],
        '[3]: "line1\\nline2","tab\\there","return\\rcarriage"',
    ),
    case("s7.1-escapes-backslash", "Users\\path", '"Users\\\\path"'),
    case("s7.1-escapes-quotes-in-value", {"text": 'say "hello"'}, 'text: "say \\"hello\\""'),
    case(
        "s7.1-other-controls-as-uxxxx-del-and-line-separators-literal",
        {"val": "a\u0004\b\fb", "sep": "a:\u007f\u0085\u2028b"},
        'val: "a\\u0004\\u0008\\u000cb"\nsep: "a:\u007f\u0085\u2028b"',
    ),
    case("s7.1-escapes-newline-in-key", {"line\nbreak": 1}, '"line\\nbreak": 1'),
    case("s7.1-escapes-quotes-in-key", {'he said "hi"': 1}, '"he said \\"hi\\"": 1'),
    case("s7.1-escapes-control-char-in-key", {"a\u0004b": 1}, '"a\\u0004b": 1'),
    # §7.2 When string values are quoted.
    case("s7.2-safe-string-unquoted", "hello", "hello"),
    case("s7.2-underscore-and-digits-unquoted", "Ada_99", "Ada_99"),
    case("s7.2-quotes-empty-string", "", '""'),
    case("s7.2-quotes-true-lookalike", "true", '"true"'),
    case("s7.2-quotes-false-lookalike", "false", '"false"'),
    case("s7.2-quotes-null-lookalike", "null", '"null"'),
    case("s7.2-quotes-integer-lookalike", "42", '"42"'),
    case("s7.2-quotes-decimal-lookalike", "3.14", '"3.14"'),
    case("s7.2-quotes-exponent-lookalike", "1e-6", '"1e-6"'),
    case("s7.2-quotes-leading-zero-number", "05", '"05"'),
    case("s7.2-quotes-leading-plus-number", "+1", '"+1"'),
    case("s7.2-quotes-negative-decimal-value", {"v": "-7.5"}, 'v: "-7.5"'),
    case(
        "s7.2-number-and-literal-resemblances-unquoted",
        {"a": ".5", "b": "NaN", "c": "True"},
        "a: .5\nb: NaN\nc: True",
    ),
    case("s7.2-quotes-leading-and-trailing-space", {"text": " padded "}, 'text: " padded "'),
    case("s7.2-quotes-spaces-only", {"text": "  "}, 'text: "  "'),
    case("s7.2-quotes-colon", {"note": "a:b"}, 'note: "a:b"'),
    case("s7.2-quotes-document-delimiter", {"note": "a,b"}, 'note: "a,b"'),
    case("s7.2-quotes-newline", {"text": "line1\nline2"}, 'text: "line1\\nline2"'),
    case("s7.2-quotes-brackets", "a[test]", '"a[test]"'),
    case("s7.2-quotes-braces", "{key}", '"{key}"'),
    case("s7.2-quotes-hyphen-space-prefix", "- item", '"- item"'),
    case(
        "s7.2-quotes-lone-hyphen-and-hyphen-item-values",
        {"marker": "-", "note": "- item"},
        'marker: "-"\nnote: "- item"',
    ),
    case("s7.2-quotes-leading-hyphen-in-array", {"items": ["-", "-x"]}, 'items[2]: "-","-x"'),
    case("s7.2-interior-hyphen-and-hash-unquoted", "a-b #c", "a-b #c"),
    case("s7.2-quotes-leading-hash", "#hello", '"#hello"'),
    case("s7.2-quotes-leading-bom", "\ufeff8", '"\ufeff8"'),
    case("s7.2-unicode-unquoted", "café", "café"),
    case("s7.2-emoji-and-spaces-unquoted", "hello 👋 world", "hello 👋 world"),
    case("s7.2-emoji-stays-literal-inside-quotes", "a,🚀", '"a,🚀"'),
    case("s7.2-project-cjk-value-unquoted", {"name": "汇率月报"}, "name: 汇率月报"),
    case(
        "s7.2-project-cjk-with-spaces-and-fullwidth-punctuation-unquoted",
        {"desc": "月度 汇率报告，含图表（美元/人民币）"},
        "desc: 月度 汇率报告，含图表（美元/人民币）",
    ),
    # §7.3 When keys are quoted.
    case("s7.3-quotes-key-with-colon", {"order:id": 7}, '"order:id": 7'),
    case("s7.3-quotes-key-with-brackets", {"[index]": 5}, '"[index]": 5'),
    case("s7.3-quotes-key-with-braces", {"{key}": 5}, '"{key}": 5'),
    case("s7.3-quotes-key-with-comma", {"a,b": 1}, '"a,b": 1'),
    case("s7.3-quotes-key-with-spaces", {"full name": "Ada"}, '"full name": Ada'),
    case("s7.3-quotes-key-with-leading-hyphen", {"-lead": 1}, '"-lead": 1'),
    case("s7.3-quotes-key-with-outer-spaces", {" a ": 1}, '" a ": 1'),
    case("s7.3-quotes-numeric-key", {"123": "x"}, '"123": x'),
    case("s7.3-quotes-empty-key", {"": 1}, '"": 1'),
    case("s7.3-quotes-non-ascii-key", {"café": 1}, '"café": 1'),
    case("s7.3-quotes-cjk-key", {"名前": "x"}, '"名前": x'),
    case("s7.3-dotted-identifier-key-unquoted", {"a.b_c": 1}, "a.b_c: 1"),
    # §8 Objects.
    case(
        "s8-preserves-key-order",
        {"id": 123, "name": "Ada", "active": True},
        "id: 123\nname: Ada\nactive: true",
    ),
    case("s8-null-value", {"id": 123, "value": None}, "id: 123\nvalue: null"),
    case("s8-empty-root-object-is-empty-document", {}, ""),
    case("s8-deeply-nested-objects", {"a": {"b": {"c": "deep"}}}, "a:\n  b:\n    c: deep"),
    case("s8-empty-nested-object", {"user": {}}, "user:"),
    case("s8-empty-key-opening-nested-object", {"": {"a": 1}}, '"":\n  a: 1'),
    case(
        "s8-proto-is-an-ordinary-key",
        {"__proto__": "polluted", "safe": True},
        "__proto__: polluted\nsafe: true",
    ),
    case(
        "s8-complex-nested-structure",
        {
            "user": {
                "id": 123,
                "name": "Ada",
                "tags": ["reading", "gaming"],
                "active": True,
                "prefs": [],
            }
        },
        "user:\n  id: 123\n  name: Ada\n  tags[2]: reading,gaming\n  active: true\n  prefs: []",
    ),
    # §9.1 Primitive arrays (inline).
    case("s9.1-string-array-inline", {"tags": ["reading", "gaming"]}, "tags[2]: reading,gaming"),
    case("s9.1-number-array-inline", {"nums": [1, 2, 3]}, "nums[3]: 1,2,3"),
    case(
        "s9.1-mixed-primitive-array-inline", {"data": ["x", "y", True, 10]}, "data[4]: x,y,true,10"
    ),
    case("s9.1-empty-array", {"items": []}, "items: []"),
    case("s9.1-empty-key-inline-array", {"": [1, 2, 3]}, '""[3]: 1,2,3'),
    case("s9.1-empty-string-element", {"items": ["a", "", "b"]}, 'items[3]: a,"",b'),
    case("s9.1-whitespace-only-elements", {"items": [" ", "  "]}, 'items[2]: " ","  "'),
    case(
        "s9.1-quotes-delimiter-and-colon-elements",
        {"items": ["a", "b,c", "d:e"]},
        'items[3]: a,"b,c","d:e"',
    ),
    case(
        "s9.1-quotes-ambiguous-elements",
        {"items": ["x", "true", "42", "-3.14"]},
        'items[4]: x,"true","42","-3.14"',
    ),
    case(
        "s9.1-quotes-structural-elements",
        {"items": ["[5]", "- item", "{key}"]},
        'items[3]: "[5]","- item","{key}"',
    ),
    case("s9.1-root-primitive-array", ["x", "y", "true", True, 10], '[5]: x,y,"true",true,10'),
    case("s9.1-empty-root-array", [], "[]"),
    case("s9.1-project-cjk-elements-unquoted", {"tags": ["财务", "月报"]}, "tags[2]: 财务,月报"),
    # §9.2 Arrays of arrays.
    case(
        "s9.2-nested-primitive-arrays",
        {"pairs": [["a", "b"], ["c", "d"]]},
        "pairs[2]:\n  - [2]: a,b\n  - [2]: c,d",
    ),
    case(
        "s9.2-quotes-inside-nested-arrays",
        {"pairs": [["a", "b"], ["c,d", "e:f", "true"]]},
        'pairs[2]:\n  - [2]: a,b\n  - [3]: "c,d","e:f","true"',
    ),
    case("s9.2-empty-inner-arrays", {"pairs": [[], []]}, "pairs[2]:\n  - [0]:\n  - [0]:"),
    case(
        "s9.2-mixed-length-inner-arrays",
        {"pairs": [[1], [2, 3]]},
        "pairs[2]:\n  - [1]: 1\n  - [2]: 2,3",
    ),
    case("s9.2-root-array-of-arrays", [[1, 2], []], "[2]:\n  - [2]: 1,2\n  - [0]:"),
    # §9.3 Arrays of uniform objects (tabular).
    case(
        "s9.3-uniform-objects-as-table",
        {"items": [{"sku": "A1", "qty": 2, "price": 9.99}, {"sku": "B2", "qty": 1, "price": 14.5}]},
        "items[2]{sku,qty,price}:\n  A1,2,9.99\n  B2,1,14.5",
    ),
    case(
        "s9.3-null-cells",
        {"items": [{"id": 1, "value": None}, {"id": 2, "value": "test"}]},
        "items[2]{id,value}:\n  1,null\n  2,test",
    ),
    case(
        "s9.3-quotes-delimiter-and-colon-cells",
        {
            "items": [
                {"sku": "A,1", "desc": "cool", "qty": 2},
                {"sku": "B2", "desc": "wip: test", "qty": 1},
            ]
        },
        'items[2]{sku,desc,qty}:\n  "A,1",cool,2\n  B2,"wip: test",1',
    ),
    case(
        "s9.3-quotes-ambiguous-cells",
        {"items": [{"id": 1, "status": "true"}, {"id": 2, "status": "false"}]},
        'items[2]{id,status}:\n  1,"true"\n  2,"false"',
    ),
    case(
        "s9.3-quotes-field-names-like-keys",
        {"items": [{"order:id": 1, "full name": "Ada"}, {"order:id": 2, "full name": "Bob"}]},
        'items[2]{"order:id","full name"}:\n  1,Ada\n  2,Bob',
    ),
    case(
        "s9.3-field-order-from-first-object",
        {"items": [{"a": 1, "b": 2, "c": 3}, {"c": 30, "b": 20, "a": 10}]},
        "items[2]{a,b,c}:\n  1,2,3\n  10,20,30",
    ),
    case("s9.3-root-tabular-array", [{"id": 1}, {"id": 2}], "[2]{id}:\n  1\n  2"),
    case(
        "s9.3-quotes-hash-leading-cell",
        {"items": [{"tag": "#a"}, {"tag": "b"}]},
        'items[2]{tag}:\n  "#a"\n  b',
    ),
    case(
        "s9.3-uniform-nested-object-column-as-field-group",
        {
            "orders": [
                {"id": 1, "customer": {"name": "Alice", "country": "DK"}, "total": 99},
                {"id": 2, "customer": {"name": "Bob", "country": "UK"}, "total": 149},
            ]
        },
        "orders[2]{id,customer{name,country},total}:\n  1,Alice,DK,99\n  2,Bob,UK,149",
    ),
    case(
        "s9.3-list-fallback-when-column-mixes-null-and-objects",
        {"orders": [{"id": 1, "customer": {"name": "Alice"}}, {"id": 2, "customer": None}]},
        "orders[2]:\n  - id: 1\n    customer:\n      name: Alice\n  - id: 2\n    customer: null",
    ),
    case(
        "s9.3-project-capabilities-table-with-cjk-cells",
        {
            "capabilities": [
                {"capability_type": "skill", "name": "汇率月报"},
                {"capability_type": "tool", "name": "查询汇率"},
            ]
        },
        "capabilities[2]{capability_type,name}:\n  skill,汇率月报\n  tool,查询汇率",
    ),
    # §9.4 Mixed and non-uniform arrays (list form).
    case(
        "s9.4-objects-with-different-fields",
        {"items": [{"id": 1, "name": "First"}, {"id": 2, "name": "Second", "extra": True}]},
        "items[2]:\n  - id: 1\n    name: First\n  - id: 2\n    name: Second\n    extra: true",
    ),
    case(
        "s9.4-objects-with-non-uniform-nested-values",
        {"items": [{"id": 1, "nested": {"x": 1}}, {"id": 2, "nested": {"y": 2}}]},
        "items[2]:\n  - id: 1\n    nested:\n      x: 1\n  - id: 2\n    nested:\n      y: 2",
    ),
    case(
        "s9.4-primitives-mixed-with-objects",
        {"items": [1, {"a": 1}, "text"]},
        "items[3]:\n  - 1\n  - a: 1\n  - text",
    ),
    case(
        "s9.4-objects-mixed-with-arrays",
        {"items": [{"a": 1}, [1, 2]]},
        "items[2]:\n  - a: 1\n  - [2]: 1,2",
    ),
    case("s9.4-empty-objects-as-bare-hyphens", {"items": [{}, {}]}, "items[2]:\n  -\n  -"),
    case(
        "s9.4-root-mixed-array",
        ["summary", {"id": 1, "name": "Ada"}, [{"id": 2}, {"status": "draft"}]],
        "[3]:\n  - summary\n  - id: 1\n    name: Ada\n  - [2]:\n    - id: 2\n    - status: draft",
    ),
    case(
        "s9.4-project-capabilities-list-with-nested-arrays",
        {
            "capabilities": [
                {"capability_type": "skill", "name": "汇率月报", "tags": ["财务", "月报"]},
                {"capability_type": "tool", "name": "查询汇率", "tags": []},
            ]
        },
        "capabilities[2]:\n"
        "  - capability_type: skill\n    name: 汇率月报\n    tags[2]: 财务,月报\n"
        "  - capability_type: tool\n    name: 查询汇率\n    tags: []",
    ),
    # §9.5 Objects of uniform objects (keyed tabular).
    case(
        "s9.5-object-of-uniform-objects-as-keyed-table",
        {
            "servers": {
                "alpha": {"host": "a.example.com", "port": 8080},
                "beta": {"host": "b.example.com", "port": 9090},
            }
        },
        "servers[2:]{host,port}:\n  alpha: a.example.com,8080\n  beta: b.example.com,9090",
    ),
    case(
        "s9.5-single-entry-object-stays-nested",
        {"config": {"only": {"a": 1, "b": 2}}},
        "config:\n  only:\n    a: 1\n    b: 2",
    ),
    # §10 Objects as list items.
    case(
        "s10-array-first-field-on-hyphen-line",
        {"items": [{"nums": [1, 2, 3], "name": "Ada"}]},
        "items[1]:\n  - nums[3]: 1,2,3\n    name: Ada",
    ),
    case(
        "s10-tabular-first-field-rows-at-depth-plus-two",
        {
            "items": [
                {"users": [{"id": 1, "name": "Ada"}, {"id": 2, "name": "Bob"}], "status": "active"}
            ]
        },
        "items[1]:\n  - users[2]{id,name}:\n      1,Ada\n      2,Bob\n    status: active",
    ),
    case(
        "s10-array-of-arrays-first-field",
        {"items": [{"matrix": [[1, 2], [3, 4]], "name": "grid"}]},
        "items[1]:\n  - matrix[2]:\n      - [2]: 1,2\n      - [2]: 3,4\n    name: grid",
    ),
    case(
        "s10-empty-array-first-field",
        {"items": [{"data": [], "name": "x"}]},
        "items[1]:\n  - data: []\n    name: x",
    ),
    case(
        "s10-empty-object-first-field",
        {"items": [{"a": {}, "b": 1}]},
        "items[1]:\n  - a:\n    b: 1",
    ),
    case(
        "s10-empty-object-item-as-bare-hyphen",
        {"items": ["first", "second", {}]},
        "items[3]:\n  - first\n  - second\n  -",
    ),
    # §11 Delimiters.
    case(
        "s11-tab-primitive-array",
        {"tags": ["reading", "gaming", "coding"]},
        "tags[3\t]: reading\tgaming\tcoding",
        delimiter="\t",
    ),
    case(
        "s11-pipe-primitive-array",
        {"tags": ["reading", "gaming", "coding"]},
        "tags[3|]: reading|gaming|coding",
        delimiter="|",
    ),
    case(
        "s11-tab-table",
        {"items": [{"sku": "A1", "qty": 2, "price": 9.99}, {"sku": "B2", "qty": 1, "price": 14.5}]},
        "items[2\t]{sku\tqty\tprice}:\n  A1\t2\t9.99\n  B2\t1\t14.5",
        delimiter="\t",
    ),
    case(
        "s11-pipe-table",
        {"items": [{"sku": "A1", "qty": 2, "price": 9.99}, {"sku": "B2", "qty": 1, "price": 14.5}]},
        "items[2|]{sku|qty|price}:\n  A1|2|9.99\n  B2|1|14.5",
        delimiter="|",
    ),
    case(
        "s11-pipe-nested-arrays",
        {"pairs": [["a", "b"], ["c", "d"]]},
        "pairs[2|]:\n  - [2|]: a|b\n  - [2|]: c|d",
        delimiter="|",
    ),
    case("s11-pipe-root-array", ["x", "y", "z"], "[3|]: x|y|z", delimiter="|"),
    case(
        "s11-quotes-tab-element-with-tab-delimiter",
        {"items": ["a", "b\tc", "d"]},
        'items[3\t]: a\t"b\\tc"\td',
        delimiter="\t",
    ),
    case(
        "s11-quotes-pipe-element-with-pipe-delimiter",
        {"items": ["a", "b|c", "d"]},
        'items[3|]: a|"b|c"|d',
        delimiter="|",
    ),
    case(
        "s11-commas-unquoted-with-pipe-delimiter",
        {"items": ["a,b", "c,d"]},
        "items[2|]: a,b|c,d",
        delimiter="|",
    ),
    case(
        "s11-commas-unquoted-in-values-with-tab-delimiter",
        {"note": "a,b"},
        "note: a,b",
        delimiter="\t",
    ),
    case(
        "s11-ambiguity-quoting-independent-of-delimiter",
        {"items": ["true", "42", "-3.14"]},
        'items[3|]: "true"|"42"|"-3.14"',
        delimiter="|",
    ),
    case(
        "s11-quotes-list-item-containing-document-delimiter",
        {"a": ["x|y", "p,q", {"b": 1}]},
        'a[3|]:\n  - "x|y"\n  - p,q\n  - b: 1',
        delimiter="|",
    ),
    # §12 Indentation and whitespace.
    case("s12-no-trailing-newline", {"id": 123}, "id: 123"),
    case(
        "s12-two-space-indentation",
        {"user": {"id": 123, "name": "Ada"}, "items": ["a", "b"]},
        "user:\n  id: 123\n  name: Ada\nitems[2]: a,b",
    ),
    case(
        "s12-custom-indent-size",
        {"user": {"name": "Ada", "role": "admin"}},
        "user:\n    name: Ada\n    role: admin",
        indent=4,
    ),
]


@pytest.mark.parametrize(("value", "expected", "options"), CASES)
def test_encode_toon_matches_spec(value: Any, expected: str, options: dict[str, Any]) -> None:
    assert encode_toon(value, **options) == expected


@pytest.mark.parametrize(("value", "expected", "options"), CASES)
def test_s12_no_trailing_whitespace_on_any_line(
    value: Any, expected: str, options: dict[str, Any]
) -> None:
    lines = encode_toon(value, **options).split("\n")
    assert all(line == line.rstrip(" ") for line in lines)


@pytest.mark.parametrize("delimiter", [";", "", ",,"])
def test_s11_rejects_unsupported_delimiter(delimiter: str) -> None:
    with pytest.raises(ValueError):
        encode_toon({"a": [1, 2]}, delimiter=delimiter)
