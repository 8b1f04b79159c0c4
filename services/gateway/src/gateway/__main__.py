"""``gateway``: run the public REST and MCP surface."""

from __future__ import annotations

from bkn_common.framework.runtime import serve
from gateway.bootstrap import build_app
from gateway.settings import GatewaySettings


def main() -> None:
    settings = GatewaySettings()
    serve(build_app(settings), settings)


if __name__ == "__main__":
    main()
