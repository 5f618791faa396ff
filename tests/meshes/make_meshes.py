#!/usr/bin/env python3
"""Writes the small hand-made test meshes of tests/meshes/ (run from any directory).

Good meshes: a unit cube [0, 1]^3 (12 outward, counter-clockwise triangles) as
binary STL, ASCII STL, a binary STL whose 80-byte header starts with "solid",
an OBJ of 6 quads, and a two-part COLLADA file in millimetres.
Bad meshes (bad/): one defect each, for the error tests.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def cube_triangles():
    """12 triangles of [0,1]^3, wound counter-clockwise seen from outside."""
    tris = []
    for axis in range(3):
        for side in (0.0, 1.0):
            u, v = (axis + 1) % 3, (axis + 2) % 3
            quad = []
            for a, b in ((0, 0), (1, 0), (1, 1), (0, 1)):
                p = [0.0, 0.0, 0.0]
                p[axis], p[u], p[v] = side, float(a), float(b)
                quad.append(tuple(p))
            # (u, v, axis) is right-handed, so this quad faces +axis; flip it on the low side.
            if side == 0.0:
                quad.reverse()
            tris.append((quad[0], quad[1], quad[2]))
            tris.append((quad[0], quad[2], quad[3]))
    return tris


def normal(t):
    a, b, c = t
    u = [b[i] - a[i] for i in range(3)]
    v = [c[i] - a[i] for i in range(3)]
    return (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])


def binary_stl(tris, header=b"collide test cube"):
    out = bytearray(header.ljust(80, b" ")[:80])
    out += struct.pack("<I", len(tris))
    for t in tris:
        out += struct.pack("<3f", *normal(t))
        for p in t:
            out += struct.pack("<3f", *p)
        out += b"\0\0"
    return bytes(out)


def ascii_stl(tris, name="cube"):
    lines = [f"solid {name}"]
    for t in tris:
        n = normal(t)
        lines.append(f"  facet normal {n[0]:g} {n[1]:g} {n[2]:g}")
        lines.append("    outer loop")
        for p in t:
            lines.append(f"      vertex {p[0]:g} {p[1]:g} {p[2]:g}")
        lines.append("    endloop")
        lines.append("  endfacet")
    lines.append(f"endsolid {name}")
    return "\n".join(lines) + "\n"


CUBE_OBJ = """# unit cube, 6 quads
o cube
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 1
v 1 0 1
v 1 1 1
v 0 1 1
vn 0 0 -1
f 1//1 4//1 3//1 2//1
f 5 6 7 8
f 1 2 6 5
f 2 3 7 6
f 3 4 8 7
f 4 1 5 8
"""

# Two 10 mm cubes in millimetres (<unit meter="0.001">): part A at the origin
# as <triangles>, part B as <polylist> quads placed by its node 20 mm along x.
# up_axis Y_UP must be ignored.
def collada_two_parts():
    verts = "0 0 0 10 0 0 10 10 0 0 10 0 0 0 10 10 0 10 10 10 10 0 10 10"
    index = {}
    coords = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]
    for i, c in enumerate(coords):
        index[c] = i
    tri_idx = " ".join(str(index[tuple(int(x) for x in p)]) for t in cube_triangles() for p in t)
    quads = "0 3 2 1  4 5 6 7  0 1 5 4  1 2 6 5  2 3 7 6  3 0 4 7"
    return f"""<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset>
    <unit name="millimeter" meter="0.001"/>
    <up_axis>Y_UP</up_axis>
  </asset>
  <library_geometries>
    <geometry id="partA" name="partA">
      <mesh>
        <source id="partA-pos">
          <float_array id="partA-pos-array" count="24">{verts}</float_array>
          <technique_common>
            <accessor source="#partA-pos-array" count="8" stride="3">
              <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
            </accessor>
          </technique_common>
        </source>
        <vertices id="partA-vtx"><input semantic="POSITION" source="#partA-pos"/></vertices>
        <triangles count="12">
          <input semantic="VERTEX" source="#partA-vtx" offset="0"/>
          <p>{tri_idx}</p>
        </triangles>
      </mesh>
    </geometry>
    <geometry id="partB" name="partB">
      <mesh>
        <source id="partB-pos">
          <float_array id="partB-pos-array" count="24">{verts}</float_array>
          <technique_common>
            <accessor source="#partB-pos-array" count="8" stride="3">
              <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
            </accessor>
          </technique_common>
        </source>
        <vertices id="partB-vtx"><input semantic="POSITION" source="#partB-pos"/></vertices>
        <polylist count="6">
          <input semantic="VERTEX" source="#partB-vtx" offset="0"/>
          <vcount>4 4 4 4 4 4</vcount>
          <p>{quads}</p>
        </polylist>
      </mesh>
    </geometry>
  </library_geometries>
  <library_visual_scenes>
    <visual_scene id="Scene" name="Scene">
      <node id="A" name="A">
        <instance_geometry url="#partA"/>
      </node>
      <node id="B" name="B">
        <translate>20 0 0</translate>
        <instance_geometry url="#partB"/>
      </node>
    </visual_scene>
  </library_visual_scenes>
  <scene>
    <instance_visual_scene url="#Scene"/>
  </scene>
</COLLADA>
"""


def write(name, data):
    path = os.path.join(HERE, name)
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(path, mode) as f:
        f.write(data)


def main():
    tris = cube_triangles()
    write("cube_binary.stl", binary_stl(tris))
    write("cube_ascii.stl", ascii_stl(tris))
    write("cube_solid_header.stl", binary_stl(tris, header=b"solid exported by a CAD tool that writes binary"))
    write("cube.obj", CUBE_OBJ)
    write("two_parts_mm.dae", collada_two_parts())

    # Bad meshes, one defect each.
    write("bad/empty.stl", b"")
    write("bad/zero_triangles.stl", binary_stl([]))
    write("bad/truncated.stl", binary_stl(tris)[:-30])
    write("bad/truncated_solid_header.stl", binary_stl(tris, header=b"solid but binary")[:-30])
    nan = list(tris)
    nan[3] = ((0.0, 0.0, 0.0), (float("nan"), 1.0, 0.0), (1.0, 1.0, 0.0))
    write("bad/nan.stl", binary_stl(nan))
    text = ascii_stl(tris).splitlines()
    text[10] = "      vertex 1 0 zero"
    write("bad/bad_token.stl", "\n".join(text) + "\n")
    text = ascii_stl(tris).splitlines()
    text[4] = "      vertex 1 nan 0"
    write("bad/nan_ascii.stl", "\n".join(text) + "\n")
    write("bad/missing_endloop.stl", "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendfacet\nendsolid x\n")
    write("bad/out_of_range.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 9\n")
    write("bad/no_faces.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\n")
    write("bad/bad_number.obj", "v 0 0 0\nv 1 x 0\nv 0 1 0\nf 1 2 3\n")
    write("bad/no_geometry.dae", """<?xml version="1.0"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit meter="1"/></asset>
  <library_visual_scenes><visual_scene id="S"/></library_visual_scenes>
  <scene><instance_visual_scene url="#S"/></scene>
</COLLADA>
""")
    write("bad/malformed.dae", "<?xml version=\"1.0\"?>\n<COLLADA version=\"1.4.1\">\n  <asset>\n</COLLADA>\n")
    write("bad/index_out_of_range.dae", collada_two_parts().replace("<p>4 7 3", "<p>99 7 3", 1))
    write("bad/point.stl", ascii_stl([((1.0, 2.0, 3.0), (1.0, 2.0, 3.0), (1.0, 2.0, 3.0))]))


if __name__ == "__main__":
    main()
