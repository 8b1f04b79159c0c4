"""Rendering the console's pages: Jinja2 with autoescape on for every template (a trace is
hostile input), the words of the caller's language, and the security headers of every page."""

from __future__ import annotations

import json
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.responses import HTMLResponse

from bkn_common.contracts.i18n import Language
from gateway.entrypoints.console.texts import translator

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
       "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


def _pretty(value: Any) -> str:
    """JSON for a ``<pre>``: the template escapes it like any other text."""
    return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True, default=str)


def environment() -> Environment:
    env = Environment(loader=PackageLoader("gateway.entrypoints.console", "templates"),
                      autoescape=select_autoescape(default=True, default_for_string=True))
    env.filters["tojson_pretty"] = _pretty
    return env


class Pages:
    def __init__(self, root: str, api: str) -> None:
        self._env = environment()
        self._root = root
        self._api = api

    def render(self, template: str, language: Language, status: int = 200,
               headers: dict[str, str] | None = None, **context: Any) -> HTMLResponse:
        body = self._env.get_template(template).render(
            t=translator(language), lang=language, root=self._root, api=self._api, **context)
        return HTMLResponse(body, status_code=status, headers={**HEADERS, **(headers or {})})
