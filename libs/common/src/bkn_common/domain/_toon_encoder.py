"""Single-pass TOON encoder for plain JSON data (the fast path of :func:`bkn_common.domain.toon.encode_toon`).

It renders ``dict`` (``str`` keys), ``list``/``tuple``, ``str``, ``int``, ``float``, ``bool`` and
``None`` straight to text, choosing each value's form exactly as the reference implementation
(``toon-format`` 1.2.0) does. It deliberately handles nothing else: any other type (subclasses,
``Decimal``, sets, dataclasses, non-``str`` keys, ...) raises :class:`Unsupported`, and the
caller hands the whole value to the reference library, which knows how to convert such
values and which exception to raise for the ones it cannot. Errors are left to the caller
the same way: an unpaired surrogate raises :class:`Unsupported` too, and so does nesting
deeper than ``_MAX_DEPTH`` levels, which is how a reference cycle shows up here.

Layout (the spec sections are those of TOON v4.4):

* an object field is ``key: value``, ``key:`` plus an indented block, ``key: []``, an array
  header, or, for an object of at least two uniform objects, a keyed table (§8, §9.5);
* an array is inline when all its elements are primitives (§9.1), a table when its elements
  are uniform objects (§9.3; columns holding uniform objects become field groups), and a
  ``- `` list otherwise (§9.2, §9.4); a keyless array that is itself a list item is never a
  table;
* an object as a list item puts its first field on the hyphen line (§10).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from math import isfinite
from operator import itemgetter
from typing import Any, TypeAlias

__all__ = ["Unsupported", "encode_json"]

# An ordered field list; each field is a leaf (None) or a nested field group (§9.3).
Shape: TypeAlias = "list[tuple[str, Shape | None]]"
Emit: TypeAlias = Callable[[str], None]


class Unsupported(Exception):
    """The value holds something other than plain JSON data; leave it to the reference encoder."""


class _Nested(Unsupported):
    """A container where a table cell should be; raised by ``primitive``, caught by ``table``."""


_CONTAINERS = frozenset((dict, list, tuple))
_LITERALS = frozenset(("true", "false", "null"))

# §7.2: a string that looks like a number is quoted. Deliberately wider than the number
# grammar of §4 ("05" and "+1" are quoted too), and ASCII digits only.
_NUMBER_LIKE = re.compile(r"[+-]?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?").fullmatch
_NUMBER_START = frozenset("+0123456789")

# §7.2: characters that force quotes wherever they occur, plus the document delimiter. The
# surrogate range rides along so that plain strings need no separate check for them (§3).
_SPECIAL = {
    delimiter: re.compile('[:"\\\\\\[\\]{}\\x00-\\x1f\\ud800-\\udfff' + re.escape(delimiter) + "]").search
    for delimiter in (",", "\t", "|")
}

# §7.1: the five short escapes; every other C0 control character becomes \uXXXX (lowercase).
_ESCAPES = {code: f"\\u{code:04x}" for code in range(0x20)}
_ESCAPES.update({ord("\\"): "\\\\", ord('"'): '\\"', ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t"})
_NEEDS_ESCAPE = re.compile('[\\\\"\\x00-\\x1f]').search

# Deeper documents go to the reference encoder. It gives up (ValueError) a little beyond 300
# levels under the default recursion limit; below this depth it always succeeds, so leaving
# deeper ones to it keeps the outcome identical at every depth.
_MAX_DEPTH = 200

# Encoded keys by key. Payloads repeat the same few field names over and over; the bound
# keeps arbitrary user-supplied keys from growing it without limit.
_KEYS: dict[str, str] = {}
_KEYS_MAX = 4096


def quote(text: str) -> str:
    """``text`` as a quoted, escaped token (§7.1)."""
    if _NEEDS_ESCAPE(text) is None:
        return f'"{text}"'
    return f'"{text.translate(_ESCAPES)}"'


def _check_surrogates(text: str) -> None:
    """Raise :class:`Unsupported` if ``text`` holds an unpaired surrogate (it has no TOON form, §3)."""
    try:
        text.encode()  # UTF-8 can encode every code point except the surrogates
    except UnicodeEncodeError:
        raise Unsupported from None


def encode_key(key: Any) -> str:
    """An object key or field name; unquoted only if it is an ASCII ``[A-Za-z_][A-Za-z0-9_.]*`` (§7.3)."""
    encoded = _KEYS.get(key)
    if encoded is None:
        if type(key) is not str:
            raise Unsupported
        if key.isascii():
            if key.isidentifier() or (key[:1] != "." and key.replace(".", "_").isidentifier()):
                encoded = key
            else:
                encoded = quote(key)
        else:
            _check_surrogates(key)
            encoded = quote(key)
        if len(_KEYS) >= _KEYS_MAX:
            _KEYS.clear()
        _KEYS[key] = encoded
    return encoded


def format_float(value: float) -> str:
    """A float in the canonical number form of §2; NaN and ±Infinity are ``null`` (§3).

    ``repr`` gives the shortest round-tripping digits. Integral values below 1e21 are written
    with all their digits (``1e20`` → ``100000000000000000000``); ``repr`` of any other float
    below 1e21 is a plain decimal unless the magnitude is below 1e-4, where it switches to
    exponent form. Magnitudes in ``[1e-6, 1e-4)`` are therefore rewritten as decimals, and the
    exponent of what stays in exponent form loses its zero padding (``1e-07`` → ``1e-7``).
    """
    if not isfinite(value):
        return "null"
    if value.is_integer() and -1e21 < value < 1e21:
        return str(int(value))  # also turns -0.0 into 0
    text = repr(value)
    if "e" not in text:
        return text
    mantissa, _, exponent_text = text.partition("e")
    exponent = int(exponent_text)
    if exponent < 0 and (value >= 1e-6 or value <= -1e-6):
        sign = ""
        if mantissa[0] == "-":
            sign, mantissa = "-", mantissa[1:]
        return sign + "0." + "0" * (-exponent - 1) + mantissa.replace(".", "")
    return f"{mantissa}e{'+' if exponent >= 0 else '-'}{abs(exponent)}"


def _same_size_dicts(objects: Sequence[Any]) -> bool:
    """Whether ``objects`` are all non-empty plain dicts with as many keys as the first."""
    first = objects[0]
    if type(first) is not dict or not first:
        return False
    size = len(first)
    return all(type(obj) is dict and len(obj) == size for obj in objects)


def _shape(objects: Sequence[Any], depth: int = 0) -> Shape | None:
    """The shared field list of ``objects``, or ``None`` if they are not uniform (§9.3).

    Uniform means: all are non-empty dicts with the same set of keys, and every column holds
    either only primitives or, recursively, uniform objects. Fields follow the first object.
    """
    if depth > _MAX_DEPTH:
        raise Unsupported
    if not _same_size_dicts(objects):
        return None
    first = objects[0]
    # With the sizes equal, finding every key of the first object in every object (the column
    # scan looks them all up) proves that the key sets are equal. Every column is classified
    # before descending into any: a column that holds an array, or objects mixed with
    # primitives, rules the list out and is cheaper to find than a mismatch deep inside.
    shape: Shape = []
    groups: list[int] = []
    containers = _CONTAINERS
    try:
        for key in first:
            objects_in_column = 0
            for obj in objects:
                kind = type(obj[key])
                if kind in containers:
                    if kind is not dict:
                        return None
                    objects_in_column += 1
            if objects_in_column:
                if objects_in_column != len(objects):
                    return None
                groups.append(len(shape))
            shape.append((key, None))
    except KeyError:
        return None
    for index in groups:
        key = shape[index][0]
        nested = _shape([obj[key] for obj in objects], depth + 1)
        if nested is None:
            return None
        shape[index] = (key, nested)
    return shape


def _add_leaves(obj: dict[str, Any], shape: Shape, leaves: list[Any]) -> None:
    """Append the leaf values of ``obj`` in header order (depth first)."""
    for key, nested in shape:
        if nested is None:
            leaves.append(obj[key])
        else:
            _add_leaves(obj[key], nested, leaves)


def _encoder(indent: int, delimiter: str) -> Callable[[Any], str]:
    """Build the encoding function for one combination of options.

    The renderers are closures so that their hot names (the delimiter, the indentation unit,
    the quoting test) are cheap to reach; they are built once per combination of options,
    not per call. Indentation travels as ready-made strings: ``pad`` for the current depth,
    ``lead`` for the start of the first line of a block (which differs from ``pad`` for the
    first field of an object that is a list item).
    """
    unit = " " * indent
    max_pad = _MAX_DEPTH * indent  # every level of nesting indents by at least one unit
    symbol = "" if delimiter == "," else delimiter  # §11.1: comma is implicit in headers
    special = _SPECIAL[delimiter]
    join = delimiter.join
    containers = _CONTAINERS
    literals = _LITERALS
    number_like = _NUMBER_LIKE
    number_start = _NUMBER_START
    known_keys = _KEYS

    def string(text: str) -> str:
        """A string that is not an identifier, quoted when §7.2 requires it."""
        if special(text) is None:
            if (
                text
                and text[0] not in " \t-#"
                and text[-1] not in " \t"
                and (text[0] not in number_start or number_like(text) is None)
            ):
                return text
        elif not text.isascii():
            _check_surrogates(text)
        return quote(text)

    def primitive(value: Any) -> str:
        """A string, number, boolean or null as a token (§2, §7.2)."""
        kind = type(value)
        if kind is str:
            # An identifier (Unicode letters, digits, underscores; the common case) needs
            # quotes only when it spells a literal.
            if value.isidentifier():
                return f'"{value}"' if value in literals else value
            return string(value)
        if kind is int:
            return str(value)
        if kind is bool:
            return "true" if value else "false"
        if value is None:
            return "null"
        if kind is float:
            return format_float(value)
        if kind in containers:
            raise _Nested  # only table() passes containers here, and it catches this
        raise Unsupported

    def field_list(shape: Shape) -> str:
        names = [encode_key(key) if nested is None else encode_key(key) + field_list(nested) for key, nested in shape]
        return "{" + join(names) + "}"

    def leaf_row(shape: Shape) -> Callable[[Any], str]:
        """A function rendering one row of a table with field groups: the leaves in header order."""

        def render(obj: Any) -> str:
            leaves: list[Any] = []
            _add_leaves(obj, shape, leaves)
            return join(map(primitive, leaves))

        return render

    def table(objects: Sequence[Any]) -> tuple[str, list[str]] | None:
        """The field list and the rendered rows of ``objects`` as a table, or ``None`` (§9.3).

        Most tables are flat: when the first object holds no container, the rows are rendered
        straight away. With the sizes equal, looking up the first object's keys in every
        object doubles as the key-set check, and a container found in a later row means a
        column mixing primitives and containers, which rules the table out. Only when the
        first object holds a container does the full analysis of :func:`_shape` run.
        """
        if not _same_size_dicts(objects):
            return None
        first = objects[0]
        size = len(first)
        if containers.isdisjoint(map(type, first.values())):
            names = list(first)
            try:
                if size == 1:
                    name = names[0]
                    rows = [primitive(obj[name]) for obj in objects]
                else:
                    getter = itemgetter(*names)
                    rows = [join(map(primitive, getter(obj))) for obj in objects]
            except (KeyError, _Nested):
                # An object with other keys, or a container below a primitive in a column.
                return None
            return "{" + join(map(encode_key, names)) + "}", rows
        shape = _shape(objects)
        if shape is None:
            return None
        return field_list(shape), list(map(leaf_row(shape), objects))

    def fields(emit: Emit, obj: dict[Any, Any], pad: str, lead: str) -> None:
        """Emit the fields of a non-empty object at ``pad`` (§8)."""
        for key, item in obj.items():
            try:
                name = known_keys[key]
            except KeyError:
                name = encode_key(key)
            kind = type(item)
            if kind is str:
                if not item.isidentifier():
                    item = string(item)
                elif item in literals:
                    item = f'"{item}"'
                emit(f"{lead}{name}: {item}")
            elif kind is dict:
                found = None
                if len(item) > 1 and type(next(iter(item.values()))) is dict:
                    found = table(list(item.values()))
                if found is not None:
                    keyed(emit, f"{lead}{name}", item, found, pad)
                else:
                    emit(f"{lead}{name}:")
                    if item:
                        inner = pad + unit
                        if len(inner) > max_pad:
                            raise Unsupported
                        fields(emit, item, inner, inner)
            elif kind is list or kind is tuple:
                if item:
                    array(emit, f"{lead}{name}", item, pad, True)
                else:
                    emit(f"{lead}{name}: []")
            elif kind is int:
                emit(f"{lead}{name}: {item}")
            else:
                emit(f"{lead}{name}: {primitive(item)}")
            lead = pad

    def keyed(emit: Emit, head: str, obj: dict[Any, Any], found: tuple[str, list[str]], pad: str) -> None:
        """Emit an object of at least two uniform objects as a keyed table (§9.5)."""
        header, rows = found
        emit(f"{head}[{len(obj)}:{symbol}]{header}:")
        inner = pad + unit
        for key, row in zip(obj, rows, strict=True):
            emit(f"{inner}{encode_key(key)}: {row}")

    def array(emit: Emit, head: str, items: Sequence[Any], pad: str, tabular: bool) -> None:
        """Emit a non-empty array whose header line starts with ``head`` (§9).

        ``tabular`` is false for a keyless array that is itself a list item (§9.4).
        """
        head = f"{head}[{len(items)}{symbol}]"
        for item in items:
            if type(item) in containers:
                break
        else:
            emit(f"{head}: {join(map(primitive, items))}")  # §9.1
            return
        inner = pad + unit
        if len(inner) > max_pad:
            raise Unsupported
        found = table(items) if tabular else None
        if found is not None:  # §9.3
            header, rows = found
            emit(f"{head}{header}:")
            for row in rows:
                emit(f"{inner}{row}")
            return
        emit(f"{head}:")  # §9.2, §9.4: one "- " item per element
        dash = f"{inner}- "
        child = inner + unit
        for item in items:
            kind = type(item)
            if kind is dict:
                if item:
                    fields(emit, item, child, dash)  # the first field goes on the hyphen line (§10)
                else:
                    emit(f"{inner}-")
            elif kind is list or kind is tuple:
                if item:
                    array(emit, dash, item, inner, False)
                else:
                    emit(f"{dash}[0{symbol}]:")  # never "- []" (§9.2)
            else:
                emit(f"{dash}{primitive(item)}")

    def encode(value: Any) -> str:
        kind = type(value)
        if kind is dict:
            if not value:
                return ""  # an empty root object is an empty document (§8)
            lines: list[str] = []
            found = table(list(value.values())) if len(value) > 1 else None
            if found is not None:
                keyed(lines.append, "", value, found, "")
            else:
                fields(lines.append, value, "", "")
            return "\n".join(lines)
        if kind is list or kind is tuple:
            if not value:
                return "[]"
            lines = []
            array(lines.append, "", value, "", True)
            return "\n".join(lines)
        if kind is str and value.startswith("\ufeff"):
            _check_surrogates(value)
            return quote(value)  # unquoted, a leading BOM would be taken for a byte order mark (§12)
        return primitive(value)

    return encode


_ENCODERS: dict[tuple[int, str], Callable[[Any], str]] = {}


def encode_json(value: Any, indent: int, delimiter: str) -> str:
    """Encode plain JSON data; ``indent`` and ``delimiter`` must already be valid.

    Raises:
        Unsupported: ``value`` holds something other than plain JSON data, an unpaired
            surrogate, or more than ``_MAX_DEPTH`` levels of nesting (or a reference cycle).
    """
    options = (indent, delimiter)
    encode = _ENCODERS.get(options)
    if encode is None:
        if len(_ENCODERS) >= 64:  # only a handful are ever used; stay bounded regardless
            _ENCODERS.clear()
        encode = _ENCODERS[options] = _encoder(indent, delimiter)
    return encode(value)
