"""``knowledge-base``: run the service."""

from __future__ import annotations

from bkn_common.framework.runtime import serve
from knowledge_base.bootstrap import build_app
from knowledge_base.settings import KnowledgeBaseSettings


def main() -> None:
    settings = KnowledgeBaseSettings()
    serve(build_app(settings), settings)


if __name__ == "__main__":
    main()
