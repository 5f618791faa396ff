"""Track a moving target with a simple joint-space IK loop on the Panda and the G1, checking
every step in each preset (`precise`: no cache, `balanced`: the coherent cache, `speed`:
the cache and a budget of exact pair checks per call), and print the per-step cost of each
in microseconds.

The "IK" moves q toward a target configuration that itself moves smoothly (a slow sinusoid
between two in-limit poses), each joint by at most `--step` radians per step: the smooth,
control-rate motion the coherent mode is for. Exits non-zero if balanced ever disagrees
with precise, or speed says "free" where precise does not.

    python examples/python/ik_track.py [--steps 500] [--margin 0.02] [--step 1e-3] [--budget 16]
"""

import argparse
import pathlib
import sys
import time

import numpy as np

import collide

ROOT = pathlib.Path(__file__).resolve().parents[2]


PRESETS = ("precise", "balanced", "speed")


def track(robot, steps, margin, max_step, budget, verbose):
    m = collide.Model.load(str(ROOT / "robots" / robot / "manifest.yaml"))
    lim = np.array(m.joint_limits)
    mid, half = lim.mean(axis=1), (lim[:, 1] - lim[:, 0]) / 2
    rng = np.random.default_rng(7)
    a = mid + 0.6 * half * rng.uniform(-1, 1, len(mid))
    b = mid + 0.6 * half * rng.uniform(-1, 1, len(mid))
    q = a.copy()
    sessions = {
        "precise": m.session(preset="precise"),
        "balanced": m.session(preset="balanced"),
        "speed": m.session(preset="speed", budget=budget),
    }
    cost = {p: [] for p in PRESETS}
    skipped, unknown = [], 0
    for k in range(steps):
        s = 0.5 - 0.5 * np.cos(2 * np.pi * k / 2000.0)  # the moving target
        target = a + s * (b - a)
        q = q + np.clip(0.5 * (target - q), -max_step, max_step)
        r = {}
        for p in PRESETS:
            t0 = time.perf_counter_ns()
            r[p] = sessions[p].check(q, margin)
            cost[p].append((time.perf_counter_ns() - t0) / 1e3)
        if r["balanced"].verdict != r["precise"].verdict:
            print(f"{robot} step {k}: precise says {r['precise']}, balanced says {r['balanced']}")
            sys.exit(1)
        if r["speed"].verdict == "free" and r["precise"].verdict != "free":
            print(f"{robot} step {k}: speed says free, precise says {r['precise']}")
            sys.exit(1)
        unknown += r["speed"].verdict == "unknown"
        st = sessions["balanced"].stats
        skipped.append(st["skipped_pairs"] / max(1, len(m.pairs)))
        if verbose:
            print(
                f"{robot} step {k:4d}: precise {cost['precise'][-1]:7.2f} us, balanced "
                f"{cost['balanced'][-1]:7.2f} us, speed {cost['speed'][-1]:7.2f} us; "
                f"skipped {st['skipped_pairs']:3d}/{len(m.pairs)}, {r['precise'].verdict}, "
                f"d={r['precise'].min_distance:.4f}, speed: {r['speed'].verdict}"
            )
    med = {p: np.median(cost[p]) for p in PRESETS}
    print(
        f"{robot}: {steps} steps, margin {margin} m, median per step: precise "
        f"{med['precise']:.2f} us, balanced {med['balanced']:.2f} us "
        f"({med['precise'] / med['balanced']:.1f}x, pairs skipped {100 * np.mean(skipped):.0f} %), "
        f"speed (budget {budget}) {med['speed']:.2f} us ({med['precise'] / med['speed']:.1f}x, "
        f"unknown on {unknown} steps)"
    )


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=500)
    p.add_argument("--margin", type=float, default=0.02)
    p.add_argument("--step", type=float, default=1e-3, help="largest joint step (rad)")
    p.add_argument("--budget", type=int, default=16, help="the speed preset's exact checks per call")
    p.add_argument("--quiet", action="store_true", help="only the summary lines")
    args = p.parse_args()
    for robot in ("franka_panda", "g1_29dof"):
        track(robot, args.steps, args.margin, args.step, args.budget, not args.quiet)


if __name__ == "__main__":
    main()
