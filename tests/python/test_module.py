"""The Python module against the C library (the same kernel, through ctypes on the cdylib)
on 1000 seeded in-limit poses of three fleet robots, and its error model.

`collide sweep` has no per-pose verdict output (src/sweep/ reports aggregates), so the
per-pose reference is the C ABI's `collide_check_batch`: identical verdicts, bit-identical
distances and pairs. Run from the repository root (`make py-module` does)."""

import ctypes
import os
import pathlib
import time

import numpy as np
import pytest

import collide

ROOT = pathlib.Path(__file__).resolve().parents[2]
ROBOTS = ["franka_panda", "g1_29dof", "tiago"]
POSES = 1000
LIB = pathlib.Path(os.environ.get("COLLIDE_KERNEL_LIB", ROOT / "target/release/libcollide_kernel.so"))


def manifest(robot):
    return str(ROOT / "robots" / robot / "manifest.yaml")


class CResult(ctypes.Structure):
    _fields_ = [
        ("in_collision", ctypes.c_bool),
        ("within_limits", ctypes.c_bool),
        ("min_distance", ctypes.c_double),
        ("pair", ctypes.c_int64),
        ("link_a", ctypes.c_int64),
        ("link_b", ctypes.c_int64),
        ("verdict", ctypes.c_int),
        ("point_a", ctypes.c_double * 3),
        ("point_b", ctypes.c_double * 3),
    ]


@pytest.fixture(scope="module")
def clib():
    lib = ctypes.CDLL(str(LIB))
    lib.collide_model_load.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.collide_model_load.restype = ctypes.c_int
    lib.collide_model_free.argtypes = [ctypes.c_void_p]
    lib.collide_check_batch.argtypes = [
        ctypes.c_void_p, ctypes.POINTER(ctypes.c_double), ctypes.c_size_t, ctypes.c_size_t,
        ctypes.c_double, ctypes.POINTER(CResult), ctypes.c_size_t,
    ]
    lib.collide_check_batch.restype = ctypes.c_int
    lib.collide_last_error.restype = ctypes.c_char_p
    return lib


def c_batch(lib, path, Q, margin):
    model = ctypes.c_void_p()
    assert lib.collide_model_load(path.encode(), ctypes.byref(model)) == 0, lib.collide_last_error()
    try:
        Q = np.ascontiguousarray(Q, dtype=np.float64)
        out = (CResult * len(Q))()
        st = lib.collide_check_batch(
            model, Q.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), len(Q), Q.shape[1],
            margin, out, 1)
        assert st == 0, lib.collide_last_error()
        return out
    finally:
        lib.collide_model_free(model)


def seeded(model, n=POSES, seed=25):
    lim = np.array(model.joint_limits)
    rng = np.random.default_rng(seed)
    return rng.uniform(lim[:, 0], lim[:, 1], size=(n, len(lim)))


@pytest.mark.parametrize("robot", ROBOTS)
@pytest.mark.parametrize("margin", [0.0, 0.02])
def test_matches_c_library(clib, robot, margin):
    m = collide.Model.load(manifest(robot))
    Q = seeded(m)
    hit, dist, pair = m.check_batch(Q, margin)
    assert hit.dtype == np.bool_ and dist.dtype == np.float64 and pair.dtype == np.int64
    assert hit.shape == dist.shape == pair.shape == (POSES,)
    ref = c_batch(clib, manifest(robot), Q, margin)
    assert [r.in_collision for r in ref] == hit.tolist()
    assert [r.verdict for r in ref] == [int(h) for h in hit]  # FREE 0, IN_COLLISION 1
    # Bit-identical: the same code on the same doubles.
    assert np.array([r.min_distance for r in ref]).tobytes() == dist.tobytes()
    assert [r.pair for r in ref] == pair.tolist()
    # One pose at a time agrees with the batch, and the pair names match Model.pairs.
    pairs = m.pairs
    for i in range(0, POSES, 7):
        r = m.check(Q[i], margin)
        assert r.in_collision == hit[i]
        assert r.min_distance == dist[i]
        assert r.within_limits
        assert r.pair == pair[i]
        assert (r.link_a, r.link_b) == pairs[r.pair]
    # The comparison is not vacuous: the distances differ from pose to pose, and on the
    # Panda (both margins) and the G1 (margin 0) both verdicts occur. TIAGo's 1000 poses are
    # all in collision (pairs that always overlap), as are the G1's at 0.02.
    assert len(np.unique(dist)) > POSES // 2
    if robot == "franka_panda" or (robot == "g1_29dof" and margin == 0):
        assert 0 < hit.sum() < POSES, hit.sum()


def test_batch_threads_and_pair_distances():
    m = collide.Model.load(manifest("franka_panda"))
    Q = seeded(m, 200, seed=3)
    one = m.check_batch(Q, 0.01, threads=1)
    two = m.check_batch(Q, 0.01, threads=2)
    for a, b in zip(one, two):
        assert a.tobytes() == b.tobytes()
    d = m.pair_distances(Q[0])
    assert d.shape == (len(m.pairs),)
    r = m.check(Q[0], 0.01)
    assert d.min() == r.min_distance
    assert int(np.argmin(d)) == r.pair


def test_joint_order_permutation():
    m = collide.Model.load(manifest("g1_29dof"))
    names = m.joint_names
    perm = np.random.default_rng(1).permutation(len(names))
    order = [names[i] for i in perm]
    p = collide.Model.load(manifest("g1_29dof"), joint_order=order)
    assert p.joint_names == order
    assert p.kernel_joint_names == names
    Q = seeded(m, 300, seed=9)
    Qp = Q[:, perm]  # the same poses, listed in the caller's order
    a = m.check_batch(Q, 0.02)
    b = p.check_batch(Qp, 0.02)
    for x, y in zip(a, b):
        assert x.tobytes() == y.tobytes()
    r, s = m.check(Q[5], 0.02), p.check(Qp[5], 0.02)
    assert (r.in_collision, r.min_distance, r.pair) == (s.in_collision, s.min_distance, s.pair)
    assert p.session().check(Qp[5], 0.02).in_collision == r.in_collision
    # The identity order would read the permuted pose wrongly: the map does something.
    assert m.check_batch(Qp, 0.02)[1].tobytes() != b[1].tobytes()
    with pytest.raises(ValueError, match="not a joint"):
        collide.Model.load(manifest("g1_29dof"), joint_order=order[:-1] + ["nope"])
    with pytest.raises(ValueError, match="twice"):
        collide.Model.load(manifest("g1_29dof"), joint_order=order[:-1] + [order[0]])
    with pytest.raises(ValueError, match="names"):
        collide.Model.load(manifest("g1_29dof"), joint_order=order[:-1])


@pytest.mark.parametrize("robot", ROBOTS)
def test_session_coherent_agrees_on_smooth_trajectory(robot):
    m = collide.Model.load(manifest(robot))
    lim = np.array(m.joint_limits)
    rng = np.random.default_rng(4)
    a, b = rng.uniform(lim[:, 0], lim[:, 1], size=(2, len(lim)))
    # 1-mrad steps along the segment a -> b (the largest joint moves 1 mrad a step).
    steps = int(np.ceil(np.abs(b - a).max() / 1e-3))
    steps = min(steps, 3000)
    traj = a + (b - a) * (np.arange(steps + 1)[:, None] / steps)
    s = m.session()
    margin = 0.02
    hit, dist, _ = m.check_batch(traj, margin)
    skipped = 0
    for i, q in enumerate(traj):
        r = s.check(q, margin)
        assert r.in_collision == hit[i], i
        assert r.min_distance <= dist[i] + 1e-12, i  # a lower bound, never above the exact one
        st = s.stats
        assert st["exact_pairs"] + st["skipped_pairs"] + st["unchecked_pairs"] == len(m.pairs)
        assert st["unchecked_pairs"] == 0  # balanced has no budget
        skipped += st["skipped_pairs"]
    assert skipped > 0  # the cache did skip pairs
    s.reset()
    s.check(traj[-1], margin)
    assert s.stats["skipped_pairs"] == 0  # after reset every pair is checked


@pytest.mark.parametrize("robot", ROBOTS)
def test_presets(robot):
    m = collide.Model.load(manifest(robot))
    lim = np.array(m.joint_limits)
    rng = np.random.default_rng(12)
    a, b = rng.uniform(lim[:, 0], lim[:, 1], size=(2, len(lim)))
    traj = a + (b - a) * (np.arange(301)[:, None] / 300)
    precise = m.session(preset="precise")
    warm = m.session(preset="precise", warm_start=True)
    balanced = m.session()
    speed = m.session(preset="speed", budget=1)
    assert (precise.preset, balanced.preset, speed.preset) == (
        ("precise", 0), ("balanced", 0), ("speed", 1))
    unknown = 0
    for i, q in enumerate(traj):
        ref = m.check(q, 0.01)
        p, bal, sp = precise.check(q, 0.01), balanced.check(q, 0.01), speed.check(q, 0.01)
        assert p.verdict == ref.verdict and p.min_distance == ref.min_distance
        w = warm.check(q, 0.01)  # warm-started: the verdict, the distance within 1e-9 m
        assert w.verdict == ref.verdict and w.pair == ref.pair
        assert abs(w.min_distance - ref.min_distance) <= 1e-9 or ref.min_distance > 0.02
        assert bal.verdict == ref.verdict
        assert ref.verdict in ("free", "in_collision")
        assert speed.stats["exact_pairs"] <= 1 or i == 0  # the first call anchors every pair
        if sp.verdict == "free":
            assert ref.verdict == "free"  # speed never says free without a proof
        elif sp.verdict == "in_collision":
            assert ref.verdict == "in_collision"
        else:
            unknown += 1
            assert sp.in_collision  # unknown never reads as free
    if robot != "g1_29dof":  # the G1's path trips all along: its least pair, checked first, decides
        assert unknown > 0  # a budget of one exact check binds
    speed.set_preset("balanced")
    assert speed.preset == ("balanced", 0)
    assert speed.check(traj[-1], 0.01).verdict == m.check(traj[-1], 0.01).verdict
    with pytest.raises(ValueError, match="preset `fast`"):
        m.session(preset="fast")
    with pytest.raises(ValueError, match="only the speed preset"):
        m.session(preset="balanced", budget=3)


@pytest.mark.parametrize("robot", ["franka_panda", "g1_29dof"])
def test_witness_points(robot):
    m = collide.Model.load(manifest(robot))
    Q = seeded(m, 300, seed=5)
    band = 0.01  # the kernel's exact band above the margin
    s = m.session(witness=True)
    inside = 0
    for q in Q:
        r = m.check(q, 0.0, witness=True)
        assert m.check(q, 0.0).point_a is None  # off unless asked
        if r.min_distance <= band:
            inside += 1
            a, b = np.array(r.point_a), np.array(r.point_b)
            assert abs(np.linalg.norm(a - b) - abs(r.min_distance)) < 1e-7
            c = s.check(q, 0.0)
            assert (c.pair, c.point_a, c.point_b) == (r.pair, r.point_a, r.point_b) or not c.in_collision
        else:
            assert r.point_a is None and r.point_b is None
    assert inside > 20, inside


def test_bad_input():
    m = collide.Model.load(manifest("franka_panda"))
    q = np.zeros(len(m.joint_names))
    s = m.session()
    for call in (m.check, s.check):
        with pytest.raises(ValueError, match="has 3 values"):
            call(q[:3], 0.0)
        bad = q.copy()
        bad[2] = np.nan
        with pytest.raises(ValueError, match=r"q\[2\].*NaN"):
            call(bad, 0.0)
        with pytest.raises(ValueError, match="margin is -0.1"):
            call(q, -0.1)
        with pytest.raises(ValueError, match="margin is NaN"):
            call(q, float("nan"))
    with pytest.raises(ValueError, match="columns"):
        m.check_batch(np.zeros((4, 3)), 0.0)
    Q = np.zeros((4, len(q)))
    Q[3, 1] = np.inf
    with pytest.raises(ValueError, match="row 3"):
        m.check_batch(Q, 0.0)
    with pytest.raises(ValueError, match="margin"):
        m.check_batch(Q[:0], -1.0)
    with pytest.raises(ValueError, match="cutoff"):
        m.pair_distances(q, -1.0)
    with pytest.raises(ValueError, match="has 9 values"):
        m.pair_distances(np.zeros(9))
    # Lists are accepted as float64.
    assert m.check(list(q), 0.0).min_distance == m.check(q, 0.0).min_distance


def test_not_a_manifest(tmp_path):
    f = tmp_path / "robot.yaml"
    f.write_text("name: x\nlinks: [1, 2\n")
    with pytest.raises(ValueError, match="robot.yaml"):
        collide.Model.load(str(f))
    f.write_text("just: a mapping\n")
    with pytest.raises(ValueError):
        collide.Model.load(str(f))
    with pytest.raises(OSError, match="No such file"):
        collide.Model.load(str(tmp_path / "missing.yaml"))
    with pytest.raises(OSError, match="directory"):
        collide.Model.load(str(tmp_path))


def test_gil_released_during_a_check():
    # While another thread runs one long check_batch, this thread keeps running Python:
    # were the GIL held for the call, its longest pause would be the whole call.
    import threading

    m = collide.Model.load(manifest("g1_29dof"))
    Q = seeded(m, 10000, seed=11)
    started, span = threading.Event(), []

    def batch():
        started.set()
        t0 = time.perf_counter()
        m.check_batch(Q, 0.0, threads=1)
        span.append((t0, time.perf_counter()))

    t = threading.Thread(target=batch)
    t.start()
    started.wait()
    stamps = []
    while t.is_alive():
        stamps.append(time.perf_counter())
    t.join()
    t0, t1 = span[0]
    inside = [s for s in stamps if t0 <= s <= t1]
    assert t1 - t0 > 0.05, t1 - t0  # long enough to tell
    gaps = np.diff([t0] + inside + [t1])
    assert gaps.max() < 0.5 * (t1 - t0), (gaps.max(), t1 - t0)
