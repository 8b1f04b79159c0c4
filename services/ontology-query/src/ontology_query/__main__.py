"""``ontology-query``: run the service."""

from __future__ import annotations

from bkn_common.framework.runtime import serve
from ontology_query.bootstrap import build_app
from ontology_query.settings import OntologyQuerySettings


def main() -> None:
    settings = OntologyQuerySettings()
    serve(build_app(settings), settings)


if __name__ == "__main__":
    main()
