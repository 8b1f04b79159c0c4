"""A loopback HTTP server that closes a kept-alive connection when a second request arrives
on it, without answering: what a client sees when it sends a request on a pooled connection
just as the server closes it for being idle (uvicorn, Node.js and Apache after 5 s).

The race itself is a matter of microseconds; this server loses it every time, so a test can
tell a client that reuses an idle connection from one that opens a new one."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TypeVar

T = TypeVar("T")
ANSWER = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\":true}"


class ClosingServer:
    def __init__(self) -> None:
        self.connections = 0

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        answered = False
        try:
            while head := await reader.readuntil(b"\r\n\r\n"):
                length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                await reader.readexactly(length)
                if answered:  # the idle connection's end: closed, the request unanswered
                    break
                writer.write(ANSWER)
                await writer.drain()
                answered = True
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        writer.close()


@asynccontextmanager
async def closing_server() -> AsyncIterator[tuple[str, ClosingServer]]:
    """(base URL, the server) on a free loopback port."""
    model = ClosingServer()
    server = await asyncio.start_server(model._serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}", model
    finally:
        server.close()
        await server.wait_closed()


async def twice(call: Callable[[], Awaitable[T]], pause: float = 0.3) -> list[T]:
    """What ``call`` gives, then again ``pause`` seconds later (past a short keep-alive, well
    inside a long one)."""
    first = await call()
    await asyncio.sleep(pause)
    return [first, await call()]
