"""The action executions view: records by id, folded from the ACTIONS topic.

``action.execution.requested`` (from the gateway) opens a record as ``pending``;
``action.execution.updated`` (from tool-executor) moves it to ``running`` and then
``completed`` or ``failed``. A terminal status is final: a late or repeated update never
reopens it. ``completed`` means the run finished, not that every target succeeded:
``failed_count`` says how many did not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bkn_common.contracts import events as ev
from bkn_common.contracts.errors import ApiError
from bkn_common.contracts.i18n import register_messages

TERMINAL = frozenset({"completed", "failed"})
EXECUTION_NOT_FOUND = "action_execution_not_found"

register_messages({
    EXECUTION_NOT_FOUND: {
        "zh-CN": "知识网络 {kn_id} 中不存在行动执行 {execution_id}。",
        "en-US": "Knowledge network {kn_id} has no action execution {execution_id}.",
    },
})


class ActionExecutions:
    """Execution records by id (see the module docstring)."""

    def __init__(self) -> None:
        self._records: dict[str, dict[str, Any]] = {}

    def apply(self, event: ev.Event) -> bool:
        match event:
            case ev.ActionExecutionRequested():
                self._requested(event)
            case ev.ActionExecutionUpdated():
                self._updated(event)
            case _:
                return False
        return True

    def _requested(self, event: ev.ActionExecutionRequested) -> None:
        record = self._records.get(event.execution_id)
        raw_plan = event.parameters.get("plan")
        plan: dict[str, Any] = raw_plan if isinstance(raw_plan, dict) else {}
        opened = {
            "execution_id": event.execution_id,
            "kn_id": event.kn_id,
            "action_type_id": event.action_type_id,
            "caller": event.caller,
            "mode": plan.get("mode"),
            "tool": {"toolbox_id": plan.get("toolbox_id"), "tool_id": plan.get("tool_id")},
            "targets": [t.identity for t in event.targets],
            "parameters": event.parameters.get("inputs", {}),
            "requested_at": event.requested_at.isoformat(),
        }
        if record is None:
            self._records[event.execution_id] = {
                **opened, "status": "pending", "success_count": 0, "failed_count": 0,
                "results": [], "updated_at": opened["requested_at"],
            }
        else:  # an update came first (or the request was published again): fill, keep status
            record.update({k: v for k, v in opened.items() if not record.get(k)})

    def _updated(self, event: ev.ActionExecutionUpdated) -> None:
        record = self._records.setdefault(event.execution_id, {
            "execution_id": event.execution_id, "kn_id": event.kn_id,
            "action_type_id": event.action_type_id, "caller": None, "mode": None, "tool": None,
            "targets": [], "parameters": {}, "requested_at": None, "status": "pending",
        })
        if record["status"] in TERMINAL:
            return
        record.update(
            status=event.status,
            success_count=event.success_count,
            failed_count=event.failed_count,
            results=[r.model_dump(mode="json") for r in event.results],
            updated_at=event.updated_at.isoformat(),
        )

    def get(self, kn_id: str, execution_id: str) -> dict[str, Any]:
        record = self._records.get(execution_id)
        if record is None or record["kn_id"] != kn_id:
            raise ApiError(EXECUTION_NOT_FOUND, 404,
                           params={"kn_id": kn_id, "execution_id": execution_id},
                           details={"kn_id": kn_id, "execution_id": execution_id})
        return _view(record)

    def page(
        self, kn_id: str, query: ExecutionQuery, *, limit: int, offset: int,
        search_after: Sequence[Any] | None = None,
    ) -> dict[str, Any]:
        """Newest first (by request time, then id); summaries without per-target results.
        ``search_after`` is the previous page's last sort key (it wins over ``offset``)."""
        matched = [r for r in self._records.values() if r["kn_id"] == kn_id and query.admits(r)]
        matched.sort(key=_sort_key, reverse=True)
        start = offset
        if search_after:
            after = tuple(str(v) for v in search_after)
            start = next((i for i, r in enumerate(matched) if _sort_key(r) < after), len(matched))
        window = matched[start: start + limit]
        page = {
            "executions": [{k: v for k, v in _view(r).items() if k != "results"} for r in window],
            "total_count": len(matched),
            "offset": start,
            "limit": limit,
            "has_more": start + len(window) < len(matched),
        }
        if window and page["has_more"]:
            page["search_after"] = list(_sort_key(window[-1]))
        return page

    def snapshot(self) -> dict[str, Any]:
        return {k: dict(v) for k, v in self._records.items()}

    def state(self) -> dict[str, dict[str, Any]]:
        """The records as plain data (a checkpoint's part)."""
        return self._records

    @classmethod
    def from_state(cls, records: dict[str, dict[str, Any]]) -> ActionExecutions:
        executions = cls()
        executions._records = {str(k): dict(v) for k, v in records.items()}
        return executions


@dataclass(frozen=True)
class ExecutionQuery:
    """Filters of list_action_executions; times are Unix milliseconds, both ends inclusive.
    Every execution here was submitted by execute_action, so its trigger is ``manual``."""

    action_type_id: str | None = None
    status: str | None = None
    trigger_type: str | None = None
    start_time_from: int | None = None
    start_time_to: int | None = None

    def admits(self, record: Mapping[str, Any]) -> bool:
        if self.action_type_id is not None and record["action_type_id"] != self.action_type_id:
            return False
        if self.status is not None and record["status"] != self.status:
            return False
        if self.trigger_type is not None and self.trigger_type != "manual":
            return False
        if self.start_time_from is None and self.start_time_to is None:
            return True
        requested = _millis(record.get("requested_at"))
        if requested is None:
            return False
        return ((self.start_time_from is None or requested >= self.start_time_from)
                and (self.start_time_to is None or requested <= self.start_time_to))


def _millis(stamp: object) -> int | None:
    if not isinstance(stamp, str):
        return None
    return int(datetime.fromisoformat(stamp).timestamp() * 1000)


def _sort_key(record: Mapping[str, Any]) -> tuple[str, str]:
    return (str(record.get("requested_at") or ""), str(record["execution_id"]))


def _view(record: Mapping[str, Any]) -> dict[str, Any]:
    view = dict(record)
    view["trigger_type"] = "manual"
    view["target_count"] = len(record.get("targets") or [])
    return view
