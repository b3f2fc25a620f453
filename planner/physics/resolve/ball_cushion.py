"""Ball-cushion collision: Han (2005), "Dynamics in carom and three cushion billiards",
Journal of Mechanical Science and Technology 19(4), Eqs 14-23.

The cushion touches the ball above its equator, at contact angle theta_a = asin(h/R - 1) for a
cushion nose at height h. The impulse is resolved in the cushion frame (x along the normal
into the cushion) with restitution e_c and friction f_c, allowing sliding or sticking at the
contact; the vertical impulse is not applied to the velocity (the ball stays on the cloth).
The same model serves the rounded jaw tips, with the normal from the tip's axis to the ball.
"""
from __future__ import annotations

import math

from planner.jit import njit
from planner.physics.params import P_EC, P_FC, P_M, P_R
from planner.physics.resolve.ball_ball import MAX_REWIND
from planner.physics.roots import nearest_contact_time


@njit(cache=True)
def han_2005(rvw, nx, ny, h, p):
    """Resolve a ball-cushion impact, in place.

    rvw: (3, 3) ball state; (nx, ny): unit normal of the cushion in the table plane (either
    orientation: it is turned to point into the cushion); h: cushion nose height [m].
    """
    R = p[P_R]
    m = p[P_M]
    e = p[P_EC]
    mu = p[P_FC]
    if nx * rvw[1, 0] + ny * rvw[1, 1] <= 0.0:
        nx, ny = -nx, -ny
    # rotate into the cushion frame: normal -> +x
    c, s = nx, ny
    vx = c * rvw[1, 0] + s * rvw[1, 1]
    vy = -s * rvw[1, 0] + c * rvw[1, 1]
    vz = rvw[1, 2]
    wx = c * rvw[2, 0] + s * rvw[2, 1]
    wy = -s * rvw[2, 0] + c * rvw[2, 1]
    wz = rvw[2, 2]
    th = math.asin(h / R - 1.0)
    sth, cth = math.sin(th), math.cos(th)
    # Eqs 14: slip velocities at the contact and the normal approach velocity
    sx = vx * sth - vz * cth + R * wy
    sy = -vy - R * wz * cth + R * wx * sth
    cz = -vx * cth
    # Eqs 16
    I = 0.4 * m * R * R
    A = 3.5 / m
    B = 1.0 / m
    # Eqs 17 & 20
    PzE = -(1.0 + e) * cz / B
    s0 = math.sqrt(sx * sx + sy * sy)
    PzS = s0 / A
    if PzS <= mu * PzE:
        # Eqs 18: the contact sticks before the end of the impact
        PxE = sx / A
        PyE = sy / A
    else:
        # Eqs 19: sliding throughout
        PxE = mu * PzE * sx / s0
        PyE = mu * PzE * sy / s0
    # Eqs 21 & 22: impulse in the cushion frame
    PX = -PxE * sth - PzE * cth
    PY = PyE
    PZ = PxE * cth - PzE * sth
    # velocity and spin changes from the impulse (the vertical velocity is left unchanged)
    vx += PX / m
    vy += PY / m
    wx += -R / I * PY * sth
    wy += R / I * (PX * sth - PZ * cth)
    wz += R / I * PY * cth
    rvw[1, 0] = c * vx - s * vy
    rvw[1, 1] = s * vx + c * vy
    rvw[2, 0] = c * wx - s * wy
    rvw[2, 1] = s * wx + c * wy
    rvw[2, 2] = wz


@njit(cache=True)
def kiss_line(rvw, p1x, p1y, nx, ny, R, spacer):
    """Move a ball back along its velocity to distance R + spacer from a cushion line
    (normal (nx, ny) into play); along the normal instead when that would move it more than
    MAX_REWIND spacers (a ball grazing the line, or one pushed into it by a neighbour)."""
    d = nx * (rvw[0, 0] - p1x) + ny * (rvw[0, 1] - p1y)
    vn = nx * rvw[1, 0] + ny * rvw[1, 1]
    gap = R + spacer - d
    speed = math.sqrt(rvw[1, 0] ** 2 + rvw[1, 1] ** 2)
    if vn < 0.0 and abs(gap / vn) * speed <= MAX_REWIND * spacer:
        tau = gap / vn
        rvw[0, 0] += tau * rvw[1, 0]
        rvw[0, 1] += tau * rvw[1, 1]
    else:
        rvw[0, 0] += gap * nx
        rvw[0, 1] += gap * ny


@njit(cache=True)
def kiss_circle(rvw, cx, cy, dist, spacer):
    """Move a ball back along its velocity to centre distance dist + spacer from (cx, cy) [m],
    in place (by the tau of ``roots.nearest_contact_time``); radially instead when there is no
    such tau or it would move the ball more than MAX_REWIND spacers (a grazing ball)."""
    dx, dy = rvw[0, 0] - cx, rvw[0, 1] - cy
    vx, vy = rvw[1, 0], rvw[1, 1]
    target = dist + spacer
    tau = nearest_contact_time(dx, dy, vx, vy, target)
    if abs(tau) * math.sqrt(vx * vx + vy * vy) <= MAX_REWIND * spacer:
        rvw[0, 0] += tau * vx
        rvw[0, 1] += tau * vy
    else:
        d = math.sqrt(dx * dx + dy * dy)
        rvw[0, 0] = cx + dx * target / d
        rvw[0, 1] = cy + dy * target / d
