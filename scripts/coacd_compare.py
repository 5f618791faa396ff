"""CoACD on the same STL meshes as `examples/decompose_report.rs`: pieces, total
hull volume over the mesh's hull volume, and time. CoACD's pieces are not proven
to contain the mesh; collide's are.

Set-up: python3 -m venv /tmp/coacd && /tmp/coacd/bin/pip install coacd==1.0.14 trimesh numpy
Run:    /tmp/coacd/bin/python scripts/coacd_compare.py MESH.stl...
"""
import sys
import time

import coacd
import numpy as np
import trimesh

coacd.set_log_level("error")
for path in sys.argv[1:]:
    mesh = trimesh.load(path, force="mesh")
    hull = mesh.convex_hull.volume
    start = time.time()
    parts = coacd.run_coacd(coacd.Mesh(mesh.vertices, mesh.faces), seed=1)
    secs = time.time() - start
    vol = sum(trimesh.Trimesh(np.asarray(v), np.asarray(f)).convex_hull.volume for v, f in parts)
    print(f"{path}\tpieces {len(parts)}\tvolume/hull {vol / hull:.3f}\ttime {secs:.2f} s")
