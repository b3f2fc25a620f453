"""The service's game loop with every part real but the pixels: the simulated robot on its pty,
the driver, the physics world, the planners, the observed referee and the referee; the camera
and vision are the doubles of service_fakes (the world's true positions with vision-sized errors),
so that whole games and their faults run in seconds. The rendered path is test_service_e2e.py."""
import threading
import time

import numpy as np
import pytest
from service_fakes import hide, install, merge
from service_harness import Runner, check_recording, faults_on, make_game

from controller.service.states import State
from controller.sim.backend import SimHands, truth_facts
from planner.state import TableState


@pytest.fixture
def fakes(monkeypatch):
    return install(monkeypatch)


def pocket_ids():
    from config.table import load_table_settings
    return load_table_settings().table.pocket_ids


def test_a_whole_game_is_recorded_and_every_shot_struck_once(tmp_path, fakes):
    from controller.service.bench import agreement

    game = make_game(tmp_path / "run", seed=3)
    lines = []
    game.service.out = lines.append
    try:
        winner = Runner(game.service).join()
        strikes = list(game.backend.world.strikes)
    finally:
        game.close()
    assert winner in (0, 1)
    got = check_recording(tmp_path / "run", pocket_ids(), strikes)
    shots = got["shots"]
    assert len(lines) == len(shots) and got["recording"].end["winner"] == winner
    assert any(s["robot"] for s in shots) and any(not s["robot"] for s in shots)
    # the robot's shots carry the plan with its alternatives, what was sent and the reply
    robot = [s for s in shots if s["robot"]]
    assert all(s["sent"]["seq"] == s["reply"]["seq"] for s in robot)
    assert all(set(s["stages_s"]) >= {"capture", "vision", "plan", "send"} for s in robot)
    assert all(s["latency_s"] > 0 for s in robot)
    # rest frames are written with their index
    frames = got["recording"].frames
    assert frames and all((tmp_path / "run" / "frames" / f["file"]).exists() for f in frames)
    # the camera's rulings agree with the simulator's event log
    truth = truth_facts(tmp_path / "run")
    ok = [a for a, _ in agreement(shots, [truth[i] for i in range(len(shots))], pocket_ids())]
    assert sum(ok) >= 0.9 * len(ok)


def test_same_seed_same_game(tmp_path, fakes):
    logs = []
    for k in range(2):
        game = make_game(tmp_path / f"run{k}", seed=11)
        try:
            Runner(game.service).join()
        finally:
            game.close()
        logs.append([(s["call"], s["ruling"]["reason"], s["ruling"]["pocketed"])
                     for s in check_recording(tmp_path / f"run{k}", pocket_ids())["shots"]])
    assert logs[0] == logs[1]


def test_missing_frames_pause_then_resume(tmp_path, fakes):
    game = make_game(tmp_path / "run", seed=5)
    cam = game.backend.camera
    try:
        run = Runner(game.service)
        run.wait(State.OBSERVING)
        cam.fail("missing", 1 + game.service.timing.recaptures)
        assert run.wait(State.PAUSED) is State.PAUSED
        assert "bad frames in a row" in game.service.status()["reason"]
        game.service.resume()
        run.join()
    finally:
        game.close()
    check_recording(tmp_path / "run", pocket_ids())


def test_stale_frames_are_recaptured_without_pausing(tmp_path, fakes):
    game = make_game(tmp_path / "run", seed=5)
    try:
        run = Runner(game.service)
        run.wait(State.OBSERVING)
        game.backend.camera.fail("stale", game.service.timing.recaptures)   # one fewer than a fault
        run.join()
    finally:
        game.close()
    assert game.service.watch.reader.bad_frames == game.service.timing.recaptures
    assert not any(t["to"] == "paused" for t in check_recording(tmp_path / "run", pocket_ids())["recording"].transitions)


def far_from_pockets(state, table) -> int:
    """The object ball farthest from every pocket."""
    d = np.hypot(*(state.pos[:, None] - table.pocket_center[None]).transpose(2, 0, 1)).min(1)
    d[state.ids == 0] = -1
    return int(state.ids[np.argmax(d)])


def closest_pair(state) -> tuple[int, int, float]:
    d = np.hypot(*(state.pos[:, None] - state.pos[None]).transpose(2, 0, 1))
    d[np.eye(len(d), dtype=bool)] = np.inf
    d[state.ids == 0] = np.inf
    d[:, state.ids == 0] = np.inf
    i, j = np.unravel_index(np.argmin(d), d.shape)
    return int(state.ids[i]), int(state.ids[j]), float(d[i, j])


@pytest.mark.parametrize("fault, words", [("vanish", "vanished away from any pocket"),
                                          ("merge", "may be merged into one detection")])
def test_inconsistent_table_pauses_with_the_reason_and_never_plans(tmp_path, fakes, fault, words):
    game = make_game(tmp_path / "run", seed=7)
    vision, table = fakes[-1], game.service.p.table
    plans = hook_planning(game, lambda k: None)
    applied = []
    on = game.service.machine._on

    def at_a_capture_after_a_shot(rec):
        """Once, as a capture after a shot begins: hide a ball, or merge the two closest."""
        on(rec)
        if applied or rec["to"] != "capturing" or game.service.pending is None or game.service.n < 2:
            return
        balls = game.service.watch.recent[-1].balls
        state = TableState.from_dict(balls)
        if fault == "vanish":
            vision.edit(hide(far_from_pockets(state, table)), 10_000)
        else:
            a, b, d = closest_pair(state)
            if d > 0.1:                     # merged detections come from balls close together
                return
            vision.edit(merge(a, b), 10_000)
        applied.append(list(plans))

    game.service.machine._on = at_a_capture_after_a_shot
    try:
        run = Runner(game.service)
        run.wait(State.PAUSED)
        assert words in game.service.status()["reason"]
        assert plans == applied[0]          # never planned from the inconsistent table
        vision._edits.clear()
        game.service.resume()
        run.join()
    finally:
        game.close()
    check_recording(tmp_path / "run", pocket_ids())


def hook_planning(game, fn):
    """Call fn(k) inside the robot's k-th decision (k = 0, 1, ...): at a known point of the loop.
    Returns the one-element list counting the decisions."""
    choose, calls = game.service.p.planner.choose, [0]

    def wrapped(*a):
        fn(calls[0])
        calls[0] += 1
        return choose(*a)
    game.service.p.planner.choose = wrapped
    return calls


def play_through_faults(game, run, until_faults: int = 1, timeout: float = 180.0):
    """Resume every FAULTED the service reaches (at most ``until_faults``) and play to the end."""
    seen = []
    while True:
        state = run.wait((State.FAULTED, State.GAME_OVER), timeout)
        if state is State.GAME_OVER:
            return seen
        seen.append(game.service.status()["fault"])
        assert len(seen) <= until_faults, seen
        game.service.resume()
        run.wait((State.WAITING_FOR_REST, State.OBSERVING, State.GAME_OVER), timeout)


def play_with_a_fault(run_dir, inject, until_faults: int = 1):
    """A game (seed 5) in which ``inject(game)`` is called inside the robot's second decision,
    every fault resumed, played to the end and its recording checked. Returns (faults seen,
    the game, the shot records)."""
    game = make_game(run_dir, seed=5)
    hook_planning(game, lambda k: k == 1 and inject(game))
    try:
        run = Runner(game.service)
        faults = play_through_faults(game, run, until_faults)
        run.join()
        strikes = list(game.backend.world.strikes)
    finally:
        game.close()
    return faults, game, check_recording(run_dir, pocket_ids(), strikes)["shots"]


def fault_once(**kw):
    """An injection that switches the simulated robot's faults to ``kw`` for the shot in hand
    and off again at the next decision."""
    def inject(game):
        robot = game.backend.robot
        faults_on(robot, **kw)
        hook_planning(game, lambda k: k == 0 and faults_on(robot))
    return inject


def test_robot_silent_during_a_shot_faults_then_resumes(tmp_path, fakes):
    faults, _, _ = play_with_a_fault(tmp_path / "run", lambda game: game.backend.robot.go_silent(3.0))
    assert len(faults) == 1 and "robot:" in faults[0]


def test_robot_err_estopped_faults_and_resume_homes_it(tmp_path, fakes):
    faults, _, _ = play_with_a_fault(tmp_path / "run", lambda game: game.backend.actuator.estop())
    assert len(faults) == 1 and "RobotEstopped" in faults[0] and "ERR 14" in faults[0]


def test_dashboard_estop_stops_before_the_next_shot(tmp_path, fakes):
    faults, _, _ = play_with_a_fault(tmp_path / "run", lambda game: game.service.estop())
    assert len(faults) == 1 and "e-stop from the dashboard" in faults[0]


def test_robot_reset_before_the_strike_faults_and_the_shot_is_sent_once(tmp_path, fakes):
    faults, game, _ = play_with_a_fault(tmp_path / "run", fault_once(reset=1.0, reset_when="before_strike"))
    assert len(faults) == 1 and "ShotNotExecuted" in faults[0]
    assert game.backend.robot.counts["reset"] == 1


@pytest.mark.parametrize("kind", ["disconnect", "reset"])
def test_link_lost_after_the_strike_is_recovered_and_not_repeated(tmp_path, fakes, kind):
    faults, game, shots = play_with_a_fault(tmp_path / "run", fault_once(**{kind: 1.0, f"{kind}_when": "after_strike"}),
                                            until_faults=0)
    assert faults == [] and game.backend.robot.counts[kind] == 1
    assert sum(bool(s["reply"] and s["reply"]["recovered"]) for s in shots) == 1


def test_pause_takes_effect_before_the_next_shot(tmp_path, fakes):
    game = make_game(tmp_path / "run", seed=5)
    sent = []
    hook_planning(game, lambda k: k == 1 and (game.service.pause(), sent.append(len(game.backend.world.strikes))))
    try:
        run = Runner(game.service)
        run.wait(State.PAUSED)
        assert game.service.status()["reason"] == "paused from the dashboard"
        assert len(game.backend.world.strikes) == sent[0]          # the planned shot was not sent
        game.service.resume()
        run.join()
    finally:
        game.close()
    check_recording(tmp_path / "run", pocket_ids())


class Person(threading.Thread):
    """Someone at the simulated table, as on the hardware backend: puts the ball the dashboard
    asks for where it asks (lifting it off the table first), and plays the opponent's shots
    (greedy's choice, struck straight into the world) when the service waits for them."""

    def __init__(self, service, world):
        super().__init__(daemon=True)
        from planner.decision import make_planner
        self.service, self.world = service, world
        self.planner = make_planner("greedy", "high", 3)
        self.shots = 0
        self.stop = threading.Event()
        self.error = None

    def lift(self, ball):
        balls = self.world.snapshot().state.to_dict()
        balls.pop(ball, None)
        self.world.set_state(TableState.from_dict(balls))
        time.sleep(0.05)

    def _already_there(self, ball: int, xy) -> bool:
        """A person leaves a ball that already lies where the dashboard asks (within 1 mm)."""
        state = self.world.snapshot().state
        return state.has(ball) and float(np.hypot(*(state.position(ball) - np.asarray(xy)))) <= 1e-3

    def _waiting_for(self, turn: int) -> bool:
        st = self.service.status()
        return bool(st.get("waiting")) and st["shot"] == turn

    def run(self):
        try:
            self.play()
        except BaseException as e:          # shown by the test
            self.error = e

    def play(self):
        while not self.stop.is_set():
            st = self.service.status()
            if st.get("placing"):
                ball, xy = st["placing"]["ball"], tuple(st["placing"]["target"])
                if not self._already_there(ball, xy):     # else the service may be striking it by now
                    self.lift(ball)
                    SimHands(self.world).place(ball, xy)
                while self.service.status().get("placing") and not self.stop.is_set():
                    time.sleep(0.01)
            elif st.get("waiting"):
                turn = st["shot"]
                game = self.service.game
                d = self.planner.choose(self.world.snapshot().state, game)
                if d.cue_pos is not None:
                    self.lift(0)
                    self.world.place_cue(d.cue_pos)
                    time.sleep(0.2)             # the dashboard shows the placement seen
                self.world.play(d.shot)
                self.shots += 1
                while self._waiting_for(turn) and not self.stop.is_set():
                    time.sleep(0.01)
            time.sleep(0.01)


def test_a_person_opponent_and_hands_as_on_the_hardware(tmp_path, fakes):
    from controller.service.opponent import PersonHands, PersonOpponent

    game = make_game(tmp_path / "run", seed=6)
    game.service.p.opponent, game.service.p.hands = PersonOpponent(), PersonHands()
    person = Person(game.service, game.backend.world)
    person.start()
    try:
        run = Runner(game.service)
        deadline = time.monotonic() + 240.0
        while run.thread.is_alive() and person.is_alive() and time.monotonic() < deadline:
            run.thread.join(0.1)
        assert person.error is None, repr(person.error)
        assert not run.thread.is_alive() or not person.is_alive(), f"the game did not end: {game.service.status()}"
        winner = run.join()
    finally:
        person.stop.set()
        game.close()
    assert person.error is None, person.error
    shots = check_recording(tmp_path / "run", pocket_ids())["shots"]
    theirs = [s for s in shots if not s["robot"]]
    assert winner in (0, 1) and len(theirs) == person.shots > 0
    assert all(s["plan"] is None and s["sent"] is None for s in theirs)     # a person announces nothing
