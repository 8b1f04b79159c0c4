"""Two names for one argument: the upstream's (canonical) and ours from before (still accepted).

Both appear in the published schema, the legacy one described as an alias; giving both with
different values is refused, since either could be the one meant.
"""

from __future__ import annotations

from typing import Any

from bkn_common.contracts.errors import ApiError, ErrorCode


def one_of(canonical: str, canonical_value: Any, legacy: str, legacy_value: Any) -> Any:
    """The value of whichever name was given (``None`` when neither)."""
    if canonical_value is not None and legacy_value is not None and canonical_value != legacy_value:
        reason = f"{canonical} and {legacy} name the same argument; give only {canonical}"
        raise ApiError(ErrorCode.INVALID_REQUEST, 400, params={"reason": reason},
                       details=[{"field": legacy, "problem": reason}])
    return canonical_value if canonical_value is not None else legacy_value


def alias_text(canonical: str) -> tuple[str, str]:
    return (f"旧名，等同 {canonical}（规范名为 {canonical}）。",
            f"Earlier name of {canonical} (canonical: {canonical}), still accepted.")
