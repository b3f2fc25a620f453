"""The shots the suite sends, all from the robot's own HELLO: the only motions it ever commands.

``gentle``: the lowest declared speed, the middle of the phi and workspace ranges, the lowest
elevation, tip offsets at the centre (0 if declared). Every value is inside the declared limits,
so the suite moves the robot only where the robot says it can go. ``outside``: deliberately out of
range, sent only while the robot is emergency-stopped (two rules forbid it to move then).
"""
from __future__ import annotations

from controller.protocol import SHOT_WIRE, RobotLimits


def _clamp(v: float, lo: float, hi: float) -> float:
    return min(max(v, lo), hi)


def _wire(values: dict[str, float]) -> tuple[str, ...]:
    return tuple(f"{values[name] * k:.{d}f}" for name, d, k, _ in SHOT_WIRE)


def gentle_values(lim: RobotLimits) -> dict[str, float]:
    """The gentle shot's values in SI/degrees (ShotParams units, x and y in metres)."""
    mid = lambda r: (r.lo + r.hi) / 2  # noqa: E731
    return {"phi": mid(lim.phi), "theta": lim.theta.lo, "V": lim.V.lo, "a": _clamp(0.0, lim.a.lo, lim.a.hi),
            "b": _clamp(0.0, lim.b.lo, lim.b.hi), "x": mid(lim.x), "y": mid(lim.y)}


def gentle(lim: RobotLimits) -> tuple[str, ...]:
    """The SHOT arguments (wire units and decimals) of the gentle shot."""
    return _wire(gentle_values(lim))


def gentle_other(lim: RobotLimits) -> tuple[str, ...]:
    """The gentle shot aimed 1 degree (or a hundredth of the range, if narrower) to the side."""
    v = gentle_values(lim)
    v["phi"] = _clamp(v["phi"] + min(1.0, (lim.phi.hi - lim.phi.lo) / 100), lim.phi.lo, lim.phi.hi)
    return _wire(v)


def same_numbers_other_text(args: tuple[str, ...]) -> tuple[str, ...]:
    """The same numbers written with one more decimal (``180.000`` -> ``180.0000``)."""
    return tuple(a + "0" if "." in a else a + ".0" for a in args)


def outside(lim: RobotLimits, name: str) -> tuple[str, ...]:
    """The gentle shot with field ``name`` 1 % of its range (at least one wire unit) above its
    declared upper limit."""
    v = gentle_values(lim)
    r = getattr(lim, name)
    _, d, k, _ = next(w for w in SHOT_WIRE if w[0] == name)
    v[name] = r.hi + max((r.hi - r.lo) / 100, 10.0 ** -d / k)
    return _wire(v)
