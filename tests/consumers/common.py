"""What the consumer checks share: the export's joints, seeded poses, and the kernel's
verdict on them through `collide fk --pairs` (the manifest as the kernel loads it).

Tolerance rule: a pair whose kernel distance is within TOL of 0 (|d| <= TOL) is not
compared. The exports' sizes are rounded up by at most 1e-9 m and hull vertices moved
out onto the 2^-24 m (60 nm) grid, and the consumers' own narrow phases (coal's GJK/EPA,
MuJoCo's convex collider) stop at tolerances of about 1e-6 m: within that band of
touching, "touching" and "apart" are the same answer.
"""

import json
import math
import os
import random
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

TOL = 1e-6


def joints_of_urdf(path):
    """(name, type, lower, upper, mimic) of every joint of a URDF, in file order;
    mimic is (leader, multiplier, offset) or None."""
    out = []
    for j in ET.parse(path).getroot().findall("joint"):
        lim = j.find("limit")
        lo = float(lim.get("lower", 0)) if lim is not None else 0.0
        hi = float(lim.get("upper", 0)) if lim is not None else 0.0
        m = j.find("mimic")
        mimic = None
        if m is not None:
            mimic = (m.get("joint"), float(m.get("multiplier", 1)), float(m.get("offset", 0)))
        out.append((j.get("name"), j.get("type"), lo, hi, mimic))
    return out


def seeded_poses(joints, n, seed):
    """n poses: every moving, non-mimic joint uniform in its limits (continuous: one
    turn), as {name: value} (leaders only: the kernel resolves mimics itself)."""
    rng = random.Random(seed)
    poses = []
    for _ in range(n):
        q = {}
        for name, kind, lo, hi, mimic in joints:
            if kind in ("fixed", "floating", "planar") or mimic is not None:
                continue
            if kind == "continuous":
                lo, hi = -math.pi, math.pi
            q[name] = rng.uniform(lo, hi)
        poses.append(q)
    return poses


def with_mimics(joints, pose):
    """The pose with every mimic joint's value (what a consumer without mimic needs)."""
    full = dict(pose)
    for name, kind, lo, hi, mimic in joints:
        if mimic is not None:
            leader, mult, off = mimic
            full[name] = mult * full.get(leader, 0.0) + off
    return full


def kernel_pairs(collide, config, manifest, poses):
    """Per pose: {(a, b): distance} for every pair the kernel checks (a < b)."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(poses, f)
        qfile = f.name
    try:
        out = subprocess.run(
            [collide, "fk", config, "--q", "@" + qfile, "--pairs", manifest, "--json", "-q"],
            check=True, capture_output=True, text=True,
        ).stdout
    finally:
        os.unlink(qfile)
    result = []
    for c in json.loads(out)["configurations"]:
        result.append({tuple(sorted((a, b))): d for a, b, d in c["pairs"]})
    return result


def compare(name, poses, kernel, consumer, checked, tol=TOL, show=10, distances=None):
    """Compares the consumer's colliding pairs with the kernel's tripping ones on the
    pairs both check; prints every difference (pose and pair) up to `show`.

    `distances(i)`, when given, is the consumer's own distance per pair at pose i: a
    difference where it agrees with the kernel (beyond the tolerance) is the consumer's
    collision query contradicting its own distance query on the same geometry; those are
    counted apart (`contradictions`) and printed too. Returns (differences,
    contradictions, within-tolerance skips, kernel trips compared)."""
    diffs, contradictions, skipped, trips = 0, 0, 0, 0
    for i, (pose, kd, cons) in enumerate(zip(poses, kernel, consumer)):
        own = None
        for pair, d in kd.items():
            if pair not in checked:
                continue
            if abs(d) <= tol:
                skipped += 1
                continue
            k_trip = d <= 0.0
            trips += k_trip
            c_trip = pair in cons
            if k_trip == c_trip:
                continue
            if distances is not None:
                own = own if own is not None else distances(i)
                od = own.get(pair)
                if od is not None and (od <= 0.0) == k_trip and abs(od) > tol:
                    contradictions += 1
                    if contradictions <= show:
                        print(f"{name}: pose {i} pair {pair[0]} - {pair[1]}: kernel "
                              f"{'trips' if k_trip else 'clear'} at {d:.3e} m; the consumer's "
                              f"distance agrees ({od:.3e} m) but its collision query says "
                              f"{'collides' if c_trip else 'clear'}")
                    continue
            diffs += 1
            if diffs <= show:
                print(f"{name}: pose {i} pair {pair[0]} - {pair[1]}: kernel "
                      f"{'trips' if k_trip else 'clear'} at {d:.3e} m, consumer "
                      f"{'collides' if c_trip else 'clear'}; q = {json.dumps(pose)}")
        for pair in cons:
            if pair not in kd:
                diffs += 1
                if diffs <= show:
                    print(f"{name}: pose {i} pair {pair[0]} - {pair[1]}: the consumer checks "
                          f"and collides a pair the kernel does not check; q = {json.dumps(pose)}")
    return diffs, contradictions, skipped, trips


def args():
    import argparse
    p = argparse.ArgumentParser()
    p.add_argument("--collide", required=True)
    p.add_argument("--config", required=True, help="robots/NAME/robot.yaml")
    p.add_argument("--manifest", required=True)
    p.add_argument("--export", required=True, help="the export's --out directory")
    p.add_argument("--robot", required=True, help="the manifest's robot name")
    p.add_argument("--poses", type=int, default=1000)
    p.add_argument("--seed", type=int, default=24)
    p.add_argument("--visuals", action="store_true",
                   help="also load every visual mesh (all must resolve from the export's folder)")
    return p.parse_args()
