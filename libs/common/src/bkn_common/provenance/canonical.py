"""The canonical JSON encoding of everything hashed or signed: RFC 8785 (JCS) over strings
normalised to Unicode NFC.

JCS: object members sorted by the UTF-16 code units of their names, no whitespace, strings
with the minimal JSON escapes (``\\"``, ``\\\\``, ``\\b \\f \\n \\r \\t``, other controls as
``\\u00xx``), numbers as ECMAScript prints them (``1e+21``, ``1e-7``, ``5`` for ``5.0``),
UTF-8. The one addition: every string (names and values) is normalised to NFC first, so a
text in composed or decomposed form encodes the same. Integers are written as they are;
floats must be finite.
"""

from __future__ import annotations

import hashlib
import json
import math
import unicodedata
from decimal import Decimal
from typing import Any


def canonical_json(value: Any) -> bytes:
    """``value`` (dicts, lists/tuples, str, int, float, bool, None) in canonical form."""
    parts: list[str] = []
    _encode(value, parts)
    return "".join(parts).encode("utf-8")


def sha256_of(data: bytes) -> str:
    """``sha256:<hex>`` of ``data``."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def canonical_hash(value: Any) -> str:
    return sha256_of(canonical_json(value))


def _string(text: str) -> str:
    return json.dumps(unicodedata.normalize("NFC", text), ensure_ascii=False)


def _utf16_key(name: str) -> bytes:
    return unicodedata.normalize("NFC", name).encode("utf-16-be")


def _encode(value: Any, out: list[str]) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(_string(value))
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, float):
        out.append(es_number(value))
    elif isinstance(value, dict):
        out.append("{")
        names = sorted(value, key=lambda k: _utf16_key(_name(k)))
        for i, name in enumerate(names):
            if i:
                out.append(",")
            out.append(_string(_name(name)))
            out.append(":")
            _encode(value[name], out)
        out.append("}")
    elif isinstance(value, list | tuple):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _encode(item, out)
        out.append("]")
    else:
        raise TypeError(f"not canonical JSON: {type(value).__name__}")


def _name(key: Any) -> str:
    if not isinstance(key, str):
        raise TypeError(f"object member names must be strings, not {type(key).__name__}")
    return key


def es_number(value: float) -> str:
    """``value`` as ECMAScript's Number.prototype.toString writes it (RFC 8785 §3.2.2.3)."""
    if not math.isfinite(value):
        raise ValueError("NaN and infinities have no canonical JSON form")
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    digits_tuple, exponent = Decimal(repr(abs(value))).as_tuple()[1:]
    digits = "".join(map(str, digits_tuple)).rstrip("0") or "0"
    assert isinstance(exponent, int)
    # value = 0.digits × 10^n
    n = len("".join(map(str, digits_tuple))) + exponent
    k = len(digits)
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
        text = f"{mantissa}e{'+' if e > 0 else '-'}{abs(e)}"
    return sign + text
