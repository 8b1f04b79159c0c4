"""``tool-executor``: run the service."""

from __future__ import annotations

from bkn_common.runtime import serve
from tool_executor.bootstrap import build_app
from tool_executor.settings import ToolExecutorSettings


def main() -> None:
    settings = ToolExecutorSettings()
    serve(build_app(settings), settings)


if __name__ == "__main__":
    main()
