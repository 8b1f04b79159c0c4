"""/readyz: 503 while a projection catches up, with how far it got; 200 once it is done."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.testclient import TestClient

from bkn_common.framework.http import health_router


def test_readyz_reports_progress_while_catching_up_and_after() -> None:
    state = {"done": 40, "caught_up": False}

    async def projection_ready() -> bool:
        return bool(state["caught_up"])

    def progress() -> dict[str, object]:
        return {"offsets_done": state["done"], "offsets_total": 100,
                "caught_up": state["caught_up"], "checkpoint": "loaded (written t)"}

    app = FastAPI()
    app.include_router(health_router({"kafka_projection": projection_ready}, {"kafka_projection": progress}))
    with TestClient(app) as client:
        catching_up = client.get("/readyz")
        assert catching_up.status_code == 503
        assert catching_up.json() == {
            "status": "not_ready", "checks": {"kafka_projection": False},
            "progress": {"kafka_projection": {"offsets_done": 40, "offsets_total": 100,
                                              "caught_up": False, "checkpoint": "loaded (written t)"}},
        }
        state.update(done=100, caught_up=True)
        ready = client.get("/readyz")
        assert ready.status_code == 200
        assert ready.json()["progress"]["kafka_projection"]["offsets_done"] == 100


def test_readyz_without_projections_has_no_progress() -> None:
    async def ok() -> bool:
        return True

    app = FastAPI()
    app.include_router(health_router({"redis": ok}))
    with TestClient(app) as client:
        assert client.get("/readyz").json() == {"status": "ready", "checks": {"redis": True}}
