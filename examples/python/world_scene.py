"""The Panda (and the G1) moving through a voxelised kitchen-like scene: a table, a shelf,
a wall and a post, their surfaces as points sampled every 5 mm and binned into 25 mm cells
(`collide.World.from_points`), a pot on the table as a convex-hull fixture, and a grasped
box attached to the last link (`collide.WorldSession`). The arm moves smoothly between two
seeded poses; every step is checked against the world (`check`, the least distance), for
the verdict alone (`verdict_only=True`) and by the coherent mode (`coherent=True`: the
world check has no presets, these are its modes), and the per-step cost of each is printed
in microseconds, with the steps that stop and what they hit.

    python examples/python/world_scene.py [--robot franka_panda] [--steps 400] [--margin 0.02]

Timings are wall-clock (the GIL released in every check) on whatever else the machine is
doing.
"""

import argparse
import pathlib
import time

import numpy as np

import collide

ROOT = pathlib.Path(__file__).resolve().parents[2]
PITCH = 0.025


def box_surface(lo, hi, step=0.005):
    """Points on the surface of the axis-aligned box [lo, hi], `step` apart."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    axes = [np.arange(lo[k], hi[k] + step / 2, step) for k in range(3)]
    pts = []
    for k in range(3):
        a, b = [axes[j] for j in range(3) if j != k]
        u, v = np.meshgrid(a, b, indexing="ij")
        for side in (lo[k], hi[k]):
            p = np.empty((u.size, 3))
            p[:, k] = side
            p[:, [j for j in range(3) if j != k]] = np.stack([u.ravel(), v.ravel()], axis=1)
            pts.append(p)
    return np.concatenate(pts)


def scene():
    parts = [
        box_surface((0.35, -0.5, 0.30), (0.95, 0.5, 0.34)),  # table top
        box_surface((-0.3, 0.55, 0.48), (0.3, 0.85, 0.51)),  # shelf boards
        box_surface((-0.3, 0.55, 0.88), (0.3, 0.85, 0.91)),
        box_surface((-0.65, -1.0, -0.8), (-0.6, 1.0, 1.5), step=0.02),  # wall
        box_surface((0.47, -0.63, -0.8), (0.53, -0.57, 1.5)),  # post
    ]
    world = collide.World.from_points(np.concatenate(parts), PITCH)
    ring = [(0.6 + 0.08 * np.cos(t), 0.2 + 0.08 * np.sin(t), z)
            for t in np.linspace(0, 2 * np.pi, 12, endpoint=False) for z in (0.34, 0.46)]
    return world.with_fixture(collide.Shape.hull(np.array(ring)))


def run(robot, steps, margin):
    m = collide.Model.load(str(ROOT / "robots" / robot / "manifest.yaml"))
    world = scene()
    s, coh = collide.WorldSession(m, world), collide.WorldSession(m, world)
    # Held beyond the fingertips; one held between the fingers would name them in
    # `touches=[...]` (the links it may touch besides its holder).
    holder = "panda_hand" if "panda_hand" in m.link_names else m.link_names[-1]
    for session in (s, coh):
        session.attach(holder, collide.Shape.box((0, 0, 0.2), (0.03, 0.03, 0.04)))
    lim = np.array(m.joint_limits)
    mid, half = lim.mean(axis=1), (lim[:, 1] - lim[:, 0]) / 2
    rng = np.random.default_rng(3)
    a = mid + 0.7 * half * rng.uniform(-1, 1, len(mid))
    b = mid + 0.7 * half * rng.uniform(-1, 1, len(mid))
    full, verdict, coherent, stops, hits = [], [], [], 0, {}
    for k in range(steps):
        q = a + (b - a) * 0.5 * (1 - np.cos(np.pi * k / (steps - 1)))
        t = time.perf_counter()
        r = s.check(q, margin)
        full.append((time.perf_counter() - t) * 1e6)
        t = time.perf_counter()
        v = s.check(q, margin, verdict_only=True)
        verdict.append((time.perf_counter() - t) * 1e6)
        t = time.perf_counter()
        c = coh.check(q, margin, coherent=True)
        coherent.append((time.perf_counter() - t) * 1e6)
        assert v.in_collision == r.in_collision == c.in_collision, k
        if r.in_collision:
            stops += 1
            key = (r.link_a, r.link_b.split(" (")[0])
            hits[key] = hits.get(key, 0) + 1
    print(f"{robot}: {world}, {steps} steps, margin {margin} m, a grasped box on {holder}")
    # The world check has no presets: its modes are the full check, the verdict-only
    # check and the coherent check (links proven clear since their last exact check skipped).
    for name, us in (("check", full), ("verdict only", verdict), ("coherent", coherent)):
        us = np.array(us)
        print(f"  {name:13s} median {np.median(us):7.2f} us   p99 {np.percentile(us, 99):8.2f} us")
    print(f"  {stops} of {steps} steps stop" + (":" if hits else ""))
    for (a_, b_), n in sorted(hits.items(), key=lambda x: -x[1])[:5]:
        print(f"    {a_} near {b_}: {n} steps")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--robot", action="append")
    p.add_argument("--steps", type=int, default=400)
    p.add_argument("--margin", type=float, default=0.02)
    args = p.parse_args()
    for robot in args.robot or ["franka_panda", "g1_29dof"]:
        run(robot, args.steps, args.margin)


if __name__ == "__main__":
    main()
