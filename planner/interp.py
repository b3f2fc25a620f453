"""Multilinear interpolation on a rectilinear grid (compiled): the one lookup behind the
shot-difficulty grid (planner.difficulty) and the throw correction (planner.throw).

The cell around a point is found one of two ways, and the two give the same interpolation to
rounding (tests/planner/test_interp.py): arithmetically on a uniform grid (O(1), the difficulty
grid's linspace axes) or by binary search of the knots (any increasing axes, the throw
correction's). Each caller keeps the way its values were always computed with, bit for bit:
a last-bit change of a difficulty estimate reorders exactly tied candidates, and so decisions.
"""
from __future__ import annotations

import numpy as np

from planner.jit import njit


@njit(cache=True)
def multilinear(values, axes, x, uniform):
    """Multilinear interpolation of a D-dimensional grid at one point; callable from compiled code.

    values: C-contiguous (n_0, ..., n_{D-1}) grid of floats. axes: a tuple of D strictly
    increasing 1-D float64 knot arrays, axis d of length n_d >= 2. x: the point, a tuple or (D,)
    array in the axes' units. uniform: the knots are evenly spaced, and the cell is located from
    the first two knots of each axis (origin ax[0], step ax[1] - ax[0]); else by binary search
    of the knots. A coordinate outside its axis is clamped to the axis' end. Returns the
    interpolated value (a float).
    """
    D = len(axes)
    flat = values.reshape(values.size)
    idx = np.empty(D, np.int64)
    frac = np.empty(D)
    for d in range(D):
        ax = axes[d]
        n = ax.shape[0]
        if uniform:
            f = min(max((x[d] - ax[0]) / (ax[1] - ax[0]), 0.0), n - 1.0)
            i = min(int(np.floor(f)), n - 2)
            frac[d] = f - i
        else:
            xd = min(max(x[d], ax[0]), ax[-1])
            i = min(max(np.searchsorted(ax, xd) - 1, 0), n - 2)
            frac[d] = (xd - ax[i]) / (ax[i + 1] - ax[i])
        idx[d] = i
    out = 0.0
    for corner in range(1 << D):
        w = 1.0
        k = 0
        for d in range(D):
            bit = (corner >> d) & 1
            w *= frac[d] if bit else 1.0 - frac[d]
            k = k * axes[d].shape[0] + idx[d] + bit
        if w != 0.0:
            out += w * flat[k]
    return out
