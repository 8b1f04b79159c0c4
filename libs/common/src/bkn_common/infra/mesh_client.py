"""The client side of service identity (``bkn_common.infra.mesh_auth``): an httpx hook that signs
each request, for clctl and the tests. Apart from ``bkn_common.infra.mesh_http`` (the services'
check) so that serving never imports httpx."""

from __future__ import annotations

from collections.abc import Generator

import httpx

from bkn_common.infra.mesh_auth import ACCOUNT_HEADER, MeshSigner


class MeshAuth(httpx.Auth):
    """httpx hook: signs each request (the ``X-BKN-Account`` it carries is signed with it)."""

    requires_request_body = True

    def __init__(self, signer: MeshSigner) -> None:
        self._signer = signer

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers.update(self._signer.headers(
            request.method, request.url.path, query=request.url.query.decode("ascii"),
            body=request.content, account=request.headers.get(ACCOUNT_HEADER)))
        yield request
