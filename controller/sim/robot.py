"""The simulated robot on a real pseudo-terminal: firmware, a faulty line and a pty, in one loop.

The robot owns the pty's master side; the driver opens the slave through a stable symlink
(``link``), as it would open ``/dev/serial/by-id/...`` for the real robot. A disconnect closes the
pty and removes the link; ``reconnect_s`` later a new pty appears behind the same link.

    robot = SimRobot(load_sim_settings(), load_robot_settings().limits, RecordingWorld()).start()
    ...  # Actuator(replace(load_robot_settings().driver, port=str(robot.link))) talks to it
    robot.stop()

Run it in a thread (``start``/``stop``, or ``with``) or in the foreground (``open`` then
``serve`` until ``request_stop``). ``quirks`` names deliberate deviations from the spec
(``controller.sim.quirks``), for proving the conformance suite.
"""
from __future__ import annotations

import contextlib
import heapq
import logging
import os
import select
import shutil
import tempfile
import threading
import time
import tty
from collections import Counter
from pathlib import Path
from typing import Sequence

import numpy as np

from config.sim import SimSettings
from controller.protocol import RobotLimits
from controller.sim.faults import FaultChannel
from controller.sim.firmware import Motion
from controller.sim.quirks import firmware_class
from controller.sim.world import World

log = logging.getLogger(__name__)

MAX_WAIT_S = 0.05  # longest the loop sleeps: how quickly it notices a stop request


class SimRobot:
    """The simulated robot. ``counts`` tallies every fault injected (byte faults of both
    directions, silence, disconnect, reset); ``firmware`` and ``world`` are open for inspection."""

    def __init__(self, config: SimSettings, limits: RobotLimits, world: World, link: str | Path | None = None,
                 quirks: Sequence[str] = ()):
        self.config = config
        self.world = world
        self._rng = np.random.default_rng(config.seed)
        self.firmware = firmware_class(quirks)(config.firmware, limits, config.timing, config.error, world, self._rng,
                                 time.monotonic(), on_accept=self._plan_faults)
        self._rx = FaultChannel(config.faults, self._rng)  # host -> robot
        self._tx = FaultChannel(config.faults, self._rng)  # robot -> host
        self._events: Counter = Counter()
        self._tmpdir = None if link is not None else tempfile.mkdtemp(prefix="cuerobot-sim-")
        self.link = Path(link) if link is not None else Path(self._tmpdir) / "robot"
        self.device: str | None = None
        self._master: int | None = None
        self._slave: int | None = None
        self._reopen_at: float | None = None
        self._silent_until = -np.inf
        self._scheduled: list[tuple[float, str]] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def counts(self) -> Counter:
        return self._events + Counter({f"rx_{k}": v for k, v in self._rx.counts.items()}) \
            + Counter({f"tx_{k}": v for k, v in self._tx.counts.items()})

    # ---- life cycle ----
    def open(self) -> Path:
        """Open the pty and its link; returns the link path to give the driver."""
        self._open_pty()
        return self.link

    def start(self) -> "SimRobot":
        """Open and serve in a background thread."""
        self.open()
        self._thread = threading.Thread(target=self.serve, name="sim-robot", daemon=True)
        self._thread.start()
        return self

    def serve(self) -> None:
        """Serve until ``request_stop``."""
        while not self._stop.is_set():
            self.step()

    def request_stop(self) -> None:
        """Ask ``serve`` to return (safe from a signal handler or another thread)."""
        self._stop.set()

    def stop(self) -> None:
        """Stop serving, close the pty, remove the link. Safe to call twice."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        self._close_pty()
        if self._tmpdir is not None:
            shutil.rmtree(self._tmpdir, ignore_errors=True)

    def go_silent(self, seconds: float) -> None:
        """Fault on demand: from now on, read and send nothing for ``seconds``."""
        self._silent_until = time.monotonic() + seconds
        self._events["silence"] += 1

    @property
    def silent(self) -> bool:
        """Whether the robot is reading and sending nothing now (a silence fault, on demand or drawn)."""
        return time.monotonic() < self._silent_until

    def __enter__(self) -> "SimRobot":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # ---- the loop ----
    def step(self) -> None:
        """Wait for input or the next timed event (at most MAX_WAIT_S), then act on it."""
        now = time.monotonic()
        due = [t for t in (self.firmware.next_deadline(), self._rx.next_release(), self._tx.next_release(),
                           self._scheduled[0][0] if self._scheduled else None,
                           self._reopen_at if self._master is None else None) if t is not None]
        data = self._read(min([MAX_WAIT_S, *(t - now for t in due)]))
        now = time.monotonic()
        if data and now >= self._silent_until:
            self._rx.push(data, now)
        self._advance(now)

    def _advance(self, now: float) -> None:
        # Scheduled faults first, in time order, each after the firmware has reached its time.
        while self._scheduled and self._scheduled[0][0] <= now:
            t, kind = heapq.heappop(self._scheduled)
            self._send(self.firmware.tick(t), t)
            self._inject(kind, t)
        if self._master is None and self._reopen_at is not None and now >= self._reopen_at:
            self._open_pty()
        ready = self._rx.pop_ready(now)
        if ready:
            self._send(self.firmware.feed(ready, now), now)
            for _ in range(ready.count(b"\n")):
                if self._rng.random() < self.config.faults.silence:
                    self._silent_until = now + self.config.faults.silence_s
                    self._events["silence"] += 1
        self._send(self.firmware.tick(now), now)
        out = self._tx.pop_ready(now)
        if out and self._master is not None:
            with contextlib.suppress(BlockingIOError):
                os.write(self._master, out)  # a full buffer loses bytes, as a UART with no reader does

    def _send(self, frames: list[bytes], t: float) -> None:
        if frames and self._master is not None and t >= self._silent_until:
            self._tx.push(b"".join(frames), t)

    def _read(self, wait: float) -> bytes:
        wait = max(wait, 0.0)
        if self._master is None:
            self._stop.wait(wait)
            return b""
        ready, _, _ = select.select([self._master], [], [], wait)
        if not ready:
            return b""
        try:
            return os.read(self._master, 4096)
        except (BlockingIOError, InterruptedError):
            return b""

    # ---- faults ----
    def _plan_faults(self, m: Motion) -> None:
        f = self.config.faults
        windows = {"any": (m.t_accept, m.t_done), "before_strike": (m.t_accept, m.t_strike),
                   "after_strike": (m.t_strike, m.t_done)}
        for kind, rate, when in (("disconnect", f.disconnect, f.disconnect_when),
                                 ("reset", f.reset, f.reset_when)):
            if self._rng.random() < rate:
                heapq.heappush(self._scheduled, (self._rng.uniform(*windows[when]), kind))

    def _inject(self, kind: str, t: float) -> None:
        if kind == "disconnect" and self._master is None:
            return  # already disconnected
        self._events[kind] += 1
        self._rx.clear()
        self._tx.clear()
        if kind == "reset":
            log.info("fault: robot reset")
            self.firmware.reset(t)
        else:
            log.info("fault: port %s disconnected", self.device)
            self._close_pty()
            self._reopen_at = t + self.config.timing.reconnect_s

    # ---- the pty ----
    def _open_pty(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line editing: bytes pass unchanged
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self.device = os.ttyname(slave)
        tmp = self.link.with_name(self.link.name + ".new")
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        os.symlink(self.device, tmp)
        os.replace(tmp, self.link)
        self._reopen_at = None
        log.info("serving on %s (link %s)", self.device, self.link)

    def _close_pty(self) -> None:
        for fd in (self._master, self._slave):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._master = self._slave = None
        if self.link.is_symlink() and os.readlink(self.link) == self.device:   # only the link we made
            self.link.unlink()
