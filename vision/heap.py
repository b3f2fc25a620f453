"""The C heap kept from frame to frame (glibc's malloc), so that a frame's arrays are no fresh pages.

A frame's detection makes and frees arrays of up to a few MB (a 1280 x 720 frame's copies 2.7 MB, the
half frame's masks and maps). glibc serves an allocation above its mmap threshold by a fresh mapping and
gives the free memory at its heap's top beyond its trim threshold back to the system; by default both
thresholds move with the process's history (a freed mapping raises them), so in some processes every
frame's arrays came from new pages again and in others from kept ones: 900-1850 minor page faults a
frame or none (pixel-only mode; every process on projector-off and rendered frames, some on the others),
1-3.7 ms of a 12-16 ms frame (docs/vision.md, Figures). Fixed thresholds make every process the fast one.
"""
from __future__ import annotations

import ctypes

MMAP_THRESHOLD = 32 << 20   # bytes: allocations below this come from the heap (glibc's largest allowed value)
TRIM_THRESHOLD = 64 << 20   # bytes: free memory at the heap's top kept up to this (no real frame's reached it)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3   # glibc's mallopt parameters (malloc.h)


def keep_heap() -> bool:
    """Fix glibc's mmap and trim thresholds at MMAP_THRESHOLD and TRIM_THRESHOLD for this process;
    whether both were set (False, and nothing changed, where the C library has no ``mallopt``)."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (AttributeError, OSError, TypeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mmap_set = mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
    trim_set = mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    return bool(mmap_set and trim_set)
