"""``planner.yaml``: move generation, search and the difficulty grid (see that file for units)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from config.reader import ConfigError, Section, default_path, load_yaml
from planner.difficulty import GridSpec
from planner.movegen import MoveGenConfig
from planner.safety import FOUL_SPEED
from planner.search.common import SearchConfig
from planner.shot import ShotLimits


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
        wall_cap_s=se.number("wall_cap_s", "a positive number of seconds", positive=True),
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


def limit_problems(planner: PlannerSettings, limits: ShotLimits, source: str, R: float) -> list[str]:
    """What in ``planner`` asks the robot for more than ``limits``, one sentence per key (empty
    when everything fits): ``robot.v_max`` and ``robot.v_break`` inside limits.V; every
    ``movegen.spins`` and ``movegen.fine_spins`` pair (fractions of R, R [m] the ball radius of
    config/table.yaml) inside limits.a and limits.b; ``movegen.theta_min .. theta_max`` inside
    limits.theta; and the deliberate foul's speed (planner.safety.FOUL_SPEED, the slowest fixed
    speed the planner plays) not below limits.V.
    ``source`` names where the limits come from (a robot.yaml path, or "the robot's HELLO
    (firmware X)")."""
    out = []
    vlo, vhi = limits.V
    for key, v in (("robot.v_max", planner.movegen.v_max), ("robot.v_break", planner.search.v_break)):
        if not vlo <= v <= vhi:
            out.append(f"{key} ({v:g} m/s) is outside the robot's V limits {vlo:g} .. {vhi:g} m/s from {source}")
    if FOUL_SPEED < vlo:
        out.append(f"the robot's V limits {vlo:g} .. {vhi:g} m/s from {source} do not admit the planner's "
                   f"slowest shot, the deliberate foul at {FOUL_SPEED:g} m/s (planner/safety.py FOUL_SPEED)")
    for key, pairs in (("movegen.spins", planner.movegen.spins), ("movegen.fine_spins", planner.movegen.fine_spins)):
        for a, b in pairs:
            for name, frac in (("a", a), ("b", b)):
                lo, hi = getattr(limits, name)
                if not lo <= frac * R <= hi:
                    out.append(f"{key} [{a:g}, {b:g}] asks for a tip offset {name} = {frac:g} R = "
                               f"{frac * R * 1000:.1f} mm, outside the robot's {name} limits "
                               f"{lo * 1000:.1f} .. {hi * 1000:.1f} mm from {source}")
    mg, (tlo, thi) = planner.movegen, limits.theta
    if not tlo <= mg.theta_min <= mg.theta_max <= thi:
        out.append(f"movegen.theta_min .. theta_max ({mg.theta_min:g} .. {mg.theta_max:g} deg) must lie inside "
                   f"the robot's theta limits {tlo:g} .. {thi:g} deg from {source}")
    return out


def check_planner_within_limits(planner: PlannerSettings, limits: ShotLimits, source: str, R: float) -> None:
    """Refuse planner settings that ask the robot for more than it can do (``limit_problems``).
    Pure: reads nothing. Raises ConfigError, one line per problem, each naming the planner file,
    the offending key and the limits' ``source``, e.g. ``config/planner.yaml: robot.v_break
    (7.5 m/s) is outside the robot's V limits 0.1 .. 4.5 m/s from config/robot.yaml``."""
    problems = limit_problems(planner, limits, source, R)
    if problems:
        raise ConfigError("\n".join(f"{planner.path}: {p}" for p in problems))
