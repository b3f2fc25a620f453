"""The service's pieces on their own: the state machine, the consistency of a capture, fresh
frames, the run directory's files, the game log's JSON forms."""
import json
import os

import numpy as np
import pytest

from config.service import load_service_settings
from config.table import load_table_settings
from controller.camera import CameraError, CameraFrame
from controller.service.gamelog import facts_from_json, facts_to_json, game_from_json, game_to_json
from controller.service.observe import (
    CameraFault,
    FrameReader,
    Sighting,
    anchored_labels,
    check_capture,
    from_cue_seen,
    restable,
)
from controller.service.opponent import inferred_call
from controller.service.setup import resume_state
from controller.service.states import TRANSITIONS, State, StateMachine
from hil.recording import FORMAT_VERSION, RunWriter, read_jsonl, read_run, repair_jsonl
from planner.rules.facts import ShotFacts
from planner.rules.game import CalledShot, GameState, InHand
from planner.state import TableState
from vision.pipeline import BallObservation

TABLE = load_table_settings()
T, R = TABLE.table, TABLE.physics.R
TIMING = load_service_settings().camera


# ---- states ---------------------------------------------------------------------------------
def test_every_transition_is_logged_and_illegal_ones_refused():
    log = []
    m = StateMachine(log.append)
    m.go(State.CAPTURING, shot=0)
    m.go(State.DETECTING, shot=0)
    m.go(State.PAUSED, "camera: no frame", shot=0)
    assert m.state is State.PAUSED and m.reason == "camera: no frame"
    assert [(r["from"], r["to"]) for r in log] == [("waiting_for_rest", "capturing"), ("capturing", "detecting"),
                                                  ("detecting", "paused")]
    assert log[-1]["reason"] == "camera: no frame"
    with pytest.raises(RuntimeError, match="no transition from paused to planning"):
        m.go(State.PLANNING)
    m.go(State.WAITING_FOR_REST, "resumed")
    assert m.reason is None and m.wait_for(State.WAITING_FOR_REST, 0)


def test_game_over_is_final_and_every_working_state_can_stop():
    assert TRANSITIONS[State.GAME_OVER] == frozenset()
    for s in State:
        if s not in (State.GAME_OVER, State.PAUSED, State.FAULTED):
            assert {State.PAUSED, State.FAULTED} <= TRANSITIONS[s]
    # EXECUTING follows the plan (or the capture that confirms a ball in hand was placed)
    assert [s for s in State if State.EXECUTING in TRANSITIONS[s]] == [State.DETECTING, State.PLANNING]


# ---- captures -------------------------------------------------------------------------------
def sighting(balls: dict, t: float = 0.0, unknown=()) -> Sighting:
    obs = [BallObservation(0, 0, 1, str(b), 1.0, x, y, b) for b, (x, y) in balls.items()]
    obs += [BallObservation(0, 0, 1, "solid", 0.4, x, y, None) for x, y in unknown]
    from controller.service.observe import sight

    class V:
        def observe(self, image):
            return obs
    return sight(CameraFrame(np.zeros((1, 1, 3), np.uint8), t, 0), V())


BALLS = {0: (0.5, 0.5), 1: (0.3, 1.5), 2: (0.8, 1.8)}


def test_a_consistent_capture_gives_the_mean_positions():
    frames = [sighting({b: (x + 1e-4 * k, y) for b, (x, y) in BALLS.items()}, k) for k in range(3)]
    cap = check_capture(frames, frozenset(BALLS), T, R)
    assert cap.ok and np.allclose(cap.state.position(1), (0.3001, 1.5))


@pytest.mark.parametrize("seen, last, words", [
    ({0: (0.5, 0.5), 1: (0.3, 1.5)}, {2: (0.8, 1.8)}, "ball 2 vanished away from any pocket"),
    ({0: (0.5, 0.5), 1: (0.3, 1.5)}, {2: (0.06, 2.2)}, "ball 2 vanished at the mouth of pocket lt"),
    ({0: (0.5, 0.5), 1: (0.3, 1.5), 2: (0.8, 1.8 + R)}, {3: (0.8, 1.8 + 2 * R)}, "may be merged"),
    ({**BALLS, 9: (0.2, 0.2)}, {}, "ball 9 is on the table but out of play"),
    ({0: (0.5, 0.5), 1: (0.3, 1.5), 2: (0.3, 1.5 + R)}, {}, "overlap"),
    ({0: (0.5, 0.5), 1: (0.3, 1.5)}, {}, "ball 2 is missing"),
])
def test_an_inconsistent_capture_says_what_is_wrong(seen, last, words):
    expected = frozenset(BALLS) | frozenset(last)
    cap = check_capture([sighting(seen, k) for k in range(3)], expected, T, R, last_seen=last)
    assert not cap.ok and cap.state is None
    assert any(words in p for p in cap.problems), cap.problems


def test_a_cue_ball_put_down_during_the_capture_is_read_from_the_first_frame_that_shows_it():
    """A person puts the cue ball down after the capture's second frame: the capture counts it
    (3 of 5 frames), so the shot that follows is read from the first rest frame that shows it; read
    from the capture's first frame, the observed referee cannot start."""
    from controller.observed_referee import Snapshot, observe_shot

    others = {b: xy for b, xy in BALLS.items() if b != 0}
    rest = [sighting(others, k / 30) for k in range(2)] + [sighting(BALLS, k / 30) for k in range(2, 5)]
    cap = check_capture(rest, frozenset(others), T, R, optional=frozenset({0}))
    assert cap.ok and cap.state.has(0)
    rolling = [sighting({**others, 0: (0.5, 0.5 + 0.02 * k)}, 0.2 + k / 30) for k in range(1, 8)]

    def snaps(frames):
        return [Snapshot(s.t, dict(s.balls)) for s in frames]
    with pytest.raises(ValueError, match=r"cue ball \(id 0\) is not seen in the first frame"):
        observe_shot(snaps(rest + rolling), T, R)
    assert from_cue_seen(rest) == rest[2:] and from_cue_seen(rest[:2]) == []
    seen = observe_shot(snaps(from_cue_seen(rest) + rolling), T, R)
    assert seen.facts.first_contact is None and not seen.vanished


def test_unidentified_and_doubly_seen_balls_are_problems():
    frames = [sighting(BALLS, k, unknown=[(0.9, 0.9)]) for k in range(3)]
    assert any("could not be identified" in p for p in check_capture(frames, frozenset(BALLS), T, R).problems)


def test_the_cue_ball_in_hand_may_be_missing():
    balls = {1: (0.3, 1.5), 2: (0.8, 1.8)}
    cap = check_capture([sighting(balls, k) for k in range(3)], frozenset(balls), T, R, optional=frozenset({0}))
    assert cap.ok


def test_restable_pushes_apart_what_vision_puts_a_little_into_each_other():
    s = TableState.from_dict({1: (0.5, 1.0), 2: (0.5, 1.0 + 2 * R - 3e-4), 3: (R - 2e-4, 0.7)})
    fixed, problems = restable(s, T, R)
    assert problems == []
    assert np.hypot(*(fixed.position(1) - fixed.position(2))) >= 2 * R
    assert fixed.position(3)[0] >= R
    assert np.abs(fixed.pos - s.pos).max() < 3e-4
    from planner.physics.engine import Simulator
    Simulator(T, TABLE.physics).check_state(fixed)       # the planner's engine accepts it
    _, problems = restable(TableState.from_dict({1: (0.5, 1.0), 2: (0.5, 1.0 + R)}), T, R)
    assert any("detection error" in p for p in problems)


# ---- frames ---------------------------------------------------------------------------------
class Cam:
    fps = 30.0

    def __init__(self, script):
        self.script, self.k = list(script), 0

    def read(self):
        item = self.script.pop(0)
        if item is None:
            raise CameraError("unplugged")
        self.k += 1
        return CameraFrame(np.zeros((1, 1, 3), np.uint8), item, self.k)

    def close(self):
        pass


class Clock:
    def __init__(self):
        self.t = 100.0

    def now(self):
        return self.t


class NoBalls:
    def observe(self, image):
        return []


def test_a_resting_ball_keeps_its_id_whatever_vision_calls_it():
    anchors = {12: (0.3107, 1.8577), 4: (0.50, 1.00), 0: (0.90, 0.40)}
    # 12 rests with its band out of sight: vision calls it the cue ball, while the real cue ball,
    # struck, is seen far from its spot (so it left it), and ball 4 was missed in this frame
    pts = np.array([[0.3109, 1.8575], [0.70, 0.60]])
    labels = anchored_labels(pts, [0, None], anchors)
    assert labels == [12, None]
    assert anchors == {12: (0.3107, 1.8577)}          # 4 and 0 have left their spots (or were missed)
    # two detections called 12 by vision: the one on the spot is 12, the other loses the id
    assert anchored_labels(np.array([[0.9, 0.9], [0.3105, 1.8579]]), [12, 3], anchors) == [None, 12]
    # a ball pushed more than the gate off its spot is no longer anchored
    assert anchored_labels(np.array([[0.3207, 1.8577]]), [9], anchors) == [9] and anchors == {}


def test_bad_frames_are_retried_then_a_camera_fault():
    good = FrameReader(Cam([None, 90.0, 100.0]), Clock(), NoBalls(), TIMING)   # missing, stale, good
    assert good.next().t == 100.0 and good.bad_frames == 2
    r = FrameReader(Cam([100.0, 99.0, None, None, None, 100.0]), Clock(), NoBalls(), TIMING)
    r.next()
    with pytest.raises(CameraFault, match=r"4 bad frames in a row: frame \d+ at t = 99.000 s is not after"):
        r.next()


# ---- the run directory ----------------------------------------------------------------------
def test_a_torn_last_line_is_skipped_and_cut_before_appending(tmp_path):
    w = RunWriter(tmp_path)
    w.record({"type": "start", "seed": 1})
    w.record({"type": "shot", "n": 0})
    w.close()
    with open(tmp_path / "game.jsonl", "ab") as f:
        f.write(b'{"type": "shot", "n": 1, "tab')          # a kill -9 in the middle of a write
    assert [r["type"] for r in read_jsonl(tmp_path / "game.jsonl")] == ["start", "shot"]
    w = RunWriter(tmp_path, resume=True)
    w.record({"type": "resume"})
    w.close()
    lines = (tmp_path / "game.jsonl").read_text().splitlines()
    assert [json.loads(x)["type"] for x in lines] == ["start", "shot", "resume"]
    assert repair_jsonl(tmp_path / "game.jsonl") == 0
    (tmp_path / "bad.jsonl").write_text('{"a": 1}\nnot json\n{"b": 2}\n')
    with pytest.raises(ValueError, match="line 2 is not JSON"):
        read_jsonl(tmp_path / "bad.jsonl")


def test_frames_are_numbered_pngs_with_an_index(tmp_path):
    w = RunWriter(tmp_path)
    img = np.full((8, 12, 3), 90, np.uint8)
    assert [w.frame(img, t, "rest", 0) for t in (0.5, 0.6)] == [0, 1]
    w.snapshot_config({"service.yaml": load_service_settings().path}, {"seed": 3})
    w.close()
    assert RunWriter(tmp_path, resume=True).next_frame == 2
    rec = read_run(tmp_path)
    assert [f["t"] for f in rec.frames] == [0.5, 0.6] and rec.meta == {"seed": 3, "format": FORMAT_VERSION}
    assert rec.frame_path(1).exists() and (rec.config_dir / "service.yaml").exists()
    assert not [p for p in os.listdir(tmp_path / "frames") if p.startswith(".")]


def test_resume_state_reads_the_last_shot():
    g0 = GameState.new_rack(0)
    g1 = GameState(frozenset(range(1, 16)) - {8}, 0, None, False, InHand.NONE, None, 1)

    class Rec:
        root = "runs/x"
        records = [{"type": "start", "seed": 9, "game": game_to_json(g0)},
                   {"type": "shot", "n": 0, "game_after": game_to_json(g1), "ruling": {"spotted": [8]},
                    "sent": {"seq": 4}}]
        shots = records[1:]
        end = None
    r = resume_state(Rec)
    assert (r.game, r.shots, r.pending_spot, r.last_seq, r.seed) == (g1, 1, (8,), 4, 9)


# ---- the log's forms ------------------------------------------------------------------------
def test_game_and_facts_survive_json():
    g = GameState(frozenset({1, 8, 12}), 1, ("stripe", "solid"), False, InHand.ANYWHERE, None, 17)
    assert game_from_json(json.loads(json.dumps(game_to_json(g)))) == g
    f = ShotFacts(3, True, frozenset({3, 9}), ((3, "lb"), (0, "rc")), frozenset())
    assert facts_from_json(json.loads(json.dumps(facts_to_json(f)))) == f


def test_a_persons_call_is_inferred_from_what_dropped():
    g = GameState(frozenset({1, 2, 9, 8}), 0, ("solid", "stripe"), False, InHand.NONE, None, 5)
    drop = ShotFacts(9, True, frozenset(), ((9, "lb"), (2, "rc")), frozenset())
    assert inferred_call(g, drop) == CalledShot.shot(2, "rc")
    assert inferred_call(g, ShotFacts(1, True, frozenset(), (), frozenset())) == CalledShot.safe()
    assert inferred_call(GameState.new_rack(0), drop) is None
