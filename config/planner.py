"""``planner.yaml``: move generation, search and the difficulty grid (see that file for units)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from config.reader import Section, default_path, load_yaml
from planner.difficulty import GridSpec
from planner.movegen import MoveGenConfig
from planner.search.common import SearchConfig


@dataclass(frozen=True)
class PlannerSettings:
    """planner.yaml, read from ``path``."""
    movegen: MoveGenConfig
    search: SearchConfig
    grid: GridSpec
    path: str


def _pairs(sec: Section, key: str) -> tuple[tuple[float, float], ...]:
    raw = sec.raw(key, "a list of [a, b] pairs (fractions of R)")
    if not isinstance(raw, list) or not raw:
        raise sec.fail(key, "a non-empty list of [a, b] pairs (fractions of R)", raw)
    out = []
    for v in raw:
        if (not isinstance(v, list) or len(v) != 2 or any(isinstance(x, bool) or not isinstance(x, (int, float)) for x in v)
                or (v[0] ** 2 + v[1] ** 2) ** 0.5 > 0.8):
            raise sec.fail(key, "a non-empty list of [a, b] pairs, fractions of R with sqrt(a^2+b^2) <= 0.8", raw)
        out.append((float(v[0]), float(v[1])))
    return tuple(out)


def _floats(sec: Section, key: str, form: str) -> tuple[float, ...]:
    raw = sec.raw(key, form)
    if not isinstance(raw, list) or not raw or any(isinstance(x, bool) or not isinstance(x, (int, float)) or x < 0
                                                  for x in raw):
        raise sec.fail(key, form, raw)
    return tuple(float(x) for x in raw)


def parse_planner_settings(root: Section) -> PlannerSettings:
    rob, mg, ev, se, df = (root.section(k) for k in ("robot", "movegen", "evaluation", "search", "difficulty"))
    v_max = rob.number("v_max", "a cue speed in m/s (0 < V <= 12)", positive=True, hi=12.0)
    movegen = MoveGenConfig(
        speed_increments=_floats(mg, "speed_increments", "a non-empty list of speeds >= 0 in m/s"),
        spins=_pairs(mg, "spins"), v_max=v_max,
        fine_speed_increments=_floats(mg, "fine_speed_increments", "a non-empty list of speeds >= 0 in m/s"),
        fine_spins=_pairs(mg, "fine_spins"),
        theta_min=mg.number("theta_min", "an elevation in degrees in [0, 60]", lo=0.0, hi=60.0),
        theta_max=mg.number("theta_max", "an elevation in degrees in [0, 80]", lo=0.0, hi=80.0),
        alpha_max=mg.number("alpha_max", "a cut angle in degrees in (0, 89]", positive=True, hi=89.0),
        bank_discount=mg.number("bank_discount", "a number in [0, 1]", lo=0.0, hi=1.0),
        kick_discount=mg.number("kick_discount", "a number in [0, 1]", lo=0.0, hi=1.0),
        combo_discount=mg.number("combo_discount", "a number in [0, 1]", lo=0.0, hi=1.0))
    weights = _floats(ev, "weights", "a list of three weights >= 0")
    if len(weights) != 3:
        raise ev.fail("weights", "a list of three weights >= 0", list(weights))
    search = SearchConfig(
        t0=se.number("t0", "a probability in [0, 1]", lo=0.0, hi=1.0),
        t1=se.number("t1", "an evaluation >= 0", nonneg=True),
        samples=se.integer("samples", "an integer >= 1", lo=1),
        samples_deep=se.integer("samples_deep", "an integer >= 1", lo=1),
        ply=se.integer("ply", "an integer in 1..3", lo=1, hi=3),
        breadth=se.integer("breadth", "an integer >= 1", lo=1),
        breadth_deep=se.integer("breadth_deep", "an integer >= 1", lo=1),
        time_budget=se.number("time_budget", "a positive number of seconds", positive=True),
        cutoff_slack=se.number("cutoff_slack", "a number in [0, 1]", lo=0.0, hi=1.0),
        verify_top=se.integer("verify_top", "an integer >= 1", lo=1),
        verify_samples=se.integer("verify_samples", "an integer >= 0", lo=0),
        refine_calls=se.integer("refine_calls", "an integer >= 0", lo=0),
        safety_candidates=se.integer("safety_candidates", "an integer >= 0", lo=0),
        in_hand_grid=se.integer("in_hand_grid", "an integer >= 2", lo=2),
        weights=weights, win_value=ev.number("win_value", "a number >= 0", nonneg=True),
        miss_weight=se.number("miss_weight", "a number in [0, 1]", lo=0.0, hi=1.0),
        loss_value=se.number("loss_value", "a value >= 0", nonneg=True),
        run_success=se.number("run_success", "a probability in (0, 1]", positive=True, hi=1.0),
        inning_first=se.number("inning_first", "a probability in (0, 1]", positive=True, hi=1.0),
        v_break=rob.number("v_break", "a cue speed in m/s (0 < V <= 12)", positive=True, hi=12.0))
    grid = GridSpec(resolution=df.integer("resolution", "an integer >= 2", lo=2),
                    samples=df.integer("samples", "an integer >= 1", lo=1),
                    speed_increment=df.number("speed_increment", "a speed >= 0 in m/s", nonneg=True))
    if abs(grid.speed_increment - movegen.speed_increments[0]) > 1e-12:
        raise df.fail("speed_increment", f"equal to movegen.speed_increments[0] ({movegen.speed_increments[0]})",
                      grid.speed_increment)
    return PlannerSettings(movegen, search, grid, root.path)


def load_planner_settings(path: str | Path | None = None) -> PlannerSettings:
    """Read and validate ``config/planner.yaml`` (or ``path``); raises ConfigError naming file and key."""
    return parse_planner_settings(load_yaml(path or default_path("planner.yaml")))

