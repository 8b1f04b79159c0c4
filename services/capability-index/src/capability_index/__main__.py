"""``capability-index``: run the service."""

from __future__ import annotations

from bkn_common.framework.runtime import serve
from capability_index.bootstrap import build_app
from capability_index.settings import CapabilityIndexSettings


def main() -> None:
    settings = CapabilityIndexSettings()
    serve(build_app(settings), settings)


if __name__ == "__main__":
    main()
