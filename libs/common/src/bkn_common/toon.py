"""TOON (Token-Oriented Object Notation) encoding for LLM-facing payloads.

TOON carries the JSON data model in a compact, indentation-based text form: objects become
``key: value`` lines, primitive arrays are written inline (``tags[2]: a,b``), arrays of uniform
objects become tables (``users[2]{id,name}:`` followed by one row per element) and everything
else falls back to YAML-like ``- `` list items. Strings are quoted only when they would
otherwise be ambiguous.

This module is a thin wrapper around the official ``toon-format`` package (PyPI, pinned to
1.2.0, which implements TOON spec v4.4). That package passes every encode example of the
spec's conformance suite that ``tests/unit/common/test_toon.py`` re-states, so there is no
reason to maintain a second encoder here.

Behaviour worth knowing (all mandated by the spec, see the tests for examples):

* Output has LF line endings and no trailing newline; an empty root object is ``""``.
* Numbers are canonical: ``-0.0`` → ``0``, ``1e6`` → ``1000000``, ``1.50`` → ``1.5``, and
  NaN/±Infinity → ``null``. Decimal form is used for ``1e-6 <= |n| < 1e21``; outside that
  range the spec permits (and the library emits) exponent form, e.g. ``1e-7``.
* Plain non-ASCII text such as ``汇率月报`` is never quoted as a *value*, but every non-ASCII
  *key* is quoted (``"名称": x``) because unquoted keys are ASCII identifiers only.
* Escapes inside quotes are ``\\\\ \\" \\n \\r \\t``; other C0 control characters use ``\\uXXXX``.
"""

from __future__ import annotations

from typing import Any, Final

import toon_format

__all__ = ["TOON_MEDIA_TYPE", "encode_toon"]

TOON_MEDIA_TYPE: Final = "application/toon"
"""Media type this project uses for TOON bodies. Not IANA-registered; note that the spec's own
provisional designation (§18.2) is ``text/toon``."""


def encode_toon(value: Any, *, indent: int = 2, delimiter: str = ",") -> str:
    """Encode JSON-compatible data (dict/list/str/int/float/bool/None) as a TOON document.

    Args:
        value: The data to encode. Object key order is preserved.
        indent: Spaces per indentation level (at least 1).
        delimiter: Separator for inline arrays and table rows: ``","``, ``"\\t"`` or ``"|"``.

    Returns:
        The TOON text, without a trailing newline.

    Raises:
        ValueError: ``indent`` or ``delimiter`` is invalid, ``value`` contains a reference cycle,
            or a string contains an unpaired surrogate.
        TypeError: ``value`` contains something that is not JSON-compatible.
    """
    return toon_format.encode(value, indent_size=indent, delimiter=delimiter)
