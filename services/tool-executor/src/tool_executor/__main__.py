"""``tool-executor``: run the service; ``python -m tool_executor check-sandbox``: the preflight."""

from __future__ import annotations

import sys

from tool_executor.settings import ToolExecutorSettings


def main() -> None:
    settings = ToolExecutorSettings()
    if sys.argv[1:] == ["check-sandbox"]:
        from tool_executor.bootstrap import check_sandbox_command

        raise SystemExit(check_sandbox_command(settings))
    if sys.argv[1:]:
        raise SystemExit(f"usage: {sys.argv[0]} [check-sandbox]")
    from bkn_common.framework.runtime import serve
    from tool_executor.bootstrap import build_app

    serve(build_app(settings), settings)


if __name__ == "__main__":
    main()
