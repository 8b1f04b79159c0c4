"""Process entry helpers: logging and serving an ASGI app with uvicorn."""

from __future__ import annotations

import logging

import uvicorn
from starlette.types import ASGIApp

from bkn_common.settings import ServiceSettings


def configure_logging(settings: ServiceSettings) -> None:
    logging.basicConfig(
        level=settings.log_level.upper(),
        format=f"%(asctime)s {settings.service_name} %(levelname)s %(name)s: %(message)s",
    )
    for noisy in ("aiokafka", "kafka", "httpx", "uvicorn.access", "jieba"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def serve(app: ASGIApp, settings: ServiceSettings) -> None:
    """Run ``app`` on the service's host and port until SIGINT/SIGTERM."""
    configure_logging(settings)
    uvicorn.run(
        app,
        host=settings.host,
        port=settings.port,
        loop="uvloop",
        http="httptools",
        log_level="warning",
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=5,
        timeout_keep_alive=settings.http_keepalive_seconds,
    )
