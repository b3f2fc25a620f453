"""Worker processes share the cores out: numba's threads per worker x workers <= cores."""
from __future__ import annotations

import os

import numba

from planner.parallel import parallel_map, worker_threads


def _threads(_job) -> int:
    return numba.get_num_threads()


def test_workers_share_the_cores():
    cores = os.cpu_count() or 1
    assert parallel_map(_threads, [0, 1], workers=2) == [max(1, cores // 2)] * 2
    assert worker_threads(1) == cores and worker_threads(4 * cores) == 1
