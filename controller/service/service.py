"""The controller service: the game loop over a camera, the robot's driver and a clock.

    service = Service(parts, settings.service, writer=RunWriter(run_dir))
    winner = service.run()             # blocks until the rack is over or ``stop()``

What it sees: only camera frames (through vision) and the driver's replies. The table state is
the mean of a capture of ``rest_frames`` frames at rest that passed ``check_capture``; a shot's
outcome is the observed referee's reading of the frames through it, ruled by the 8-ball referee.
The turn, in states (``controller.service.states``):

1. WAITING_FOR_REST, CAPTURING, DETECTING: a consistent capture of the table at rest
   (re-captured ``recaptures`` times, then PAUSED with the problems as the reason).
2. JUDGING, after a shot: the ruling, the record appended to the game log, the line printed.
3. Balls to spot (the 8 after the break) are put on the foot spot and seen there.
4. The robot's turn: PLANNING (the planner on the captured state), EXECUTING (ball in hand:
   placed and seen within ``ball_in_hand_tolerance``; then the SHOT through the driver).
   The opponent's turn: its decision and shot (sim), or a person's (hardware).
5. OBSERVING: frames until the table has been at rest for ``rest_frames`` frames taken after the
   shot was reported done; ``max_shot_s`` of motion is a camera fault. The capture that follows
   belongs to the shot too (a ball creeping into a pocket drops in it), then step 1.

Faults. Camera (``CameraFault``: no frame, stale frames, an inconsistent table after
re-captures): PAUSED. Robot (any ``ActuatorError``; ``ShotOutcomeUnknown`` is first resolved
with ``was_struck``): FAULTED, no further shot. ``resume()`` reconnects the driver (homing it
after an e-stop), re-captures the table and goes on; a shot the robot did not strike is planned
again and sent with a new sequence number, a struck one is observed, so no shot is lost or
repeated. Pause and e-stop take effect before the next shot is sent.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from config.service import ServiceSettings
from controller.annotate import paths_to_json, predicted_paths
from controller.camera import Camera, Clock
from controller.driver.errors import ActuatorError, ShotOutcomeUnknown, ShotRejected
from controller.observed_referee import Snapshot, observe_shot
from controller.service import gamelog as gl
from controller.service.gate import Gate, Halt
from controller.service.hub import Hub
from controller.service.observe import CameraFault, Capture, FrameReader, Sighting, Vision, from_cue_seen
from controller.service.opponent import Hands, Opponent, inferred_call
from controller.service.states import State, StateMachine
from controller.service.watch import NotPlaced, Stopped, Watcher
from planner.decision import place_cue
from planner.match import spot_ball
from planner.physics.engine import PhysicsInputError
from planner.rules.eightball import rule
from planner.rules.game import GameState, InHand
from planner.state import CUE

log = logging.getLogger("controller.service")

RESOLVE_TRIES = 20        # was_struck() calls to settle a ShotOutcomeUnknown before faulting
RESOLVE_PAUSE_S = 0.1


@dataclass
class Parts:
    """What the service drives. planner: the robot's (``planner.decision.Planner``); table, R: the
    table geometry and ball radius [m]; robot_player: the robot's player number (0 breaks)."""
    camera: Camera
    clock: Clock
    actuator: object              # controller.driver.actuator.Actuator
    vision: Vision
    planner: object
    opponent: Opponent
    hands: Hands
    table: object                 # planner.table.Table
    R: float
    backend: str = "sim"
    robot_player: int = 0


class Service:
    """The game loop; also the dashboard's ``ServiceControl`` (controller.service.control)."""

    def __init__(self, parts: Parts, settings: ServiceSettings, *, writer=None, game: GameState | None = None,
                 shots_done: int = 0, pending_spot: tuple[int, ...] = (), names: tuple[str, str] = ("robot", "opponent"),
                 on_record: Callable[[dict], None] | None = None, out: Callable[[str], None] | None = None,
                 hub: Hub | None = None, last_seq: int = 0, meta: dict | None = None):
        self.p, self.cfg, self.writer = parts, settings, writer
        self.timing = settings.camera
        self.game = game or GameState.new_rack(breaker=0)
        self.n = shots_done
        self.names = names
        self.pending_spot = tuple(pending_spot)
        self.on_record, self.out = on_record, out or (lambda line: None)
        self.hub = hub or Hub()
        self.meta = meta or {}
        self.last_seq = last_seq
        self.refused_for_limits = 0
        self.machine = StateMachine(self._on_transition)
        self.gate = Gate(self.machine, self.hub, parts.actuator)
        reader = FrameReader(parts.camera, parts.clock, parts.vision, self.timing, self._on_sighting)
        self.watch = Watcher(reader, self.machine, self.timing, parts.table, parts.R, settings.ball_in_hand_tolerance,
                             self.gate.stopping, self._on_capture)
        self.capture: Capture | None = None
        self.pending: gl.ShotInProgress | None = None
        self._judge_s = 0.0
        self._unknown_seq: int | None = None
        self._resumed = False
        self._publish_status()

    # ---- ServiceControl: read side ----
    def status(self) -> dict:
        return self.hub.status()

    def frame_png(self) -> bytes | None:
        return self.hub.frame_png()

    def plan(self) -> dict | None:
        return self.hub.plan()

    def game_log(self, since: int = 0) -> list[dict]:
        return self.hub.game_log(since)

    def subscribe(self):
        return self.hub.subscribe()

    def unsubscribe(self, q) -> None:
        self.hub.unsubscribe(q)

    # ---- ServiceControl: control side (any thread; controller.service.gate) ----
    def pause(self) -> None:
        self.gate.pause()

    def resume(self) -> None:
        self.gate.resume()

    def estop(self) -> None:
        self.gate.estop()

    def shoot_now(self) -> None:
        """Not available yet: the planner's search cannot be cut from outside (it stops at its
        budgets or at planner.yaml's ``search.wall_cap_s``). Logged and ignored."""
        log.info("shoot-now requested: the search runs to its budget (no hook to cut it yet)")

    def opponent_done(self) -> None:
        self.gate.opponent_done()

    def stop(self) -> None:
        """Leave ``run`` at the next frame or checkpoint (no shot is interrupted)."""
        self.gate.stop()

    # ---- the loop ----
    def run(self) -> int | None:
        """Play until the rack is over (returns the winner) or ``stop()`` (returns None)."""
        self._record({"type": "start" if self.n == 0 else "resume", "t": time.time(), "shots": self.n,
                      "players": list(self.names), "robot_player": self.p.robot_player,
                      "backend": self.p.backend, "game": gl.game_to_json(self.game), **self.meta})
        self.machine.begin("resume" if self.n else "start", shot=self.n)
        why = self._resume_check()
        if why is not None:
            self._halted(State.PAUSED, why)
        while not self.game.is_over:
            try:
                self._turn()
            except Stopped:
                return None
            except Halt as h:
                self._halted(h.state, h.reason)
            except CameraFault as e:
                self._halted(State.PAUSED, str(e))
            except ActuatorError as e:
                self._halted(State.FAULTED, f"robot: {type(e).__name__}: {e}")
            if self.gate.stopping.is_set():
                return None
        self.machine.go(State.GAME_OVER, shot=self.n)
        w = self.game.winner
        self._record({"type": "end", "t": time.time(), "winner": w, "winner_name": self.names[w], "shots": self.n})
        self._publish_status()
        return w

    def _turn(self) -> None:
        self._checkpoint()
        if self.pending is not None and self.pending.observed is None:
            self._observe(self.pending, -np.inf)            # resumed in the middle of a shot
        shot = self.pending
        if shot is not None:
            cap = self.watch.settle(self.n, lambda frames: self._expected_after(shot, frames))
            self._judge(shot, cap)
            if self.game.is_over:
                return
        elif self.capture is None:
            self.watch.settle(self.n, (*self._expected(), None))
        if self.pending_spot:
            self._spot()
        self._checkpoint()
        player = self.game.shooter
        if player == self.p.robot_player:
            self._robot_turn()
        else:
            self._opponent_turn()

    # ---- the robot's turn ----
    def _robot_turn(self) -> None:
        shot = self._new_shot(self.names[self.p.robot_player])
        self.machine.go(State.PLANNING, shot=shot.n)
        t0 = time.perf_counter()
        d = self.p.planner.choose(shot.seen, shot.game)
        shot.stages["plan"] = time.perf_counter() - t0
        shot.decision = d
        shot.plan_extra["decision_s"] = round(shot.stages["plan"], 4)
        shot.plan_extra["capped"] = d.capped
        shot.alternatives = gl.alternatives(self.p.planner.movegen, shot.seen, shot.game, d)
        self._publish_plan(shot)
        self.machine.go(State.EXECUTING, shot=shot.n)
        if d.cue_pos is not None:
            self._place_cue(shot, d.cue_pos)
        cue_xy = tuple(shot.seen.position(CUE))
        try:
            cmd = self.p.actuator.check_shot(d.shot, cue_xy)
        except ShotRejected as e:
            self.refused_for_limits += 1
            raise Halt(State.PAUSED, f"shot {shot.n} refused for the robot's limits: {e}") from e
        self._checkpoint()
        t_call, wall = time.perf_counter(), time.time()
        shot.sent = {"seq": None, "command": dict(zip(("phi", "theta", "V", "a", "b", "x", "y"), cmd.values()))}
        self.pending = shot                      # in flight: a fault from here on must know about it
        try:
            report = self.p.actuator.shot(d.shot, cue_xy)
        except ShotOutcomeUnknown as e:
            shot.sent["seq"] = e.seq
            struck = self._resolve(e.seq)
            if struck is None:
                self._unknown_seq = e.seq        # resume() asks again before anything else
                raise
            if not struck:
                self.pending = None
                raise
            report = None
        except ActuatorError:
            self.pending = None                  # not struck (the driver's contract): plan again
            raise
        if report is not None:
            shot.stages["send"] = max(report.t_sent - wall, 0.0)
            shot.reply = {"seq": report.seq, "recovered": report.recovered, "t_sent": round(report.t_sent, 6),
                          "t_done": round(report.t_done, 6)}
            shot.sent["seq"] = report.seq
        else:
            shot.stages["send"] = time.perf_counter() - t_call
            shot.reply = {"seq": shot.sent["seq"], "recovered": True, "resolved_by": "was_struck"}
        shot.latency_s = t_call + shot.stages["send"] - self.watch.t_rest
        self.last_seq = shot.sent["seq"]
        self._observe(shot, self.p.clock.now())

    def _resolve(self, seq: int) -> bool | None:
        """Settle a ShotOutcomeUnknown from the robot's STATUS: struck or not; None if the robot
        cannot be asked."""
        for _ in range(RESOLVE_TRIES):
            try:
                return self.p.actuator.was_struck(seq)
            except ActuatorError:
                time.sleep(RESOLVE_PAUSE_S)
        return None

    # ---- the opponent's turn ----
    def _opponent_turn(self) -> None:
        shot = self._new_shot(self.names[1 - self.p.robot_player])
        opp = self.p.opponent
        self.machine.go(State.OBSERVING, shot=shot.n)
        t0 = time.perf_counter()
        d = opp.decide(shot.seen, shot.game)
        shot.stages["plan"] = time.perf_counter() - t0
        shot.decision = d
        if d is not None:
            self._publish_plan(shot)
            if d.cue_pos is not None:
                self._place_cue(shot, d.cue_pos, back=State.OBSERVING)
            opp.shoot(d)
        self.pending = shot
        if opp.person:
            self.hub.set_status(waiting="the opponent's shot" + (" (ball in hand)" if shot.game.in_hand is not InHand.NONE
                                                                 else ""))
        self._observe(shot, self.p.clock.now(), person=opp.person)
        self.hub.set_status(waiting=None)

    # ---- frames ----
    def _observe(self, shot: gl.ShotInProgress, t_from: float, person: bool = False) -> None:
        """OBSERVING (``Watcher.shot_frames``), then the observed referee on the frames."""
        self.gate.opponent_finished.clear()
        shot.before = self.watch.shot_frames(shot.n, shot.before, shot.frames, t_from, person,
                                             self.gate.opponent_finished)
        self._read_shot(shot)
        if self.writer is not None and self.cfg.record_shot_frames:
            for s in shot.frames:
                self.writer.frame(s.frame.image, s.t, "shot", shot.n)

    def _read_shot(self, shot: gl.ShotInProgress) -> None:
        """The observed referee on every frame of the shot so far, from the first rest frame
        before it that shows the cue ball (``from_cue_seen``)."""
        snaps = [Snapshot(s.t, dict(s.balls)) for s in from_cue_seen(shot.before) + shot.frames]
        aim = shot.decision.shot.phi if shot.decision is not None else None
        try:
            shot.observed = observe_shot(snaps, self.p.table, self.p.R, aim_deg=aim)
        except ValueError as e:
            raise CameraFault(f"camera: the frames of shot {shot.n} cannot be read: {e}") from e

    def _expected(self) -> tuple[frozenset[int], frozenset[int]]:
        balls = frozenset(self.game.object_balls) - frozenset(self.pending_spot)
        spot = frozenset(self.pending_spot)
        if self.game.in_hand is not InHand.NONE:
            return balls, frozenset({CUE}) | spot
        return balls | {CUE}, spot

    def _expected_after(self, shot: gl.ShotInProgress, capture: list[Sighting]):
        """The balls the capture after ``shot`` must show: those in play before it less the ones
        the camera saw drop; the cue ball, if it dropped, and (once a person has resumed after
        the pause they caused) balls that vanished away from a pocket may be there or not.
        The capture's frames belong to the shot too (a ball creeping into a pocket after the
        table looked still drops in them): they are added and the shot read again."""
        t_last = shot.frames[-1].t if shot.frames else -np.inf
        new = [s for s in capture if s.t > t_last]
        if new:
            shot.frames.extend(new)
            self._read_shot(shot)
        o = shot.observed
        before = frozenset(shot.game.object_balls) | {CUE}
        optional = (frozenset({CUE}) & o.facts.pocketed_ids) | (o.vanished if self._resumed else frozenset())
        last = {}
        for s in shot.before + shot.frames:
            last.update(s.balls)
        last.update(o.last_seen)
        return before - o.facts.pocketed_ids - optional, optional, last

    # ---- judging ----
    def _judge(self, shot: gl.ShotInProgress, cap: Capture) -> None:
        self.machine.go(State.JUDGING, shot=shot.n)
        t0 = time.perf_counter()
        o = shot.observed
        facts = o.facts_given(cap.state.ids)
        call = shot.decision.call if shot.decision is not None else inferred_call(shot.game, facts)
        try:
            game, outcome = rule(shot.game, call, facts, pocket_ids=self.p.table.pocket_ids)
        except ValueError as e:
            raise CameraFault(f"the referee cannot rule shot {shot.n} from what the camera saw: {e}") from e
        self.game = game
        self.pending = None
        self._resumed = False
        self.pending_spot = tuple(outcome.spotted)
        self._judge_s = time.perf_counter() - t0
        rec = gl.shot_record(shot, cap.state, call, facts, outcome, self.game, self.p.robot_player)
        self.n += 1
        self._record(rec)
        self.out(gl.shot_line(rec))
        self._publish_status()

    # ---- placing balls ----
    def _spot(self) -> None:
        for ball in self.pending_spot:
            seen = self.capture.state
            target = tuple(spot_ball(seen, ball, self.p.table, self.p.R).position(ball))
            self.hub.set_status(placing={"ball": ball, "target": gl.round_xy(target)})
            self.p.hands.place(ball, target)
            expected, optional = self._expected()
            self._place_and_see(expected | {ball}, optional - {ball}, (ball, target))
        self.pending_spot = ()
        self.hub.set_status(placing=None)

    def _place_cue(self, shot: gl.ShotInProgress, xy, back: State = State.EXECUTING) -> None:
        """Ball in hand: the cue ball put at ``xy`` and seen there; the shot's table is that
        capture. Returns in state ``back``."""
        t0 = time.perf_counter()
        xy = (float(xy[0]), float(xy[1]))
        self.hub.set_status(placing={"ball": CUE, "target": gl.round_xy(xy)})
        self.p.hands.place(CUE, xy)
        cap = self._place_and_see(frozenset(shot.game.object_balls) | {CUE}, frozenset(), (CUE, xy))
        shot.seen, shot.before = cap.state, list(cap.sightings)
        shot.stages["place"] = time.perf_counter() - t0
        self.hub.set_status(placing=None)
        self.machine.go(back, shot=shot.n)

    def _place_and_see(self, expected, optional, want) -> Capture:
        """A capture of the balls ``expected`` (and ``optional``) in which ``want`` = (ball, xy)
        is seen at xy: checked by ``Watcher.settle``'s ``want``, so the ball being placed is not
        also required as a ball of the table (a person has it in hand for a while)."""
        ball = want[0]
        expected, optional = expected - {ball}, optional | {ball}
        while True:
            try:
                return self.watch.settle(self.n, (expected, optional, None), want=want)
            except NotPlaced:
                if self.p.hands.automatic:
                    raise
                self._checkpoint()          # a person is placing it: keep looking

    # ---- halting and resuming ----
    def _checkpoint(self) -> None:
        self.gate.checkpoint()

    def _halted(self, state: State, reason: str) -> None:
        """PAUSED/FAULTED until ``resume()`` recovers (``Gate.hold``); then the table is captured
        afresh (a person may have changed it), or a shot in flight observed."""
        if not self.gate.hold(state, reason, self.n, self._recover):
            return
        self._resumed = True
        self.capture = None
        self.watch.forget()
        observing = self.pending is not None and self.pending.observed is None
        self.machine.go(State.OBSERVING if observing else State.WAITING_FOR_REST, "resumed", shot=self.n)

    def _recover(self) -> None:
        """Reconnect the robot (home it after an e-stop) and settle a shot whose outcome was unknown."""
        act = self.p.actuator
        act.connect()
        st = act.status()
        if st.state == "ESTOP" or not st.homed:
            act.home()
        if self._unknown_seq is not None:
            struck = act.was_struck(self._unknown_seq)
            self._unknown_seq = None
            if not struck:
                self.pending = None

    def _resume_check(self) -> str | None:
        """On a resumed game: a strike the log does not hold (the robot's STATUS reports a later
        one than the last recorded) means a shot was played while nobody watched: pause."""
        if self.n == 0 or self.last_seq == 0:
            return None
        try:
            struck = self.p.actuator.status().struck
        except ActuatorError:
            return None
        if struck > self.last_seq:
            return (f"the robot struck shot {struck} after the last recorded one ({self.last_seq}) while "
                    f"the controller was down: check the table, then resume")
        return None

    # ---- publishing ----
    def _new_shot(self, who: str) -> gl.ShotInProgress:
        cap = self.capture
        shot = gl.ShotInProgress(self.n, self.game.shooter, who, self.game, cap.state, list(cap.sightings))
        shot.stages.update(self.watch.stage)
        shot.stages["judge"] = self._judge_s
        self._judge_s = 0.0
        return shot

    def _record(self, rec: dict) -> None:
        """``on_record`` first (the simulator's harness stores its table there), then the game
        log: a process killed in between leaves a log that resumes on a stored table."""
        if self.on_record is not None:
            self.on_record(rec)
        if self.writer is not None:
            self.writer.record(rec)
        self.hub.add_record(rec)

    def _on_capture(self, cap: Capture) -> None:
        self.capture = cap
        if self.writer is not None:            # every frame the capture was judged on (HIL replays them)
            for s in cap.sightings:
                self.writer.frame(s.frame.image, s.t, "rest", self.n)
        self._publish_status()

    def _on_transition(self, rec: dict) -> None:
        if self.writer is not None:
            self.writer.transition(rec)
        if rec["from"] is not None:
            self.hub.set_status(state=rec["to"], reason=rec["reason"] if rec["to"] in ("paused", "faulted") else None)

    def _on_sighting(self, s: Sighting) -> None:
        self.hub.set_frame(s.frame.image, s.observations, s.frame.index)

    def _publish_status(self) -> None:
        g = self.game
        self.hub.set_status(
            state=self.machine.state.value, reason=self.machine.reason, shot=self.n, players=list(self.names),
            backend=self.p.backend, run_dir=None if self.writer is None else str(self.writer.root),
            refused_for_limits=self.refused_for_limits,
            game={"shooter": g.shooter, "groups": None if g.groups is None else list(g.groups), "winner": g.winner,
                  "in_hand": g.in_hand.value,
                  "balls": gl.table_to_json(self.capture.state) if self.capture is not None else {}})

    def _publish_plan(self, shot: gl.ShotInProgress) -> None:
        d = shot.decision
        plan = gl.decision_to_json(d, shot.alternatives)
        plan["who"] = shot.who
        paths = {}
        sim = getattr(getattr(self.p.planner, "ctx", None), "sim", None)
        if sim is not None:
            try:
                start = place_cue(shot.seen, d.cue_pos) if d.cue_pos is not None else shot.seen
                paths = predicted_paths(sim, start, d.shot)
            except PhysicsInputError as e:
                log.warning("shot %d: no predicted paths for the dashboard (%s)", shot.n, e)
        plan["paths"] = paths_to_json(paths)
        self.hub.set_plan(plan, paths)
