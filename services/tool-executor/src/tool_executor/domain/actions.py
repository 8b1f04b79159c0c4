"""What the action ledger records of one planned call of a requested action."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

STARTED = "started"
"""A call claimed and not (yet) given an outcome."""


@dataclass(frozen=True)
class CallOutcome:
    success: bool
    result: Any = None
    error: str | None = None

    def dump(self) -> str:
        return json.dumps({"success": self.success, "result": self.result, "error": self.error},
                          ensure_ascii=False, default=str)

    @classmethod
    def load(cls, raw: str) -> CallOutcome:
        data = json.loads(raw)
        return cls(bool(data["success"]), data.get("result"), data.get("error"))
