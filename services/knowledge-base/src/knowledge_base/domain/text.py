"""Tokens for the lexical lane: Latin words (lower-cased, light plural folding) and, for
Chinese, jieba words plus CJK bigrams (a default tokenizer finds nothing in Chinese text).

A compound written with ``.``, ``_``, ``-`` or ``'`` (``serverless.yml``, ``node_modules``,
``no-floating-promises``, ``pip's``) is indexed by its parts: kept whole, it matched only itself,
and a question saying "serverless" or "promises" missed the pages that wrote it so. ``md`` is
a stopword: split from the file names pages link to, it would match every page with a link."""

from __future__ import annotations

import logging
import re
import unicodedata
from functools import lru_cache

import jieba

jieba.setLogLevel(logging.WARNING)

_RUNS = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+|[a-z0-9]+(?:[._'-][a-z0-9]+)*")
_JOINERS = re.compile(r"[._'-]")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_STOP_TEXT = """
a an the and or of to in on for with by at from as is are was were be been it its this that
these those what which who whom how why when where does do did say says about can could should
would will shall may might must i we you they he she our your their me us my any some there
here not no yes if then than so such into over under up down out please tell know need
md
的 了 是 在 和 与 或 及 吗 呢 吧 啊 什么 怎么 怎样 如何 哪些 哪个 为什么 多少 是否 有 有没有
一个 这个 那个 请问 我 我们 你 他 她 它 要 会 能 可以 应该 需要 对 把 被 给 就 都 也 还 又 中 上 下
"""
STOPWORDS = frozenset(_STOP_TEXT.split())


def _fold(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


BIGRAM_MARK = "~"
"""Marks a CJK bigram token (recall for words jieba cut differently)."""


def is_bigram(token: str) -> bool:
    return token.startswith(BIGRAM_MARK)


@lru_cache(maxsize=4096)  # for the repeated runs of questions; at 65,536 it held ~50 MiB of one-off runs
def _cjk_tokens(run: str) -> tuple[str, ...]:
    words = [w for w in jieba.lcut_for_search(run) if w not in STOPWORDS]
    bigrams = [run[i:i + 2] for i in range(len(run) - 1)]
    singles = [run] if len(run) == 1 else []
    return tuple(words + [BIGRAM_MARK + b for b in bigrams] + singles)


def tokens(text: str) -> list[str]:
    """Index / query tokens of ``text`` (duplicates kept: they are term frequencies)."""
    text = unicodedata.normalize("NFKC", text).lower()
    out: list[str] = []
    for run in _RUNS.findall(text):
        if _CJK.match(run):
            out.extend(_cjk_tokens(run))
        else:
            out.extend(_fold(part) for part in _JOINERS.split(run) if part not in STOPWORDS and part != "s")
    return out


def normalized(text: str) -> str:
    """For exact title / alias / path comparison: NFKC, case-folded, punctuation trimmed."""
    text = unicodedata.normalize("NFKC", text).casefold().strip()
    text = re.sub(r"\s+", " ", text)
    return text.strip(" ?？!！.。,，:：;；\"'“”‘’《》「」")
