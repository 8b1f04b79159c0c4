"""A loopback proxy that adds ``Authorization: Bearer <key>`` to every request.

The MCP conformance suite sends no credentials; the gateway never turns authentication off,
so the suite talks to this proxy, which forwards everything else unchanged (streaming).

    python tools/conformance/auth_proxy.py --target http://127.0.0.1:30779 --port 30799 --key bak_...
"""

from __future__ import annotations

import argparse
from collections.abc import AsyncIterator

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "upgrade", "content-length", "host"}


def build(target: str, key: str) -> Starlette:
    client = httpx.AsyncClient(base_url=target, timeout=httpx.Timeout(60, read=300))

    async def forward(request: Request) -> StreamingResponse:
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_BY_HOP}
        headers["authorization"] = f"Bearer {key}"
        upstream = client.build_request(
            request.method, request.url.path, params=request.query_params,
            headers=headers, content=await request.body(),
        )
        response = await client.send(upstream, stream=True)

        async def body() -> AsyncIterator[bytes]:
            async for chunk in response.aiter_raw():
                yield chunk

        passed = {k: v for k, v in response.headers.items() if k.lower() not in HOP_BY_HOP}
        return StreamingResponse(body(), status_code=response.status_code, headers=passed,
                                 background=BackgroundTask(response.aclose))

    return Starlette(routes=[Route("/{path:path}", forward, methods=["GET", "POST", "DELETE"])])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", required=True)
    parser.add_argument("--port", type=int, default=30799)
    parser.add_argument("--key", required=True)
    args = parser.parse_args()
    uvicorn.run(build(args.target, args.key), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
