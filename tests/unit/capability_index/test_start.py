"""What a capability-index start loads before ``/readyz``, and what it loads afterwards."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading

import pytest

from capability_index import bootstrap


def test_serving_imports_neither_numpy_nor_faststream_nor_httpx() -> None:
    """The entry point's imports stop short of what the first ``/readyz`` does not need
    (numpy: scoring; FastStream: brokers this service has none of; httpx: clients)."""
    probe = ("import sys, capability_index.__main__; "
             "print(sorted({'numpy', 'faststream', 'httpx'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


class _Runner:
    def __init__(self) -> None:
        self.caught_up = asyncio.Event()


def test_scoring_and_the_segmenter_are_loaded_once_caught_up(monkeypatch: pytest.MonkeyPatch) -> None:
    loaded: list[str] = []
    done = threading.Event()
    def warm_tokenizer() -> None:
        loaded.append("segmenter")
        done.set()

    monkeypatch.setattr(bootstrap, "load_scoring", lambda: loaded.append("scoring"))
    monkeypatch.setattr(bootstrap, "warm_tokenizer", warm_tokenizer)

    async def run() -> None:
        runner = _Runner()
        async with bootstrap.warmed_once_caught_up(runner):  # type: ignore[arg-type]
            await asyncio.sleep(0)  # the warming task runs up to its wait
            assert loaded == []
            runner.caught_up.set()
            assert await asyncio.to_thread(done.wait, 30)
        assert loaded == ["scoring", "segmenter"]

    asyncio.run(run())
