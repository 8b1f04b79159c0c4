"""The console's routes: login (a form that opens a session cookie, or a proxy's bearer header),
the interactions list, one interaction, dead letters, projections, and the static files.

Sessions: the cookie is ``HttpOnly``, ``SameSite=Strict``, ``Secure`` when the request came over
TLS (directly or per ``X-Forwarded-Proto``), scoped to ``/console``. Every form POST carries a
CSRF token (the login form: double-submit against a cookie of its own; logout: the session's)
and a foreign ``Origin`` is refused."""

from __future__ import annotations

import hmac
import secrets
from importlib.resources import files
from typing import Any
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Request
from starlette.responses import RedirectResponse, Response

from bkn_common.contracts.errors import ApiError, ErrorCode
from bkn_common.contracts.i18n import Language
from bkn_common.framework.http import json_response, request_id, request_language
from gateway.domain.timeline import timeline
from gateway.entrypoints.console.pages import CSP, HEADERS, Pages
from gateway.entrypoints.console.texts import translator
from gateway.entrypoints.observability import PREFIX as API
from gateway.service_layer.console_sessions import ConsoleSession, ConsoleSessions
from gateway.service_layer.observability import FILTERS, Caller, Observability
from gateway.service_layer.ports import Authentication

ROOT = "/console"
COOKIE = "bkn_console"
LOGIN_COOKIE = "bkn_console_login"
STATIC = {"console.css": "text/css; charset=utf-8", "console.js": "text/javascript; charset=utf-8"}
PAGE_SIZE = 50


def _tls(request: Request) -> bool:
    forwarded = request.headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
    return request.url.scheme == "https" or forwarded == "https"


def _same_origin(request: Request) -> bool:
    origin = request.headers.get("origin")
    if origin is None:  # a browser sends it on every POST; a script without one is no browser
        return True
    host = request.headers.get("x-forwarded-host") or request.headers.get("host", "")
    return origin.split("://", 1)[-1] == host


class Console:
    def __init__(self, observability: Observability, authenticator: Authentication,
                 sessions: ConsoleSessions, session_seconds: int) -> None:
        self._reads = observability
        self._auth = authenticator
        self._sessions = sessions
        self._seconds = session_seconds
        self.pages = Pages(ROOT, API)

    async def who(self, request: Request) -> tuple[Caller, ConsoleSession | None] | None:
        """The caller: a proxy's bearer header, else the session cookie; None: log in first."""
        language, rid = request_language(request), request_id(request)
        header = request.headers.get("authorization")
        if header:
            return Caller(self._auth.authenticate(header), language, rid), None
        token = request.cookies.get(COOKIE)
        session = await self._sessions.find(token) if token else None
        if session is None:
            return None
        return Caller(session.principal, language, rid), session

    def refused(self, request: Request, error: ApiError, **context: Any) -> Response:
        language = request_language(request)
        envelope = error.envelope(language, request_id(request))
        return self.pages.render("error.html", language, error.status, http_status=error.status,
                                 envelope=envelope, **context)

    def login_page(self, language: Language, status: int = 200, error: str | None = None) -> Response:
        token = secrets.token_urlsafe(24)
        response = self.pages.render("login.html", language, status, who=None, login_csrf=token, error=error)
        response.set_cookie(LOGIN_COOKIE, token, httponly=True, samesite="strict", path=ROOT, max_age=3600)
        return response

    async def login(self, request: Request) -> Response:
        language = request_language(request)
        text = translator(language)
        form = await request.form()
        sent, expected = str(form.get("csrf", "")), request.cookies.get(LOGIN_COOKIE, "")
        if not expected or not hmac.compare_digest(sent, expected) or not _same_origin(request):
            return self.refused(request, ApiError(ErrorCode.PERMISSION_DENIED, 403, params={
                "reason": "the login form's CSRF check failed; reload the login page"}))
        try:
            principal = self._auth.authenticate(f"Bearer {str(form.get('app_key', '')).strip()}")
        except ApiError:
            return self.login_page(language, 401, text("login_failed"))
        if not principal.operator:
            return self.login_page(language, 403, text("not_operator"))
        token, _ = await self._sessions.open(principal)
        response = RedirectResponse(f"{ROOT}/interactions", status_code=303, headers=HEADERS)
        response.set_cookie(COOKIE, token, httponly=True, samesite="strict", secure=_tls(request),
                            path=ROOT, max_age=self._seconds)
        response.delete_cookie(LOGIN_COOKIE, path=ROOT)
        return response

    async def logout(self, request: Request) -> Response:
        found = await self.who(request)
        form = await request.form()
        session = found[1] if found else None
        if session is None or not hmac.compare_digest(str(form.get("csrf", "")), session.csrf) \
                or not _same_origin(request):
            return self.refused(request, ApiError(ErrorCode.PERMISSION_DENIED, 403, params={
                "reason": "the logout form's CSRF check failed"}))
        await self._sessions.close(request.cookies.get(COOKIE, ""))
        response = RedirectResponse(f"{ROOT}/login", status_code=303, headers=HEADERS)
        response.delete_cookie(COOKIE, path=ROOT)
        return response


def _filters(request: Request) -> dict[str, Any]:
    kept = {k: v.strip() for k, v in request.query_params.items() if k in FILTERS and v.strip()}
    kept.setdefault("limit", str(PAGE_SIZE))
    return kept


def router(observability: Observability, authenticator: Authentication, sessions: ConsoleSessions,
           session_seconds: int) -> APIRouter:
    console = Console(observability, authenticator, sessions, session_seconds)
    pages = console.pages
    api = APIRouter(prefix=ROOT, include_in_schema=False)

    async def page(request: Request, build: Any) -> Response:
        """Run ``build(caller, session)`` for a logged-in caller; refusals as an error page."""
        try:
            found = await console.who(request)
            if found is None:
                return RedirectResponse(f"{ROOT}/login", status_code=303, headers=HEADERS)
            caller, session = found
            response: Response = await build(caller, session)
            return response
        except ApiError as exc:
            return console.refused(request, exc, who=None)

    def common(caller: Caller, session: ConsoleSession | None) -> dict[str, Any]:
        return {"who": caller.principal, "csrf": session.csrf if session else None}

    @api.get("")
    @api.get("/")
    async def home() -> Response:
        return RedirectResponse(f"{ROOT}/interactions", status_code=303, headers=HEADERS)

    @api.get("/login")
    async def login_form(request: Request) -> Response:
        return console.login_page(request_language(request))

    @api.post("/login")
    async def login(request: Request) -> Response:
        return await console.login(request)

    @api.post("/logout")
    async def logout(request: Request) -> Response:
        return await console.logout(request)

    @api.get("/interactions")
    async def interactions(request: Request) -> Response:
        async def build(caller: Caller, session: ConsoleSession | None) -> Response:
            filters = _filters(request)
            found = await observability.interactions(caller, filters)
            context = common(caller, session)
            if request.query_params.get("partial") == "rows":
                return pages.render("_rows.html", caller.language, items=found["items"], **context)
            shown = {k: v for k, v in filters.items() if k not in ("cursor", "limit")}
            live = None if filters.get("cursor") else f"{ROOT}/interactions?{urlencode({**shown, 'partial': 'rows'})}"
            next_query = urlencode({**shown, "cursor": found["next_cursor"]}) if found["next_cursor"] else None
            return pages.render("interactions.html", caller.language, items=found["items"], filters=filters,
                                live=live, next_query=next_query, cursor=filters.get("cursor"),
                                first_query=urlencode(shown), **context)
        return await page(request, build)

    @api.get("/interactions/{interaction_id}")
    async def interaction(interaction_id: str, request: Request) -> Response:
        async def build(caller: Caller, session: ConsoleSession | None) -> Response:
            found = await observability.interaction(caller, interaction_id)
            return pages.render("interaction.html", caller.language, i=found, tl=timeline(found),
                                **common(caller, session))
        return await page(request, build)

    @api.get("/interactions/{interaction_id}/bundle")
    async def bundle(interaction_id: str, request: Request) -> Response:
        async def build(caller: Caller, session: ConsoleSession | None) -> Response:
            found = await observability.bundle(caller, interaction_id)
            return json_response(found, {**HEADERS, "Content-Disposition":
                                         f'attachment; filename="{quote(interaction_id)}.bundle.json"'})
        return await page(request, build)

    @api.get("/dead-letters")
    async def dead_letters(request: Request) -> Response:
        async def build(caller: Caller, session: ConsoleSession | None) -> Response:
            found = await observability.dead_letters(caller, 20)
            return pages.render("dead_letters.html", caller.language, items=found["items"],
                                **common(caller, session))
        return await page(request, build)

    @api.get("/projections")
    async def projections(request: Request) -> Response:
        async def build(caller: Caller, session: ConsoleSession | None) -> Response:
            found = await observability.projections(caller)
            return pages.render("projections.html", caller.language, items=found["items"],
                                **common(caller, session))
        return await page(request, build)

    @api.get("/static/{name}")
    async def static(name: str) -> Response:
        if name not in STATIC:
            raise ApiError(ErrorCode.NOT_FOUND, 404, params={"reason": f"console file {name}"})
        body = files("gateway.entrypoints.console").joinpath("static", name).read_bytes()
        return Response(body, media_type=STATIC[name],
                        headers={"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff",
                                 "Cache-Control": "public, max-age=300"})

    return api
