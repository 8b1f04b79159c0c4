"""One contract suite per port with state, run against every adapter of it.

Each module holds a ``...Contract`` class of tests. A test module subclasses it and provides
its fixtures (the adapter, fresh per test, and ``elapse``: how time passes for it): the
in-memory fake in ``tests/unit`` (a manual clock), the real adapter in ``tests/integration``
(real Redis, real time). The class names do not start with ``Test``, so a contract runs only
where it is subclassed. (``tests/support/trace_view_contract.py`` and
``tests/support/kb_ports_contract.py`` follow the same idea for the trace view and the
knowledge-base ports.)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

Elapse = Callable[[float], Awaitable[None]]
"""Let ``seconds`` pass for the adapter under test (sleep, or advance a manual clock)."""


class ManualClock:
    """A clock (seconds) that moves only when told; ``elapse`` is an :data:`Elapse`."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now

    async def elapse(self, seconds: float) -> None:
        self.now += seconds
