"""Track a moving target with a simple joint-space IK loop on the Panda and the G1, checking
every step with `Model.check` (exact) and `Session.check` (coherent, the cache), and print
the per-step cost of each in microseconds.

The "IK" moves q toward a target configuration that itself moves smoothly (a slow sinusoid
between two in-limit poses), each joint by at most `--step` radians per step: the smooth,
control-rate motion the coherent mode is for. Exits non-zero if the two checks ever
disagree on a verdict.

    python examples/python/ik_track.py [--steps 500] [--margin 0.02] [--step 1e-3]
"""

import argparse
import pathlib
import sys
import time

import numpy as np

import collide

ROOT = pathlib.Path(__file__).resolve().parents[2]


def track(robot, steps, margin, max_step, verbose):
    m = collide.Model.load(str(ROOT / "robots" / robot / "manifest.yaml"))
    lim = np.array(m.joint_limits)
    mid, half = lim.mean(axis=1), (lim[:, 1] - lim[:, 0]) / 2
    rng = np.random.default_rng(7)
    a = mid + 0.6 * half * rng.uniform(-1, 1, len(mid))
    b = mid + 0.6 * half * rng.uniform(-1, 1, len(mid))
    q = a.copy()
    session = m.session()
    exact_us, coherent_us, skipped = [], [], []
    for k in range(steps):
        s = 0.5 - 0.5 * np.cos(2 * np.pi * k / 2000.0)  # the moving target
        target = a + s * (b - a)
        q = q + np.clip(0.5 * (target - q), -max_step, max_step)

        t0 = time.perf_counter_ns()
        r_exact = m.check(q, margin)
        t1 = time.perf_counter_ns()
        r_coh = session.check(q, margin)
        t2 = time.perf_counter_ns()
        if r_exact.in_collision != r_coh.in_collision:
            print(f"{robot} step {k}: exact says {r_exact}, coherent says {r_coh}")
            sys.exit(1)
        exact_us.append((t1 - t0) / 1e3)
        coherent_us.append((t2 - t1) / 1e3)
        st = session.stats
        skipped.append(st["skipped_pairs"] / max(1, len(m.pairs)))
        if verbose:
            print(
                f"{robot} step {k:4d}: Model.check {exact_us[-1]:7.2f} us, Session.check "
                f"{coherent_us[-1]:7.2f} us, skipped {st['skipped_pairs']:3d}/{len(m.pairs)}, "
                f"in_collision={r_exact.in_collision} d={r_exact.min_distance:.4f}"
            )
    e, c = np.median(exact_us), np.median(coherent_us)
    print(
        f"{robot}: {steps} steps, margin {margin} m: median Model.check {e:.2f} us, "
        f"Session.check (coherent) {c:.2f} us ({e / c:.1f}x), pairs skipped "
        f"{100 * np.mean(skipped):.0f} %"
    )


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=500)
    p.add_argument("--margin", type=float, default=0.02)
    p.add_argument("--step", type=float, default=1e-3, help="largest joint step (rad)")
    p.add_argument("--quiet", action="store_true", help="only the summary lines")
    args = p.parse_args()
    for robot in ("franka_panda", "g1_29dof"):
        track(robot, args.steps, args.margin, args.step, not args.quiet)


if __name__ == "__main__":
    main()
