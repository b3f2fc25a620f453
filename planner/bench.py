"""``cuerobot bench planner``: decision time of Monte-Carlo search (15 samples, 2 ply, from
config/planner.yaml) over a fixed set of mid-game states, with greedy search's decision time on
the same states as the baseline measured in the same run, and their ratio.

The states: racks (seeds 0..n-1) broken by the planner's break shot under E_high noise, the cue
ball put back on the head spot if it dropped; open table, no ball in hand.
"""
from __future__ import annotations

import json
import time

import numpy as np

from planner.decision import make_planner, place_cue
from planner.execution import executable
from planner.physics.engine import Simulator
from planner.rack import rack_8ball
from planner.rules.game import GameState
from planner.shot import E_HIGH, ShotParams
from planner.state import CUE, TableState


def mid_game_states(planner, n: int) -> list[tuple[TableState, GameState]]:
    """n deterministic open-table states just after a break (seeds 0..n-1)."""
    t, R = planner.table, planner.params.R
    sim = Simulator(t, planner.params)
    out = []
    for seed in range(n):
        rng = np.random.default_rng(seed)
        state = rack_8ball(t, R, rng)
        d = planner.choose(state, GameState.new_rack(0))
        state = place_cue(state, d.cue_pos)
        shot = executable(E_HIGH.perturb(d.shot, rng, 1), R)[0]
        after = sim.simulate(state, ShotParams.from_array(shot)).state_after()
        if not after.has(CUE):
            after = place_cue(after, t.head_spot)
        balls = frozenset(int(b) for b in after.ids if b != CUE)
        if 8 not in balls or len(balls) < 2:
            continue
        out.append((after, GameState(balls, 0)))
    return out


def run_planner_bench(n_states: int = 10, as_json: bool = False, noise: str = "high") -> int:
    mc = make_planner("mc", noise, seed=0)
    greedy = make_planner("greedy", noise, seed=0)
    states = mid_game_states(greedy, n_states)
    mc.choose(*states[0])                       # JIT and cache warm-up
    times = {"mc": [], "greedy": []}
    for state, game in states:
        for name, pl in (("mc", mc), ("greedy", greedy)):
            t0 = time.perf_counter()
            pl.choose(state, game)
            times[name].append(time.perf_counter() - t0)
    r = {"states": len(states), "samples": mc.cfg.search.samples, "ply": mc.cfg.search.ply,
         "mc_median_s": float(np.median(times["mc"])), "mc_max_s": float(np.max(times["mc"])),
         "greedy_median_s": float(np.median(times["greedy"])), "greedy_max_s": float(np.max(times["greedy"]))}
    r["ratio_mc_over_greedy"] = r["mc_median_s"] / max(r["greedy_median_s"], 1e-12)
    if as_json:
        print(json.dumps(r))
    else:
        print(f"MC ({r['samples']} samples, {r['ply']} ply) over {r['states']} mid-game states: "
              f"median {r['mc_median_s']:.3f} s, max {r['mc_max_s']:.3f} s  "
              f"(baseline greedy: median {r['greedy_median_s']:.4f} s, max {r['greedy_max_s']:.4f} s; "
              f"MC/greedy x{r['ratio_mc_over_greedy']:.1f}; PickPocket's MC took ~60 s)")
    return 0
