"""CJK-aware tokenizer for capability text (pure, no I/O besides jieba's dictionary).

English / identifiers
    Lower-cased word tokens. Compound identifiers (``fx_convert``, ``getInvoiceList``,
    ``3pl``) yield the full identifier *and* their parts (``fx``, ``convert``). Words are
    reduced with a light suffix stemmer so ``invoices``/``invoice``/``invoiced`` meet.
Chinese
    jieba in search mode (words and their dictionary sub-words) plus character bigrams of
    every CJK run, so segmentation disagreements between query and document still match.
    jieba is initialised lazily, once, with its log output silenced.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Protocol


class _Segmenter(Protocol):
    def tokenize(
        self, unicode_sentence: str, mode: str = ..., HMM: bool = ...
    ) -> Iterator[tuple[str, int, int]]: ...


def _words(text: str) -> list[str]:
    return text.split()


EN_STOPWORDS: frozenset[str] = frozenset(
    _words(
        """
        a an the of for to in on at by with from and or not no is are was were be been being
        this that these those it its as into via i me my we our us you your he she they them
        their please can could would should will shall may might must do does did done how
        what which who whom whose when where why there here all any some such than then so if
        else also just about using use used need needs want wants let lets like help me show
        tell give find etc e g eg ie per each every other new many much still already whether
        t s ll ve re d m haven hasn isn don doesn didn won wasn aren weren couldn shouldn
        wouldn
        """
    )
)

ZH_STOPWORDS: frozenset[str] = frozenset(
    _words(
        """
        的 了 和 与 及 或 或者 以及 在 是 我 我们 你 你们 他 她 它 请 请帮 帮 帮我 帮忙 一下
        一个 一些 什么 怎么 怎样 如何 哪些 哪个 需要 想 想要 要 能 能否 可以 是否 吗 呢 吧 啊 把
        给 对 对于 用 用于 进行 相关 根据 通过 这个 那个 这些 那些 该 等 等等 其 之 并 并且 而 从
        到 向 为 被 让 使 由 将 已 已经 还 还有 都 也 就 再 又 有 有没有 没有 里 中 时 的话 一
        个 所有 当前 以便 我的 一下子 看看 看 下 查下 一共 谁 哪 哪里 哪儿 所 如果 则 时候 一条
        一张 一份 一次 一台 几台 几个 一批 这批 那批 这张 那张 这份 帮忙 先 然后 之后 以后 之前 现在
        目前 完了 一步 多少 大概
        """
    )
)

# Characters that make a CJK bigram uninformative (pure function words).
_STOP_CHARS: frozenset[str] = frozenset("的了吗呢吧啊和与及或请把被给我你他她它这那么")

_CJK_RANGES = (
    "\u3400-\u4dbf"  # Ext A
    "\u4e00-\u9fff"  # Unified ideographs
    "\uf900-\ufaff"  # Compatibility ideographs
)
_SEGMENT_RE = re.compile(rf"([{_CJK_RANGES}]+)|([A-Za-z0-9_]+)")
_CAMEL_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_ACRONYM_PLURAL_RE = re.compile(r"([A-Z]{2,})s(?![a-z])")  # POs -> PO, SKUs -> SKU

_DOMAIN_WORD_FREQ = 20000  # high enough for jieba to keep glossary terms whole
_jieba_lock = threading.Lock()
_jieba: _Segmenter | None = None


def _segmenter() -> _Segmenter:
    """Return the shared jieba tokenizer, initialising it quietly on first use."""
    global _jieba
    seg = _jieba
    if seg is not None:
        return seg
    with _jieba_lock:
        if _jieba is None:
            import jieba

            jieba.setLogLevel(logging.WARNING)
            logging.getLogger("jieba").setLevel(logging.WARNING)
            tokenizer = jieba.Tokenizer()
            tokenizer.initialize()
            from capability_index.domain.glossary import domain_words

            for word in domain_words():
                tokenizer.add_word(word, freq=_DOMAIN_WORD_FREQ)
            _jieba = tokenizer
        return _jieba


def stem(word: str) -> str:
    """Very light English suffix stripping (plural, -ed, -ing, trailing -e)."""
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            if any(ch in "aeiouy" for ch in base):
                word = base
                if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                    word = word[:-1]
            break
    if word.endswith("e") and len(word) > 4:
        word = word[:-1]
    return word


def _ascii_tokens(ident: str, out: list[str]) -> None:
    parts = ascii_parts(ident)
    out.extend(stem(p) for p in parts if keep_ascii(p))
    if len(parts) > 1:
        # keep the full identifier as one more token (snake_case spelling)
        out.append("_".join(parts))


def _cjk_tokens(run: str, out: list[str]) -> None:
    if len(run) == 1:
        if run not in ZH_STOPWORDS:
            out.append(run)
        return
    words: set[tuple[int, int]] = set()
    for word, start, end in _segmenter().tokenize(run, mode="search"):
        words.add((start, end))
        if end - start >= 2 and word not in ZH_STOPWORDS:
            out.append(word)
    for i in range(len(run) - 1):
        if (i, i + 2) in words:
            continue  # already emitted as a jieba word
        a, b = run[i], run[i + 1]
        if a in _STOP_CHARS or b in _STOP_CHARS:
            continue
        out.append(a + b)


def normalize(text: str) -> str:
    """NFKC normalisation (full-width -> half-width etc.), case preserved for camelCase."""
    return unicodedata.normalize("NFKC", text)


def tokenize(text: str) -> list[str]:
    """Tokenize mixed Chinese/English text into index terms (with repetitions)."""
    out: list[str] = []
    if not text:
        return out
    for match in _SEGMENT_RE.finditer(normalize(text)):
        cjk, ascii_word = match.group(1), match.group(2)
        if cjk:
            _cjk_tokens(cjk, out)
        elif ascii_word:
            _ascii_tokens(ascii_word, out)
    return out


def segments(text: str) -> list[str | list[str]]:
    """Phrase-matching view of *text*: CJK runs as strings, ASCII runs as stemmed words.

    Unlike :func:`tokenize`, stopwords are kept, so multi-word phrases still line up.
    """
    out: list[str | list[str]] = []
    for match in _SEGMENT_RE.finditer(normalize(text)):
        cjk, ascii_word = match.group(1), match.group(2)
        if cjk:
            out.append(cjk)
        elif ascii_word:
            out.append([stem(p) for p in ascii_parts(ascii_word)])
    return out


def ascii_parts(ident: str) -> list[str]:
    """Lower-cased snake/camel parts of an ASCII identifier (no stemming, no filtering)."""
    ident = _ACRONYM_PLURAL_RE.sub(r"\1", ident)
    return [p.lower() for chunk in ident.split("_") if chunk for p in _CAMEL_RE.findall(chunk)]


def keep_ascii(part: str) -> bool:
    return part not in EN_STOPWORDS and (len(part) > 1 or part.isdigit())


def cjk_words(run: str) -> list[tuple[str, int, int]]:
    """jieba default-mode segmentation of a CJK run, with character offsets."""
    return [(w, s, e) for w, s, e in _segmenter().tokenize(run)]


def informative_bigram(a: str, b: str) -> bool:
    return a not in _STOP_CHARS and b not in _STOP_CHARS


def primary_terms(text: str) -> list[str]:
    """Main index terms of *text*: jieba default-mode words and stemmed ASCII words.

    No sub-words, bigrams or full identifiers — used to represent a phrase compactly.
    """
    out: list[str] = []
    for match in _SEGMENT_RE.finditer(normalize(text)):
        cjk, ascii_word = match.group(1), match.group(2)
        if cjk:
            if len(cjk) == 1:
                if cjk not in ZH_STOPWORDS:
                    out.append(cjk)
                continue
            out.extend(w for w, s, e in cjk_words(cjk) if e - s >= 2 and w not in ZH_STOPWORDS)
        elif ascii_word:
            out.extend(stem(p) for p in ascii_parts(ascii_word) if keep_ascii(p))
    return list(dict.fromkeys(out))


def cjk_runs(text: str) -> list[tuple[bool, str]]:
    """(is_cjk, run) pairs of *text* in order (ASCII identifiers as single runs)."""
    out: list[tuple[bool, str]] = []
    for match in _SEGMENT_RE.finditer(normalize(text)):
        cjk, ascii_word = match.group(1), match.group(2)
        if cjk:
            out.append((True, cjk))
        elif ascii_word:
            out.append((False, ascii_word))
    return out


def fingerprint(tokenizer: Callable[[str], list[str]]) -> str:
    """What a tokenizer's output depends on, without initialising jieba: for :func:`tokenize`
    this module's source, jieba's version and the domain words added to its dictionary (index
    postings stored in a checkpoint are only reused under the same fingerprint)."""
    if tokenizer is not tokenize:
        return f"{tokenizer.__module__}.{getattr(tokenizer, '__qualname__', repr(tokenizer))}"
    from importlib.metadata import version

    from capability_index.domain.glossary import domain_words

    digest = hashlib.sha256(Path(__file__).read_bytes())
    digest.update(version("jieba").encode())  # (importing jieba costs seconds; this does not)
    digest.update("\n".join(domain_words()).encode())
    return digest.hexdigest()


def warm() -> None:
    """Initialise the segmenter now (a restored index has tokenized nothing yet)."""
    tokenize("预热")
