"""A point in time on the monotonic clock: every wait of the driver is bounded by one."""
from __future__ import annotations

import time


class Deadline:
    """``seconds`` from the moment it is made, on ``time.monotonic()``."""

    def __init__(self, seconds: float):
        self._at = time.monotonic() + seconds

    def remaining(self) -> float:
        """Seconds left before the deadline, 0.0 once it has passed."""
        return max(0.0, self._at - time.monotonic())

    def expired(self) -> bool:
        """Whether the deadline has passed."""
        return time.monotonic() > self._at
