"""The services' own reports, read for the operator API (``MeshStats``): each one's ``/readyz``
(projection progress: caught up, checkpoint) and ``/metrics`` (lag, applied, dead-lettered),
and its signed ``/internal/v1/dead-letters``. Nothing is kept: every answer is read afresh."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import aiohttp
from prometheus_client.parser import text_string_to_metric_families

from bkn_common.contracts import json_codec
from bkn_common.contracts.errors import ApiError
from bkn_common.infra.http_pool import HttpPool
from gateway.service_layer.ports import InternalService

REPLAY_COMMAND = "clctl replay {service} --verify"


def parse_metrics(text: str) -> dict[str, dict[str, float]]:
    """``bkn_projection_*`` and ``bkn_dead_lettered`` samples by name, then by their label."""
    wanted = {"bkn_projection_lag_records": "projection", "bkn_projection_caught_up": "projection",
              "bkn_projection_applied_total": "projection", "bkn_dead_lettered_total": "consumer"}
    out: dict[str, dict[str, float]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            label = wanted.get(sample.name)
            if label is not None:
                out.setdefault(sample.name, {})[sample.labels.get(label, "")] = sample.value
    return out


class HttpMeshStats:
    def __init__(self, urls: Mapping[str, str], services: Mapping[str, InternalService],
                 timeout: float = 5.0) -> None:
        self._urls = {name: url.rstrip("/") for name, url in urls.items()}
        self._services = services
        self._pool = HttpPool(keepalive_seconds=30, limit=16, timeout_seconds=timeout)

    async def _get(self, url: str) -> tuple[int, bytes] | None:
        try:
            async with self._pool.session().get(url, timeout=self._pool.timeout(None)) as response:
                return response.status, await response.read()
        except (aiohttp.ClientError, TimeoutError):
            return None

    async def _projection(self, service: str) -> dict[str, Any]:
        ready, metrics = await asyncio.gather(self._get(self._urls[service] + "/readyz"),
                                              self._get(self._urls[service] + "/metrics"))
        report: dict[str, Any] = {"service": service, "reachable": ready is not None,
                                  "replay_command": REPLAY_COMMAND.format(service=service)}
        if ready is not None:
            try:
                body = json_codec.loads(ready[1])
            except ValueError:
                body = {}
            report["ready"] = ready[0] == 200
            progress = (body.get("progress") or {}).get("kafka_projection") or {}
            report.update({"caught_up": progress.get("caught_up"), "checkpoint": progress.get("checkpoint"),
                           "last_checkpoint_at": progress.get("last_checkpoint_at"),
                           "offsets_done": progress.get("offsets_done"),
                           "offsets_total": progress.get("offsets_total")})
        if metrics is not None and metrics[0] == 200:
            samples = parse_metrics(metrics[1].decode("utf-8", "replace"))
            for key, name in (("lag", "bkn_projection_lag_records"), ("applied", "bkn_projection_applied_total")):
                report[key] = int(samples.get(name, {}).get(service, 0))
            report["dead_lettered"] = int(samples.get("bkn_dead_lettered_total", {}).get(service, 0))
        return report

    async def projections(self) -> list[dict[str, Any]]:
        return list(await asyncio.gather(*(self._projection(s) for s in self._urls)))

    async def _dead_letters(self, service: str, limit: int) -> list[dict[str, Any]]:
        try:
            found = await self._services[service].call("GET", "/internal/v1/dead-letters",
                                                       params={"limit": limit})
        except ApiError as exc:
            return [{"consumer": service, "error": exc.code, "records": []}]
        items: list[dict[str, Any]] = found.get("items", [])
        return items

    async def dead_letters(self, limit: int) -> list[dict[str, Any]]:
        found = await asyncio.gather(*(self._dead_letters(s, limit) for s in self._services))
        return [item for items in found for item in items]

    async def close(self) -> None:
        await self._pool.close()
