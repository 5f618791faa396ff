"""Drake loads the drake export (welded to the world at its root), and its collision
filter matches the ACM: every ACM pair is filtered, and every pair the kernel checks
is not, except where Drake filters by its own rule (bodies joined by a joint, or welded
together), which is counted and printed. Exit 1 on a mismatch."""

import os
import sys
import xml.etree.ElementTree as ET

from pydrake.multibody.parsing import Parser
from pydrake.multibody.plant import AddMultibodyPlantSceneGraph
from pydrake.systems.framework import DiagramBuilder

import common


def main():
    a = common.args()
    d = os.path.join(a.export, "drake")
    path = os.path.join(d, a.robot + ".urdf")
    root = ET.parse(path).getroot()
    children = {j.find("child").get("link") for j in root.findall("joint")}
    base = next(l.get("name") for l in root.findall("link") if l.get("name") not in children)
    # Visual meshes keep their package:// references: give Drake the packages beside the
    # robot's own description.
    builder = DiagramBuilder()
    plant, scene_graph = AddMultibodyPlantSceneGraph(builder, 0.0)
    parser = Parser(plant)
    # Each folder below a root is a package by its folder name (as collide finds them).
    for root_dir in os.environ.get("COLLIDE_DRAKE_PACKAGES", "").split(os.pathsep):
        if root_dir and os.path.isdir(root_dir):
            for name in sorted(os.listdir(root_dir)):
                pkg = os.path.join(root_dir, name)
                if os.path.isdir(pkg) and not parser.package_map().Contains(name):
                    parser.package_map().Add(name, pkg)
    parser.AddModels(path)
    plant.WeldFrames(plant.world_frame(), plant.GetFrameByName(base))
    plant.Finalize()
    builder.Build()
    inspector = scene_graph.model_inspector()

    geoms = {}
    for body_index in range(plant.num_bodies()):
        body = plant.get_body(plant.get_body_indices()[body_index]) if hasattr(plant, "get_body_indices") else None
        if body is None:
            from pydrake.multibody.tree import BodyIndex
            body = plant.get_body(BodyIndex(body_index))
        ids = plant.GetCollisionGeometriesForBody(body)
        if ids:
            geoms[body.name()] = ids

    kernel = common.kernel_pairs(a.collide, a.config, a.manifest, [{}])[0]
    acm = {tuple(sorted((r.get("link1"), r.get("link2"))))
           for r in ET.parse(os.path.join(a.export, "pinocchio", a.robot + ".srdf")).getroot().findall("disable_collisions")}

    def filtered(x, y):
        return all(inspector.CollisionFiltered(g, h) for g in geoms[x] for h in geoms[y])

    bad, own = [], []
    names = sorted(geoms)
    for i, x in enumerate(names):
        for y in names[i + 1:]:
            p = (x, y)
            f = filtered(x, y)
            if p in acm and not f:
                bad.append(f"{x} - {y}: in the ACM but not filtered")
            elif p in kernel and f:
                own.append(p)
    print(f"drake {a.robot}: {len(names)} bodies with collision geometry, ACM pairs {len(acm)} "
          f"(all filtered: {not bad}), kernel-checked pairs Drake filters by its own rule {len(own)}")
    for p in own[:10]:
        print(f"drake {a.robot}: {p[0]} - {p[1]} is checked by the kernel but filtered by Drake (joined or welded)")
    for b in bad[:10]:
        print(f"drake {a.robot}: {b}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
