"""MuJoCo loads the mjcf export and compiles it; on seeded poses its contact set between
non-excluded bodies equals the kernel's tripping pairs (common.py's tolerance rule); and
MuJoCo's own hull of each OBJ is not smaller than the written hull: it holds every
written vertex (within 1e-7 m: MuJoCo re-centres its f32 copy of the mesh) and its
volume is not below the written one (relative 1e-6). Exit 1 on any difference."""

import math
import os
import sys

import mujoco
import numpy as np

import common

HULL_TOL = 1e-7


def obj(path):
    v, f = [], []
    for line in open(path):
        p = line.split()
        if p and p[0] == "v":
            v.append([float(x) for x in p[1:4]])
        elif p and p[0] == "f":
            f.append([int(x.split("/")[0]) - 1 for x in p[1:4]])
    return np.array(v), np.array(f)


def volume(v, f):
    return sum(np.dot(v[a], np.cross(v[b], v[c])) for a, b, c in f) / 6.0


def quat_mat(q):
    m = np.zeros(9)
    mujoco.mju_quat2Mat(m, np.asarray(q, dtype=float))
    return m.reshape(3, 3)


def check_hulls(m, d):
    """(meshes checked, failures, written vertices total, MuJoCo hull vertices total).
    MuJoCo's hull is the vertex set of its mesh graph (what its collider walks); its
    facets are taken with scipy's qhull, the one MuJoCo runs too."""
    from scipy.spatial import ConvexHull

    fails, wv, mv = 0, 0, 0
    for i in range(m.nmesh):
        name = m.mesh(i).name
        if "__hull" not in name:
            continue  # a kept source's own (visual) mesh
        v, f = obj(os.path.join(d, "meshes", name + ".obj"))
        adr = m.mesh_graphadr[i]
        g = m.mesh_graph
        nv = g[adr]
        gid = g[adr + 2 + nv: adr + 2 + 2 * nv]
        verts = m.mesh_vert[m.mesh_vertadr[i]: m.mesh_vertadr[i] + m.mesh_vertnum[i]].astype(float)
        # The mesh frame into the link frame: the geom using the mesh carries the offset.
        geom = next(k for k in range(m.ngeom)
                    if m.geom_dataid[k] == i and m.geom_type[k] == mujoco.mjtGeom.mjGEOM_MESH)
        hull = verts[gid] @ quat_mat(m.geom_quat[geom]).T + m.geom_pos[geom]
        h = ConvexHull(hull)
        wv += len(v)
        mv += nv
        worst = float(np.max(v @ h.equations[:, :3].T + h.equations[:, 3]))
        vm, vw = h.volume, abs(volume(v, f))
        if worst > HULL_TOL or vm < vw * (1 - 1e-6):
            fails += 1
            print(f"mesh {name}: MuJoCo's hull ({nv} vertices, {vm:.6e} m^3) is smaller than the "
                  f"written one ({len(v)} vertices, {vw:.6e} m^3): a written vertex {worst:.2e} m outside")
    return sum("__hull" in m.mesh(i).name for i in range(m.nmesh)), fails, wv, mv


def main():
    a = common.args()
    d = os.path.join(a.export, "mjcf")
    m = mujoco.MjModel.from_xml_path(os.path.join(d, a.robot + ".xml"))
    data = mujoco.MjData(m)
    nmesh, hull_fails, wv, mv = check_hulls(m, d)

    # The export's joints, from the URDF export beside it (the same manifest joints).
    joints = common.joints_of_urdf(os.path.join(a.export, "pinocchio", a.robot + ".urdf"))
    poses = common.seeded_poses(joints, a.poses, a.seed)
    kernel = common.kernel_pairs(a.collide, a.config, a.manifest, poses)

    body = [m.body(i).name for i in range(m.nbody)]
    excluded = set()
    for k in range(m.nexclude):
        sig = m.exclude_signature[k]
        excluded.add(tuple(sorted((body[sig >> 16], body[sig & 0xFFFF]))))
    # MuJoCo never collides bodies welded together (one weld group), nor, with
    # filterparent on (a kept MJCF source may have it), a body and its parent's weld
    # group unless that is the world: compare the rest.
    weld = m.body_weldid
    filterparent = not (m.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_FILTERPARENT)

    def parent_filtered(i, j):
        wi, wj = weld[i], weld[j]
        pi, pj = weld[m.body_parentid[wi]], weld[m.body_parentid[wj]]
        return filterparent and ((wi == pj and wi != 0) or (wj == pi and wj != 0))

    geom_bodies = sorted({int(m.geom_bodyid[g]) for g in range(m.ngeom)
                          if m.geom_contype[g] or m.geom_conaffinity[g]})
    checked = set()
    for i in geom_bodies:
        for j in geom_bodies:
            if i < j and weld[i] != weld[j] and not parent_filtered(i, j):
                p = tuple(sorted((body[i], body[j])))
                if p not in excluded:
                    checked.add(p)
    unchecked = {p for p in kernel[0] if p not in checked}
    tripped_unchecked = sorted({p for kd in kernel for p, dist in kd.items()
                                if p in unchecked and dist <= -common.TOL})

    qadr = {m.joint(i).name: m.jnt_qposadr[i] for i in range(m.njnt)}
    def set_pose(pose):
        data.qpos[:] = 0
        for name, v in common.with_mimics(joints, pose).items():
            if name in qadr:
                data.qpos[qadr[name]] = v
        mujoco.mj_fwdPosition(m, data)

    consumer = []
    for pose in poses:
        set_pose(pose)
        hits = set()
        for c in data.contact[: data.ncon]:
            if c.dist < 0:
                hits.add(tuple(sorted((body[m.geom_bodyid[c.geom[0]]], body[m.geom_bodyid[c.geom[1]]]))))
        consumer.append(hits)

    body_geoms = {}
    for g in range(m.ngeom):
        if m.geom_contype[g] or m.geom_conaffinity[g]:
            body_geoms.setdefault(body[m.geom_bodyid[g]], []).append(g)

    def distances(i):
        set_pose(poses[i])
        out = {}
        for p in checked:
            out[p] = min(mujoco.mj_geomDistance(m, data, g1, g2, 1.0, None)
                         for g1 in body_geoms[p[0]] for g2 in body_geoms[p[1]])
        return out

    diffs, contra, skipped, trips = common.compare(a.robot, poses, kernel, consumer, checked,
                                                  distances=distances)
    print(f"mujoco {a.robot}: {len(poses)} poses, {len(checked)} body pairs checked, kernel trips "
          f"compared {trips}, within {common.TOL:g} m skipped {skipped}, differences {diffs}, contacts "
          f"against MuJoCo's own distance {contra}; "
          f"kernel pairs MuJoCo cannot check (welded, or a parent with filterparent) {len(unchecked)}, of them tripping "
          f"{len(tripped_unchecked)}; hulls {nmesh} (written vertices {wv}, MuJoCo's {mv}), "
          f"smaller {hull_fails}")
    for p in tripped_unchecked[:10]:
        print(f"mujoco {a.robot}: pair {p[0]} - {p[1]} trips in the kernel but MuJoCo never checks it")
    sys.exit(1 if diffs or hull_fails or tripped_unchecked else 0)


if __name__ == "__main__":
    main()
