"""The world check beside coal in one process: the same robot (the `pinocchio` export of
the committed manifest: the same proven capsules, boxes and hulls), the same 25 mm cells
(coal: an OcTree built from the cell centres at the same resolution and lattice), the same
seeded poses. Per pose, collide's `Model.check_world(..., verdict_only=True)` and coal's
forward kinematics plus `coal.collide` of every collision object against the octree, each
timed as the least of three calls; the verdicts compared.

    collide export robots/ROBOT/manifest.yaml --target pinocchio --out DIR
    python examples/python/world_coal.py ROBOT DIR [--poses 1000]
"""

import argparse
import math
import pathlib
import sys
import time

import coal
import numpy as np
import pinocchio as pin

import collide

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from world_scene import PITCH, box_surface  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]


def cells():
    parts = [
        box_surface((0.35, -0.5, 0.30), (0.95, 0.5, 0.34)),
        box_surface((-0.3, 0.55, 0.48), (0.3, 0.85, 0.51)),
        box_surface((-0.3, 0.55, 0.88), (0.3, 0.85, 0.91)),
        box_surface((-0.65, -1.0, -0.8), (-0.6, 1.0, 1.5), step=0.02),
        box_surface((0.47, -0.63, -0.8), (0.53, -0.57, 1.5)),
    ]
    pts = np.concatenate(parts)
    # Cells strictly inside (the points are not on the lattice's faces here).
    return np.unique(np.floor(pts / PITCH + 1e-9).astype(np.int32), axis=0)


def least_of_three(f):
    best, out = math.inf, None
    for _ in range(3):
        t = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t)
    return best * 1e6, out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("robot")
    p.add_argument("export")
    p.add_argument("--poses", type=int, default=1000)
    a = p.parse_args()
    d = pathlib.Path(a.export) / "pinocchio"
    urdf = str(d / f"{a.robot}.urdf")
    model = pin.buildModelFromUrdf(urdf)
    geom = pin.buildGeomFromUrdf(model, urdf, pin.GeometryType.COLLISION, package_dirs=[str(d)])
    data, gdata = model.createData(), pin.GeometryData(geom)

    c = cells()
    world = collide.World.from_cells((0.0, 0.0, 0.0), PITCH, c)
    octree = coal.makeOctree((c + 0.5) * PITCH, PITCH)
    identity = coal.Transform3s()

    m = collide.Model.load(str(ROOT / "robots" / a.robot / "manifest.yaml"))
    names = m.joint_names
    lim = np.array(m.joint_limits)
    rng = np.random.default_rng(33)
    Q = rng.uniform(lim[:, 0], lim[:, 1], size=(a.poses, len(names)))
    req = coal.CollisionRequest()

    def pin_q(q):
        by_name = dict(zip(names, q))
        out = pin.neutral(model)
        for jid in range(1, model.njoints):
            j = model.joints[jid]
            name = model.names[jid]
            v = by_name.get(name, by_name.get(name.replace("joint2", "joint1"), 0.0))
            if j.nq == 1:
                out[j.idx_q] = v
            elif j.nq == 2:
                out[j.idx_q], out[j.idx_q + 1] = math.cos(v), math.sin(v)
        return out

    def coal_hit(q):
        pin.updateGeometryPlacements(model, data, geom, gdata, q)
        for k, g in enumerate(geom.geometryObjects):
            res = coal.CollisionResult()
            tf = coal.Transform3s(gdata.oMg[k].rotation, gdata.oMg[k].translation)
            if coal.collide(g.geometry, tf, octree, identity, req, res):
                return True
        return False

    ours, theirs, differ = [], [], 0
    for q in Q:
        t1, r = least_of_three(lambda: m.check_world(q, world, 0.0, verdict_only=True))
        pq = pin_q(q)
        t2, hit = least_of_three(lambda: coal_hit(pq))
        ours.append(t1)
        theirs.append(t2)
        differ += r.in_collision != hit
    ours, theirs = np.array(ours), np.array(theirs)
    print(f"{a.robot}: {len(c)} cells at {PITCH} m, {a.poses} poses (seed 33), margin 0, "
          f"{len(geom.geometryObjects)} coal objects")
    print(f"  collide check_world (verdict only): median {np.median(ours):8.2f} us  p99 {np.percentile(ours, 99):9.2f} us")
    print(f"  coal FK + collide vs OcTree        : median {np.median(theirs):8.2f} us  p99 {np.percentile(theirs, 99):9.2f} us")
    print(f"  verdicts that differ: {differ}")


if __name__ == "__main__":
    main()
