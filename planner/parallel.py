"""Mapping a function over jobs in worker processes, with an optional progress wrapper."""
from __future__ import annotations

import os
from collections.abc import Callable, Iterable


def worker_threads(workers: int) -> int:
    """Threads each of ``workers`` processes may give numba's parallel kernels: the cores shared
    out, at least one. Left at numba's default (every core) in every worker, the threads
    oversubscribe the cores: two match workers on this 2-core machine ran MC's decisions 3x
    slower than with one thread each."""
    return max(1, (os.cpu_count() or 1) // max(1, workers))


def _limit_threads(n: int) -> None:
    import numba
    numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))


def parallel_map(fn: Callable, jobs: list, workers: int = 1, progress: Callable | None = None,
                 ordered: bool = True, on_result: Callable | None = None) -> list:
    """[fn(job) for job in jobs], in ``workers`` spawned processes when workers > 1, each
    limited to ``worker_threads(workers)`` numba threads.

    progress(iterator, total) may wrap the result stream (e.g. a tqdm bar). With
    ordered=False results come back as they finish. on_result(result) is called on each result
    as it arrives (e.g. to save it before the next one finishes).
    """
    def run(it: Iterable) -> list:
        out = []
        for r in (progress(it, len(jobs)) if progress else it):
            if on_result is not None:
                on_result(r)
            out.append(r)
        return out

    if workers <= 1:
        return run(map(fn, jobs))
    import multiprocessing as mp

    with mp.get_context("spawn").Pool(workers, initializer=_limit_threads, initargs=(worker_threads(workers),)) as pool:
        return run(pool.imap(fn, jobs) if ordered else pool.imap_unordered(fn, jobs))
