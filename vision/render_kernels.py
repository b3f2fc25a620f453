"""The per-pixel loops of the synthetic camera's fast path (``vision.render_fast``), in numba.

``render_pixels`` re-renders a list of pixels as the full render (``vision.render``) does: the
ray through each pixel centre (the camera's cached normalised coordinates) against the balls
(spheres of radius R) and the cached empty-table hit, then S x S rays where a ball is hit or the
surface changes; each ray shaded by ``vision.render_shading``. ``collect`` and ``rect_balls``
say which pixels and balls; ``encode`` turns linear light into 8-bit sRGB. Units: pixels (u
right, v down), metres in the table frame (docs/frame.md), linear RGB.
"""
from __future__ import annotations

import math

import numpy as np

from planner.jit import njit
from vision.render_shading import (
    CTX_H,
    JIT,
    NH_NEGLIGIBLE,
    NO_PLANE,
    P_R,
    albedo_class,
    ball_albedo,
    ctx_shade,
    light_context,
    shade_cloth,
    shade_static,
)
from vision.scene import CLOTH, FLOOR, POCKET


@njit(**JIT, _nrt=False)
def _ray(xy, Rm, u, v):
    """Unit direction (table frame) of the ray through the (sub-)pixel (u, v): the normalised
    coordinates bilinearly interpolated between pixel centres (exact at a centre)."""
    H, W = xy.shape[0], xy.shape[1]
    u0 = min(max(int(math.floor(u)), 0), W - 2)
    v0 = min(max(int(math.floor(v)), 0), H - 2)
    a = u - u0
    b = v - v0
    w00, w01, w10, w11 = (1 - a) * (1 - b), a * (1 - b), (1 - a) * b, a * b
    x = w00 * xy[v0, u0, 0] + w01 * xy[v0, u0 + 1, 0] + w10 * xy[v0 + 1, u0, 0] + w11 * xy[v0 + 1, u0 + 1, 0]
    y = w00 * xy[v0, u0, 1] + w01 * xy[v0, u0 + 1, 1] + w10 * xy[v0 + 1, u0, 1] + w11 * xy[v0 + 1, u0 + 1, 1]
    dx = x * Rm[0, 0] + y * Rm[1, 0] + Rm[2, 0]
    dy = x * Rm[0, 1] + y * Rm[1, 1] + Rm[2, 1]
    dz = x * Rm[0, 2] + y * Rm[1, 2] + Rm[2, 2]
    n = math.sqrt(dx * dx + dy * dy + dz * dz)
    return dx / n, dy / n, dz / n


@njit(**JIT, _nrt=False)
def _in_box(boxes, k, su, sv):
    """Whether the (sub-)pixel (su, sv) lies in ball k's box grown by one pixel (the full render's
    ``_nearby``)."""
    return (boxes[k, 0] - 1 <= su) & (su < boxes[k, 2] + 1) & (boxes[k, 1] - 1 <= sv) & (sv < boxes[k, 3] + 1)


@njit(**JIT, _nrt=False)
def _near(cand, ncand, boxes, su, sv, near):
    """Fill ``near`` with the candidates ``cand[:ncand]`` whose box holds (su, sv); return their count."""
    n = 0
    for i in range(ncand):
        if _in_box(boxes, cand[i], su, sv):
            near[n] = cand[i]
            n += 1
    return n


@njit(**JIT, _nrt=False)
def _near_row(rect_balls, r, boxes, su, sv, near):
    """``_near`` over the balls of row r of ``rect_balls`` (count, indices...)."""
    n = 0
    for i in range(rect_balls[r, 0]):
        k = rect_balls[r, 1 + i]
        if _in_box(boxes, k, su, sv):
            near[n] = k
            n += 1
    return n


@njit(**JIT, _nrt=False)
def _hit_ball(o, dx, dy, dz, c, R, near, nn):
    """(index of the nearest ball ``near[:nn]`` the ray hits, or -1; its ray parameter [m], 1e300 if
    none)."""
    best, best_t = -1, 1e300
    for i in range(nn):
        k = near[i]
        ox, oy, oz = o[0] - c[k, 0], o[1] - c[k, 1], o[2] - c[k, 2]
        b = dx * ox + dy * oy + dz * oz
        disc = b * b - (ox * ox + oy * oy + oz * oz - R * R)
        if disc > 0:
            t = -b - math.sqrt(disc)
            if t < best_t:
                best, best_t = k, t
    return best, best_t


@njit(**JIT)
def collect(rects, stamp, frame):
    """The pixels (u (P,), v (P,)) inside any of ``rects`` (M, 4) [u0, v0, u1, v1), each once, and
    the first rectangle holding each (P,) (``stamp`` (H, W) marks the pixels taken in ``frame``)."""
    total = 0
    for r in range(rects.shape[0]):
        total += (rects[r, 2] - rects[r, 0]) * (rects[r, 3] - rects[r, 1])
    pu = np.empty(total, np.int32)
    pv = np.empty(total, np.int32)
    pr = np.empty(total, np.int32)
    n = 0
    for r in range(rects.shape[0]):
        for v in range(rects[r, 1], rects[r, 3]):
            for u in range(rects[r, 0], rects[r, 2]):
                if stamp[v, u] != frame:
                    stamp[v, u] = frame
                    pu[n] = u
                    pv[n] = v
                    pr[n] = r
                    n += 1
    return pu[:n], pv[:n], pr[:n]


@njit(**JIT, _nrt=False)
def _pixel_rays(xy, Rm, u, v, D):
    """Fill D (3, 3) with the unnormalised ray direction through pixel (u, v)'s centre (D[0]) and its
    derivatives along u (D[1]) and v (D[2]) (central differences of the cached normalised
    coordinates): the ray through (u + a, v + b) is D[0] + a D[1] + b D[2], normalised."""
    H, W = xy.shape[0], xy.shape[1]
    ul, uh = max(u - 1, 0), min(u + 1, W - 1)
    vl, vh = max(v - 1, 0), min(v + 1, H - 1)
    x, y = xy[v, u, 0], xy[v, u, 1]
    xu, yu = (xy[v, uh, 0] - xy[v, ul, 0]) / (uh - ul), (xy[v, uh, 1] - xy[v, ul, 1]) / (uh - ul)
    xv, yv = (xy[vh, u, 0] - xy[vl, u, 0]) / (vh - vl), (xy[vh, u, 1] - xy[vl, u, 1]) / (vh - vl)
    for i in range(3):
        D[0, i] = x * Rm[0, i] + y * Rm[1, i] + Rm[2, i]
        D[1, i] = xu * Rm[0, i] + yu * Rm[1, i]
        D[2, i] = xv * Rm[0, i] + yv * Rm[1, i]


@njit(**JIT, _nrt=False)
def _sub_ray(D, a, b):
    """The unit ray through the sub-pixel (a, b) of the pixel of ``_pixel_rays``."""
    dx = D[0, 0] + a * D[1, 0] + b * D[2, 0]
    dy = D[0, 1] + a * D[1, 1] + b * D[2, 1]
    dz = D[0, 2] + a * D[1, 2] + b * D[2, 2]
    n = 1.0 / math.sqrt(dx * dx + dy * dy + dz * dz)
    return dx * n, dy * n, dz * n


@njit(**JIT, _nrt=False)
def render_pixels(pu, pv, prect, rect_balls, work, lab, amap, bg, xy, Rm, o, kind_map, hit_map, alb_map, t_map, e0_map, slab,
                   edge, ekind, ehit, ealb, et, offs, kind_z, c, rot, bid, boxes, sils, occ, nocc, sky, nsky, discs,
                   lamps, prm, tex, base_alb, white, stripe, index_of, centre, mode, cand, near, ctx, ctx_pixel,
                   ctx_smooth, D):
    """Re-render the pixels (pu, pv) (P,) into ``work`` (H, W, 3) float32 linear RGB and their
    centre-ray labels into ``lab`` (H, W) int32 (ball id, or the empty table's label < 0: labels
    outlive the frame, ball indices do not), and for ball pixels which marking the centre ray
    hits into ``amap`` (H, W) int8 (``albedo_class``). index_of (16,): each ball id's index, -1
    if absent.

    As the full render: one centre ray per pixel, S x S rays (offsets ``offs``) where a ball is hit
    or the 3 x 3 labels differ. Shortcuts that change nothing visible: a pixel in no ball's box, or
    whose centre no ball can shade and whose 3 x 3 labels agree, takes the background ``bg``; the
    rays of a pixel inside a ball (its 3 x 3 labels all that ball) share the ball's light context
    (lamp directions, shadows, room-light occluders: ``light_context``) at the first of them
    unless a shadow edge or a contact is near, each ray with its own normal, albedo and highlight
    (at a ball's outline every ray has its own context). prect (P,): each pixel's rectangle; rect_balls (M, K + 1): per rectangle the
    count and indices of the balls whose box can hold its pixels. boxes (K, 4): the balls' boxes;
    sils (K, 4): their silhouettes' boxes. Work space (no allocation here): centre (P, 3), mode (P,)
    int8, cand, near (K,) int64, ctx (K, CTX_SKY + 4 K), ctx_pixel (K,) int64, ctx_smooth (K,) bool,
    D (3, 3)."""
    P = pu.shape[0]
    H, W = lab.shape
    R = prm[P_R]
    S2 = offs.shape[0]
    # mode: 0 the centre shows the background, 1 its colour is computed, 2 a ball, 3 in no box;
    # 4 and 5: as 0 and 1 where no label around can differ (not a surface edge, no ball near)
    mode[:] = 0
    ctx_pixel[:] = -1                    # the pixel whose context ctx[k] holds, -1: none
    for i in range(P):
        u, v = pu[i], pv[i]
        ri = prect[i]
        inbox = False
        for q in range(rect_balls[ri, 0]):
            k = rect_balls[ri, 1 + q]
            inbox |= (boxes[k, 0] <= u) & (u < boxes[k, 2]) & (boxes[k, 1] <= v) & (v < boxes[k, 3])
        if not inbox:                    # the full render leaves it alone
            lab[v, u] = slab[v, u]
            mode[i] = 3
            continue
        nn = _near_row(rect_balls, ri, boxes, u, v, near)
        j, tb = -1, 1e300
        by_ball = False                  # a ball's centre label can be among the 3 x 3
        for q in range(nn):
            k = near[q]
            by_ball |= (sils[k, 0] - 1 <= u) & (u <= sils[k, 2]) & (sils[k, 1] - 1 <= v) & (v <= sils[k, 3])
            if (sils[k, 0] <= u) & (u < sils[k, 2]) & (sils[k, 1] <= v) & (v < sils[k, 3]):
                dx, dy, dz = _ray(xy, Rm, u, v)
                j, tb = _hit_ball(o, dx, dy, dz, c, R, near, nn)
                break
        if not by_ball and edge[v, u] < 0:
            mode[i] = 4                  # no label around differs: one ray is the pixel
        if j >= 0 and tb < t_map[v, u]:
            lab[v, u] = bid[j]
            mode[i] = 2
            amap[v, u] = albedo_class(j, (o[0] + tb * dx - c[j, 0]) / R, (o[1] + tb * dy - c[j, 1]) / R,
                                       (o[2] + tb * dz - c[j, 2]) / R, rot, bid, prm, stripe)
            continue
        lab[v, u] = slab[v, u]
        kind = kind_map[v, u]
        px, py, pz = hit_map[v, u, 0], hit_map[v, u, 1], hit_map[v, u, 2]
        if kind == CLOTH:
            r, g, b, shaded = shade_cloth(px, py, pz, alb_map[v, u, 0], alb_map[v, u, 1], alb_map[v, u, 2], e0_map,
                                          v, u, c, near, nn, discs, lamps, prm)
        elif kind != POCKET and kind != FLOOR:  # cushions, rails, faces: no cheap test, shade them
            r, g, b = shade_static(kind, px, py, pz, alb_map[v, u, 0], alb_map[v, u, 1], alb_map[v, u, 2], c,
                                   near, nn, lamps, prm)
            shaded = True
        else:
            shaded = False
        if shaded:
            centre[i, 0], centre[i, 1], centre[i, 2] = r, g, b
            mode[i] += 1
    for i in range(P):
        u, v = pu[i], pv[i]
        if mode[i] == 3 or mode[i] == 4:
            work[v, u, 0], work[v, u, 1], work[v, u, 2] = bg[v, u, 0], bg[v, u, 1], bg[v, u, 2]
            continue
        if mode[i] == 5:
            work[v, u, 0], work[v, u, 1], work[v, u, 2] = centre[i, 0], centre[i, 1], centre[i, 2]
            continue
        L = lab[v, u]
        fine = L >= 0
        for vv in range(max(v - 1, 0), min(v + 2, H)):
            for uu in range(max(u - 1, 0), min(u + 2, W)):
                if lab[vv, uu] != L:
                    fine = True
        if not fine:
            if mode[i] == 1:
                work[v, u, 0], work[v, u, 1], work[v, u, 2] = centre[i, 0], centre[i, 1], centre[i, 2]
            else:
                work[v, u, 0], work[v, u, 1], work[v, u, 2] = bg[v, u, 0], bg[v, u, 1], bg[v, u, 2]
            continue
        # the balls whose box (grown by one pixel) a sub-pixel of this pixel can lie in
        ri = prect[i]
        ncand = 0
        for q in range(rect_balls[ri, 0]):
            k = rect_balls[ri, 1 + q]
            if (boxes[k, 0] - 2 < u) & (u < boxes[k, 2] + 1) & (boxes[k, 1] - 2 < v) & (v < boxes[k, 3] + 1):
                cand[ncand] = k
                ncand += 1
        _pixel_rays(xy, Rm, u, v, D)
        inside = L >= 0
        for vv in range(max(v - 1, 0), min(v + 2, H)):
            for uu in range(max(u - 1, 0), min(u + 2, W)):
                if lab[vv, uu] != L:
                    inside = False
        if inside:
            J = index_of[L]
            # every ray of a pixel whose 3 x 3 neighbours' centres all hit ball L hits L first (the
            # ball's outline, a circle of ~13 px, cannot reach 0.375 px into the pixel between them)
            oc0, oc1, oc2 = o[0] - c[J, 0], o[1] - c[J, 1], o[2] - c[J, 2]
            oc2r = oc0 * oc0 + oc1 * oc1 + oc2 * oc2 - R * R
            # where the 3 x 3 centres show one marking (no number disc: its digits are finer than a
            # pixel) and no highlight is near, the albedo is one colour over the pixel and the
            # light is smooth: 2 x 2 rays integrate it as well as S x S
            A = amap[v, u]
            few = A != 2
            for vv in range(max(v - 1, 0), min(v + 2, H)):
                for uu in range(max(u - 1, 0), min(u + 2, W)):
                    if amap[vv, uu] != A:
                        few = False
            dx, dy, dz = _sub_ray(D, 0.0, 0.0)
            bb = dx * oc0 + dy * oc1 + dz * oc2
            tb = -bb - math.sqrt(max(bb * bb - oc2r, 0.0))
            qx, qy, qz = o[0] + tb * dx, o[1] + tb * dy, o[2] + tb * dz
            ctx_smooth[J] = light_context(J, qx, qy, qz, o, c, occ, nocc, sky, nsky, lamps, prm, ctx, True)
            ctx_pixel[J] = i
            if few:
                nx, ny, nz = (qx - c[J, 0]) / R, (qy - c[J, 1]) / R, (qz - c[J, 2]) / R
                for m in range(3):
                    if nx * ctx[J, CTX_H + 3 * m] + ny * ctx[J, CTX_H + 3 * m + 1] + \
                            nz * ctx[J, CTX_H + 3 * m + 2] > NH_NEGLIGIBLE - 0.1:
                        few = False
            ns = 4 if few else S2
            sr, sg, sb = 0.0, 0.0, 0.0
            for s in range(ns):
                if few:
                    a, b = -0.25 + 0.5 * (s % 2), -0.25 + 0.5 * (s // 2)
                else:
                    a, b = offs[s, 0], offs[s, 1]
                dx, dy, dz = _sub_ray(D, a, b)
                bb = dx * oc0 + dy * oc1 + dz * oc2
                tb = -bb - math.sqrt(max(bb * bb - oc2r, 0.0))
                qx, qy, qz = o[0] + tb * dx, o[1] + tb * dy, o[2] + tb * dz
                if not ctx_smooth[J]:
                    light_context(J, qx, qy, qz, o, c, occ, nocc, sky, nsky, lamps, prm, ctx, False)
                nx, ny, nz = (qx - c[J, 0]) / R, (qy - c[J, 1]) / R, (qz - c[J, 2]) / R
                ar, ag, ab = ball_albedo(J, nx, ny, nz, rot, bid, prm, tex, base_alb, white, stripe)
                r, g, b = ctx_shade(ctx, J, qx, qy, qz, nx, ny, nz, ar, ag, ab, o, lamps, prm)
                sr += r
                sg += g
                sb += b
            work[v, u, 0], work[v, u, 1], work[v, u, 2] = sr / ns, sg / ns, sb / ns
            continue
        e = edge[v, u]
        kind = kind_map[v, u]
        zplane = kind_z[kind]
        # the empty table's colour where no ball shades it and it has no surface edge: the centre's
        static_done = e < 0 and mode[i] == 0
        sr_, sg_, sb_ = bg[v, u, 0], bg[v, u, 1], bg[v, u, 2]
        sr, sg, sb = 0.0, 0.0, 0.0
        for s in range(S2):
            a, b = offs[s, 0], offs[s, 1]
            dx, dy, dz = _sub_ray(D, a, b)
            if e >= 0:
                ts = et[e * S2 + s]
            elif zplane < NO_PLANE:
                ts = (zplane - o[2]) / dz
            else:
                ts = t_map[v, u]
            j, tb = _hit_ball(o, dx, dy, dz, c, R, cand, ncand)
            if j >= 0 and tb < ts:
                qx, qy, qz = o[0] + tb * dx, o[1] + tb * dy, o[2] + tb * dz
                light_context(j, qx, qy, qz, o, c, occ, nocc, sky, nsky, lamps, prm, ctx, False)   # per ray
                nx, ny, nz = (qx - c[j, 0]) / R, (qy - c[j, 1]) / R, (qz - c[j, 2]) / R
                ar, ag, ab = ball_albedo(j, nx, ny, nz, rot, bid, prm, tex, base_alb, white, stripe)
                r, g, b = ctx_shade(ctx, j, qx, qy, qz, nx, ny, nz, ar, ag, ab, o, lamps, prm)
            elif static_done:
                r, g, b = sr_, sg_, sb_
            else:
                nn = _near(cand, ncand, boxes, u + a, v + b, near)
                if e >= 0:
                    q = e * S2 + s
                    r, g, b = shade_static(ekind[q], ehit[q, 0], ehit[q, 1], ehit[q, 2], ealb[q, 0], ealb[q, 1],
                                            ealb[q, 2], c, near, nn, lamps, prm)
                elif kind == CLOTH:             # beside a ball the shade changes within a pixel
                    px, py, pz = o[0] + ts * dx, o[1] + ts * dy, o[2] + ts * dz
                    r, g, b, _ = shade_cloth(px, py, pz, alb_map[v, u, 0], alb_map[v, u, 1], alb_map[v, u, 2],
                                             e0_map, v, u, c, near, nn, discs, lamps, prm)
                else:
                    if zplane < NO_PLANE:
                        px, py, pz = o[0] + ts * dx, o[1] + ts * dy, o[2] + ts * dz
                    else:
                        px, py, pz = hit_map[v, u, 0], hit_map[v, u, 1], hit_map[v, u, 2]
                    r, g, b = shade_static(kind, px, py, pz, alb_map[v, u, 0], alb_map[v, u, 1], alb_map[v, u, 2],
                                            c, near, nn, lamps, prm)
            sr += r
            sg += g
            sb += b
        work[v, u, 0], work[v, u, 1], work[v, u, 2] = sr / S2, sg / S2, sb / S2


@njit(**JIT)
def rect_balls(rects, boxes):
    """(M, K + 1): per rectangle [u0, v0, u1, v1) the count and indices of the balls whose box,
    grown by two pixels, overlaps it."""
    M, K = rects.shape[0], boxes.shape[0]
    out = np.zeros((M, K + 1), np.int64)
    for r in range(M):
        for k in range(K):
            if (boxes[k, 0] - 2 < rects[r, 2]) & (rects[r, 0] < boxes[k, 2] + 2) & \
                    (boxes[k, 1] - 2 < rects[r, 3]) & (rects[r, 1] < boxes[k, 3] + 2):
                out[r, 1 + out[r, 0]] = k
                out[r, 0] += 1
    return out


@njit(**JIT, _nrt=False)
def encode(lin, ys, xs, h, w, out, y0, x0, exposure, lut):
    """Write the 8-bit sRGB BGR of the linear RGB ``lin[ys:ys + h, xs:xs + w]`` (float32) into
    ``out`` (uint8) at (y0, x0): round(sRGB(exposure * lin)) (IEC 61966-2-1, as
    ``vision.balls.linear_to_srgb``). The curve is read from ``lut`` (N,), its values at N equally
    spaced linear values in [0, 1], interpolated (0.005 levels off), and evaluated exactly where
    that could change the rounding: the result is the exact curve's, rounded."""
    n = lut.shape[0] - 1
    for y in range(h):
        for x in range(w):
            for ch in range(3):
                lv = min(max(lin[ys + y, xs + x, ch] * exposure, 0.0), 1.0)
                val = lv * n
                i = min(int(val), n - 1)
                f = lut[i] + (val - i) * (lut[i + 1] - lut[i]) + 0.5          # >= 0.5: int() is floor
                k = int(f)
                if f - k < 0.02 or f - k > 0.98:
                    f = 255.0 * (12.92 * lv if lv <= 0.0031308 else 1.055 * lv ** (1 / 2.4) - 0.055) + 0.5
                    k = int(f)
                out[y0 + y, x0 + x, 2 - ch] = min(k, 255)
