"""``trace-recorder``: run the service."""

from __future__ import annotations

from bkn_common.runtime import serve
from trace_recorder.bootstrap import build_app
from trace_recorder.settings import TraceRecorderSettings


def main() -> None:
    settings = TraceRecorderSettings()
    serve(build_app(settings), settings)


if __name__ == "__main__":
    main()
