"""``trace-recorder``: run the service."""

from __future__ import annotations

import logging
import sys

from bkn_common.framework.runtime import configure_logging, serve
from trace_recorder.bootstrap import build_app
from trace_recorder.service_layer.view_ports import SchemaTooNew, StoreUnavailable
from trace_recorder.settings import TraceRecorderSettings


def main() -> None:
    settings = TraceRecorderSettings()
    configure_logging(settings)
    try:
        app = build_app(settings)
    except (SchemaTooNew, StoreUnavailable) as exc:
        logging.getLogger("trace_recorder").error("cannot open the trace view (%s): %s",
                                                  settings.store, exc)
        sys.exit(2)
    serve(app, settings)


if __name__ == "__main__":
    main()
