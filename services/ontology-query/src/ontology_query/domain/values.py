"""Property values in comparable form, per property type.

Instances arrive as JSON, so a ``datetime`` may be an ISO-8601 string or epoch
milliseconds and an ``integer`` may arrive as ``"42"``. :func:`normalize` maps a raw value to
one canonical Python value per type (or ``None`` when absent or unusable); conditions, hash
indexes and sort keys all compare canonical values, so they agree with each other.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from datetime import UTC, datetime

from ontology_query.domain.model import PropertyType

Canonical = str | int | float | bool | datetime
JsonScalar = str | int | float | bool | None

_INT_RE = re.compile(r"[+-]?\d+")


def _string(raw: object) -> Canonical | None:
    if isinstance(raw, str):
        return raw
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        return str(raw)
    return None


def _integer(raw: object) -> Canonical | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    if isinstance(raw, float):
        return int(raw) if raw.is_integer() else None
    if isinstance(raw, str) and _INT_RE.fullmatch(raw.strip()):
        return int(raw)
    return None


def _number(raw: object) -> Canonical | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, (int, float)):
        return raw if not (isinstance(raw, float) and math.isnan(raw)) else None
    if isinstance(raw, str):
        try:
            value = float(raw)
        except ValueError:
            return None
        return None if math.isnan(value) else value
    return None


def _boolean(raw: object) -> Canonical | None:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.lower() in ("true", "false"):
        return raw.lower() == "true"
    return None


def _datetime(raw: object) -> Canonical | None:
    if isinstance(raw, datetime):
        value = raw
    elif isinstance(raw, str):
        try:
            value = datetime.fromisoformat(raw.strip())
        except ValueError:
            return None
    elif isinstance(raw, (int, float)) and not isinstance(raw, bool):
        try:
            return datetime.fromtimestamp(raw / 1000, tz=UTC)
        except (OverflowError, OSError, ValueError):
            return None
    else:
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


_NORMALIZERS: dict[str, Callable[[object], Canonical | None]] = {
    "string": _string,
    "integer": _integer,
    "number": _number,
    "boolean": _boolean,
    "datetime": _datetime,
}


def normalizer(ptype: PropertyType) -> Callable[[object], Canonical | None]:
    """The function mapping raw values of ``ptype`` to canonical values (``None``: unusable)."""
    return _NORMALIZERS[ptype]


def normalize(ptype: PropertyType, raw: object) -> Canonical | None:
    """Canonical value of ``raw`` for a property of ``ptype``; ``None`` if absent/unusable."""
    if raw is None:
        return None
    return _NORMALIZERS[ptype](raw)


def to_json(value: Canonical | None) -> JsonScalar:
    """A canonical value as a JSON scalar (datetimes as ISO-8601), for cursors."""
    if isinstance(value, datetime):
        return value.isoformat()
    return value


def from_json(ptype: PropertyType, value: object) -> Canonical | None:
    """Inverse of :func:`to_json`; raises ``ValueError`` when ``value`` does not fit."""
    if value is None:
        return None
    if isinstance(value, (list, dict)):
        raise ValueError("not a scalar")
    canonical = normalize(ptype, value)
    if canonical is None:
        raise ValueError(f"{value!r} is not a {ptype}")
    return canonical
