"""How many threads numpy's BLAS may use in this process (threadpoolctl).

OpenBLAS defaults to one thread per core, and its threads spin for a while after each call
waiting for the next one: on a 2-core machine the vector lane's matrix product left a thread
spinning on the core the event loop needed. One thread (the default setting) keeps the
product on the lane's worker thread alone.
"""

from __future__ import annotations

from threadpoolctl import threadpool_info, threadpool_limits


def limit_blas_threads(threads: int) -> None:
    """Cap every BLAS library loaded in this process at ``threads`` (process-wide, kept)."""
    threadpool_limits(limits=threads, user_api="blas")


def blas_threads() -> list[int]:
    """The thread count of each BLAS library loaded in this process."""
    return [int(pool["num_threads"]) for pool in threadpool_info() if pool.get("user_api") == "blas"]
