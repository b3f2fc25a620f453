"""planner.interp.multilinear, the one lookup of the difficulty grid and the throw correction:
bit for bit the two lookups it replaced (reference copies in plain Python below: the uniform
origin/step form of the difficulty grid, 4-D, and the knot-array form of the throw correction,
3-D) at random points inside and outside the grids and at the knots; its two ways of locating
the cell agreeing to 1e-12 on uniform grids; exact on a multilinear function."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from planner.interp import multilinear
from planner.throw import ALPHA, D2, V


def origin_step_reference(values, origin, step, x):
    """The difficulty grid's former lookup (difficulty.interp4): uniform axes given by origin
    and step, corners summed in bit order, zero weights skipped."""
    idx, frac = [], []
    for d in range(values.ndim):
        n = values.shape[d]
        f = min(max((x[d] - origin[d]) / step[d], 0.0), n - 1.0)
        i = min(int(np.floor(f)), n - 2)
        idx.append(i)
        frac.append(f - i)
    return _blend(values, idx, frac)


def knots_reference(values, axes, x):
    """The throw correction's former lookup (throw._interp3): knot arrays and searchsorted."""
    idx, wts = [], []
    for ax, xd in zip(axes, x):
        xd = min(max(xd, ax[0]), ax[-1])
        i = min(max(int(np.searchsorted(ax, xd)) - 1, 0), len(ax) - 2)
        idx.append(i)
        wts.append((xd - ax[i]) / (ax[i + 1] - ax[i]))
    return _blend(values, idx, wts)


def _blend(values, idx, frac):
    out = 0.0
    for corner in range(1 << values.ndim):
        w = 1.0
        for d in range(values.ndim):
            w *= frac[d] if (corner >> d) & 1 else 1.0 - frac[d]
        if w != 0.0:
            out += w * values[tuple(i + ((corner >> d) & 1) for d, i in enumerate(idx))]
    return out


def _points(rng, axes, n):
    """Random points over each axis' span and 20 % beyond each end, plus every combination of
    the first, second and last knot of each axis."""
    lo = np.array([a[0] for a in axes])
    hi = np.array([a[-1] for a in axes])
    span = hi - lo
    pts = [tuple(float(v) for v in p) for p in rng.uniform(lo - 0.2 * span, hi + 0.2 * span, (n, len(axes)))]
    pts += list(itertools.product(*[(float(a[0]), float(a[1]), float(a[-1])) for a in axes]))
    return pts


def _difficulty_like(n):
    dmax = float(np.hypot(1.27, 2.54))
    return (np.linspace(0.0, 85.0, n), np.linspace(0.03, dmax, n), np.linspace(0.03, dmax, n),
            np.linspace(0.0, 45.0, n))


def test_uniform_is_the_former_difficulty_lookup_bit_for_bit():
    rng = np.random.default_rng(11)
    for n in (2, 3, 5):
        axes = _difficulty_like(n)
        values = rng.uniform(0.0, 1.0, (n,) * 4)
        origin = np.array([a[0] for a in axes])
        step = np.array([a[1] - a[0] for a in axes])
        for x in _points(rng, axes, 400):
            assert multilinear(values, axes, x, True) == origin_step_reference(values, origin, step, x)


def test_knots_is_the_former_throw_lookup_bit_for_bit():
    rng = np.random.default_rng(12)
    axes = (ALPHA, D2, V)
    values = rng.normal(0.0, 2.0, (len(ALPHA), len(D2), len(V)))
    for x in _points(rng, axes, 1000):
        assert multilinear(values, axes, x, False) == knots_reference(values, axes, x)


def test_both_ways_of_locating_the_cell_agree_on_uniform_grids():
    rng = np.random.default_rng(13)
    for n in (2, 3, 5):
        axes = _difficulty_like(n)
        values = rng.uniform(0.0, 1.0, (n,) * 4)
        for x in _points(rng, axes, 400):
            assert abs(multilinear(values, axes, x, True) - multilinear(values, axes, x, False)) <= 1e-12


def test_exact_on_a_multilinear_function():
    """f(x, y) = (1 + 2x)(3 - y) is multilinear: reproduced between non-uniform knots."""
    ax = (np.array([0.0, 0.3, 1.0]), np.array([-1.0, 0.5, 0.7, 2.0]))
    values = np.outer(1 + 2 * ax[0], 3 - ax[1])
    for x, y in [(0.1, 0.6), (0.65, -0.2), (1.0, 2.0), (0.3, 0.5)]:
        assert multilinear(values, ax, (x, y), False) == pytest.approx((1 + 2 * x) * (3 - y), abs=1e-12)
