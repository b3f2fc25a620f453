"""Speed of the synthetic camera's fast path (``vision.render_fast``) against the full render.

``run_render_bench`` measures, on one core, in one run:

* the fast path on a 16-ball frame from scratch (after an empty table: every ball's box is
  rendered), on a rack and random 16-ball layouts;
* the baseline, the full render (``SyntheticCamera.render``, without its sensor noise: the
  fast path's timing includes its noise), on the first few of those layouts, and how far the two
  noise-free images are apart;
* the fast path through shots as the simulated camera renders them (one renderer, frames at
  ``fps`` along the engine's trajectories, ``planner.physics.trajectory``), and the vision
  pipeline on those frames;

and estimates the frames' share of a whole game from them.
"""
from __future__ import annotations

import copy
import os
import time
from dataclasses import asdict, dataclass

import cv2
import numpy as np
from scipy.spatial.transform import Rotation
from tqdm import tqdm

from planner.physics.engine import Simulator
from planner.physics.trajectory import frame_times, positions_at
from planner.shot import ShotParams
from planner.state import CUE, TableState
from vision.layouts import rack, random_layout
from vision.pipeline import TableVision
from vision.render import SyntheticCamera

GAME_SHOTS = 35
MOTION_S = 4.0          # seconds of motion per shot assumed for the game estimate


@dataclass(frozen=True)
class RenderBench:
    """Medians (and two means) in milliseconds per 1280x720 frame (wall clock, one core)."""
    cold_ms: float              # fast path, a 16-ball frame from scratch
    full_ms: float              # the full render, the same layouts
    shot_ms: float              # fast path, frames through shots (incremental)
    vision_ms: float            # TableVision.detect on those frames
    shot_mean_ms: float         # the means of those two (a game's total is frames x mean)
    vision_mean_ms: float
    layouts: int
    full_layouts: int
    shot_frames: int
    shots: int
    motion_s: float             # mean seconds of motion of the benchmark's shots
    mad: float                  # mean |fast - full| per pixel and channel [8-bit levels]
    max_diff: int
    fps: float
    load: float                 # the machine's 1-minute load average when the run ended


def _shot_at_ball(state: TableState, rng: np.random.Generator) -> ShotParams:
    """A plausible shot: the cue ball driven at a random object ball, 1.5-3.5 m/s, a little spin."""
    cue = state.position(CUE)
    others = state.pos[state.ids != CUE]
    target = others[rng.integers(others.shape[0])]
    phi = float(np.degrees(np.arctan2(target[1] - cue[1], target[0] - cue[0]))) + rng.normal(0, 1.0)
    return ShotParams(phi % 360.0, 5.0, float(rng.uniform(1.5, 3.5)), 0.0, float(rng.uniform(-0.01, 0.01)))


def _shots(sim: Simulator, sc: SyntheticCamera, n: int, rng: np.random.Generator):
    """n shots of a game-like sequence (a break, then shots at balls) as (start state, result)."""
    state = rack(sc.table, sc.R, rng)
    out = []
    cue_xy = state.position(CUE)
    foot = (sc.table.width / 2, 3 * sc.table.length / 4)
    for k in range(n):
        if k == 0:                          # the break: at the apex ball, 7 m/s
            phi = float(np.degrees(np.arctan2(foot[1] - cue_xy[1], foot[0] - cue_xy[0])))
            shot = ShotParams(phi % 360.0, 5.0, 7.0, 0.0, 0.0)
        else:
            shot = _shot_at_ball(state, rng)
        res = sim.simulate(state, shot)
        out.append((state, res))
        state = res.state_after()
        if not state.has(CUE):              # scratched: ball in hand at its old spot
            balls = state.to_dict()
            balls[CUE] = tuple(cue_xy)
            try:
                sim.check_state(TableState.from_dict(balls))
                state = TableState.from_dict(balls)
            except ValueError:
                break
        if state.ids.shape[0] < 3:
            break
        cue_xy = state.position(CUE)
    return out


def run_render_bench(sc: SyntheticCamera, landmarks, sim: Simulator, layouts: int = 12, full_layouts: int = 3,
                     shots: int = 8, fps: float = 30.0, seed: int = 0, progress: bool = True) -> RenderBench:
    """Measure the fast path, the full render and vision (see the module docstring). One core."""
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    states = [rack(sc.table, sc.R, rng)] + [random_layout(sc.table, sc.R, rng, n=16) for _ in range(layouts - 1)]
    rots = [Rotation.random(len(s.ids), random_state=rng).as_matrix() for s in states]
    fr = sc.fast_renderer()
    fr.render(states[0], rng, rots[0])                                  # compile, cache the empty table
    empty = TableState(np.zeros(0, np.int64), np.zeros((0, 2)))
    cold = []
    for s, r in tqdm(list(zip(states, rots)), desc="fast path, from scratch", disable=not progress):
        fr.render(empty, rng)                                           # no ball left: all 16 are new
        t0 = time.perf_counter()
        fr.render(s, rng, r)
        cold.append(time.perf_counter() - t0)
    quiet = copy.copy(sc)                   # the same camera and caches, without sensor noise
    quiet.noise_sigma = 0.0
    full, diffs = [], []
    for s, r in tqdm(list(zip(states, rots))[:full_layouts], desc="full render", disable=not progress):
        t0 = time.perf_counter()
        a = quiet.render(s, rng, orientations=r).image
        full.append(time.perf_counter() - t0)
        b = quiet.fast_renderer().render(s, rng, r).image
        diffs.append(np.abs(a.astype(np.int16) - b.astype(np.int16)))
    vision = TableVision(sc.cam, sc.table, sc.R, landmarks)
    fr = sc.fast_renderer()
    per_frame, vision_t, motion = [], [], []
    orient = {i: m for i, m in enumerate(Rotation.random(16, random_state=rng).as_matrix())}
    for start, res in tqdm(_shots(sim, sc, shots, rng), desc="frames through shots", disable=not progress):
        times = frame_times(res.t_end, fps)
        motion.append(res.t_end)
        pos = positions_at(res, start, times, sim.params)
        for k, p in enumerate(pos):
            on = ~np.isnan(p[:, 0])
            ids = res.ids[on]
            centres = np.concatenate([p[on], np.full((int(on.sum()), 1), sc.R)], axis=1)
            t0 = time.perf_counter()
            img = fr.update(ids, centres, np.array([orient[int(i)] for i in ids]).reshape(-1, 3, 3)).copy()
            fr.add_noise(img, rng)
            per_frame.append(time.perf_counter() - t0)
            if k % 4 == 0:
                t0 = time.perf_counter()
                vision.detect(img)
                vision_t.append(time.perf_counter() - t0)
    d = np.concatenate([x.ravel() for x in diffs]) if diffs else np.zeros(1)
    return RenderBench(cold_ms=float(np.median(cold)) * 1e3, full_ms=float(np.median(full)) * 1e3,
                       shot_ms=float(np.median(per_frame)) * 1e3, vision_ms=float(np.median(vision_t)) * 1e3,
                       shot_mean_ms=float(np.mean(per_frame)) * 1e3, vision_mean_ms=float(np.mean(vision_t)) * 1e3,
                       layouts=len(states), full_layouts=len(full), shot_frames=len(per_frame), shots=len(motion),
                       motion_s=float(np.mean(motion)), mad=float(d.mean()), max_diff=int(d.max()), fps=fps,
                       load=os.getloadavg()[0])


def game_estimate_s(res: RenderBench, shots: int = GAME_SHOTS, motion_s: float = MOTION_S) -> tuple[int, float]:
    """(frames, seconds of rendering and vision) of a game of ``shots`` shots with ``motion_s`` seconds
    of motion each at the benchmark's frame rate, from its per-frame means."""
    frames = int(round(shots * motion_s * res.fps))
    return frames, frames * (res.shot_mean_ms + res.vision_mean_ms) / 1e3


def report(res: RenderBench) -> str:
    frames, total = game_estimate_s(res)
    return "\n".join([
        f"fast render, 1280x720, one core: {res.cold_ms:.1f} ms per 16-ball frame from scratch "
        f"(median of {res.layouts} layouts; target <= 20 ms)",
        f"  baseline (full render, SyntheticCamera.render without noise, the first {res.full_layouts} layouts): "
        f"{res.full_ms:.0f} ms/frame, x{res.full_ms / res.cold_ms:.0f}",
        f"  fast vs full, noise-free: mean |difference| {res.mad:.4f} levels per pixel and channel "
        f"(max {res.max_diff})",
        f"through {res.shots} shots at {res.fps:g} fps ({res.shot_frames} frames, {res.motion_s:.1f} s of motion "
        f"per shot): render {res.shot_ms:.1f} ms/frame, vision {res.vision_ms:.1f} ms/frame (medians; means "
        f"{res.shot_mean_ms:.1f} and {res.vision_mean_ms:.1f})",
        f"a {GAME_SHOTS}-shot game at {res.fps:g} fps, {MOTION_S:g} s of motion per shot: {frames} frames, "
        f"{total:.0f} s of rendering and vision (means)",
        f"(load average {res.load:.1f} on {os.cpu_count()} cores during the run)",
    ])


def to_json(res: RenderBench) -> dict:
    frames, total = game_estimate_s(res)
    return {**asdict(res), "ratio": res.full_ms / res.cold_ms, "game_frames": frames, "game_s": total}
