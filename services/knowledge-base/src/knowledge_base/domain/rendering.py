"""Contents rendered when a reader asks: a derived navigation file keeps no text in its view.

A view of a 20,000-file base would otherwise hold its catalog, directory listings and one
``_graph`` file per source file as strings (about half of the view's memory) for reads that are
rare. Each generated file holds a :class:`Lazy` instead; one :class:`RenderCache` per view keeps
the last few renders, bounded, so that a client reading every graph file grows no memory back.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")

CACHED_RENDERS = 8
CACHED_CHARS = 4 * 2**20


@dataclass(frozen=True, slots=True)
class Rendered:
    """A file's content with its SHA-256 and UTF-8 size, computed together from one render."""

    content: str
    sha256: str
    size_bytes: int

    @classmethod
    def of(cls, content: str) -> Rendered:
        encoded = content.encode()
        return cls(content, hashlib.sha256(encoded).hexdigest(), len(encoded))


class RenderCache:
    """The latest renders of one view, by path: at most ``entries`` of them and ``chars``
    characters together, except that the newest is always kept (one read asks a file for its
    size, its SHA-256 and its content)."""

    def __init__(self, entries: int = CACHED_RENDERS, chars: int = CACHED_CHARS) -> None:
        self.entries = entries
        self.chars = chars
        self._renders: OrderedDict[str, Rendered] = OrderedDict()
        self._held = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._renders)

    @property
    def held_chars(self) -> int:
        return self._held

    def get(self, key: str, render: Callable[[], str]) -> Rendered:
        with self._lock:
            hit = self._renders.get(key)
            if hit is not None:
                self._renders.move_to_end(key)
                return hit
        rendered = Rendered.of(render())  # outside the lock: a render may take a while
        with self._lock:
            self._keep(key, rendered)
        return rendered

    def _keep(self, key: str, rendered: Rendered) -> None:
        old = self._renders.pop(key, None)
        if old is not None:
            self._held -= len(old.content)
        self._renders[key] = rendered
        self._held += len(rendered.content)
        while len(self._renders) > 1 and (len(self._renders) > self.entries or self._held > self.chars):
            _, dropped = self._renders.popitem(last=False)
            self._held -= len(dropped.content)


class Lazy(Generic[T]):
    """The content of one generated file: ``render(arg)``, through the view's cache under ``key``.

    Slotted and holding no closure: a view has one per derived file (20,000 graph files and
    more), and what it holds must not lead back to the view (no reference cycle)."""

    __slots__ = ("_arg", "_cache", "_key", "_render")

    def __init__(self, cache: RenderCache, key: str, render: Callable[[T], str], arg: T) -> None:
        self._cache = cache
        self._key = key
        self._render = render
        self._arg = arg

    def __call__(self) -> Rendered:
        return self._cache.get(self._key, lambda: self._render(self._arg))
