"""One aiohttp keep-alive pool, opened on first use (an aiohttp session belongs to the running
event loop) and opened again if it was closed.

Its idle connections are dropped after ``keepalive_seconds``, which must be shorter than the
server keeps them: a request sent on a pooled connection just as the server closes it fails,
and a POST is not resent (it may have run), so the client has to be the one to close
(docs/architecture.md, the gateway's hops)."""

from __future__ import annotations

import aiohttp


class HttpPool:
    def __init__(self, *, keepalive_seconds: float, limit: int, limit_per_host: int = 0,
                 timeout_seconds: float | None = None) -> None:
        self._keepalive = keepalive_seconds
        self._limits = (limit, limit_per_host)
        self._timeout = aiohttp.ClientTimeout(total=timeout_seconds)
        self._session: aiohttp.ClientSession | None = None

    def session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            limit, per_host = self._limits
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=limit, limit_per_host=per_host,
                                               keepalive_timeout=self._keepalive),
                timeout=self._timeout,
            )
        return self._session

    def timeout(self, seconds: float | None) -> aiohttp.ClientTimeout:
        """A call's own total timeout; the pool's when None."""
        return self._timeout if seconds is None else aiohttp.ClientTimeout(total=seconds)

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
