"""The knowledge-base source format (seed 002), shared by ``clctl kb apply`` and the service.

A base is a folder of Markdown files; ``_index/`` and ``_graph/`` are reserved for the files
the service derives. Frontmatter (YAML between ``---``, or TOML between ``+++``) is optional:
``title`` falls back to the first ``# `` heading, then the file name; ``description`` to
``summary``, then the first paragraph; ``tags`` and ``aliases`` may be lists or one string;
unknown keys are kept. ``--strict`` applies keep the curated rules: a page under ``pages/``
needs ``title``, ``description`` and ``tags``, and every field must have its type.
"""

from __future__ import annotations

import datetime as dt
import posixpath
import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

import yaml

from bkn_common.domain.kb_links import RELATION_KEYS, LinkRef, body_links, frontmatter_links, nfc

RESERVED_ROOTS = ("_index/", "_graph/")
LIST_KEYS = ("tags", "aliases", *RELATION_KEYS)
STRING_KEYS = ("title", "description", "status", "superseded_by")
STATUSES = ("current", "draft", "superseded", "deprecated")
DESCRIPTION_CHARS = 300
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_FENCE_LINE = re.compile(r"^ {0,3}(```|~~~)")
_MARKUP = re.compile(r"!?\[([^\]\n]*)\](?:\([^)\n]*\)|\[[^\]\n]*\])|\[\[(?:[^\]|\n]*\|)?([^\]\n]*)\]\]|[*`]{1,3}"
                     r"|(?<!\w)_{1,2}(?=\S)|(?<=\S)_{1,2}(?!\w)")
_ATTRS = re.compile(r"\s*\{[:#.][^}\n]*\}\s*$")
_META_LINE = re.compile(r"^([A-Za-z][\w -]*):\s*(.*)$")
_NOT_PROSE = ("#", "|", "<", "---", "***", "===", "{{", ">", ":::", "///", "--8<--", "[:", "[![", "![", "```")


@dataclass(frozen=True)
class SourceDocument:
    """One parsed source file: frontmatter, body, links and what is wrong with them.

    ``problems`` break the curated rules (``--strict`` refuses them); ``warnings`` are the
    subset an ordinary apply reports while publishing the file with derived fields."""

    path: str
    frontmatter: dict[str, Any]
    body: str
    refs: tuple[LinkRef, ...] = ()
    problems: tuple[str, ...] = field(default=())
    warnings: tuple[tuple[int, str, str], ...] = field(default=())
    """(line, kind, reason) of each lenient problem."""


@dataclass(frozen=True)
class Metadata:
    title: str
    description: str
    tags: tuple[str, ...]
    aliases: tuple[str, ...]
    derived: tuple[str, ...]
    """Which of ``title`` / ``description`` did not come from their own frontmatter key."""


def normalize_path(path: str) -> str:
    """NFC, forward slashes, no leading ``./`` or ``/``."""
    text = nfc(path.replace("\\", "/"))
    return posixpath.normpath(text).lstrip("/") if text else text


def is_page(path: str) -> bool:
    return path.startswith("pages/") and path.endswith(".md")


def decode_text(raw: bytes) -> str | None:
    """UTF-8 (a BOM dropped) or UTF-16 with its BOM, line endings as ``\\n``; None otherwise."""
    try:
        text = raw.decode("utf-16" if raw.startswith((b"\xff\xfe", b"\xfe\xff")) else "utf-8")
    except UnicodeDecodeError:
        return None
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def _json_safe(value: Any) -> Any:
    """Frontmatter as JSON can carry it: dates as ISO text, keys as strings."""
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [_json_safe(v) for v in value]
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def split_frontmatter(text: str) -> tuple[dict[str, Any], str, str | None, int]:
    """``(frontmatter, body, error, body_line)``: YAML between ``---`` or TOML between
    ``+++``; a file without such a block has empty frontmatter and its body starts at line 1."""
    lines = text.split("\n")
    fence = lines[0].strip() if lines else ""
    if fence not in ("---", "+++"):
        return _meta_block(lines, text)
    closing = ("---", "...") if fence == "---" else ("+++",)
    for end in range(1, len(lines)):
        if lines[end].strip() in closing:
            raw, body = "\n".join(lines[1:end]), "\n".join(lines[end + 1:])
            data, error = _load(raw, fence)
            return (data if error is None else {}), body, error, end + 2
    return {}, text, f"frontmatter block is not closed with {fence}", 1


def _meta_block(lines: list[str], text: str) -> tuple[dict[str, Any], str, str | None, int]:
    """MultiMarkdown / Python-Markdown meta-data: ``key: value`` lines from the first line to
    a blank one, read only when one key is ``title`` (else the text is all body)."""
    end = next((i for i, line in enumerate(lines) if not line.strip()), 0)
    data: dict[str, Any] = {}
    for line in lines[:end]:
        match = _META_LINE.match(line)
        if match is None:
            return {}, text, None, 1
        data[match.group(1).strip().lower()] = match.group(2).strip()
    if "title" not in data:
        return {}, text, None, 1
    return data, "\n".join(lines[end + 1:]), None, end + 2


def _load(raw: str, fence: str) -> tuple[dict[str, Any], str | None]:
    if fence == "+++":
        try:
            return _json_safe(tomllib.loads(raw)), None
        except tomllib.TOMLDecodeError as exc:
            return {}, f"frontmatter is not valid TOML ({exc})"
    try:
        data = yaml.load(raw, Loader=_LOADER) if raw.strip() else {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        return {}, "frontmatter is not valid YAML" + (f" (line {mark.line + 2})" if mark is not None else "")
    if data is None:
        return {}, None
    if not isinstance(data, dict):
        return {}, "frontmatter must be a YAML mapping"
    return _json_safe(data), None


def _key_lines(text: str, body_line: int) -> dict[str, int]:
    """Frontmatter key -> the line it starts on (for the apply report)."""
    lines: dict[str, int] = {}
    for number, line in enumerate(text.split("\n")[: max(0, body_line - 2)], start=1):
        match = re.match(r"^([A-Za-z_][\w-]*)\s*[:=]", line)
        if match:
            lines.setdefault(match.group(1), number)
    return lines


def _strings(value: Any) -> tuple[str, ...]:
    """A list of strings from a list or one string (``"a, b"``); numbers become text."""
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    if isinstance(value, list):
        return tuple(str(v).strip() for v in value
                     if isinstance(v, str | int | float) and not isinstance(v, bool) and str(v).strip())
    return ()


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def first_heading(body: str) -> str | None:
    """The first level-one heading outside code (``# x`` or ``x`` over ``===``), as plain text."""
    fenced, previous = False, ""
    for line in body.split("\n"):
        if _FENCE_LINE.match(line):
            fenced = not fenced
        elif not fenced and line.startswith("# "):
            return _plain(line[2:500].strip().rstrip("#")) or None
        elif not fenced and previous.strip() and re.fullmatch(r"=+\s*", line):
            return _plain(previous.strip()[:500]) or None
        previous = "" if fenced else line
    return None


def _plain(text: str) -> str:
    """Heading or paragraph text without Markdown markup or a trailing attribute list."""
    return " ".join(_MARKUP.sub(lambda m: m.group(1) or m.group(2) or "", _ATTRS.sub("", text)).split())


def first_paragraph(body: str, limit: int = DESCRIPTION_CHARS) -> str:
    """The first paragraph of prose (no heading, code, table, quote of HTML), plain, bounded."""
    paragraph: list[str] = []
    fenced = False
    for line in body.split("\n"):
        stripped = line.strip()
        if _FENCE_LINE.match(line):
            fenced = not fenced
            if paragraph:
                break
            continue
        if fenced:
            continue
        if paragraph and re.fullmatch(r"=+|-+", stripped):  # a setext underline: that was a heading
            paragraph = []
            continue
        if not stripped or stripped.startswith(_NOT_PROSE) or re.fullmatch(r"\(.*\)=", stripped):
            if paragraph:
                break
            continue
        paragraph.append(stripped[: limit * 4])
        if sum(len(part) for part in paragraph) > limit * 4:
            break
    text = _plain(" ".join(paragraph)[: limit * 4])
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit].rstrip() + "…"


def derive_metadata(path: str, frontmatter: dict[str, Any], body: str) -> Metadata:
    """Title, description, tags and aliases, with the fields that had to be derived."""
    derived = []
    title = _text(frontmatter.get("title"))
    if not title:
        derived.append("title")
        title = first_heading(body) or posixpath.splitext(posixpath.basename(path))[0]
    description = _text(frontmatter.get("description"))
    if not description:
        derived.append("description")
        description = _text(frontmatter.get("summary")) or first_paragraph(body)
    return Metadata(title, description, _strings(frontmatter.get("tags")),
                    _strings(frontmatter.get("aliases")), tuple(derived))


def _field_problems(path: str, data: dict[str, Any]) -> list[tuple[str, str]]:
    """(kind, reason) of every broken curated rule; ``required`` ones only concern ``--strict``."""
    problems = []
    if is_page(path):
        for key in ("title", "description"):
            value = data.get(key)
            if not isinstance(value, str) or not value.strip():
                problems.append(("required", f"frontmatter {key} is required (a non-empty string)"))
        if not isinstance(data.get("tags"), list):
            problems.append(("required", "frontmatter tags is required (a list of strings)"))
    for key in STRING_KEYS:
        if key in data and data[key] is not None and not isinstance(data[key], str):
            problems.append(("frontmatter_field", f"frontmatter {key} must be a string"))
    for key in LIST_KEYS:
        value = data.get(key)
        if value is not None and (not isinstance(value, list)
                                  or not all(isinstance(v, str) and v.strip() for v in value)):
            kind = "frontmatter_field" if not isinstance(value, str | list) else "required"
            problems.append((kind, f"frontmatter {key} must be a list of non-empty strings"))
    status = data.get("status")
    if isinstance(status, str) and status not in STATUSES:
        problems.append(("frontmatter_field", f"frontmatter status {status!r} is not one of {', '.join(STATUSES)}"))
    return problems


def parse_source(path: str, text: str) -> SourceDocument:
    """Parse one file: frontmatter, body, its links (resolved per base) and its problems."""
    frontmatter, body, error, body_line = split_frontmatter(text)
    problems: list[str] = []
    warnings: list[tuple[int, str, str]] = []
    lines = _key_lines(text, body_line) if frontmatter else {}
    if error:
        problems.append(f"{path}: {error}")
        warnings.append((1, "frontmatter_invalid", f"{error}; published with derived fields"))
    else:
        for kind, reason in _field_problems(path, frontmatter):
            problems.append(f"{path}: {reason}")
            if kind != "required":
                key = reason.split()[1]
                warnings.append((lines.get(key, 1), kind, f"{reason}; ignored"))
    if not text.strip():
        warnings.append((1, "empty_file", "the file is empty; published with its file name as title"))
    refs = (*body_links(body, body_line), *frontmatter_links(frontmatter, lines))
    return SourceDocument(path, frontmatter, body, refs, tuple(problems), tuple(warnings))
