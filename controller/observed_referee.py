"""The observed referee: one shot's ``ShotFacts`` from what the overhead camera saw.

The engine's referee reads the facts of a shot from the physics event log
(``planner.rules.facts.read_shot``). On the real table there is no event log, only frames: per
frame a time [s] and the identified balls' centres [m] in the table frame (docs/frame.md; ball 0
is the cue ball, 8 the eight). ``observe_shot`` turns those frames into the same ``ShotFacts``,
with a note for every ambiguity the frames left, and the balls that vanished where none can drop.

Rules, in the order they are applied. ``noise`` is the vision's std per axis (0.3 mm); dt the
frame interval; move = max(2 mm, 7 noise).

0. Sightings. A sighting that continues the track of a ball missing from its frame is that
   ball's, whatever id vision gave it (``continued``: within CONTINUE_GATE of where that ball,
   last seen at most CONTINUE_FRAMES frame intervals back, was going at its last velocity, and
   more than 2R from where the ball of its id was last seen and was going): given back, noted. Then a sighting of a ball
   farther from its last sighting than FASTEST_BALL x the time between them + SIGHTING_SLACK, and
   the run of sightings that follows it in reach of each other, is another ball given its id
   (``unreachable``: a ball named the cue ball where no ball's track goes): left out, noted.
1. Motion. The balls seen in the first frame are in play; a ball's rest position is its mean over
   the frames before the cue ball moves (give a few frames before the strike). A ball *moved* at
   its first sighting more than ``move`` from rest if the next sighting is too (or there is
   none); a ball that disappears without one moved at the first frame it is missing from. A ball
   that never moved but whose final position (mean of its last REST_FRAMES sightings) differs
   from its rest by more than 4 standard errors was *nudged*.
2. Pocketed. A ball not seen in the last frame drops into the first pocket its last seen flight
   (straight on at its last velocity for 1.5 frame intervals, to the first frame without its id)
   comes within the pocket radius + POCKET_MARGIN of; failing that, into the nearest pocket if its
   last position lies within that reach of one, or beyond a cushion line (in a throat), or, for a
   ball never seen moving (speed unknown), within MAX_SPEED x 1.5 dt (noted). Any other ball has *vanished* (off the table, or
   lost by the camera): it is reported in ``vanished`` and never given a pocket. Balls drop in
   the order of their estimated drop times; the cue ball among them is a scratch.
3. First contact. The cue ball's frame intervals are scanned in order up to the first frame that
   shows an object ball moved. In each, the cue ball's path is carried on straight at its
   velocity coming into the frame (over as few frames back as it takes to move more than
   ``move``; in the interval of the strike, over that interval, or along ``aim_deg`` if given),
   until its next frame or a cushion. The first contact is the first object ball still at rest
   that this path reaches (centres within 2R + CONTACT_MARGIN) and that moved within three
   frames after, or deflected the cue ball (its next position is more than KINK off the straight
   path), or was nudged and lies squarely in the path; balls the path overlaps (within 2R) come
   before balls it only grazes. Several balls on the path moving within a frame of each other
   (a cluster), or the cue ball unseen for more than two frames there, are noted. If no interval
   gives a ball, the first contact is, among the balls that moved first (within a frame), the one
   whose contact point (2R behind it along its departure) lies nearest the cue ball's observed
   path (noted). If no object ball moved: the first nudged ball the cue ball passed within
   2R + CONTACT_MARGIN (noted), else no contact (noted if it passed that close to a ball).
4. Cushion contacts, per ball: (a) frame to frame: the velocity over the interval before points
   into a cushion segment or jaw tip and the one over the interval after points out of it, both
   by more than max(0.1 m/s, 4 sqrt(2) noise / dt), and the straight flights carried on from
   either side come within R + CUSHION_MARGIN of it; (b) slowly: within R + SLOW_MARGIN of it at
   a frame, the ball came closer by more than 3.5 noise sqrt(2/3) over SLOW_WINDOW (and twice
   that) frames before and went away by as much over as many after (positions averaged over
   SLOW_AVERAGE frames); (c) a ball that came to rest within R + REST_TOUCH of a cushion it was
   approaching (frozen to it) touched it (noted if nothing else showed a contact); (d) a dropped
   ball's straight flight from its second-last sighting into the pocket comes within
   R + CUSHION_MARGIN of a jaw while moving into it, or a drop its flight cannot reach (noted);
   (e) the first-contact ball, struck along the line of centres at the cue ball's speed along it,
   reaches a cushion within two frames (sliding at SLIDE_DECEL, not into a pocket first) and no
   rebound was seen (noted).
5. rail_after_contact: some ball touched a cushion after the first contact's estimated time.
   balls_to_rail: the object balls with a cushion contact. off_table is always empty: a ball
   leaving the table is seen only as a ball that vanished.

What the frames cannot show, and the rules above then get wrong against the engine: grazes of a
cushion or a ball that move nothing by more than the noise (a ball rolling along a rail, a cue
ball touching a ball at walking pace), and balls that stop within REST_TOUCH of a cushion
without touching it.

Layout: this module applies rules 2, 3 and 5 and puts the facts together; rule 1 (frames to
tracks, rest positions, departures) is ``controller.observed_tracks``, rule 4 (a)-(c) and (e)
``controller.observed_cushions``, and the geometry of points and straight flights against the
cushions and pockets ``planner.table_regions``. Each constant named above sits beside the code
that applies it.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from controller.observed_cushions import CUSHION_MARGIN, SLOW_WINDOW, cushion_contacts, struck_into_cushion
from controller.observed_tracks import Snapshot, ball_motion, continued, tracks, unreachable
from planner.rules.facts import ShotFacts
from planner.state import CUE
from planner.table import Table
from planner.table_regions import (
    cushion_time,
    flight_cushion_contact,
    pocket_entry,
    polyline_distance,
    segment_distance,
)

NOISE = 3e-4            # vision accuracy: std of a ball centre per axis [m]
NOISE_FLOOR = 1e-4      # thresholds assume at least this noise, so that exact positions do not make them 0 [m]
MOVE_MIN = 2e-3         # smallest displacement from rest that counts as motion [m]
KINK = 3e-3             # the cue ball's deviation from its straight path over a frame that shows a contact [m]
CONTACT_MARGIN = 2e-3   # how far beyond 2R the cue ball's extrapolated path may pass a ball it hits [m]
POCKET_MARGIN = 5e-3    # how far outside a pocket's radius an extrapolated drop may end [m]
POCKET_SLACK = 0.5      # fraction of a frame interval a drop may be late (speed estimate error)
MAX_SPEED = 10.0        # a struck ball's usual top speed [m/s]: the reach of a ball seen only at rest (rule 2)
FASTEST_BALL = 15.0     # no ball moves faster [m/s] (a professional's break: the cue ball at about 13 m/s) ...
SIGHTING_SLACK = 0.01   # ... so beyond this x the time since its last sighting + this [m], a sighting is another ball's
CONTINUE_GATE = 0.01    # a sighting this close [m] to where a ball missing from its frame was going ...
CONTINUE_FRAMES = 3     # ... last seen at most this many frame intervals back, is that ball's, whatever its id (rule 0)

__all__ = ["ObservedShot", "Snapshot", "observe_shot", "observe_tracks"]


@dataclass(frozen=True)
class ObservedShot:
    """The facts of one shot as the camera saw it.

    facts: what ``planner.rules.eightball.rule`` rules on (off_table always empty).
    undecided: sentences for people, one per ambiguity the frames left and the rule applied.
    vanished: balls in play at the start, not seen at the end, and not near any pocket: the
        service should re-capture or pause rather than rule.
    contact_time: estimated time of the first contact [s], or None.
    last_seen: where each ball in play at the start (and seen since) was last seen, (x, y) [m], after sightings
        under another ball's id were given back (rule 0) and unreachable ones left out.
    """
    facts: ShotFacts
    undecided: tuple[str, ...]
    vanished: frozenset[int]
    contact_time: float | None
    last_seen: Mapping[int, tuple[float, float]]

    def facts_given(self, ids_after) -> ShotFacts:
        """The facts to rule on once the table after the shot is known (``ids_after``: the ball
        ids it holds): the balls that vanished and are not on it are off the table."""
        gone = self.vanished - frozenset(int(b) for b in ids_after)
        return replace(self.facts, off_table=self.facts.off_table | gone) if gone else self.facts


def observe_shot(snapshots: Sequence[Snapshot], table: Table, R: float, noise: float = NOISE,
                 aim_deg: float | None = None) -> ObservedShot:
    """Rule the contacts of one shot from its frames (see the module docstring for the rules).

    snapshots: the frames of the shot in time order, the first ones taken before the strike.
    table: the table geometry; R: ball radius [m]; noise: vision std per axis [m].
    aim_deg: the direction the cue ball was struck in (phi, degrees, docs/frame.md) if known, e.g.
        the shot the robot was sent; it sets the cue ball's path within the frame of the strike.
    Raises ValueError for fewer than two frames, times not increasing, or no cue ball in the
    first frame.
    """
    times, ids, pos = tracks(snapshots)
    return observe_tracks(times, ids, pos, table, R, noise, aim_deg)


def observe_tracks(times, ids, pos, table: Table, R: float, noise: float = NOISE,
                   aim_deg: float | None = None) -> ObservedShot:
    """``observe_shot`` on arrays: times (T,) [s], ids (N,) ball ids, pos (T, N, 2) [m] (NaN = unseen)."""
    times = np.asarray(times, dtype=np.float64)
    ids = np.asarray(ids, dtype=np.int64)
    pos = np.asarray(pos, dtype=np.float64)
    if times.ndim != 1 or times.shape[0] < 2 or not np.all(np.diff(times) > 0):
        raise ValueError(f"need at least two frames with increasing times, got times {times[:5]}...")
    if pos.shape != (times.shape[0], ids.shape[0], 2):
        raise ValueError(f"pos must have shape (T, N, 2) = ({times.shape[0]}, {ids.shape[0]}, 2), got {pos.shape}")
    pos, given = continued(times, pos, np.isfinite(pos).all(-1), CONTINUE_GATE, 2 * R, CONTINUE_FRAMES)
    seen = np.isfinite(pos).all(-1)
    wrong = unreachable(times, pos, seen, FASTEST_BALL, SIGHTING_SLACK)
    cue_hits = np.flatnonzero(ids == CUE)
    if cue_hits.size == 0 or not seen[0, cue_hits[0]]:
        raise ValueError("the cue ball (id 0) is not seen in the first frame")
    play = np.flatnonzero(seen[0])
    ids_all = ids
    ids, pos, seen = ids[play], pos[:, play], seen[:, play]
    cue = int(np.flatnonzero(ids == CUE)[0])
    dt = float(np.median(np.diff(times)))
    noise = max(float(noise), NOISE_FLOOR)
    move = max(MOVE_MIN, 7.0 * noise)
    notes: list[str] = []
    for (a, b), k in sorted(_grouped(given).items()):
        notes.append(f"ball {int(ids_all[b])} was named ball {int(ids_all[a])} in {len(k)} frame(s) from "
                     f"t = {times[k[0]]:.3f} s, on its own track: given back to it")
    wrong = wrong[:, play]
    for i in np.flatnonzero(wrong.any(0)):
        k = np.flatnonzero(wrong[:, i])
        notes.append(f"ball {int(ids[i])} was seen in {k.size} frame(s) from t = {times[k[0]]:.3f} s where it could not "
                     f"have reached: another ball given its id, left out")
    reported = seen.copy()               # a ball's id was in these frames, reachable or not
    pos, seen = np.where(wrong[..., None], np.nan, pos), seen & ~wrong

    motion = ball_motion(times, pos, seen, cue, noise, move)
    rest, first_moved, dep, nudged = motion.rest, motion.first_moved, motion.departure, motion.nudged

    drops, vanished, drop_hits = _drops(times, pos, seen, reported, ids, first_moved, table, R, dt, notes)
    contact, t_c, strike = _first_contact(times, pos, seen, ids, cue, rest, first_moved, dep, nudged, table, R, dt,
                                          move, aim_deg, notes)

    hits: dict[int, list[float]] = {}
    for i in range(len(ids)):
        b, k = int(ids[i]), np.flatnonzero(seen[:, i])
        seen_hits, rest_hits = cushion_contacts(times[k], pos[k, i], table, R, noise, dt)
        if rest_hits and not seen_hits:
            notes.append(f"ball {b} came to rest against a cushion at t = {rest_hits[0]:.3f} s without a "
                         f"visible rebound: ruled a cushion contact")
        hits[b] = seen_hits + rest_hits + drop_hits.get(b, [])
        if b == contact and strike is not None and not seen_hits:
            dt_hit = struck_into_cushion(rest[i], *strike, table, R, dt)
            if dt_hit is not None:
                hits[b].append(t_c + dt_hit)
                notes.append(f"ball {b} was struck toward a cushion it reached within two frames, and no rebound "
                             f"was seen: ruled a cushion contact")
    rail_after = contact is not None and any(t > t_c for ts in hits.values() for t in ts)
    to_rail = frozenset(b for b, ts in hits.items() if ts and b != CUE)
    facts = ShotFacts(contact, bool(rail_after), to_rail, tuple(drops), frozenset())
    last = {int(ids[i]): (float(pos[k[-1], i, 0]), float(pos[k[-1], i, 1]))
            for i in range(len(ids)) if (k := np.flatnonzero(seen[:, i])).size}
    return ObservedShot(facts, tuple(notes), frozenset(vanished), t_c, last)


def _first_contact(times, pos, seen, ids, cue, rest, first_moved, dep, nudged, table, R, dt, move, aim_deg,
                   notes):
    """Rule 3: (ball id of the first contact or None, its time [s] or None, and when the cue
    ball's path gave it, (the cue ball's centre at the contact (2,) [m], its velocity (2,) [m/s]))."""
    T = times.shape[0]
    obj = np.array([i for i in range(len(ids)) if i != cue], dtype=np.int64)
    kc = np.flatnonzero(seen[:, cue])
    cue_t, cue_p = times[kc], pos[kc, cue]
    moved = obj[first_moved[obj] < T]
    if moved.size == 0:
        if obj.size and cue_p.shape[0] >= 2:
            d = segment_distance(cue_p[:-1, None], cue_p[1:, None], rest[obj][None])       # (M - 1, K)
            near = (d < 2 * R + CONTACT_MARGIN).any(0)
            touched = near & nudged[obj]
            if touched.any():
                first_k = np.where(d[:, touched] < 2 * R + CONTACT_MARGIN, np.arange(d.shape[0])[:, None], d.shape[0])
                j = int(np.flatnonzero(touched)[np.argmin(first_k.min(0))])
                notes.append(f"ball {int(ids[obj[j]])} moved less than {move * 1000:.0f} mm, but it rests elsewhere "
                             f"than before and the cue ball passed it: ruled the first contact")
                return int(ids[obj[j]]), float(cue_t[int(first_k.min())]), None
            if near.any():
                notes.append(f"no object ball moved, but the cue ball passed within {CONTACT_MARGIN * 1000:.0f} mm "
                             f"of touching ball(s) {sorted(int(ids[i]) for i in obj[near])}: ruled no contact")
        return None, None, None
    k_any = int(first_moved[moved].min())
    t_star = float(dep[moved].min())
    # scan the cue ball's frame intervals up to the first moved sighting of any object ball
    for m in range(min(int(np.searchsorted(kc, k_any, side="right")), kc.size - 1)):
        b, nb = kc[m], kc[m + 1]
        h_t = times[nb] - times[b]
        # the cue ball's velocity coming into this frame: over as few frames back (up to
        # SLOW_WINDOW) as it takes to move more than ``move``; from rest, over this interval
        back = np.hypot(*(cue_p[m] - cue_p[max(m - SLOW_WINDOW, 0):m][::-1]).T)
        w = int(np.argmax(back > move)) + 1 if (back > move).any() else 0
        reach, aimed = h_t * 1.05, False
        if w:
            v = (cue_p[m] - cue_p[m - w]) / (cue_t[m] - cue_t[m - w])
        elif np.hypot(*(cue_p[m + 1] - cue_p[m])) > move / 2:
            v = (cue_p[m + 1] - cue_p[m]) / h_t
            if aim_deg is not None and np.hypot(*(cue_p[m] - cue_p[0])) <= move:
                # struck in this interval: along the known aim, as far as a cushion
                v = np.hypot(*v) * np.array([np.cos(np.radians(aim_deg)), np.sin(np.radians(aim_deg))])
                reach, aimed = h_t * 1.5, True
        else:
            continue
        speed = float(np.hypot(*v))
        cand = obj[first_moved[obj] > b]
        rel = rest[cand] - cue_p[m]
        along = rel @ v / speed
        h = np.abs(rel[:, 0] * v[1] - rel[:, 1] * v[0]) / speed
        tau = (along - np.sqrt(np.maximum(4 * R * R - h * h, 0.0))) / speed
        reach = cushion_time(cue_p[m], v, reach, table, R)
        ok = (h < 2 * R + CONTACT_MARGIN) & (along > 0) & (tau <= reach + 1e-9)
        # a ball hit in this interval moves within a few frames, or the cue ball visibly
        # deflects off it; balls the path overlaps are taken before balls it only grazes
        soon = times[np.minimum(first_moved[cand], T - 1)] <= times[nb] + 3 * dt
        kink = not aimed and np.hypot(*(cue_p[m + 1] - cue_p[m] - v * h_t)) > KINK
        strong = ok & (((first_moved[cand] < T) & (soon | kink)) | (nudged[cand] & (first_moved[cand] == T) & (h <= 2 * R)))
        if (strong & (h <= 2 * R)).any():
            strong &= h <= 2 * R
        if strong.any():
            j = int(np.flatnonzero(strong)[np.argmin(tau[strong])])
            near = cand[(ok | (w == 0)) & (first_moved[cand] <= nb + 1)]
            if near.size > 1:
                notes.append(f"balls {sorted(int(ids[i]) for i in near)} lie on the cue ball's path and started "
                             f"moving within a frame of each other: ruled ball {int(ids[cand[j]])}, the first on "
                             f"the cue ball's extrapolated path")
            if h_t > 2.5 * dt:
                notes.append(f"the cue ball was not seen for {h_t / dt - 1:.0f} frames around the first contact "
                             f"(t = {cue_t[m]:.3f} s): ruled ball {int(ids[cand[j]])}, on its extrapolated path")
            if first_moved[cand[j]] == T:
                notes.append(f"ball {int(ids[cand[j]])} moved less than {move * 1000:.0f} mm, but it rests elsewhere "
                             f"than before and lay on the cue ball's path: ruled the first contact")
            t_c = float(cue_t[m] + max(tau[j], 0.0))
            return int(ids[cand[j]]), t_c, (cue_p[m] + v * tau[j], v)
    # fallback: the departing ball whose implied contact point lies nearest the cue ball's path
    cluster = moved[first_moved[moved] <= k_any + 1]
    m = int(np.searchsorted(cue_t, t_star))
    path = cue_p[max(m - 1, 0):m + 1]
    q = np.empty((cluster.size, 2))
    for n, i in enumerate(cluster):
        after = np.flatnonzero(seen[first_moved[i]:, i])      # its first sighting on the move
        k = first_moved[i] + after[0] if after.size else np.flatnonzero(seen[:, i])[-1]
        d = pos[k, i] - rest[i]
        q[n] = rest[i] - 2 * R * d / max(np.hypot(*d), 1e-12)
    score = polyline_distance(path, q)
    j = int(np.argmin(score))
    notes.append(f"the cue ball's extrapolated path reaches no ball before the first object ball moved "
                 f"(t = {t_star:.3f} s): ruled ball {int(ids[cluster[j]])} of {sorted(int(ids[i]) for i in cluster)}, "
                 f"whose contact point lies {score[j] * 1000:.1f} mm from the cue ball's observed path")
    return int(ids[cluster[j]]), t_star, None


def _grouped(moves) -> dict[tuple[int, int], list[int]]:
    """Rule 0's sightings given back, (column named, column given to) -> their frames in order."""
    out: dict[tuple[int, int], list[int]] = {}
    for k, a, b in moves:
        out.setdefault((a, b), []).append(k)
    return out


def _drops(times, pos, seen, reported, ids, first_moved, table: Table, R: float, dt: float, notes):
    """Rule 2: ([(ball id, pocket id)] in drop order, vanished ids, {ball id: [jaw contact times]}).
    reported (T, N): the frames a ball's id was in, its unreachable sightings (rule 0) included: its
    flight from its last sighting runs until the first frame after them."""
    w, l = table.width, table.length
    pc, pr = table.pocket_center, table.pocket_radius
    drops: list[tuple[float, int, str]] = []
    vanished: list[int] = []
    jaw: dict[int, list[float]] = {}
    for i in np.flatnonzero(~seen[-1]):
        k = np.flatnonzero(seen[:, i])
        L, b = int(k[-1]), int(ids[i])
        p = pos[L, i]
        v = (p - pos[k[-2], i]) / (times[L] - times[k[-2]]) if k.size >= 2 else np.zeros(2)
        after = max(L + 1, min(int(np.flatnonzero(reported[:, i])[-1]) + 1, len(times) - 1))
        t_gap = (times[after] - times[L]) * (1 + POCKET_SLACK)
        s = pocket_entry(p, v, t_gap, table, POCKET_MARGIN)
        if np.isfinite(s).any():
            j = int(np.argmin(s))
            drops.append((times[L] + s[j], b, table.pocket_ids[j]))
            # a jaw on the way in: the straight flight from the frame before the last, to the drop
            if k.size >= 3:
                q, tq = pos[k[-2], i], times[k[-2]]
                u = (q - pos[k[-3], i]) / (tq - times[k[-3]])
                s0 = pocket_entry(q, u, 4 * t_gap, table, margin=0.0)[j]
                hit = flight_cushion_contact(q, u, s0 if np.isfinite(s0) else times[L] + s[j] - tq, table, R,
                                             CUSHION_MARGIN)
                if hit is not None:
                    jaw[b] = [tq + hit]
            continue
        dist = np.hypot(*(p - pc).T) - pr
        outside = not (0.0 <= p[0] <= w and 0.0 <= p[1] <= l)
        j = int(np.argmin(dist))
        if dist[j] <= np.hypot(*v) * t_gap + POCKET_MARGIN or outside:
            drops.append((times[L + 1], b, table.pocket_ids[j]))
            jaw[b] = [float(times[L])]
            notes.append(f"ball {b} dropped into {table.pocket_ids[j]} although its last seen flight does not "
                         f"reach it (a jaw or a ball deflected it): counted as a cushion contact")
            continue
        if first_moved[i] >= L and dist[j] <= MAX_SPEED * t_gap:
            drops.append((times[L + 1], b, table.pocket_ids[j]))
            notes.append(f"ball {b} was not seen moving before it disappeared {dist[j] * 1000:.0f} mm from pocket "
                         f"{table.pocket_ids[j]}: ruled dropped there")
            continue
        vanished.append(b)
    drops.sort()
    return [(b, pid) for _, b, pid in drops], vanished, jaw
