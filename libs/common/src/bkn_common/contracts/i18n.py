"""Language negotiation and the message catalogue behind every error envelope.

Messages are keyed by error code; each has a zh-CN and an en-US template formatted with the
error's ``params``. Services add their own codes with :func:`register_messages`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

Language = Literal["zh-CN", "en-US"]
DEFAULT_LANGUAGE: Language = "en-US"

_MESSAGES: dict[str, dict[Language, str]] = {}


def negotiate_language(accept_language: str | None) -> Language:
    """Pick zh-CN or en-US from an RFC 9110 ``Accept-Language`` header (q-values honoured)."""
    if not accept_language:
        return DEFAULT_LANGUAGE
    best: tuple[float, int, Language] | None = None
    for position, part in enumerate(accept_language.split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        primary = tag.strip().lower().split("-")[0]
        language: Language | None = (
            "zh-CN" if primary == "zh" else "en-US" if primary in ("en", "*") else None
        )
        if language is None or quality <= 0:
            continue
        candidate = (quality, -position, language)
        if best is None or candidate[:2] > best[:2]:
            best = candidate
    return best[2] if best else DEFAULT_LANGUAGE


def register_messages(messages: Mapping[str, Mapping[Language, str]]) -> None:
    """Add message templates for error codes (later registrations win)."""
    for code, templates in messages.items():
        _MESSAGES[code] = dict(templates)


def render_message(code: str, language: Language, params: Mapping[str, object]) -> str:
    """Format the template of ``code`` in ``language``; unknown codes fall back to the code."""
    templates = _MESSAGES.get(code)
    if templates is None:
        return code
    template = templates.get(language) or templates[DEFAULT_LANGUAGE]
    try:
        return template.format(**params)
    except (KeyError, IndexError, ValueError):
        return template
