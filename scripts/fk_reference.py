#!/usr/bin/env python3
"""Reference link poses from Pinocchio (URDF) and MuJoCo (MJCF), for collide's FK tests.

Run once after `make robots` with `pip install pin mujoco`; it writes small JSON
fixtures to tests/fixtures/fk/ (name fixtures as arguments to write only those).
Configurations: q = 0 and seeded uniform draws
inside the joint limits (continuous joints in [-pi, pi]); mimic / equality
followers are set from their leaders here, so both tools see the coupled pose.
"""
import json
import math
import os
import random
import sys
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SITE = os.path.join(ROOT, ".robots", "site")
ERD = os.path.join(SITE, "cmeel.prefix", "share")
OUT = os.path.join(ROOT, "tests", "fixtures", "fk")
SAMPLES = 4

URDFS = {
    "panda": "example-robot-data/robots/panda_description/urdf/panda.urdf",
    "g1_29dof": "example-robot-data/robots/g1_description/urdf/g1_29dof_rev_1_0.urdf",
    "pr2": "example-robot-data/robots/pr2_description/urdf/pr2.urdf",
    "talos_reduced": "example-robot-data/robots/talos_data/robots/talos_reduced.urdf",
}
MJCFS = {
    "robosuite_panda": "robosuite/models/assets/robots/panda/robot.xml",
    # A 90-degree pitch in a body quaternion: the rpy conversion's hard case (issue 17).
    "robosuite_ur5e": "robosuite/models/assets/robots/ur5e/robot.xml",
    "robosuite_sawyer": "robosuite/models/assets/robots/sawyer/robot.xml",
    "openarm_bimanual": "share/openarm_mujoco/v2/openarm_bimanual.xml",
}


def urdf_joints(path):
    """(name, type, lower, upper, mimic) for every moving URDF joint."""
    out = []
    for j in ET.parse(path).getroot().findall("joint"):
        kind = j.get("type")
        if kind not in ("revolute", "continuous", "prismatic"):
            continue
        lim = j.find("limit")
        lo, hi = (-math.pi, math.pi)
        if kind != "continuous" and lim is not None:
            lo, hi = float(lim.get("lower", 0)), float(lim.get("upper", 0))
        m = j.find("mimic")
        mimic = None
        if m is not None:
            mimic = (m.get("joint"), float(m.get("multiplier", 1)), float(m.get("offset", 0)))
        out.append((j.get("name"), kind, lo, hi, mimic))
    return out


def pose_json(t, r):
    return {"xyz": [float(x) for x in t], "rot": [[float(x) for x in row] for row in r]}


def urdf_fixture(key, rel):
    import pinocchio as pin

    path = os.path.join(ERD, rel)
    model = pin.buildModelFromUrdf(path)
    data = model.createData()
    joints = urdf_joints(path)
    rng = random.Random(20261202)
    configs = []
    for s in range(SAMPLES + 1):
        active = {}
        for name, kind, lo, hi, mimic in joints:
            if mimic is None:
                active[name] = 0.0 if s == 0 else rng.uniform(lo, hi)
        values = dict(active)
        for name, kind, lo, hi, mimic in joints:
            if mimic is not None:
                values[name] = mimic[1] * active.get(mimic[0], 0.0) + mimic[2]
        q = pin.neutral(model)
        for jid in range(1, model.njoints):
            name = model.names[jid]
            if name not in values:
                continue
            idx = model.joints[jid].idx_q
            nq = model.joints[jid].nq
            v = values[name]
            if nq == 1:
                q[idx] = v
            elif nq == 2:  # continuous: cos, sin
                q[idx], q[idx + 1] = math.cos(v), math.sin(v)
        pin.forwardKinematics(model, data, q)
        pin.updateFramePlacements(model, data)
        links = {}
        for fid, frame in enumerate(model.frames):
            if frame.type == pin.FrameType.BODY:
                m = data.oMf[fid]
                links[frame.name] = pose_json(m.translation, m.rotation)
        configs.append({"q": active, "links": links})
    return {"robot": key, "source": "package://" + rel, "tool": "pinocchio " + pin.__version__, "configs": configs}


def mjcf_fixture(key, rel):
    import mujoco

    path = os.path.join(SITE, rel)
    model = mujoco.MjModel.from_xml_path(path)
    data = mujoco.MjData(model)
    followers = {}
    for e in range(model.neq):
        if model.eq_type[e] == mujoco.mjtEq.mjEQ_JOINT and model.eq_active0[e]:
            j1, j2 = model.eq_obj1id[e], model.eq_obj2id[e]
            followers[j1] = (j2, model.eq_data[e][1], model.eq_data[e][0])
    rng = random.Random(20261202)
    configs = []
    for s in range(SAMPLES + 1):
        qpos = model.qpos0.copy()
        active = {}
        for j in range(model.njnt):
            if model.jnt_type[j] not in (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE) or j in followers:
                continue
            lo, hi = model.jnt_range[j] if model.jnt_limited[j] else (-math.pi, math.pi)
            v = 0.0 if s == 0 else rng.uniform(lo, hi)
            qpos[model.jnt_qposadr[j]] = v
            active[mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, j)] = v
        for j, (leader, mult, off) in followers.items():
            qpos[model.jnt_qposadr[j]] = mult * qpos[model.jnt_qposadr[leader]] + off
        data.qpos[:] = qpos
        mujoco.mj_kinematics(model, data)
        links = {}
        for b in range(1, model.nbody):
            name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, b)
            links[name] = pose_json(data.xpos[b], data.xmat[b].reshape(3, 3))
        configs.append({"q": active, "links": links})
    return {"robot": key, "source": ".robots/site/" + rel, "tool": "mujoco " + mujoco.__version__, "configs": configs}


def main():
    os.makedirs(OUT, exist_ok=True)
    only = set(sys.argv[1:])
    for key, rel in URDFS.items():
        if not only or key in only:
            write(key, urdf_fixture(key, rel))
    for key, rel in MJCFS.items():
        if only and key not in only:
            continue
        write(key, mjcf_fixture(key, rel))


def write(key, fixture):
    with open(os.path.join(OUT, key + ".json"), "w") as f:
        json.dump(fixture, f, indent=1, sort_keys=True)
        f.write("\n")
    print(key, len(fixture["configs"][0]["links"]), "links", file=sys.stderr)


if __name__ == "__main__":
    main()
