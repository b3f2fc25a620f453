"""The gate between the game loop and the people and faults that stop it.

The dashboard's threads call ``pause``, ``resume``, ``estop``, ``stop`` and ``opponent_done``; the
loop calls ``checkpoint()`` where stopping is safe (before planning, before a shot is sent) and
``hold(state, reason, recover)`` when something stopped it. Contracts:

- ``checkpoint()`` raises ``Stopped`` after ``stop()``, ``Halt(FAULTED)`` after ``estop()``,
  ``Halt(PAUSED)`` after ``pause()``; it returns otherwise.
- ``hold`` puts the machine in PAUSED or FAULTED with the reason (the status and a "fault"
  event show it) and blocks until ``resume()`` (an e-stop while PAUSED turns it FAULTED); then it runs ``recover()`` (reconnecting the
  robot): if that raises ActuatorError it stays FAULTED with the new reason and waits again.
  Returns True when resumed, False after ``stop()``.
- ``estop()`` sends ESTOP at once, from the caller's thread (``Actuator.estop`` allows it while a
  shot is in flight); the robot aborts a motion in progress and refuses shots until homed.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from controller.driver.errors import ActuatorError
from controller.service.hub import Hub
from controller.service.states import State, StateMachine
from controller.service.watch import Stopped

log = logging.getLogger("controller.service")


class Halt(Exception):
    """Stop the turn: go to ``state`` (PAUSED or FAULTED) for ``reason``."""

    def __init__(self, state: State, reason: str):
        super().__init__(reason)
        self.state, self.reason = state, reason


class Gate:
    def __init__(self, machine: StateMachine, hub: Hub, actuator):
        self.machine, self.hub, self.actuator = machine, hub, actuator
        self.stopping = threading.Event()
        self.opponent_finished = threading.Event()
        self._pause = threading.Event()
        self._resume = threading.Event()
        self._wake = threading.Event()           # set by resume, estop and stop: hold() looks again
        self._estop: str | None = None

    # ---- from the dashboard (any thread) ----
    def pause(self) -> None:
        self._pause.set()

    def resume(self) -> None:
        self._pause.clear()
        self._resume.set()
        self._wake.set()

    def estop(self) -> None:
        try:
            self.actuator.estop()
            why = "e-stop from the dashboard: ESTOP sent to the robot"
        except ActuatorError as e:
            why = f"e-stop from the dashboard; ESTOP could not be sent ({e}): use the robot's hardware stop"
        self._estop = why
        self.hub.set_status(fault=why)
        self.hub.fault(why)
        self._wake.set()

    def stop(self) -> None:
        self.stopping.set()
        self._wake.set()

    def opponent_done(self) -> None:
        self.opponent_finished.set()

    # ---- from the loop ----
    def checkpoint(self) -> None:
        if self.stopping.is_set():
            raise Stopped
        if self._estop is not None:
            raise Halt(State.FAULTED, self._estop)
        if self._pause.is_set():
            raise Halt(State.PAUSED, "paused from the dashboard")

    def hold(self, state: State, reason: str, shot: int, recover: Callable[[], None]) -> bool:
        while not self.stopping.is_set():
            self._resume.clear()
            self.machine.go(state, reason, shot=shot)
            self.hub.set_status(state=state.value, reason=reason, fault=reason if state is State.FAULTED else None)
            if state is State.FAULTED:
                self.hub.fault(reason)
            if not self._wait_for_resume(paused=state is State.PAUSED):
                if self.stopping.is_set():
                    break
                state, reason = State.FAULTED, self._estop       # an e-stop while paused
                continue
            try:
                recover()
            except ActuatorError as e:
                state, reason = State.FAULTED, f"robot: could not recover: {type(e).__name__}: {e}"
                continue
            self._pause.clear()
            self._estop = None
            self.hub.set_status(fault=None, reason=None)
            return True
        return False

    def _wait_for_resume(self, paused: bool) -> bool:
        """Block until resume() (True), stop(), or, while ``paused``, an e-stop (False)."""
        while True:
            self._wake.wait()
            self._wake.clear()
            if self.stopping.is_set():
                return False
            if self._resume.is_set():
                return True
            if paused and self._estop is not None:
                return False
