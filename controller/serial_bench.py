"""Fault soak of the serial link: the real driver against the simulated robot on a pty, with
drops, corruption, duplication and stalls of bytes, silences, disconnects and resets mixed in.

Every shot is checked against what the simulated world recorded (``RecordingWorld``), not
against what the driver says:

- executed: shots struck at least once; duplicated: extra strikes of a shot (must be 0);
- corrupted_executed: strikes whose parameters, as the robot received them, differ from the
  driver's command or from the planned shot beyond the wire's resolution, or that match no
  command at all (must be 0);
- misreported: attempts where the driver's claim (returned = struck; ShotOutcomeUnknown resolved
  by ``was_struck``; any other exception = not struck) contradicts the world (must be 0).

A shot that fails with "not struck" is sent again (as the game loop would), up to MAX_ATTEMPTS.
A share of the shots is deliberately outside the limits: the driver must refuse them unsent.
"""
from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from config.sim import SoakSettings
from controller.driver.actuator import Actuator
from controller.driver.errors import ActuatorError, ShotOutcomeUnknown, ShotRejected
from controller.driver.link import LinkFault
from controller.protocol import SHOT_WIRE, RobotLimits, ShotCommand
from controller.sim.robot import SimRobot
from controller.sim.world import RecordingWorld
from hil.recording import FrameLog
from planner.shot import SHOT_FIELDS, ShotParams

MAX_ATTEMPTS = 8      # sends of one planned shot before the soak gives up on it
RESOLVE_TRIES = 40    # was_struck() calls to settle a ShotOutcomeUnknown
RESOLVE_PAUSE_S = 0.05


@dataclass
class SoakResult:
    attempted: int = 0
    invalid: int = 0
    refused_before_sending: int = 0
    executed: int = 0
    duplicated: int = 0
    corrupted_executed: int = 0
    misreported: int = 0
    given_up: int = 0
    outcomes: Counter = field(default_factory=Counter)
    faults: Counter = field(default_factory=Counter)
    recoveries: list[tuple[LinkFault, float]] = field(default_factory=list)  # (fault kind, seconds)
    reconnects: int = 0
    elapsed_s: float = 0.0

    def recovery_ms(self) -> dict:
        """Recovery times [ms] (first fault to the next good exchange), over all faults ("all")
        and per fault kind: {kind: {"n", "median", "p90", "max"}}; {} if nothing needed recovering."""
        by_kind = {"all": [t for _, t in self.recoveries]}
        for k, t in self.recoveries:
            by_kind.setdefault(k.value, []).append(t)
        return {k: {"n": len(ts), "median": round(1e3 * float(np.median(ts)), 2),
                    "p90": round(1e3 * float(np.percentile(ts, 90)), 2), "max": round(1e3 * max(ts), 2)}
                for k, ts in by_kind.items() if ts}

    def summary(self) -> dict:
        """The figures of ``cuerobot bench serial --json``: the counts of the text report, the
        faults injected by kind, and the recovery times in ms (as the text gives them)."""
        return {"attempted": self.attempted, "invalid": self.invalid,
                "refused_before_sending": self.refused_before_sending, "executed": self.executed,
                "given_up": self.given_up, "duplicated": self.duplicated,
                "corrupted_executed": self.corrupted_executed, "misreported": self.misreported,
                "outcomes": dict(self.outcomes.most_common()), "faults": dict(sorted(self.faults.items())),
                "reconnects": self.reconnects, "recovery_ms": self.recovery_ms(),
                "elapsed_s": round(self.elapsed_s, 3), "ok": self.ok}

    @property
    def ok(self) -> bool:
        return self.duplicated == 0 and self.corrupted_executed == 0 and self.misreported == 0


@dataclass
class _Sent:
    shot: int
    command: ShotCommand
    params: ShotParams
    cue_xy: tuple[float, float]
    claim: str  # "struck", "not_struck" or "unknown"


def random_shot(rng: np.random.Generator, lim: RobotLimits, invalid: bool) -> tuple[ShotParams, tuple[float, float]]:
    """A shot inside the limits (phi over two turns, to exercise the wrap), or, if ``invalid``,
    one with a single field beyond its limit."""
    def u(r, k=1.0):
        return rng.uniform(r.lo * k, r.hi * k)

    vals = {"phi": rng.uniform(lim.phi.lo - 360.0, lim.phi.hi), "theta": u(lim.theta, 0.5), "V": u(lim.V),
            "a": u(lim.a, 0.8), "b": u(lim.b, 0.8), "x": u(lim.x), "y": u(lim.y)}
    if invalid:
        name = str(rng.choice(["theta", "V", "a", "b", "x", "y"]))
        r = getattr(lim, name)
        vals[name] = r.hi + 0.1 * (r.hi - r.lo) + 1e-3
    return ShotParams(*(vals[k] for k in SHOT_FIELDS)), (vals["x"], vals["y"])


def within_wire_resolution(cmd: ShotCommand, params: ShotParams, cue_xy: tuple[float, float]) -> bool:
    """Whether ``cmd`` is the planned shot rounded to the wire's resolution (phi modulo 360)."""
    planned = (*params.as_array(), *cue_xy)
    for (name, d, k, _), got, want in zip(SHOT_WIRE, cmd.values(), planned):
        diff = got - want
        if name == "phi":
            diff = (diff + 180.0) % 360.0 - 180.0
        if abs(diff) * k > 0.5 * 10.0 ** -d * (1 + 1e-6):
            return False
    return True


def _resolve(act: Actuator, seq: int) -> bool | None:
    for _ in range(RESOLVE_TRIES):
        try:
            return act.was_struck(seq)
        except ActuatorError:
            time.sleep(RESOLVE_PAUSE_S)
    return None


def run_soak(n_shots: int, setup: SoakSettings, seed: int = 0,
             progress: Callable[[Iterable], Iterable] | None = None,
             frame_log: str | Path | None = None) -> SoakResult:
    """Drive ``n_shots`` planned shots through the driver to a SimRobot under the setup's faults
    and account for every strike the world saw. ``progress`` wraps the shot loop (e.g. tqdm)."""
    rng = np.random.default_rng(seed)
    res = SoakResult(attempted=n_shots)
    world = RecordingWorld()
    sent: dict[int, _Sent] = {}
    flog = FrameLog(frame_log) if frame_log else None
    t0 = time.monotonic()
    with SimRobot(setup.sim, setup.limits, world) as robot:
        act = Actuator(replace(setup.driver, port=str(robot.link)), flog)
        try:
            act.connect()
            shots = range(n_shots)
            for i in (progress(shots) if progress else shots):
                invalid = bool(rng.random() < setup.invalid_rate)
                res.invalid += invalid
                params, xy = random_shot(rng, setup.limits, invalid)
                _soak_one(act, i, params, xy, sent, res)
        finally:
            act.close()
            if flog:
                flog.close()
        res.faults = robot.counts
    res.elapsed_s = time.monotonic() - t0
    res.recoveries = list(act.recoveries)
    res.reconnects = act.reconnects
    _account(world, sent, res)
    return res


def _soak_one(act: Actuator, i: int, params: ShotParams, xy: tuple[float, float],
              sent: dict[int, _Sent], res: SoakResult) -> None:
    for _ in range(MAX_ATTEMPTS):
        before = act.last_shot_seq
        try:
            act.shot(params, xy)
            claim, outcome = "struck", "struck"
        except ShotOutcomeUnknown as e:
            struck = _resolve(act, e.seq)
            claim = {True: "struck", False: "not_struck", None: "unknown"}[struck]
            outcome = f"ShotOutcomeUnknown (resolved: {claim})"
        except ShotRejected as e:
            claim, outcome = "not_struck", "ShotRejected" + (" before sending" if e.code is None else "")
        except ActuatorError as e:
            claim, outcome = "not_struck", type(e).__name__
        res.outcomes[outcome] += 1
        if act.last_shot_seq != before:
            sent[act.last_shot_seq] = _Sent(i, act.check_shot(params, xy), params, xy, claim)
        if outcome == "ShotRejected before sending":
            res.refused_before_sending += 1
            return
        if claim != "not_struck":
            return
    res.given_up += 1


def _account(world: RecordingWorld, sent: dict[int, _Sent], res: SoakResult) -> None:
    strikes_of = Counter()
    per_shot = Counter()
    for s in world.strikes:
        strikes_of[s.seq] += 1
        rec = sent.get(s.seq)
        if rec is None:
            res.corrupted_executed += 1  # the robot struck something no command asked for
            continue
        per_shot[rec.shot] += 1
        if s.command != rec.command or not within_wire_resolution(s.command, rec.params, rec.cue_xy):
            res.corrupted_executed += 1
    res.executed = len(per_shot)
    res.duplicated = sum(n - 1 for n in per_shot.values())
    for seq, rec in sent.items():
        struck = strikes_of[seq] > 0
        if (rec.claim == "struck" and not struck) or (rec.claim == "not_struck" and struck):
            res.misreported += 1


def format_report(r: SoakResult) -> str:
    """The human-readable figures of ``cuerobot bench serial``."""
    valid = r.attempted - r.invalid

    def must_be_zero(n: int) -> str:
        return "ok" if n == 0 else "FAIL"

    lines = [
        f"serial fault soak: {r.attempted} shots in {r.elapsed_s:.1f} s",
        f"  attempted            {r.attempted:6d}   ({r.invalid} deliberately outside the limits, "
        f"{r.refused_before_sending} refused before sending)",
        f"  executed             {r.executed:6d}   (of {valid} valid shots; {r.given_up} given up)",
        f"  duplicated           {r.duplicated:6d}   must be 0: {must_be_zero(r.duplicated)}",
        f"  corrupted-executed   {r.corrupted_executed:6d}   must be 0: {must_be_zero(r.corrupted_executed)}",
        f"  misreported          {r.misreported:6d}   driver's claim vs the world, must be 0: "
        f"{must_be_zero(r.misreported)}",
        "  attempts by outcome: " + ", ".join(f"{k} {v}" for k, v in r.outcomes.most_common()),
        "  faults injected: " + ", ".join(f"{k} {v}" for k, v in sorted(r.faults.items())),
    ]
    lines.append(f"  recovery times (first fault to next good exchange), {r.reconnects} reconnects:")
    rec = r.recovery_ms()
    for kind in ["all", *sorted(k for k in rec if k != "all")] if rec else []:
        q = rec[kind]
        lines.append(f"    {kind:12s} n={q['n']:5d}  median {q['median']:7.1f} ms  "
                     f"p90 {q['p90']:7.1f} ms  max {q['max']:7.1f} ms")
    if not r.recoveries:
        lines.append("    none (no fault needed recovering)")
    lines.append("  (correctness counts and recovery times; no speed target, hence no baseline ratio)")
    return "\n".join(lines)
