"""Running the service in tests: a game built as ``cuerobot run`` builds it, on a thread, and the
checks every recorded game must pass (the log replays through the referee, every robot shot was
struck exactly once, every state transition is allowed)."""
from __future__ import annotations

import threading
from dataclasses import replace

from config.settings import load_settings
from config.sim import Faults, load_sim_settings
from controller.service.gamelog import call_from_json, facts_from_json, game_from_json
from controller.service.setup import build_game
from controller.service.states import TRANSITIONS, State
from hil.recording import read_run
from planner.rules.eightball import rule

FAST_DRIVER = {"reply_timeout_s": 0.1, "retries": 3, "reconnect_timeout_s": 2.0, "done_margin_s": 0.1}


def fast_timing():
    """The simulated robot's soak-profile timing (motions of a few ms)."""
    return load_sim_settings(profile="soak").timing


def make_game(run_dir, seed: int = 1, players=("greedy", "greedy"), faults: Faults | None = None, settings=None,
              **kw):
    settings = settings or load_settings()
    return build_game(settings, seed=seed, players=players, run_dir=run_dir, sim_timing=fast_timing(),
                      sim_faults=faults or Faults(), driver_overrides=FAST_DRIVER, **kw)


class Runner:
    """``service.run()`` on a thread; ``join`` returns the winner (re-raising what run raised)."""

    def __init__(self, service):
        self.service = service
        self.result: dict = {}
        self.thread = threading.Thread(target=self._target, daemon=True)
        self.thread.start()

    def _target(self):
        try:
            self.result["winner"] = self.service.run()
        except BaseException as e:
            self.result["error"] = e

    def wait(self, states, timeout: float = 120.0) -> State:
        """Block until the service is in one of ``states`` (fails after ``timeout`` s)."""
        if not self.service.machine.wait_for(states, timeout):
            raise AssertionError(f"service still {self.service.machine.state} after {timeout} s, "
                                 f"expected {states}")
        return self.service.machine.state

    def join(self, timeout: float = 240.0):
        self.thread.join(timeout)
        if self.thread.is_alive():
            self.service.stop()
            self.thread.join(30)
            raise AssertionError(f"the game did not end within {timeout} s (state {self.service.machine.state})")
        if "error" in self.result:
            raise self.result["error"]
        return self.result["winner"]


def check_recording(run_dir, pocket_ids, strikes=None) -> dict:
    """The checks every recorded game passes; returns the RunRecording's pieces for more.

    - game.jsonl: a start record, shot records numbered 0, 1, ... whose game_before is the
      previous game_after, each ruling reproduced by the referee from the facts ruled and the
      call, and, if finished, an end record naming the winner of the last game_after;
    - transitions.jsonl: every transition allowed by ``TRANSITIONS`` and chained from the
      start record of its process;
    - ``strikes`` (the simulated robot's strike log): each robot shot's seq struck exactly once
      with the command recorded, and no strike that no record holds.
    """
    rec = read_run(run_dir)
    shots = rec.shots
    assert rec.records[0]["type"] == "start"
    prev = game_from_json(rec.records[0]["game"])
    for k, s in enumerate(shots):
        assert s["n"] == k
        assert game_from_json(s["game_before"]) == prev
        after, out = rule(prev, call_from_json(s["call"]), facts_from_json(s["observed"]["facts_ruled"]),
                          pocket_ids=pocket_ids)
        assert after == game_from_json(s["game_after"])
        assert out.reason.value == s["ruling"]["reason"]
        prev = after
    if rec.end is not None:
        assert rec.end["winner"] == prev.winner is not None
    last = None
    for t in rec.transitions:
        if t["from"] is None:           # a process started or resumed the game
            last = t["to"]
            continue
        frm, to = State(t["from"]), State(t["to"])
        assert frm is to or to in TRANSITIONS[frm], t
        assert frm.value == last, t
        last = t["to"]
    if strikes is not None:
        robot = {s["sent"]["seq"]: s for s in shots if s["robot"]}
        seqs = [st.seq for st in strikes]
        assert len(seqs) == len(set(seqs)), f"a shot was struck twice: {seqs}"
        assert set(seqs) == set(robot), f"strikes {sorted(seqs)} vs recorded robot shots {sorted(robot)}"
        for st in strikes:
            sent = robot[st.seq]["sent"]["command"]
            got = dict(zip(("phi", "theta", "V", "a", "b", "x", "y"), st.command.values()))
            assert all(abs(sent[k] - got[k]) < 1e-9 for k in sent), (sent, got)
    return {"recording": rec, "shots": shots}


def faults_on(robot, **kw) -> None:
    """Switch the simulated robot's fault injection (config/sim.yaml ``faults``) to ``kw``."""
    robot.config = replace(robot.config, faults=Faults(**kw))
