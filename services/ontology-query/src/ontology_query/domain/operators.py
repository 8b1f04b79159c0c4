"""Leaf operators: a property, an operator and a value become a predicate on properties.

Semantics (values are compared in canonical form, see :mod:`values`):

* ``== != > < >= <=`` — comparison with a value coerced to the property's type;
* ``in`` / ``not_in`` — membership in a list; ``range`` — ``low <= v <= high`` (both ends
  inclusive); ``out_range`` — not in that range;
* ``like`` / ``not_like`` — SQL wildcards over the whole text: ``%`` any run, ``_`` one
  character, ``\\`` escapes; case-sensitive;
* ``regex`` — Python ``re.search`` (unanchored; write ``^…$`` to anchor);
* ``match`` — every token of the value occurs among the property's tokens, case-insensitive;
  tokens are runs of letters/digits, and each CJK character is a token of its own;
* ``exist`` / ``not_exist`` — the property is present and not null / absent or null.

Every negative operator is the exact complement of its positive one, so an instance lacking
the property matches ``!=``, ``not_in``, ``not_like`` and ``out_range``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

from ontology_query.domain.errors import condition_error
from ontology_query.domain.model import DataProperty
from ontology_query.domain.values import Canonical, normalize, normalizer

Predicate = Callable[[Mapping[str, Any]], bool]

NO_VALUE_OPERATORS = frozenset({"exist", "not_exist"})
LIST_OPERATORS = frozenset({"in", "not_in"})
RANGE_OPERATORS = frozenset({"range", "out_range"})
TEXT_OPERATORS = frozenset({"like", "not_like", "regex", "match"})
COMPARISON_OPERATORS = frozenset({"==", "!=", ">", "<", ">=", "<="})
SUPPORTED_OPERATORS: tuple[str, ...] = (
    "==", "!=", ">", "<", ">=", "<=", "in", "not_in", "like", "not_like",
    "range", "out_range", "exist", "not_exist", "regex", "match",
)  # fmt: skip
_NEGATIONS = {
    "!=": "==",
    "not_in": "in",
    "not_like": "like",
    "out_range": "range",
    "not_exist": "exist",
}
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN_RE = re.compile(rf"[{_CJK}]|[^\W_{_CJK}]+")


def tokens(text: str) -> set[str]:
    """Case-folded tokens for ``match``."""
    return {t.casefold() for t in _TOKEN_RE.findall(text)}


def like_to_regex(pattern: str) -> re.Pattern[str]:
    """Compile a SQL ``LIKE`` pattern (``%``, ``_``, ``\\`` escape) to a full-match regex."""
    out: list[str] = []
    chars = iter(pattern)
    for ch in chars:
        if ch == "\\":
            out.append(re.escape(next(chars, "\\")))
        elif ch == "%":
            out.append(".*")
        elif ch == "_":
            out.append(".")
        else:
            out.append(re.escape(ch))
    return re.compile("".join(out), re.DOTALL)


def compile_leaf(
    prop: DataProperty, operation: str, value: Any, path: Sequence[str | int]
) -> tuple[Predicate, list[Hashable] | None]:
    """Predicate for ``prop operation value`` and, for ``==``/``in``, the canonical lookup keys."""
    positive = _NEGATIONS.get(operation, operation)
    test, keys = _positive_test(prop, positive, value, path)
    field, norm = prop.name, normalizer(prop.type)

    if positive == "exist":

        def exists(props: Mapping[str, Any]) -> bool:
            return props.get(field) is not None

        return (_negate(exists) if operation != positive else exists), None

    def predicate(props: Mapping[str, Any]) -> bool:
        raw = props.get(field)
        return raw is not None and test(raw, norm)

    if operation != positive:
        return _negate(predicate), None
    return predicate, keys


_Test = Callable[[Any, Callable[[object], Canonical | None]], bool]


def _positive_test(
    prop: DataProperty, operation: str, value: Any, path: Sequence[str | int]
) -> tuple[_Test, list[Hashable] | None]:
    if operation == "exist":
        return (lambda raw, norm: True), None
    if operation in TEXT_OPERATORS:
        if not isinstance(value, str):
            raise condition_error(path, "value_string", operation=operation)
        return _text_test(operation, value, path), None
    if operation in ("in", "range"):
        values = [_coerce(prop, v, path) for v in value]
        if operation == "range":
            low, high = values
            return (lambda raw, norm: _between(norm(raw), low, high)), None
        members = set(values)
        return (lambda raw, norm: norm(raw) in members), list(members)
    target = _coerce(prop, value, path)
    compare = _COMPARATORS[operation]
    return (lambda raw, norm: _compare(compare, norm(raw), target)), (
        [target] if operation == "==" else None
    )


def _text_test(operation: str, value: str, path: Sequence[str | int]) -> _Test:
    if operation == "match":
        wanted = tokens(value)
        return lambda raw, norm: wanted <= tokens(_text(raw))
    if operation == "like":
        pattern = like_to_regex(value)
        return lambda raw, norm: pattern.fullmatch(_text(raw)) is not None
    try:
        regex = re.compile(value)
    except re.error as exc:
        raise condition_error(path, "regex", value=value, error=str(exc)) from None
    return lambda raw, norm: regex.search(_text(raw)) is not None


def _text(raw: object) -> str:
    if isinstance(raw, str):
        return raw
    if isinstance(raw, bool):
        return "true" if raw else "false"
    return str(raw)


def _coerce(prop: DataProperty, value: object, path: Sequence[str | int]) -> Canonical:
    canonical = normalize(prop.type, value)
    if canonical is None:
        raise condition_error(path, "value_type", value=value, field=prop.name, type=prop.type)
    return canonical


def _compare(op: Callable[[Any, Any], bool], left: Canonical | None, right: Canonical) -> bool:
    if left is None:
        return False
    try:
        return op(left, right)
    except TypeError:  # e.g. int vs str would only happen with inconsistent data
        return False


def _between(value: Canonical | None, low: Canonical, high: Canonical) -> bool:
    return _compare(_ge, value, low) and _compare(_le, value, high)


def _negate(predicate: Predicate) -> Predicate:
    return lambda props: not predicate(props)


def _eq(a: Any, b: Any) -> bool:
    return bool(a == b)


def _ge(a: Any, b: Any) -> bool:
    return bool(a >= b)


def _le(a: Any, b: Any) -> bool:
    return bool(a <= b)


_COMPARATORS: dict[str, Callable[[Any, Any], bool]] = {
    "==": _eq,
    ">": lambda a, b: bool(a > b),
    "<": lambda a, b: bool(a < b),
    ">=": _ge,
    "<=": _le,
}
