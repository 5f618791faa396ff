"""Pinocchio (coal) loads the pinocchio export (URDF + SRDF); on seeded poses coal's
collision verdict per pair, with the SRDF's pairs removed, equals the kernel's on the
manifest (common.py's tolerance rule). Exit 1 on any difference."""

import math
import os
import sys

import pinocchio as pin

import common


def main():
    a = common.args()
    d = os.path.join(a.export, "pinocchio")
    urdf = os.path.join(d, a.robot + ".urdf")
    srdf = os.path.join(d, a.robot + ".srdf")
    model = pin.buildModelFromUrdf(urdf)
    geom = pin.buildGeomFromUrdf(model, urdf, pin.GeometryType.COLLISION, package_dirs=[d])
    if a.visuals:
        # Every visual mesh loads (coal reads each file): none is a path that only
        # resolved from where the source URDF was.
        visual = pin.buildGeomFromUrdf(model, urdf, pin.GeometryType.VISUAL, package_dirs=[d])
        meshes = [g.meshPath for g in visual.geometryObjects if g.meshPath]
        missing = [m for m in meshes if not os.path.isfile(m)]
        print(f"pinocchio {a.robot}: {len(meshes)} visual meshes loaded, missing {len(missing)}")
        if not meshes or missing:
            sys.exit(1)
    geom.addAllCollisionPairs()
    pin.removeCollisionPairs(model, geom, srdf)
    data = model.createData()
    gdata = pin.GeometryData(geom)

    link_of = [model.frames[g.parentFrame].name for g in geom.geometryObjects]
    capsules = sum(1 for g in geom.geometryObjects if g.geometry.getNodeType() == pin.hppfcl.NODE_TYPE.GEOM_CAPSULE) \
        if hasattr(pin, "hppfcl") else None
    pair_links = []
    for cp in geom.collisionPairs:
        pair_links.append(tuple(sorted((link_of[cp.first], link_of[cp.second]))))
    checked = set(pair_links)

    joints = common.joints_of_urdf(urdf)
    poses = common.seeded_poses(joints, a.poses, a.seed)
    kernel = common.kernel_pairs(a.collide, a.config, a.manifest, poses)

    # Pairs the kernel checks that coal never does (both links under one joint: welded).
    unchecked = {p for p in kernel[0] if p not in checked}
    tripped_unchecked = sorted({p for kd in kernel for p, dist in kd.items()
                                if p in unchecked and dist <= -common.TOL})

    def config(pose):
        full = common.with_mimics(joints, pose)
        q = pin.neutral(model)
        for jid in range(1, model.njoints):
            j = model.joints[jid]
            v = full.get(model.names[jid], 0.0)
            if j.nq == 1:
                q[j.idx_q] = v
            elif j.nq == 2:  # continuous: cos, sin
                q[j.idx_q] = math.cos(v)
                q[j.idx_q + 1] = math.sin(v)
        return q

    def distances(i):
        pin.computeDistances(model, data, geom, gdata, config(poses[i]))
        out = {}
        for k, r in enumerate(gdata.distanceResults):
            p = pair_links[k]
            out[p] = min(out.get(p, math.inf), r.min_distance)
        return out

    consumer = []
    for pose in poses:
        pin.computeCollisions(model, data, geom, gdata, config(pose), False)
        hits = set()
        for k, r in enumerate(gdata.collisionResults):
            if r.isCollision():
                hits.add(pair_links[k])
        consumer.append(hits)

    diffs, contra, skipped, trips = common.compare(a.robot, poses, kernel, consumer, checked,
                                                  distances=distances)
    print(f"pinocchio {a.robot}: {len(poses)} poses, {len(checked)} link pairs checked by coal "
          f"({len(geom.geometryObjects)} geometries, capsules {capsules}), kernel trips compared {trips}, "
          f"within {common.TOL:g} m skipped {skipped}, differences {diffs}, coal collide() against "
          f"its own distance {contra}; kernel pairs coal cannot "
          f"check (one joint) {len(unchecked)}, of them tripping {len(tripped_unchecked)}")
    for p in tripped_unchecked[:10]:
        print(f"pinocchio {a.robot}: pair {p[0]} - {p[1]} trips in the kernel but is under one joint in pinocchio")
    sys.exit(1 if diffs or tripped_unchecked else 0)


if __name__ == "__main__":
    main()
