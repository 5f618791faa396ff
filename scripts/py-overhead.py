"""The Python call overhead over the C call: median per call of `Model.check` and
`Session.check_exact` from Python against `collide_check` through ctypes on the cdylib
(the ctypes call has its own overhead, so the C figure is an upper bound on the bare C
call; the Rust-side figure is in crates/collide-kernel/examples/cost.rs). Same 2000
seeded in-limit poses, margin 0 (as the cost example), each call timed alone with perf_counter_ns.

    python scripts/py-overhead.py [manifest] [libcollide_kernel.so]
"""

import ctypes
import pathlib
import sys
import time

import numpy as np

import collide

ROOT = pathlib.Path(__file__).resolve().parents[1]
path = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "robots/franka_panda/manifest.yaml")
so = sys.argv[2] if len(sys.argv) > 2 else str(ROOT / "target/release/libcollide_kernel.so")


class CResult(ctypes.Structure):
    _fields_ = [("in_collision", ctypes.c_bool), ("within_limits", ctypes.c_bool),
                ("min_distance", ctypes.c_double), ("pair", ctypes.c_int64),
                ("link_a", ctypes.c_int64), ("link_b", ctypes.c_int64),
                # CollideResult's tail (include/collide.h): the verdict and the witness points.
                ("verdict", ctypes.c_int), ("point_a", ctypes.c_double * 3),
                ("point_b", ctypes.c_double * 3)]


lib = ctypes.CDLL(so)
lib.collide_model_load.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
lib.collide_session_new.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
lib.collide_check.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_double), ctypes.c_size_t,
                              ctypes.c_double, ctypes.POINTER(CResult)]
model, session = ctypes.c_void_p(), ctypes.c_void_p()
assert lib.collide_model_load(path.encode(), ctypes.byref(model)) == 0
assert lib.collide_session_new(model, ctypes.byref(session)) == 0

m = collide.Model.load(path)
s = m.session()
lim = np.array(m.joint_limits)
Q = np.random.default_rng(25).uniform(lim[:, 0], lim[:, 1], size=(2000, len(lim)))
out = CResult()
ptrs = [np.ascontiguousarray(q).ctypes.data_as(ctypes.POINTER(ctypes.c_double)) for q in Q]


def median_us(f):
    t = []
    for _ in range(3):
        for i, q in enumerate(Q):
            t0 = time.perf_counter_ns()
            f(i, q)
            t.append(time.perf_counter_ns() - t0)
    return np.median(t) / 1e3


c = median_us(lambda i, q: lib.collide_check(session, ptrs[i], len(q), 0.0, ctypes.byref(out)))
py = median_us(lambda i, q: m.check(q, 0.0))
sx = median_us(lambda i, q: s.check_exact(q, 0.0))
print(f"{pathlib.Path(path).parent.name}: median collide_check via ctypes {c:.2f} us, "
      f"Model.check {py:.2f} us, Session.check_exact {sx:.2f} us")
