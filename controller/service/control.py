"""What the dashboard may see of the service and ask of it (``controller.api`` serves it).

Every method is safe to call from the web server's threads while the service runs.
"""
from __future__ import annotations

import queue
from typing import Protocol


class ServiceControl(Protocol):
    def status(self) -> dict:
        """{"state": service state name, "reason": why paused/faulted or None, "fault": text or
        None, "shot": shots played, "players": [names], "game": {"shooter", "groups", "winner",
        "in_hand", "balls": {id: [x, y]}}, "backend": "sim"|"serial", "run_dir": path}."""
        ...

    def frame_png(self) -> bytes | None:
        """The latest frame, annotated (balls, labels, the planned shot's predicted paths), as PNG;
        None before the first frame."""
        ...

    def plan(self) -> dict | None:
        """The current plan: {"kind", "call", "estimate", "shot": {phi, theta, V, a, b},
        "cue_pos", "alternatives": [{"kind", "call", "estimate", "shot"}...], "paths":
        {ball id: [[x, y], ...]}} (table frame, metres; units as docs/frame.md); None before one."""
        ...

    def game_log(self, since: int = 0) -> list[dict]:
        """The game log's records from number ``since`` on (0-based)."""
        ...

    def subscribe(self) -> queue.Queue:
        """A queue of events for one live client: dicts with "type" ("state", "frame", "plan",
        "shot", "fault") and the changed data. ``unsubscribe`` it when the client leaves."""
        ...

    def unsubscribe(self, q: queue.Queue) -> None:
        ...

    def pause(self) -> None:
        """Stop before the next shot is sent (a shot in flight finishes)."""
        ...

    def resume(self) -> None:
        """Leave the paused or faulted state; the service re-captures the table first."""
        ...

    def estop(self) -> None:
        """Send ESTOP to the robot at once and go to the faulted state."""
        ...

    def shoot_now(self) -> None:
        """Play the best plan found so far without waiting for the rest of the search budget."""
        ...

    def opponent_done(self) -> None:
        """The (human) opponent has finished the inning: capture the table."""
        ...
