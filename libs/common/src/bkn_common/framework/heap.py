"""The cyclic garbage collector around stores that live as long as the process.

Three moments, one module:

* :func:`paused` — no collection while a store is being built (a replay or a checkpoint decode
  allocates millions of long-lived containers, and the collector walks the young ones again and
  again while they pile up). The collector is restored as it was at the end of the block, or
  earlier by :meth:`Pause.resume`.
* :func:`settle` — once the store is built: optionally collect, then move every live object to
  the permanent generation (``gc.freeze``) so no later collection walks it. ``unfreeze=True``
  first gives back what an earlier :func:`settle` froze, so a store rebuilt in place (a new
  index build) does not leave its predecessor frozen forever.
* :func:`release` — once a large structure is replaced: give the allocator's free pages back to
  the operating system. glibc keeps what Python and numpy free inside its heap (the dropped
  batches and matrices of an index rebuilt in place), so the process's RSS stays at its high
  water mark, and a container's memory limit counts RSS.

Which of these a call site uses, and with which options, is its measured behaviour; the module
only gives them one spelling.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
from collections.abc import Callable, Iterator
from functools import cache


class Pause:
    """The collector disabled since creation; :meth:`resume` restores it (once)."""

    def __init__(self) -> None:
        self._was_enabled = gc.isenabled()
        self._resumed = False
        gc.disable()

    def resume(self) -> None:
        """Re-enable the collector if it was enabled before the pause; later calls do nothing."""
        if self._resumed:
            return
        self._resumed = True
        if self._was_enabled:
            gc.enable()


@contextlib.contextmanager
def paused() -> Iterator[Pause]:
    """No cyclic collection inside the block (restored as it was after, even on an error)."""
    pause = Pause()
    try:
        yield pause
    finally:
        pause.resume()


def settle(*, unfreeze: bool = False, collect: bool = True) -> None:
    """Freeze the live heap out of the collector's view: ``unfreeze`` first (everything an
    earlier call froze becomes collectable again), then ``collect`` (a full collection, so
    garbage is not frozen with the rest), then ``gc.freeze()``."""
    if unfreeze:
        gc.unfreeze()
    if collect:
        gc.collect()
    gc.freeze()


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    try:  # the process's own symbols: libc is loaded already, no library search (no subprocess)
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc (musl has none): nothing to give back this way
        return None
    return trim


def release() -> bool:
    """Return the heap's free pages to the operating system (glibc's ``malloc_trim``: a few ms
    on a 500 MiB heap, the GIL released meanwhile); False where the C library has none."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
