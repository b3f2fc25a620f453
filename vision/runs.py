"""Runs of True pixels along the rows of a mask (the compiled kernels that visit a sparse mask's pixels)."""
from __future__ import annotations

import numpy as np

from planner.jit import njit


@njit(cache=True)
def row_runs(mask):
    """(rows, starts, ends) (R,) int64: each run starts <= x < ends of True pixels along a row of the
    C-contiguous (h, w) bool ``mask``, in raster order. Eight pixels at a time where all are False (a
    pixel at a time, the scan of a half-resolution mask cost a tenth of a millisecond)."""
    w = mask.shape[1]
    flat = mask.reshape(-1)
    n = flat.size
    words = flat[:n - n % 8].view(np.uint64)
    some = 1                                     # (the tail)
    for k in range(words.size):
        some += words[k] != 0
    rows, starts, ends = np.empty(4 * some, np.int64), np.empty(4 * some, np.int64), np.empty(4 * some, np.int64)
    m, done = 0, 0                               # runs found, the pixels before this one looked at
    for k in range(words.size + 1):
        if k < words.size and words[k] == 0:
            continue
        for i in range(8 * k, min(8 * k + 8, n)):
            if i < done or not flat[i]:
                continue
            y = i // w
            j = i + 1
            while j < (y + 1) * w and flat[j]:
                j += 1
            rows[m], starts[m], ends[m] = y, i - y * w, j - y * w
            m += 1
            done = j
    return rows[:m], starts[:m], ends[:m]
