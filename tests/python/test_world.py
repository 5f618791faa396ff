"""The world check in Python: hand-computed distances against a cell and a fixture, the
batch equal to one-at-a-time checks, payloads attached and detached, and every bad input a
Python exception with nothing built. Run from the repository root."""

import pathlib

import numpy as np
import pytest

import collide

ROOT = pathlib.Path(__file__).resolve().parents[2]
PANDA = str(ROOT / "robots" / "franka_panda" / "manifest.yaml")


@pytest.fixture(scope="module")
def panda():
    return collide.Model.load(PANDA)


def table_world():
    """A table top at z = 0.3 in front of the arm, 25 mm cells, and a post as a fixture."""
    xs, ys = np.meshgrid(np.arange(0.3, 0.8, 0.01), np.arange(-0.3, 0.3, 0.01))
    pts = np.stack([xs.ravel(), ys.ravel(), np.full(xs.size, 0.3)], axis=1)
    w = collide.World.from_points(pts, 0.025)
    return w.with_fixture(collide.Shape.capsule((-0.4, 0.3, 0.0), (-0.4, 0.3, 1.0), 0.05))


def test_cells_and_fixtures_at_known_distances(panda):
    # One cell: the box [0, 0.025]^3 shifted to x = 2 m, far from the arm: free, no hit.
    far = collide.World.from_cells((2.0, 0.0, 0.0), 0.025, np.array([[0, 0, 0]], dtype=np.int32))
    q = np.zeros(len(panda.joint_names))
    r = panda.check_world(q, far, 0.0)
    assert r.verdict == "free" and r.link_b is None
    assert r.min_distance == pytest.approx(0.01)  # the reach: margin + 0.01 band
    # A sphere fixture around the base: every link near it trips, the base's is inside.
    w = far.with_fixture(collide.Shape.sphere((0.0, 0.0, 0.05), 0.1))
    r = panda.check_world(q, w, 0.0)
    assert r.in_collision and r.link_b == "fixture 0" and r.min_distance < 0
    assert far.fixture_count == 0 and w.fixture_count == 1, "with_fixture leaves the world as it was"


def test_batch_equals_single_checks(panda):
    w = table_world()
    rng = np.random.default_rng(5)
    lim = np.array(panda.joint_limits)
    Q = rng.uniform(lim[:, 0], lim[:, 1], size=(200, len(lim)))
    hit, dist, link = panda.check_world_batch(Q, w, 0.02, threads=2)
    assert 0 < hit.sum() < len(Q)
    for k in range(0, len(Q), 7):
        r = panda.check_world(Q[k], w, 0.02)
        assert r.in_collision == hit[k]
        assert r.min_distance == dist[k]
        v = panda.check_world(Q[k], w, 0.02, verdict_only=True)
        assert v.in_collision == r.in_collision


def test_payloads_attach_and_detach(panda):
    w = collide.World.from_cells((0.0, 0.0, 0.0), 0.025, np.zeros((0, 3), dtype=np.int32))
    s = collide.WorldSession(panda, w)
    q = np.zeros(len(panda.joint_names))
    before = s.check(q, 0.0)
    assert not before.in_collision
    last = panda.link_names[-1]
    pid = s.attach(last, collide.Shape.sphere((0, 0, 0), 0.3))
    r = s.check(q, 0.0)
    assert r.in_collision and r.link_a == f"payload {pid} on {last}"
    assert r.link_b in panda.link_names and r.link_b != last
    s.detach(pid)
    assert s.check(q, 0.0).min_distance == before.min_distance
    # Held so that it may touch the link it hit: that link is not checked against it; may
    # it touch every link, the empty world leaves it free.
    hit = r.link_b
    pid = s.attach(last, collide.Shape.sphere((0, 0, 0), 0.3), touches=[hit])
    r2 = s.check(q, 0.0)
    assert r2.link_b != hit
    s.detach(pid)
    pid = s.attach(last, collide.Shape.sphere((0, 0, 0), 0.3), touches=list(panda.link_names))
    assert s.check(q, 0.0).min_distance == before.min_distance
    s.detach(pid)
    with pytest.raises(ValueError, match="no link"):
        s.attach(last, collide.Shape.sphere((0, 0, 0), 0.3), touches=["not_a_link"])
    with pytest.raises(ValueError, match="no payload"):
        s.detach(pid)
    with pytest.raises(ValueError, match="no link"):
        s.attach("not_a_link", collide.Shape.sphere((0, 0, 0), 0.1))
    with pytest.raises(ValueError):
        s.attach(last, collide.Shape.sphere((0, 0, 0), float("nan")))
    with pytest.raises(ValueError):
        s.attach(last, collide.Shape.hull(np.zeros((0, 3))))


def test_bad_input_is_an_exception(panda):
    cells = np.zeros((1, 3), dtype=np.int32)
    for pitch in (0.0, -0.025, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="pitch"):
            collide.World.from_cells((0, 0, 0), pitch, cells)
    with pytest.raises(ValueError, match="shape"):
        collide.World.from_cells((0, 0, 0), 0.025, np.zeros((4, 2), dtype=np.int32))
    with pytest.raises(ValueError, match="point 1"):
        collide.World.from_points(np.array([[0, 0, 0], [np.nan, 0, 0]]), 0.025)
    with pytest.raises(ValueError, match="limit"):
        collide.World.from_cells((0, 0, 0), 0.025, np.array([[0, 0, 0], [1 << 27, 1 << 27, 1 << 20]], dtype=np.int32))
    with pytest.raises(OSError):
        collide.World.from_mesh("/nonexistent/scene.stl", 0.025)
    w = collide.World.from_mesh(str(ROOT / "tests" / "meshes" / "cube.obj"), 0.25)
    assert w.cell_count > 0
    q = np.zeros(len(panda.joint_names))
    q[1] = np.inf
    with pytest.raises(ValueError, match="q"):
        panda.check_world(q, w, 0.0)
    with pytest.raises(ValueError, match="margin"):
        panda.check_world(np.zeros(len(q)), w, -1.0)
    with pytest.raises(ValueError):
        panda.check_world(np.zeros(len(q) + 1), w, 0.0)


def test_coherent_session_gives_the_full_verdicts_on_a_smooth_path(panda):
    w = table_world()
    full, coh = collide.WorldSession(panda, w), collide.WorldSession(panda, w)
    lim = np.array(panda.joint_limits)
    rng = np.random.default_rng(9)
    trips, steps = 0, 0
    for _ in range(8):
        a, b = (rng.uniform(lim[:, 0], lim[:, 1]) for _ in range(2))
        for t in np.linspace(0, 1, 100):
            q = a + t * (b - a)
            f, c = full.check(q, 0.01), coh.check(q, 0.01, coherent=True)
            assert f.in_collision == c.in_collision
            trips += f.in_collision
            steps += 1
    assert 0 < trips < steps


def test_witness_points_on_request(panda):
    # A sphere fixture in front of the arm: apart, point_b lies on the sphere (0.1 from its
    # centre) along the normal, point_a on the link, |a - b| the least distance.
    c, rad = np.array([0.55, 0.0, 0.45]), 0.1
    empty = collide.World.from_cells((0, 0, 0), 0.025, np.zeros((0, 3), dtype=np.int32))
    w = empty.with_fixture(collide.Shape.sphere(tuple(c), rad))
    lim = np.array(panda.joint_limits)
    rng = np.random.default_rng(11)
    apart = overlap = 0
    s = collide.WorldSession(panda, w)
    for _ in range(2000):
        q = rng.uniform(lim[:, 0], lim[:, 1])
        r = panda.check_world(q, w, 0.05, witness=True)
        assert s.check(q, 0.05, witness=True).point_a == r.point_a
        if r.link_b is None:
            assert r.point_a is None and r.point_b is None
            continue
        a, b = np.array(r.point_a), np.array(r.point_b)
        assert np.linalg.norm(a - b) == pytest.approx(abs(r.min_distance), abs=1e-9)
        if r.min_distance > 1e-6:
            apart += 1
            assert np.linalg.norm(b - c) == pytest.approx(rad, abs=1e-9)
            # The closest point on a sphere is along its normal: a - b is parallel to b - c.
            assert np.linalg.norm(np.cross(a - b, b - c)) < 1e-9
        elif r.min_distance < -1e-6:
            overlap += 1
            # The sphere's point deepest in the link, against the way out a - b.
            assert np.dot(b - c, a - b) == pytest.approx(-rad * np.linalg.norm(a - b), abs=1e-9)
        assert panda.check_world(q, w, 0.05).point_a is None, "points only on request"
        assert panda.check_world(q, w, 0.05, verdict_only=True, witness=True).point_a is None
    assert apart > 25 and overlap > 25, (apart, overlap)
