"""``cuerobot bench physics``: engine throughput, with an uncompiled baseline measured in the same run.

Figures (after JIT warm-up):
- two_ball_shots_per_s: two-ball straight-in shots per second through the batch entry point
  restricted to one thread (one core);
- two_ball_batch_shots_per_s: the same on all cores;
- single_call_shots_per_s: one ``Simulator.simulate`` call per shot (validation, event log);
- break_ms_median / break_ms_max: a full 16-ball break (``simulate``) over N racks, and the
  events per break;
- cold_start_s: a new process importing the engine and simulating its first shot, with the
  compiled kernels loaded from numba's on-disk cache;
- baseline: the identical event loop interpreted by Python (NUMBA_DISABLE_JIT=1, in a child
  process), two-ball shots per second, and the compiled/interpreted ratio.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numba
import numpy as np

from config.table import load_table_settings
from planner.physics.engine import Simulator
from planner.rack import rack_8ball
from planner.shot import ShotParams
from planner.state import TableState


def straight_in_setup(sim: Simulator) -> tuple[TableState, np.ndarray]:
    """Cue ball and object ball 1 lined up on the lower-left corner pocket, and a straight-in
    shot at 2 m/s with a little draw: (state, shot row [phi, theta, V, a, b])."""
    t = sim.table
    pocket = t.pocket_center[t.pocket_index("lb")]
    obj = np.array([0.35, 0.45])
    u = (obj - pocket) / np.linalg.norm(obj - pocket)
    cue = obj + 0.5 * u
    phi = np.degrees(np.arctan2(-u[1], -u[0]))
    state = TableState(np.array([0, 1]), np.array([cue, obj]))
    return state, np.array([phi, 0.0, 2.0, 0.0, -0.2 * sim.params.R])


def _rate(fn, n: int) -> float:
    t0 = time.perf_counter()
    fn()
    return n / (time.perf_counter() - t0)


def _interpreted_rate(n: int) -> float:
    """Shots per second of the same loop without compilation (child process)."""
    code = ("import time, numpy as np\n"
            "from planner.physics.bench import straight_in_setup\n"
            "from planner.physics.engine import Simulator\n"
            "from config.table import load_table_settings\n"
            "c = load_table_settings(); sim = Simulator(c.table, c.physics)\n"
            "st, row = straight_in_setup(sim); shots = np.tile(row, (%d, 1))\n"
            "t0 = time.perf_counter(); sim.simulate_batch(st, shots)\n"
            "print(%d / (time.perf_counter() - t0))\n" % (n, n))
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def _cold_start_s() -> float:
    """Seconds for a fresh process to import the engine and finish its first shot (JIT cache warm)."""
    code = ("import time; t0 = time.perf_counter()\n"
            "from planner.physics.bench import straight_in_setup\n"
            "from planner.physics.engine import Simulator\n"
            "from planner.shot import ShotParams\n"
            "from config.table import load_table_settings\n"
            "c = load_table_settings(); sim = Simulator(c.table, c.physics)\n"
            "st, row = straight_in_setup(sim); sim.simulate(st, ShotParams.from_array(row))\n"
            "print(time.perf_counter() - t0)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def measure(racks: int = 100, shots: int = 200_000) -> dict:
    cfg = load_table_settings()
    sim = Simulator(cfg.table, cfg.physics)
    state, row = straight_in_setup(sim)
    batch = np.tile(row, (shots, 1))
    sim.simulate_batch(state, batch[:100])         # warm-up (JIT load)
    sim.simulate(state, ShotParams.from_array(row))
    cores = numba.get_num_threads()
    numba.set_num_threads(1)
    one = _rate(lambda: sim.simulate_batch(state, batch), shots)
    numba.set_num_threads(cores)
    allc = _rate(lambda: sim.simulate_batch(state, batch), shots)
    single_n = 5000
    shot = ShotParams.from_array(row)
    single = _rate(lambda: [sim.simulate(state, shot) for _ in range(single_n)], single_n)
    ev_two = int(sim.simulate_batch(state, batch[:1]).n_events[0])
    rng = np.random.default_rng(2026)
    times, events = [], []
    sim.simulate(rack_8ball(cfg.table, cfg.physics.R, rng), ShotParams(90.0, 0.0, 7.0))
    for _ in range(racks):
        st = rack_8ball(cfg.table, cfg.physics.R, rng)
        brk = ShotParams(phi=90.0 + rng.uniform(-0.5, 0.5), theta=0.0, V=rng.uniform(6.0, 8.0),
                         b=rng.uniform(-0.2, 0.2) * cfg.physics.R)
        t0 = time.perf_counter()
        res = sim.simulate(st, brk)
        times.append((time.perf_counter() - t0) * 1000)
        events.append(len(res.events))
    base = _interpreted_rate(20)
    return {
        "cold_start_s": _cold_start_s(),
        "two_ball_shots_per_s": one,
        "two_ball_batch_shots_per_s": allc,
        "single_call_shots_per_s": single,
        "two_ball_events_per_shot": ev_two,
        "break_ms_median": float(np.median(times)),
        "break_ms_max": float(np.max(times)),
        "break_events_median": float(np.median(events)),
        "break_events_max": int(np.max(events)),
        "racks": racks,
        "cores": cores,
        "baseline_interpreted_shots_per_s": base,
        "ratio_vs_baseline": one / base,
    }


TARGETS = {"two_ball_shots_per_s": (">=", 100_000.0),   # one core, batch entry [shots/s]
           "break_ms_median": ("<=", 2.0)}                 # 16-ball break [ms]


def targets(r: dict) -> dict:
    """Each target of ``TARGETS`` against the measured figures ``r``:
    {name: {"op", "target", "value", "met"}}."""
    out = {}
    for name, (op, target) in TARGETS.items():
        v = r[name]
        out[name] = {"op": op, "target": target, "value": v, "met": v >= target if op == ">=" else v <= target}
    return out


def _mark(t: dict) -> str:
    return f"target {t['op']} {t['target']:,g}: {'met' if t['met'] else 'NOT MET'}"


def run_physics_bench(as_json: bool = False, racks: int = 100) -> int:
    r = measure(racks=racks)
    tg = targets(r)
    if as_json:
        print(json.dumps({**r, "targets": tg}, allow_nan=False))
        return 0
    print(f"two-ball straight-in, 1 core (batch entry): {r['two_ball_shots_per_s']:,.0f} shots/s "
          f"({r['two_ball_events_per_shot']} events/shot)  "
          f"(baseline same loop uncompiled {r['baseline_interpreted_shots_per_s']:,.1f} shots/s, "
          f"x{r['ratio_vs_baseline']:,.0f}; {_mark(tg['two_ball_shots_per_s'])})")
    print(f"two-ball straight-in, {r['cores']} cores (batch entry): {r['two_ball_batch_shots_per_s']:,.0f} shots/s")
    print(f"two-ball straight-in, one simulate() call per shot: {r['single_call_shots_per_s']:,.0f} shots/s")
    print(f"16-ball break over {r['racks']} racks: median {r['break_ms_median']:.3f} ms, "
          f"max {r['break_ms_max']:.3f} ms ({_mark(tg['break_ms_median'])}); events median "
          f"{r['break_events_median']:.0f}, max {r['break_events_max']}")
    print(f"second-process start (import + first shot, JIT cache on disk): {r['cold_start_s']:.3f} s")
    return 0
