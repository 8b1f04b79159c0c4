"""bkn_common.framework.heap: one spelling of pausing, collecting and freezing the collector."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from bkn_common.framework import heap


@pytest.fixture(autouse=True)
def _restore_collector() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    gc.unfreeze()
    (gc.enable if enabled else gc.disable)()


def _cycle() -> None:
    node: list[object] = []
    node.append(node)


def test_paused_disables_the_collector_and_restores_it_after() -> None:
    gc.enable()
    with heap.paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_paused_restores_the_collector_after_an_error() -> None:
    gc.enable()
    with pytest.raises(RuntimeError), heap.paused():
        raise RuntimeError("restore failed")
    assert gc.isenabled()


def test_paused_leaves_a_disabled_collector_disabled() -> None:
    gc.disable()
    with heap.paused() as pause:
        pause.resume()
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_nested_pauses_resume_only_at_the_outer_one() -> None:
    gc.enable()
    with heap.paused():
        with heap.paused():
            pass
        assert not gc.isenabled()
    assert gc.isenabled()


def test_resume_ends_the_pause_early_and_only_once() -> None:
    gc.enable()
    with heap.paused() as pause:
        pause.resume()
        assert gc.isenabled()
        gc.disable()
        pause.resume()  # a second resume does not re-enable what someone else disabled
        assert not gc.isenabled()
        gc.enable()
    assert gc.isenabled()


def test_settle_collects_then_freezes() -> None:
    gc.unfreeze()
    gc.collect()
    gc.disable()
    _cycle()
    heap.settle()
    assert gc.get_freeze_count() > 0
    assert gc.collect() == 0  # the cycle was collected before the freeze, nothing is left


def test_settle_without_collect_freezes_garbage_too() -> None:
    gc.unfreeze()
    gc.collect()
    gc.disable()
    _cycle()
    heap.settle(collect=False)
    gc.unfreeze()
    assert gc.collect() >= 1  # the frozen cycle was still there


def test_settle_keeps_earlier_frozen_objects_frozen_unless_told_to_unfreeze() -> None:
    gc.unfreeze()
    gc.collect()
    gc.disable()
    _cycle()
    heap.settle(collect=False)  # the cycle is frozen
    heap.settle()  # a collection does not see frozen objects
    gc.unfreeze()
    assert gc.collect() >= 1

    _cycle()
    heap.settle(collect=False)
    heap.settle(unfreeze=True)  # unfrozen first: the collection frees it
    gc.unfreeze()
    assert gc.collect() == 0



_FRAGMENTED_HEAP = """
import gc, json
import numpy as np
from bkn_common.framework import heap

def rss_kib():
    with open("/proc/self/status", encoding="ascii") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))

blocks, keepers = [], []
for _ in range(1600):  # 100 MiB of 64 KiB blocks, each followed by a small block that stays
    blocks.append(np.ones(16384, dtype=np.float32))
    keepers.append(np.ones(200))
before = rss_kib()
del blocks
gc.collect()
freed = rss_kib()
released = heap.release()
print(json.dumps({"before": before, "freed": freed, "released": released, "after": rss_kib()}))
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/status") or heap._malloc_trim() is None,
                    reason="glibc on Linux only")
def test_release_gives_freed_heap_pages_back_to_the_system() -> None:
    """64 KiB blocks (below glibc's mmap threshold: they live in its heap) freed between small
    blocks that stay: free() keeps those pages, release() returns them. In a fresh interpreter,
    so that what other tests left in this one's heap does not decide where the blocks go."""
    done = subprocess.run([sys.executable, "-c", _FRAGMENTED_HEAP], capture_output=True, text=True,
                          check=True, timeout=120)
    rss = json.loads(done.stdout)
    assert rss["released"] is True
    assert rss["before"] - rss["freed"] < 20 * 1024, "free() alone gave the pages back: nothing to show"
    assert rss["freed"] - rss["after"] > 80 * 1024, "the freed 100 MiB stayed in the process"
