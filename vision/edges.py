"""Ball outline points along search lines: the per-line kernels of ``vision.detect`` (numba).

Along the outward normal of each predicted outline point the image is sampled every ``step``
pixels (bilinear, in linear light) and the outline is located in two steps:

1. where the profile leaves the cloth: walking in from the outer end (which must be cloth), the
   first sample of three in a row whose ``ballness`` is >= 1 (linear interpolation of the crossing;
   the samples are judged on the way in, none beyond it: a quarter of the kernel's time).
   Stripe and number edges further in are never reached; shadows keep the cloth's colour and are
   cloth. For a ball of one colour the crossing is at the same coverage all round (its colour's
   angle from the cloth's does not depend on shading): the sphere fit's free radius absorbs it.
   Where light is added to the cloth (a projector, sheen, what is left of a halo ring; JPEG
   smears it) the cloth beside a ball is whiter than the cloth the ball is compared with, so with
   ``lit_share`` the cloth's colours are its colour plus white light up to that share of the way
   to white (the plane of the two, as ``vision.cloth``'s lit wedge), not its direction alone.
2. optionally, to sub-pixel: in linear light a pixel the outline cuts is the area-weighted mix of
   ball and background, so with b and k the colours 1 px inside and outside,
   alpha = (F - k).(b - k) / |b - k|^2 is 1/2 on the outline for any symmetric blur whatever the
   contrast; the point moves there (b and k re-read about the new point ``iters`` times), at
   most ``reach`` px, and is dropped where |b - k| < min_step.
   A JPEG frame keeps luma (Y', BT.601 weights of sRGB R'G'B') at full resolution and colour at
   half, so where a step is mostly in colour (luma share below a limit) its ramp is ~4 px wide and
   every point of it is half-way between the colours 1 px either side: the point would stay out in
   the tail where step 1 put it. Such a step is first refined between the colours ``side`` px
   either side (out of the ramp), then 1 px as above. A step mostly in luma (a white or yellow
   ball's) is sharp in any frame and read 1 px either side only: read wider, b falls on the ball's
   shading inside its limb, which moves with the ball's place under the lights.
3. ``luma_points`` (JPEG frames, after the last fit): where the luma Y' alone (8-bit, full
   resolution in JPEG) is half-way between its values ``side`` px either side, nearest the
   predicted outline; the detector moves its colour points part of the way there (and reads
   ``luma_at`` beside them for a number disc at the limb).
"""
from __future__ import annotations

import math

import numpy as np

from planner.jit import njit
from vision.balls import CODES_LUT

HALF_COLOUR_ROWS = 32          # every this many rows (0.11 ms a 1280x720 frame)
HALF_COLOUR_STEP = 8           # Cb or Cr levels over 3 px: where colour changes


def block_contrast(image: np.ndarray) -> float:
    """How much more a BGR frame (h, w, 3) uint8 steps across the columns of JPEG's 8x8 block
    boundaries than elsewhere: the mean |green step| between columns 8k-1 and 8k over the mean
    step between the other columns, on every 8th row. About 1 for a frame never compressed,
    1.3-1.7 for JPEG quality 95-60."""
    h, w = image.shape[:2]
    on, off = _green_steps(image)         # integer sums: exact
    n_on, n = ((h + 7) // 8) * ((w - 1) // 8), ((h + 7) // 8) * (w - 1)
    return float((on / n_on) / max(off / (n - n_on), 1e-9))


@njit(cache=True)
def _green_steps(image):
    """(on, off): the summed |green step| between columns 8k-1 and 8k, and between the other neighbouring
    columns, on every 8th row of a BGR uint8 image (``block_contrast``). A row's green values are copied out
    first and all its steps summed in one pass the compiler vectorises; the block columns' steps are taken from
    that sum (whole numbers, so exact)."""
    on, off = 0, 0
    w = image.shape[1]
    g = np.empty(w, np.int32)
    for y in range(0, image.shape[0], 8):
        for x in range(w):
            g[x] = image[y, x, 1]
        steps = 0
        for x in range(1, w):
            steps += abs(g[x] - g[x - 1])
        block = 0
        for x in range(8, w, 8):
            block += abs(g[x] - g[x - 1])
        on += block
        off += steps - block
    return on, off


def half_colour(image: np.ndarray) -> float:
    """How exactly a BGR frame's (h, w, 3) uint8 colour is a half-resolution colour brought back by
    libjpeg's triangular ("fancy") upsampling, as JPEG's 4:2:0 chroma subsampling decoded by OpenCV
    is: such an upsampling makes each full-resolution pixel pair 2k, 2k+1 of a row 3/4 of its own
    half-resolution sample and 1/4 of the neighbour's, so the third difference of the row's Cb, Cr
    (BT.601) across pixels 2k-1..2k+2 is zero but for rounding, while across 2k..2k+3 it is not.
    The summed |third difference| centred inside the pairs over that centred between them, where
    Cb or Cr changes by >= HALF_COLOUR_STEP levels over the 3 px, on every HALF_COLOUR_ROWS-th row:
    about 1 for a frame with full-resolution colour (rendered, never compressed 0.86-1.07; JPEG 4:4:4
    0.83-1.14), 0.23-0.43 for JPEG 4:2:0 at quality 60-100 decoded by OpenCV."""
    inside, between = _chroma_third_differences(image, HALF_COLOUR_ROWS, HALF_COLOUR_STEP)
    return inside / max(between, 1)


@njit(cache=True)
def _chroma_third_differences(image, row_step, min_step):
    """(inside, between): summed |third difference| of Cb, Cr (BT.601, in 1/256 levels) along every
    row_step-th row of a BGR uint8 image, centred inside / between the column pairs 2k, 2k+1, where
    the channel changes by >= min_step levels over the difference's 3 px (``half_colour``)."""
    inside = 0
    between = 0
    w = image.shape[1]
    cb = np.empty(w, np.int64)
    cr = np.empty(w, np.int64)
    lim = min_step * 256
    for y in range(0, image.shape[0], row_step):
        for x in range(w):
            b, g, r = np.int64(image[y, x, 0]), np.int64(image[y, x, 1]), np.int64(image[y, x, 2])
            cb[x] = 128 * b - 43 * r - 85 * g
            cr[x] = 128 * r - 107 * g - 21 * b
        for x in range(w - 3):
            d = 0
            if abs(cb[x + 3] - cb[x]) >= lim:
                d += abs(cb[x] - 3 * cb[x + 1] + 3 * cb[x + 2] - cb[x + 3])
            if abs(cr[x + 3] - cr[x]) >= lim:
                d += abs(cr[x] - 3 * cr[x + 1] + 3 * cr[x + 2] - cr[x + 3])
            if x % 2:
                inside += d
            else:
                between += d
    return inside, between


@njit(cache=True)
def _ballness(b, g, r, c, norm, tan_chroma, dark_share, bright_share, hole, towards, lit_max):
    """How far one linear BGR colour is from the cloth (unit direction c, lit norm): >= 1 is ball.
    The largest of the angle from the cloth's colours (tan, over tan_chroma), the darkness
    (dark_share * norm over the brightness along c; not over a pocket hole) and the brightness
    (the brightness along c over bright_share * norm: a white ball on a grey cloth, an orange one on
    a red cloth have the cloth's hue). The cloth's colours: its direction c with white light added,
    up to lit_max times the component along c in the unit direction ``towards`` white square to c
    (lit_max 0: the direction alone)."""
    a = b * c[0] + g * c[1] + r * c[2]
    q = b * towards[0] + g * towards[1] + r * towards[2]
    extra = q - min(max(q, 0.0), lit_max * max(a, 0.0))
    perp = math.sqrt(max(b * b + g * g + r * r - a * a - q * q, 0.0) + extra * extra)
    a_floor = max(a, 0.05 * norm)
    dark = 0.0 if hole else dark_share * norm / a_floor
    return max(perp / (tan_chroma * a_floor), dark, a / (bright_share * norm))


@njit(cache=True)
def _towards_white(c):
    """(3,) the unit direction towards white square to the unit colour c (zeros for a grey c)."""
    e = np.ones(3) - (c[0] + c[1] + c[2]) * c
    n = math.sqrt(e[0] ** 2 + e[1] ** 2 + e[2] ** 2)
    return e / n if n > 1e-6 else np.zeros(3)


@njit(cache=True)
def ballness(lin, cloth_lin, tan_chroma, dark_share, bright_share):
    """``_ballness`` of linear BGR colours (K, 3) -> (K,), no pocket holes."""
    norm = math.sqrt(cloth_lin[0] ** 2 + cloth_lin[1] ** 2 + cloth_lin[2] ** 2)
    c = cloth_lin / norm
    towards = _towards_white(c)
    out = np.empty(lin.shape[0])
    for i in range(lin.shape[0]):
        out[i] = _ballness(lin[i, 0], lin[i, 1], lin[i, 2], c, norm, tan_chroma, dark_share, bright_share, False,
                           towards, 0.0)
    return out


@njit(cache=True)
def _sample(image, lut, x, y, out):
    """Bilinear linear-light BGR sample of a uint8 image at (x, y) into out (3,)."""
    h, w = image.shape[0], image.shape[1]
    x = min(max(x, 0.0), w - 1.001)
    y = min(max(y, 0.0), h - 1.001)
    x0, y0 = int(x), int(y)
    _sample_at(image, lut, x0, y0, x - x0, y - y0, out)


@njit(cache=True)
def _sample_at(image, lut, x0, y0, fx, fy, out):
    """``_sample`` at (x0 + fx, y0 + fy): pixel (x0, y0) and the fractions 0 <= fx, fy < 1 beyond it."""
    for ch in range(3):
        a = lut[image[y0, x0, ch]]
        b = lut[image[y0, x0 + 1, ch]]
        c = lut[image[y0 + 1, x0, ch]]
        d = lut[image[y0 + 1, x0 + 1, ch]]
        out[ch] = (a + (b - a) * fx) * (1 - fy) + (c + (d - c) * fx) * fy


@njit(cache=True)
def _interp(prof, t0, step, x, out):
    """Linear interpolation of a sampled profile (T, 3) starting at offset t0 at offset x."""
    f = min(max((x - t0) / step, 0.0), prof.shape[0] - 1.001)
    i0 = int(f)
    w = f - i0
    for ch in range(3):
        out[ch] = prof[i0, ch] * (1 - w) + prof[i0 + 1, ch] * w


LUMA_B, LUMA_G, LUMA_R = 0.114, 0.587, 0.299      # JPEG's luma (ITU-R BT.601 weights of gamma R'G'B')


@njit(cache=True)
def _alpha_refine(prof, t0, step, side, min_step, reach, iters, e0):
    """(ok, offset): where the linear profile (T, 3) is half-way between its colours ``side`` px
    either side (module notes, step 2)."""
    bcol = np.empty(3)
    kcol = np.empty(3)
    T = prof.shape[0]
    e = e0
    for _ in range(iters):
        _interp(prof, t0, step, e - side, bcol)
        _interp(prof, t0, step, e + side, kcol)
        n2 = 0.0
        for ch in range(3):
            n2 += (bcol[ch] - kcol[ch]) ** 2
        if n2 < min_step * min_step:
            return False, 0.0
        best, e_new = 1e9, 0.0
        a_prev = 0.0
        for k in range(T):
            t = t0 + k * step
            a = 0.0
            for ch in range(3):
                a += (prof[k, ch] - kcol[ch]) * (bcol[ch] - kcol[ch])
            a /= n2
            if k > 0 and abs(t - step - e) <= side + 1e-9 and abs(t - e) <= side + 1e-9 and a_prev >= 0.5 > a:
                mid = abs(t - 0.5 * step - e)
                if mid < best:
                    best = mid
                    e_new = t - step + min(max((a_prev - 0.5) / max(a_prev - a, 1e-9), 0.0), 1.0) * step
            a_prev = a
        if best == 1e9:
            return False, 0.0
        e = min(max(e_new, -reach), reach)
    return True, e


@njit(cache=True)
def _luma_share(prof, t0, step, side, srgb_lut):
    """How much of the step between the colours ``side`` px either side of offset 0 of a linear
    profile (T, 3) is in luma: sqrt(3) |dY'| / |dR'G'B'| over 8-bit sRGB values (srgb_lut: linear
    in len - 1 steps -> 8-bit), 1 for a grey step."""
    bcol = np.empty(3)
    kcol = np.empty(3)
    _interp(prof, t0, step, -side, bcol)
    _interp(prof, t0, step, side, kcol)
    w = (LUMA_B, LUMA_G, LUMA_R)
    top = srgb_lut.shape[0] - 1
    dy, d2 = 0.0, 0.0
    for ch in range(3):
        d = float(srgb_lut[int(min(max(bcol[ch], 0.0), 1.0) * top + 0.5)]) \
            - float(srgb_lut[int(min(max(kcol[ch], 0.0), 1.0) * top + 0.5)])
        dy += w[ch] * d
        d2 += d * d
    return math.sqrt(3.0) * abs(dy) / max(math.sqrt(d2), 1e-9)


@njit(cache=True)
def outline_points(image, lut, outline, nrm, half_width, step, cloth_lin, tan_chroma, dark_share,
                   bright_share, hole, hole_u0, hole_v0, hole_rows, refine, min_step, reach, iters, lit_share, side,
                   luma_share, srgb_lut):
    """Outline points (M, N, 2) and validity (M, N) along normals nrm (M, N, 2) of the predicted
    outline (M, N, 2) [px], searched half_width px either side (see the module notes), each ball m
    against its own cloth colour cloth_lin[m] (M, 3) linear BGR; tan_chroma (M,): the tangent of each
    ball's colour angle from the cloth beyond which a colour is ball; dark_share (M,): a colour darker than
    this many times the lit cloth is ball (not over a pocket hole); bright_share (M,): a colour
    brighter than this many times the lit cloth is ball (inf: never).
    lit_share (M,): the cloth's colours reach this share of the way to white (white light added, in the
    plane of the cloth's colour and white; 0: its colour alone).
    side > 1: a step whose luma share is below luma_share is refined ``side`` px either side first
    (srgb_lut: linear -> 8-bit sRGB, for the share).

    hole: (h, w) bool half-resolution mask of pocket holes with its top-left full-resolution pixel
    (hole_u0, hole_v0); hole_rows: (M,) which balls to look it up for. refine (M,) bool: do step 2.
    """
    M, N = outline.shape[0], outline.shape[1]
    S = int(round((2 * half_width + 2) / step)) + 1
    s0 = -half_width - 1.0
    T = int(round((2 * reach + 2 * side + 2) / step)) + 1
    t0 = -reach - side - 1.0
    pts = outline.copy()
    valid = np.zeros((M, N), dtype=np.bool_)
    prof = np.empty((T, 3))
    col = np.empty(3)
    z = np.empty(S)
    hh, hw = hole.shape[0], hole.shape[1]
    for m in range(M):
        norm = math.sqrt(cloth_lin[m, 0] ** 2 + cloth_lin[m, 1] ** 2 + cloth_lin[m, 2] ** 2)
        c = cloth_lin[m] / norm
        towards = _towards_white(c)
        lit_max = lit_share[m] * (towards[0] + towards[1] + towards[2]) / (c[0] + c[1] + c[2])   # white's share
        for n in range(N):
            ox, oy = outline[m, n, 0], outline[m, n, 1]
            nx, ny = nrm[m, n, 0], nrm[m, n, 1]
            jb = -1
            run = 0                                       # ball samples in a row from sample k outward
            for k in range(S - 1, -1, -1):                # read from the outer end in, only as far as needed
                s = s0 + k * step
                x, y = ox + s * nx, oy + s * ny
                _sample(image, lut, x, y, col)
                in_hole = False
                if hole_rows[m]:
                    j = min(max(int((x - hole_u0) // 2), 0), hw - 1)
                    i = min(max(int((y - hole_v0) // 2), 0), hh - 1)
                    in_hole = hole[i, j]
                z[k] = _ballness(col[0], col[1], col[2], c, norm, tan_chroma[m], dark_share[m], bright_share[m],
                                 in_hole, towards, lit_max)
                if k >= S - 2:
                    if z[k] >= 1.0:                       # the outer end must be cloth
                        break
                    continue
                run = run + 1 if z[k] >= 1.0 else 0       # the outermost ball sample of three in a row
                if run >= 3 and abs(s0 + (k + 2) * step) <= half_width + 1e-9:
                    jb = k + 2
                    break
            if jb < 0:
                continue
            off = s0 + jb * step + min(max((z[jb] - 1.0) / max(z[jb] - z[jb + 1], 1e-9), 0.0), 1.0) * step
            if abs(off) > half_width:
                continue
            px, py = ox + off * nx, oy + off * ny
            if refine[m]:
                for k in range(T):
                    _sample(image, lut, px + (t0 + k * step) * nx, py + (t0 + k * step) * ny, prof[k])
                e = 0.0
                if side > 1.0 and _luma_share(prof, t0, step, side, srgb_lut) < luma_share:
                    ok, e = _alpha_refine(prof, t0, step, side, min_step, reach, iters, 0.0)
                ok, e = _alpha_refine(prof, t0, step, 1.0, min_step, reach, iters, e)
                if not ok:
                    continue
                px, py = px + e * nx, py + e * ny
            pts[m, n, 0], pts[m, n, 1] = px, py
            valid[m, n] = True
    return pts, valid


@njit(cache=True)
def luma_points(image, outline, nrm, side, reach, step, min_step, iters):
    """Outline points (M, N, 2) and validity (M, N) where the luma Y' (BT.601 of the 8-bit sRGB values,
    bilinear) along the normals nrm (M, N, 2) of the predicted outline (M, N, 2) [px] is half-way between
    its values ``side`` px either side: the crossing nearest the predicted point, within ``reach`` px,
    re-read about the new point ``iters`` times; invalid where the two differ by less than min_step."""
    M, N = outline.shape[0], outline.shape[1]
    T = int(round((2 * reach + 2 * side + 2) / step)) + 1
    t0 = -reach - side - 1.0
    prof = np.empty(T)
    col = np.empty(3)
    pts = outline.copy()
    valid = np.zeros((M, N), dtype=np.bool_)
    for m in range(M):
        for n in range(N):
            ox, oy, nx, ny = outline[m, n, 0], outline[m, n, 1], nrm[m, n, 0], nrm[m, n, 1]
            for k in range(T):
                prof[k] = _luma(image, ox + (t0 + k * step) * nx, oy + (t0 + k * step) * ny, col)
            e = 0.0
            ok = True
            for _ in range(iters):
                fb = min(max((e - side - t0) / step, 0.0), T - 1.001)
                fk = min(max((e + side - t0) / step, 0.0), T - 1.001)
                ib, ik = int(fb), int(fk)
                yb = prof[ib] + (prof[ib + 1] - prof[ib]) * (fb - ib)
                yk = prof[ik] + (prof[ik + 1] - prof[ik]) * (fk - ik)
                if abs(yb - yk) < min_step:
                    ok = False
                    break
                mid = 0.5 * (yb + yk)
                sgn = 1.0 if yb > yk else -1.0
                best, e_new = 1e9, 0.0
                for k in range(1, T):
                    a0 = (prof[k - 1] - mid) * sgn
                    a1 = (prof[k] - mid) * sgn
                    if a0 >= 0.0 > a1:
                        x = t0 + (k - 1 + a0 / (a0 - a1)) * step
                        if abs(x) <= reach and abs(x - e) < best:
                            best = abs(x - e)
                            e_new = x
                if best == 1e9:
                    ok = False
                    break
                e = e_new
            if ok:
                pts[m, n, 0], pts[m, n, 1] = ox + e * nx, oy + e * ny
                valid[m, n] = True
    return pts, valid


@njit(cache=True)
def luma_at(image, pts):
    """The luma Y' (BT.601 weights of the 8-bit sRGB values, bilinear) of a BGR frame (h, w, 3) uint8 at
    points (K, 2) [px] -> (K,) in 8-bit levels."""
    out = np.empty(pts.shape[0])
    col = np.empty(3)
    for k in range(pts.shape[0]):
        out[k] = _luma(image, pts[k, 0], pts[k, 1], col)
    return out


@njit(cache=True)
def _luma(image, x, y, col):
    """The luma Y' (BT.601 weights of the 8-bit sRGB values, bilinear) of a BGR frame (h, w, 3) uint8 at (x, y)
    [px], in 8-bit levels; col (3,) is scratch."""
    _sample(image, CODES_LUT, x, y, col)
    return LUMA_B * col[0] + LUMA_G * col[1] + LUMA_R * col[2]
