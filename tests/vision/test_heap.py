"""vision.heap: arrays of a few MB made and freed frame after frame come from kept memory, not fresh pages."""
import subprocess
import sys

import pytest

from vision.heap import keep_heap

# one 3 MB array freed (glibc then serves such sizes from its heap and trims its top past twice that),
# then 6 "frames" of three 2.9 MB arrays each, made, touched and freed; prints the minor page faults of the
# last 5 frames
FRAMES = """
import resource, sys
import numpy as np
if sys.argv[1] == 'vision':
    import vision  # noqa: F401
np.ones(3 << 20, np.uint8)
for frame in range(6):
    if frame == 1:
        r0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    arrays = [np.ones(29 << 17, np.uint8) for _ in range(3)]
    del arrays
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - r0)
"""


def _faults(first_import: str) -> int:
    return int(subprocess.run([sys.executable, "-c", FRAMES, first_import], capture_output=True, text=True,
                              check=True).stdout)


@pytest.mark.skipif(not keep_heap(), reason="no glibc mallopt here: vision.heap.keep_heap changes nothing, so there is no kept heap to measure")
def test_importing_vision_keeps_a_frames_arrays_memory():
    pages = 3 * (29 << 17) // 4096                 # one frame's fresh pages
    assert _faults("numpy") > 3 * pages            # glibc's own thresholds: trimmed and faulted again, frame after frame
    assert _faults("vision") < pages // 10         # kept: the first frame's pages serve the rest
