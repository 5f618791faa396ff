"""The ros export parses with a strict URDF reader (yourdfpy, with validation) and every
collision is a shape urdfdom reads (no capsule): cylinder, sphere, box, or an OBJ mesh.
Prints one line; exit 1 on a failure."""

import os
import sys

import yourdfpy

import common


def local(d, fname):
    """A mesh reference of the export's own package as a file in it (`package://NAME/x`
    -> d/x); any other reference is left as it is."""
    if fname.startswith("package://") and os.path.isfile(os.path.join(d, "package.xml")):
        pkg, _, rest = fname[len("package://"):].partition("/")
        if pkg.endswith("_collide"):
            return os.path.join(d, rest)
    return os.path.join(d, fname)


def main():
    a = common.args()
    d = os.path.join(a.export, "ros")
    urdf = yourdfpy.URDF.load(
        os.path.join(d, a.robot + ".urdf"),
        build_scene_graph=False,
        build_collision_scene_graph=False,
        load_meshes=False,
        load_collision_meshes=False,
        filename_handler=lambda fname: local(d, fname),
    )
    ok = urdf.validate()
    if a.visuals:
        # Every mesh reference is a package:// URL (ROS's resource retriever reads no path
        # relative to the URDF) and yourdfpy loads each mesh of the export's own package.
        loaded = yourdfpy.URDF.load(
            os.path.join(d, a.robot + ".urdf"),
            build_scene_graph=True,
            load_meshes=True,
            filename_handler=lambda fname: local(d, fname),
        )
        visuals = [v.geometry.mesh.filename for link in loaded.robot.links for v in link.visuals
                   if v.geometry.mesh is not None]
        not_package = [f for f in visuals if not f.startswith("package://")]
        loaded_meshes = len(loaded.scene.geometry)
        print(f"ros {a.robot}: {len(visuals)} visual meshes, {loaded_meshes} loaded by yourdfpy, "
              f"not package:// {len(not_package)}")
        if not visuals or not_package or loaded_meshes < len(visuals):
            sys.exit(1)
    kinds = {}
    bad = []
    for link in urdf.robot.links:
        for c in link.collisions:
            g = c.geometry
            kind = next(k for k in ("box", "cylinder", "sphere", "mesh", "capsule") if getattr(g, k, None) is not None)
            kinds[kind] = kinds.get(kind, 0) + 1
            if kind == "capsule" or (kind == "mesh" and not g.mesh.filename.endswith(".obj")):
                bad.append(f"{link.name}/{c.name}: {kind}")
            if kind == "mesh" and not g.mesh.filename.startswith("package://"):
                bad.append(f"{link.name}/{c.name}: {g.mesh.filename} is not a package:// URL")
            if kind == "mesh" and not os.path.isfile(local(d, g.mesh.filename)):
                bad.append(f"{link.name}/{c.name}: missing {g.mesh.filename}")
    print(f"ros {a.robot}: yourdfpy {'validates' if ok else 'does not validate'} the URDF; "
          f"{len(urdf.robot.links)} links, {len(urdf.robot.joints)} joints, collisions {kinds}; "
          f"problems {len(bad)}")
    for b in bad[:10]:
        print(f"ros {a.robot}: {b}")
    sys.exit(0 if ok and not bad else 1)


if __name__ == "__main__":
    main()
