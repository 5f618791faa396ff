"""The verdict-only check through Python (`Model.check_verdict`, `Model.check_verdict_batch`)
against the full check (`Model.check_batch`) on 1000 seeded poses of the Panda, the G1 and
TIAGo: the same `in_collision` on every pose; the pair it names is the first checked pair at
or below the margin (read from `Model.pair_distances` with the margin as cutoff); single calls,
batches at any thread count and a caller's joint order agree; bad input is a ValueError like
`Model.check`'s. Run from the repository root (`make py-module` does)."""

import pathlib

import numpy as np
import pytest

import collide

ROOT = pathlib.Path(__file__).resolve().parents[2]
POSES = 1000


def manifest(robot):
    return str(ROOT / "robots" / robot / "manifest.yaml")


def seeded(model, n=POSES, seed=31):
    lim = np.array(model.joint_limits)
    rng = np.random.default_rng(seed)
    return rng.uniform(lim[:, 0], lim[:, 1], size=(n, len(lim)))


@pytest.mark.parametrize("robot", ["franka_panda", "g1_29dof", "tiago"])
@pytest.mark.parametrize("margin", [0.0, 0.02])
def test_verdict_is_the_full_checks(robot, margin):
    m = collide.Model.load(manifest(robot))
    Q = seeded(m)
    full_hit, _, _ = m.check_batch(Q, margin)
    hit, pair = m.check_verdict_batch(Q, margin)
    assert hit.dtype == np.bool_ and pair.dtype == np.int64 and hit.shape == pair.shape == (POSES,)
    assert hit.tolist() == full_hit.tolist()
    assert ((pair >= 0) == hit).all()
    pairs = m.pairs
    for i in range(0, POSES, 5):
        d = m.pair_distances(Q[i], cutoff=margin)
        first = np.flatnonzero(d <= margin)
        assert pair[i] == (first[0] if len(first) else -1), i
        v = m.check_verdict(Q[i], margin)
        assert (v.in_collision, v.pair if v.pair is not None else -1) == (hit[i], pair[i])
        assert v.within_limits
        if v.pair is not None:
            assert (v.link_a, v.link_b) == pairs[v.pair]
        else:
            assert v.link_a is None and v.link_b is None
    # Not vacuous: several pairs trip first; on the Panda (both margins) and the G1 (margin
    # 0) some poses are free (TIAGo's committed geometry trips at rest).
    if robot == "franka_panda" or (robot == "g1_29dof" and margin == 0):
        assert 0 < hit.sum() < POSES, hit.sum()
    if not (robot == "g1_29dof" and margin == 0.02):  # there pair 0 trips on every pose
        assert len(np.unique(pair[hit])) > 2


def test_threads_and_joint_order():
    m = collide.Model.load(manifest("g1_29dof"))
    Q = seeded(m, 300, seed=9)
    one = m.check_verdict_batch(Q, 0.0, threads=1)
    for threads in (2, 3, 0):
        other = m.check_verdict_batch(Q, 0.0, threads=threads)
        for a, b in zip(one, other):
            assert a.tobytes() == b.tobytes()
    names = m.joint_names
    perm = np.random.default_rng(1).permutation(len(names))
    p = collide.Model.load(manifest("g1_29dof"), joint_order=[names[i] for i in perm])
    for a, b in zip(one, p.check_verdict_batch(Q[:, perm], 0.0)):
        assert a.tobytes() == b.tobytes()
    v = p.check_verdict(Q[7, perm], 0.0)
    assert (v.in_collision, v.pair if v.pair is not None else -1) == (one[0][7], one[1][7])
    assert repr(v).startswith("VerdictResult(in_collision=")


def test_bad_input():
    m = collide.Model.load(manifest("franka_panda"))
    q = np.zeros(len(m.joint_names))
    with pytest.raises(ValueError, match="has 3 values"):
        m.check_verdict(q[:3], 0.0)
    bad = q.copy()
    bad[2] = np.nan
    with pytest.raises(ValueError, match=r"q\[2\].*NaN"):
        m.check_verdict(bad, 0.0)
    with pytest.raises(ValueError, match="margin is -0.1"):
        m.check_verdict(q, -0.1)
    with pytest.raises(ValueError, match="margin is inf"):
        m.check_verdict(q, float("inf"))
    with pytest.raises(ValueError, match="columns"):
        m.check_verdict_batch(np.zeros((4, 3)), 0.0)
    Q = np.zeros((4, len(q)))
    Q[3, 1] = np.inf
    with pytest.raises(ValueError, match="row 3"):
        m.check_verdict_batch(Q, 0.0)
    with pytest.raises(ValueError, match="margin"):
        m.check_verdict_batch(Q[:0], -1.0)
    # Lists are accepted as float64; an empty batch is empty.
    assert m.check_verdict(list(q), 0.0).in_collision == m.check(q, 0.0).in_collision
    hit, pair = m.check_verdict_batch(Q[:0], 0.0)
    assert hit.shape == pair.shape == (0,)
