"""The shading model of the synthetic camera's fast path, one point at a time (numba).

The full render's model (``vision.render``), evaluated for one point and the balls near it:
Lambert lamps with soft shadows from the balls (the overlap of the lamp's and the ball's angular
discs, ``cover``), a room-light hemisphere darkened near balls (``sky_share``), the empty
table's albedo (cached per camera, ``vision.render_fast``) or a ball's (colour, stripe band,
number discs with digits: ``ball_albedo``), Blinn-Phong highlights. ``light_context`` gathers
what a ball's point receives (lamp directions and shares, occluders) so that the rays of one
pixel can share it (``ctx_shade``). Units: metres in the table frame (docs/frame.md), linear RGB.

The per-point functions are compiled without numba's reference counting (``_nrt=False``): their
array arguments cost no atomic increments in the per-ray loops of ``vision.render_kernels``.
"""
from __future__ import annotations

import math

import numpy as np

from planner.jit import njit
from vision.scene import FLOOR, NOSE_FACE, POCKET, RAIL_FACE

# LLVM's fast-math without its no-NaN / no-inf assumptions; divisions by zero give inf (numpy's rule)
JIT = dict(cache=True, error_model="numpy", fastmath={"nsz", "arcp", "contract", "afn", "reassoc"})
NO_PLANE = 1e30             # kind_z of surfaces that are not horizontal planes (the vertical faces)
CONTACT_REACH = 1.5         # a ball closer than this many radii makes the room light change within a pixel
SHADOW_MARGIN = 0.1         # [rad] within this of a shadow's penumbra the lamp's share may change within a pixel
NH_NEGLIGIBLE = 0.9         # below this cosine a highlight is < 0.9^300 = 2e-14 of a lamp: skipped
NH_EXACT = 0.96             # above it (a highlight > 5e-6 of a lamp) each ray has its own half vector
# prm (15,): the shading constants, packed by vision.render_fast.shading_params
P_LAMP_POWER, P_AMBIENT, P_SPECULAR, P_SHININESS, P_LAMP_RADIUS, P_R, P_CX, P_CY, P_WIDTH, P_LENGTH, \
    P_POCKET, P_SKY_INV2, P_COS_DISC, P_TAN_DISC, P_STRIPE = range(15)


@njit(**JIT, _nrt=False)
def cover(px, py, pz, ux, uy, uz, du, cx, cy, cz, R, rl):
    """Share of a lamp's disc (unit direction u, distance du [m], radius rl [m]) hidden from the
    point p by the ball centred at c (the full render's ``_visibility``, one ball): the discs of
    angular radius alpha (ball) and beta (lamp) at angle theta apart overlap by
    clip((alpha + beta - theta) / (2 beta), 0, 1), at most (alpha / beta)^2."""
    vx, vy, vz = cx - px, cy - py, cz - pz
    vu = vx * ux + vy * uy + vz * uz
    if vu <= 0.0:
        return 0.0
    d2 = vx * vx + vy * vy + vz * vz
    if d2 >= du * du:
        return 0.0
    dv = math.sqrt(d2)
    # exact early out: sin(theta) > sin(alpha) + sin(beta) >= sin(alpha + beta) means theta > alpha + beta
    reach = R + dv * rl / du
    if d2 - vu * vu > reach * reach:
        return 0.0
    sa, sb = min(R / dv, 1.0), min(rl / du, 1.0)
    if sa >= sb:                # exact early out: theta <= alpha - beta, the umbra of a ball wider than the lamp
        ca, cb = math.sqrt(1.0 - sa * sa), math.sqrt(1.0 - sb * sb)
        if vu > dv * (ca * cb + sa * sb) * (1.0 + 1e-12):
            return 1.0
    alpha, beta = math.asin(sa), math.asin(sb)
    theta = math.acos(min(max(vu / dv, -1.0), 1.0))
    cov = min(max((alpha + beta - theta) / (2.0 * beta), 0.0), 1.0)
    return min(cov, (alpha / beta) ** 2)


@njit(**JIT, _nrt=False)
def sky_share(px, py, pz, nx, ny, nz, cx, cy, cz, R, inv2):
    """Share of the room light's hemisphere the ball at c hides from p (normal n): the full
    render's ``_sky_hidden``, one ball."""
    vx, vy, vz = cx - px, cy - py, cz - pz
    d2 = vx * vx + vy * vy + vz * vz
    s2 = min(R * R / d2, 1.0) - inv2
    if s2 <= 0.0:
        return 0.0
    return s2 * min(max((vx * nx + vy * ny + vz * nz) / math.sqrt(d2), 0.0), 1.0)


@njit(**JIT)
def shadow_discs(c, lamps, R, rl):
    """(K, L, 3): per ball and lamp, the disc (x, y, r^2) [m, m^2] of the cloth (z = 0) outside
    which the ball hides none of the lamp (a line from a cloth point to a lamp point within rl of
    its centre passing within R of the ball's centre meets the cloth inside it)."""
    K, NL = c.shape[0], lamps.shape[0]
    out = np.empty((K, NL, 3))
    for k in range(K):
        for m in range(NL):
            Lx, Ly, Lz = lamps[m, 0], lamps[m, 1], lamps[m, 2]
            lam0 = Lz / (Lz - c[k, 2])
            lam_hi = (Lz - rl) / (Lz - rl - c[k, 2] - R)
            lam_lo = (Lz + rl) / (Lz + rl - c[k, 2] + R)
            dx, dy = c[k, 0] - Lx, c[k, 1] - Ly
            h = math.sqrt(dx * dx + dy * dy)
            r = h * max(lam_hi - lam0, lam0 - lam_lo) + rl * (lam_hi - 1.0) + R * lam_hi + 1e-4
            out[k, m, 0] = Lx + dx * lam0
            out[k, m, 1] = Ly + dy * lam0
            out[k, m, 2] = r * r
    return out


@njit(**JIT, _nrt=False)
def shade_static(kind, px, py, pz, ar, ag, ab, c, near, nn, lamps, prm):
    """Linear RGB of an empty-table point (surface ``kind``, point p [m], albedo a), shadowed and
    darkened by the balls ``near[:nn]`` (those whose box holds the ray's (sub-)pixel)."""
    if kind == POCKET:
        r, g, b = prm[P_POCKET], prm[P_POCKET], prm[P_POCKET]
    elif kind == FLOOR:
        r, g, b = ar * 0.3, ag * 0.3, ab * 0.3
    else:
        nx, ny, nz = 0.0, 0.0, 1.0
        if kind == NOSE_FACE or kind == RAIL_FACE:      # vertical faces face the table centre
            vx, vy = prm[P_CX] - px, prm[P_CY] - py
            nz = 0.0
            if abs(vx) * prm[P_LENGTH] > abs(vy) * prm[P_WIDTH]:
                nx = float(np.sign(vx))
            else:
                ny = float(np.sign(vy))
        R, rl = prm[P_R], prm[P_LAMP_RADIUS]
        E = 0.0
        for m in range(lamps.shape[0]):
            ux, uy, uz = lamps[m, 0] - px, lamps[m, 1] - py, lamps[m, 2] - pz
            du = math.sqrt(ux * ux + uy * uy + uz * uz)
            ux, uy, uz = ux / du, uy / du, uz / du
            cos_i = max(nx * ux + ny * uy + nz * uz, 0.0)
            vis = 1.0
            for i in range(nn):
                k = near[i]
                vis *= 1.0 - cover(px, py, pz, ux, uy, uz, du, c[k, 0], c[k, 1], c[k, 2], R, rl)
            E += cos_i / (du * du) * vis
        hid = 0.0
        for i in range(nn):
            k = near[i]
            hid += sky_share(px, py, pz, nx, ny, nz, c[k, 0], c[k, 1], c[k, 2], R, prm[P_SKY_INV2])
        hid = min(max(hid, 0.0), 1.0)
        f = prm[P_LAMP_POWER] * E + prm[P_AMBIENT] * (1.0 + nz) / 2.0 * (1.0 - hid)
        r, g, b = ar * f, ag * f, ab * f
    return r, g, b


@njit(**JIT, _nrt=False)
def shade_cloth(px, py, pz, ar, ag, ab, e0, v, u, c, near, nn, discs, lamps, prm):
    """``shade_static`` for a point p [m] of the cloth seen at pixel (u, v) whose unshadowed
    irradiance from each lamp ``e0[v, u]`` (L,) is known: a lamp is tested against a ball only
    inside that ball's shadow disc (``shadow_discs``). Returns (r, g, b, shaded): shaded is False
    when no ball reaches the point (its colour is then the empty table's)."""
    R, rl, inv2 = prm[P_R], prm[P_LAMP_RADIUS], prm[P_SKY_INV2]
    shaded = False
    E = 0.0
    for m in range(lamps.shape[0]):
        vis = 1.0
        du = 0.0
        for i in range(nn):
            k = near[i]
            if (discs[k, m, 0] - px) ** 2 + (discs[k, m, 1] - py) ** 2 < discs[k, m, 2]:
                shaded = True
                if du == 0.0:
                    ux, uy, uz = lamps[m, 0] - px, lamps[m, 1] - py, lamps[m, 2] - pz
                    du = math.sqrt(ux * ux + uy * uy + uz * uz)
                    ux, uy, uz = ux / du, uy / du, uz / du
                vis *= 1.0 - cover(px, py, pz, ux, uy, uz, du, c[k, 0], c[k, 1], c[k, 2], R, rl)
        E += e0[v, u, m] * vis
    hid = 0.0
    for i in range(nn):
        k = near[i]
        d2 = (c[k, 0] - px) ** 2 + (c[k, 1] - py) ** 2 + (c[k, 2] - pz) ** 2
        if R * R < d2 * inv2 * (1.0 + 1e-12):
            continue                    # beyond SKY_HIDDEN_REACH radii: hides nothing
        shaded = True
        hid += sky_share(px, py, pz, 0.0, 0.0, 1.0, c[k, 0], c[k, 1], c[k, 2], R, inv2)
    hid = min(max(hid, 0.0), 1.0)
    f = prm[P_LAMP_POWER] * E + prm[P_AMBIENT] * (1.0 - hid)
    return ar * f, ag * f, ab * f, shaded


@njit(**JIT, _nrt=False)
def albedo_class(j, nx, ny, nz, rot, bid, prm, stripe):
    """Which part of ball j's markings the unit normal n (table frame) is on: 0 its colour, 1 a
    stripe ball's white cap, 2 a number disc."""
    q0 = nx * rot[j, 0, 0] + ny * rot[j, 1, 0] + nz * rot[j, 2, 0]
    q2 = nx * rot[j, 0, 2] + ny * rot[j, 1, 2] + nz * rot[j, 2, 2]
    b = bid[j]
    k = 0
    if stripe[b] and abs(q2) >= prm[P_STRIPE]:
        k = 1
    if b != 0 and abs(q0) > prm[P_COS_DISC]:
        k = 2
    return k


@njit(**JIT, _nrt=False)
def ball_albedo(j, nx, ny, nz, rot, bid, prm, tex, base_alb, white, stripe):
    """Linear albedo of ball j at unit normal n (table frame): its colour, the stripe band and the
    number discs with their digits, in the ball's own frame q = R^T n (``vision.render.ball_albedo``).
    (One return: numba then drops the reference counting of the array arguments.)"""
    q0 = nx * rot[j, 0, 0] + ny * rot[j, 1, 0] + nz * rot[j, 2, 0]
    q1 = nx * rot[j, 0, 1] + ny * rot[j, 1, 1] + nz * rot[j, 2, 1]
    q2 = nx * rot[j, 0, 2] + ny * rot[j, 1, 2] + nz * rot[j, 2, 2]
    b = bid[j]
    ar, ag, ab = base_alb[b, 0], base_alb[b, 1], base_alb[b, 2]
    if stripe[b] and abs(q2) >= prm[P_STRIPE]:
        ar, ag, ab = white[0], white[1], white[2]
    qa = abs(q0)
    if b != 0 and qa > prm[P_COS_DISC]:
        sign = 1.0 if q0 > 0 else -1.0
        n = tex.shape[1]
        uu = sign * q1 / qa / prm[P_TAN_DISC]            # tangent-plane coordinates in [-1, 1]
        vv = -q2 / qa / prm[P_TAN_DISC]
        iu = min(max(int((uu + 1) / 2 * n), 0), n - 1)
        iv = min(max(int((vv + 1) / 2 * n), 0), n - 1)
        ink = tex[b, iv, iu]
        ar = white[0] * ink + 0.02 * (1 - ink)
        ag = white[1] * ink + 0.02 * (1 - ink)
        ab = white[2] * ink + 0.02 * (1 - ink)
    return ar, ag, ab


# A ball's light context at one point p of it, for the rays of one pixel: per lamp m the unit
# direction to the lamp u_m, its irradiance share w_m = P vis_m / du_m^2 (P the lamp power, vis_m
# the share the other balls leave of it) and the unit half vector h_m towards the camera; per ball
# k near enough to darken the room light, s2_k and the unit vector v_k from p to its centre.
CTX_U, CTX_W, CTX_H, CTX_NSKY, CTX_SKY = 0, 9, 12, 21, 22


@njit(**JIT, _nrt=False)
def light_context(j, px, py, pz, o, c, occ, nocc, sky, nsky, lamps, prm, ctx, check):
    """Fill row j of ``ctx`` (K, CTX_SKY + 4 K) with ball j's light context at its point p [m]
    (see CTX_*). With ``check``, returns whether the context holds for a whole pixel inside the
    ball (else True): False within SHADOW_MARGIN of a shadow's edge (where a lamp is partly hidden, or nearly so) or near
    another ball's contact (closer than CONTACT_REACH radii), where the light changes within a
    pixel."""
    R, rl = prm[P_R], prm[P_LAMP_RADIUS]
    ex, ey, ez = o[0] - px, o[1] - py, o[2] - pz
    en = math.sqrt(ex * ex + ey * ey + ez * ez)
    ex, ey, ez = ex / en, ey / en, ez / en
    smooth = True
    for m in range(lamps.shape[0]):
        ux, uy, uz = lamps[m, 0] - px, lamps[m, 1] - py, lamps[m, 2] - pz
        du = math.sqrt(ux * ux + uy * uy + uz * uz)
        ux, uy, uz = ux / du, uy / du, uz / du
        v = 1.0
        for i in range(nocc[j, m]):
            k = occ[j, m, i]
            v *= 1.0 - cover(px, py, pz, ux, uy, uz, du, c[k, 0], c[k, 1], c[k, 2], R, rl)
            if check and smooth:    # theta within SHADOW_MARGIN of the penumbra (alpha - beta, alpha + beta)?
                vx, vy, vz = c[k, 0] - px, c[k, 1] - py, c[k, 2] - pz
                dv = math.sqrt(vx * vx + vy * vy + vz * vz)
                theta = math.acos(min(max((vx * ux + vy * uy + vz * uz) / dv, -1.0), 1.0))
                alpha, beta = math.asin(min(R / dv, 1.0)), math.asin(min(rl / du, 1.0))
                if alpha - beta - SHADOW_MARGIN < theta < alpha + beta + SHADOW_MARGIN:
                    smooth = False
        ctx[j, CTX_U + 3 * m], ctx[j, CTX_U + 3 * m + 1], ctx[j, CTX_U + 3 * m + 2] = ux, uy, uz
        ctx[j, CTX_W + m] = prm[P_LAMP_POWER] * v / (du * du)
        hx, hy, hz = ux + ex, uy + ey, uz + ez
        hn = math.sqrt(hx * hx + hy * hy + hz * hz)
        ctx[j, CTX_H + 3 * m], ctx[j, CTX_H + 3 * m + 1], ctx[j, CTX_H + 3 * m + 2] = hx / hn, hy / hn, hz / hn
    n = 0
    for i in range(nsky[j]):
        k = sky[j, i]
        vx, vy, vz = c[k, 0] - px, c[k, 1] - py, c[k, 2] - pz
        d2 = vx * vx + vy * vy + vz * vz
        s2 = min(R * R / d2, 1.0) - prm[P_SKY_INV2]
        if s2 > 0.0:
            dv = math.sqrt(d2)
            q = CTX_SKY + 4 * n
            ctx[j, q], ctx[j, q + 1], ctx[j, q + 2], ctx[j, q + 3] = s2, vx / dv, vy / dv, vz / dv
            n += 1
            if check and dv < CONTACT_REACH * R:
                smooth = False
    ctx[j, CTX_NSKY] = n
    return smooth


@njit(**JIT, _nrt=False)
def ctx_shade(ctx, j, px, py, pz, nx, ny, nz, ar, ag, ab, o, lamps, prm):
    """Linear RGB of the point p [m] of ball j with unit normal n and albedo a in the light
    context ``ctx``: the full render's Lambert lamps, Blinn-Phong highlights and room light, with
    the lamp directions, shadows and occluder directions of the context's point. Near a highlight
    (where nh^300 changes by per cents over 0.1 mrad) the half vector is the point's own."""
    E = 0.0
    spec = 0.0
    for m in range(3):
        cos_i = nx * ctx[j, CTX_U + 3 * m] + ny * ctx[j, CTX_U + 3 * m + 1] + nz * ctx[j, CTX_U + 3 * m + 2]
        if cos_i > 0.0:
            E += cos_i * ctx[j, CTX_W + m]
            nh = nx * ctx[j, CTX_H + 3 * m] + ny * ctx[j, CTX_H + 3 * m + 1] + nz * ctx[j, CTX_H + 3 * m + 2]
            if nh > NH_EXACT:
                ux, uy, uz = lamps[m, 0] - px, lamps[m, 1] - py, lamps[m, 2] - pz
                un = math.sqrt(ux * ux + uy * uy + uz * uz)
                ex, ey, ez = o[0] - px, o[1] - py, o[2] - pz
                en = math.sqrt(ex * ex + ey * ey + ez * ez)
                hx, hy, hz = ux / un + ex / en, uy / un + ey / en, uz / un + ez / en
                nh = (nx * hx + ny * hy + nz * hz) / math.sqrt(hx * hx + hy * hy + hz * hz)
                if nh > NH_NEGLIGIBLE:
                    spec += min(nh, 1.0) ** prm[P_SHININESS] * ctx[j, CTX_W + m]
    hid = 0.0
    for i in range(int(ctx[j, CTX_NSKY])):
        q = CTX_SKY + 4 * i
        hid += ctx[j, q] * min(max(nx * ctx[j, q + 1] + ny * ctx[j, q + 2] + nz * ctx[j, q + 3], 0.0), 1.0)
    hid = min(hid, 1.0)
    f = E + prm[P_AMBIENT] * (1.0 + nz) / 2.0 * (1.0 - hid)
    s = prm[P_SPECULAR] * spec
    return ar * f + s, ag * f + s, ab * f + s


@njit(**JIT)
def neighbours(c, lamps, R, rl, sky_reach):
    """Per ball j: the balls that can shadow a point of j from each lamp (occ (K, L, K), counts
    (K, L)) and those near enough to darken its room light (sky (K, K), counts (K,)). A superset:
    the others' share is exactly 0 in the full render. Shadow test: a ray from a point of j (within
    R of its centre) to a point of the lamp (within rl of its centre) passes within R of ball k's
    centre only if that centre lies within 2R + rl s of the segment from j's centre to the lamp's,
    at the segment's parameter s (bounded from the closest point's)."""
    K, NL = c.shape[0], lamps.shape[0]
    occ = np.zeros((K, NL, max(K, 1)), np.int64)
    nocc = np.zeros((K, NL), np.int64)
    sky = np.zeros((K, max(K, 1)), np.int64)
    nsky = np.zeros(K, np.int64)
    for j in range(K):
        for k in range(K):
            if k == j:
                continue
            dx, dy, dz = c[k, 0] - c[j, 0], c[k, 1] - c[j, 1], c[k, 2] - c[j, 2]
            d = math.sqrt(dx * dx + dy * dy + dz * dz)
            if d < (sky_reach + 1.0) * R + 1e-6:
                sky[j, nsky[j]] = k
                nsky[j] += 1
            for m in range(NL):
                sx, sy, sz = lamps[m, 0] - c[j, 0], lamps[m, 1] - c[j, 1], lamps[m, 2] - c[j, 2]
                sl = math.sqrt(sx * sx + sy * sy + sz * sz)
                s = min(max((dx * sx + dy * sy + dz * sz) / (sl * sl), 0.0), 1.0)
                ex, ey, ez = dx - s * sx, dy - s * sy, dz - s * sz
                reach = 2 * R + rl * min(s + (2 * R + rl) / sl, 1.0) + 1e-3
                if math.sqrt(ex * ex + ey * ey + ez * ez) < reach:
                    occ[j, m, nocc[j, m]] = k
                    nocc[j, m] += 1
    return occ, nocc, sky, nsky
