"""Process entry helpers: logging and serving an ASGI app with uvicorn."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import sys
import threading
from types import FrameType

import uvicorn
from starlette.types import ASGIApp

from bkn_common.infra.settings import ServiceSettings

log = logging.getLogger(__name__)


def configure_logging(settings: ServiceSettings) -> None:
    logging.basicConfig(
        level=settings.log_level.upper(),
        format=f"%(asctime)s {settings.service_name} %(levelname)s %(name)s: %(message)s",
    )
    for noisy in ("aiokafka", "kafka", "httpx", "uvicorn.access", "jieba"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def _exit_now(sig: int, seconds: float) -> None:
    log.warning("still stopping %.1f s after signal %d: exiting now", seconds, sig)
    logging.shutdown()
    os._exit(128 + sig)


class PromptServer(uvicorn.Server):
    """uvicorn's server, stopped by SIGTERM/SIGINT within ``stop_seconds`` in every state.

    uvicorn only notes a signal while the app's lifespan starts (waiting for Kafka, say) and
    stops once start-up is over; here a signal during start-up cancels it, and a deadline
    ends the process if the stop itself (start-up's cancellation, draining, closing clients)
    takes longer."""

    def __init__(self, config: uvicorn.Config, stop_seconds: float) -> None:
        super().__init__(config)
        self._stop_seconds = stop_seconds
        self._serving: asyncio.Task[None] | None = None
        self._deadline: threading.Timer | None = None

    async def serve(self, sockets: list[socket.socket] | None = None) -> None:
        self._serving = asyncio.current_task()
        try:
            await super().serve(sockets)
        except asyncio.CancelledError:
            if not self.should_exit:
                raise

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        log.info("signal %d: stopping (%s)", sig, "serving" if self.started else "starting")
        super().handle_exit(sig, frame)
        if self._deadline is None:
            self._deadline = threading.Timer(self._stop_seconds, _exit_now, (sig, self._stop_seconds))
            self._deadline.daemon = True
            self._deadline.start()
        if not self.started and self._serving is not None:
            self._serving.get_loop().call_soon_threadsafe(self._serving.cancel)


def server_config(app: ASGIApp, settings: ServiceSettings) -> uvicorn.Config:
    """uvicorn's configuration of a service: its host and port, uvloop and httptools, the
    keep-alive it promises clients, half the stop deadline for open connections."""
    return uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        loop="uvloop",
        http="httptools",
        log_level="warning",
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=max(1, int(settings.stop_seconds / 2)),
        timeout_keep_alive=settings.http_keepalive_seconds,
    )


def serve(app: ASGIApp, settings: ServiceSettings) -> None:
    """Run ``app`` on the service's host and port until SIGINT/SIGTERM (stopped within
    ``settings.stop_seconds`` of the signal, whatever it was doing)."""
    configure_logging(settings)
    PromptServer(server_config(app, settings), settings.stop_seconds).run()
    # The app's lifespan closed every resource; what is left is the interpreter's own exit,
    # whose atexit hooks (a tracer provider flushing to a broker that does not answer) can wait
    # for seconds. Nothing more needs doing: exit now.
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


__all__ = ["PromptServer", "configure_logging", "serve", "server_config"]
