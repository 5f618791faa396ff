#!/usr/bin/env python3
"""Fits the refinement's cost model (src/lower/refine/cost.rs) to timed free poses.

Input: the lines `examples/cost_calibration.rs --dump FILE` writes, one per free pose:
`robot links checked_pairs prim_pairs narrow narrow_tight scanned_vertices gjk_steps ns`
(ns: the best of five calls). Prices per counter (ns, non-negative) minimise the relative
error per pose, each robot weighted equally (a humanoid has more free poses than an arm
on the rays, but every robot's budget matters). Prints the prices, the raise that puts the
estimated median at the measured one on the robot of median ratio, and per robot the
estimated against the measured median.

usage: scripts/fit-cost-model.py DUMP [--raise R]
"""
import sys
from collections import defaultdict

import numpy as np
from scipy.optimize import nnls

NAMES = ["PER_LINK_NS", "PER_CHECKED_PAIR_NS", "PER_PRIM_PAIR_NS", "PER_NARROW_NS",
         "PER_TIGHT_NARROW_NS", "PER_SCANNED_VERTEX_NS", "PER_GJK_STEP_NS"]


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    rows = defaultdict(list)
    with open(args[0]) as f:
        for line in f:
            parts = line.split()
            if len(parts) != 9:
                continue
            rows[parts[0]].append([float(x) for x in parts[1:]])
    a_parts, b_parts = [], []
    for robot, data in rows.items():
        data = np.array(data)
        feats, ns = data[:, :7], data[:, 7]
        weight = 1.0 / np.sqrt(len(ns))
        a_parts.append(weight * feats / ns[:, None])
        b_parts.append(weight * np.ones(len(ns)))
    prices, _ = nnls(np.vstack(a_parts), np.concatenate(b_parts))
    ratios = {}
    for robot, data in sorted(rows.items()):
        data = np.array(data)
        est, ns = data[:, :7] @ prices, data[:, 7]
        ratios[robot] = (np.median(est) / np.median(ns), np.median(est) / 1e3, np.median(ns) / 1e3)
    raise_by = float(args[args.index("--raise") + 1]) if "--raise" in args else \
        1.0 / float(np.median([r[0] for r in ratios.values()]))
    for name, p in zip(NAMES, prices * raise_by):
        print(f"    const {name}: f64 = {p:.3g};")
    print(f"# raised by {raise_by:.3f}")
    print("robot\tposes\testimated median us\tmeasured median us\tratio")
    for robot, (r, e, m) in ratios.items():
        print(f"{robot}\t{len(rows[robot])}\t{e * raise_by:.2f}\t{m:.2f}\t{r * raise_by:.2f}")


if __name__ == "__main__":
    main()
