use super::*;
use crate::kernel::shapes::{Hull, Obb, Segment};
use crate::kernel::vec3::{IDENTITY, sub};

fn unit_box(c: V3) -> Obb {
    Obb {
        center: c,
        rot: IDENTITY,
        half: [0.5, 0.5, 0.5],
    }
}

#[test]
fn newest_point_regions_agree_with_the_general_routine() {
    // Simplices built as GJK builds them: each new point brings the simplex strictly
    // nearer to the origin (w · v < v · v), so its nearest point gives it a weight.
    let mut rng = crate::kernel::XorShift(0x9e37_79b9_7f4a_7c15);
    let mut uniform = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
    let (mut fast, mut total) = (0, 0);
    for _ in 0..20_000 {
        let mut s = Simplex {
            n: 0,
            p: [[0.0; 3]; 4],
            ia: [0; 4],
            ib: [0; 4],
        };
        s.push([uniform() + 1.5, uniform(), uniform()], 0, 0);
        for id in 1..4u32 {
            let v = s.clone_general_closest();
            let w = loop {
                let w = [2.0 * uniform(), 2.0 * uniform(), 2.0 * uniform()];
                if dot(w, v) < norm2(v) * (1.0 - 1e-6) {
                    break w;
                }
            };
            s.push(w, id, id);
            let mut general = s;
            let want = general.closest_general();
            let mut quick = s;
            total += 1;
            if let Some((u, den)) = quick.closest_with_newest() {
                fast += 1;
                let got = scale(u, 1.0 / den);
                let err = norm2(sub(got, want)).sqrt();
                assert!(
                    err <= 1e-12 * (1.0 + norm2(want).sqrt()),
                    "{got:?} vs {want:?}"
                );
                assert_eq!(quick.n, general.n);
                assert_eq!(quick.ia[..quick.n], general.ia[..general.n]);
            }
            s = general;
        }
    }
    // The general routine is the exception, for degenerate or ambiguous simplices.
    assert!(fast * 100 >= total * 99, "{fast} of {total}");
}

impl Simplex {
    fn clone_general_closest(&self) -> V3 {
        let mut c = *self;
        c.closest_general()
    }
}

#[test]
fn boxes_face_to_face() {
    let r = gjk_distance(
        &unit_box([0.0; 3]),
        &unit_box([3.0, 0.2, -0.1]),
        [1.0, 0.0, 0.0],
        None,
        MAX_ITER,
    );
    assert!(r.converged);
    assert!((r.lower - 2.0).abs() < 1e-12, "{r:?}");
    assert!(r.lower <= 2.0 + 1e-15);
}

#[test]
fn boxes_corner_to_corner() {
    // Corner (0.5,0.5,0.5) against corner (2.5,2.5,2.5)-(0.5,0.5,0.5): gap 1 per axis.
    let r = gjk_distance(
        &unit_box([0.0; 3]),
        &unit_box([2.0, 2.0, 2.0]),
        [1.0, 1.0, 1.0],
        None,
        MAX_ITER,
    );
    assert!((r.lower - 3f64.sqrt()).abs() < 1e-12, "{r:?}");
}

#[test]
fn overlap_reports_non_positive() {
    let r = gjk_distance(
        &unit_box([0.0; 3]),
        &unit_box([0.3, 0.2, 0.1]),
        [1.0, 0.0, 0.0],
        None,
        MAX_ITER,
    );
    assert!(r.lower <= 0.0, "{r:?}");
}

#[test]
fn segment_against_hull_tetra() {
    let h = Hull::from_points(&[
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
    ]);
    let seg = Segment {
        a: [-1.0, -1.0, 2.0],
        b: [1.0, 1.0, 2.0],
    };
    // Nearest hull point to the line z=2 (x=y) is the apex (0,0,1): distance 1.
    let r = gjk_distance(
        &h.posed(IDENTITY, [0.0; 3]),
        &seg,
        [0.0, 0.0, 1.0],
        None,
        24,
    );
    assert!((r.lower - 1.0).abs() < 1e-12, "{r:?}");
}

#[test]
fn warm_start_reproduces_answer_in_one_query() {
    let a = unit_box([0.0; 3]);
    let b = Obb {
        center: [2.0, 1.3, 0.4],
        rot: crate::kernel::vec3::rot_from_rpy([0.3, 0.2, 0.1]),
        half: [0.3, 0.2, 0.6],
    };
    let mut w = Witness::default();
    let cold = gjk_distance(&a, &b, [1.0, 0.0, 0.0], Some(&mut w), MAX_ITER);
    let warm = gjk_distance(&a, &b, [1.0, 0.0, 0.0], Some(&mut w), MAX_ITER);
    assert!((cold.lower - warm.lower).abs() < 1e-12);
    assert!(warm.iterations <= 1, "{warm:?}");
}

#[test]
fn a_rebuilt_tetrahedron_is_examined_on_every_face() {
    // A witness tetrahedron whose old face `abc` (in the plane x = 1) is the only face
    // the origin lies beyond: GJK's own step would never build it, and looking only at
    // the faces through the newest point `d` would call it an overlap. The distance from
    // the origin to it is 1, at (1, 0, 0) inside `abc`.
    let tetra = Hull::from_points(&[
        [1.0, -2.0, -2.0],
        [1.0, 4.0, -2.0],
        [1.0, -2.0, 4.0],
        [3.0, 0.0, 0.0],
    ]);
    let origin = Hull::from_points(&[[0.0; 3]]);
    let mut w = Witness {
        n: 4,
        ia: [0, 1, 2, 3],
        ib: [0; 4],
    };
    let g = gjk_distance(
        &tetra.points(),
        &origin.points(),
        [1.0, 0.0, 0.0],
        Some(&mut w),
        MAX_ITER,
    );
    assert!(g.converged && (g.lower - 1.0).abs() < 1e-12, "{g:?}");
    assert_eq!(w.n, 3, "the face abc is the witness");
}

fn depth(a: &Obb, b: &Obb, warm: Option<&mut Witness>, limits: DepthLimits) -> GjkResult {
    gjk_cso_depth(
        &Difference(a, b),
        sub(b.center, a.center),
        warm,
        MAX_ITER,
        TOL_ABS,
        TOL_REL,
        limits,
    )
}

#[test]
fn the_expanding_polytope_finds_the_depth_of_overlapping_boxes() {
    // Unit cubes 0.3 apart along x (0.1, 0.05 across): out along x takes 0.7.
    let (a, b) = (unit_box([0.0; 3]), unit_box([0.3, 0.1, 0.05]));
    let cheap = gjk_distance(&a, &b, [1.0, 0.0, 0.0], None, MAX_ITER);
    let g = depth(&a, &b, None, DepthLimits::NONE);
    assert!(g.converged && (g.lower + 0.7).abs() < 1e-12, "{g:?}");
    assert!(g.epa_iterations > 0 && g.upper == 0.0);
    // GJK alone: a valid bound, lower.
    assert!(cheap.lower <= g.lower + 1e-15, "{cheap:?}");
    // The certifying normal: A's points at least `lower` beyond B's along it.
    let n = g.normal;
    let ha = (0..8u32)
        .map(|i| dot(a.vertex(i), n))
        .fold(f64::INFINITY, f64::min);
    let hb = (0..8u32)
        .map(|i| dot(b.vertex(i), n))
        .fold(f64::NEG_INFINITY, f64::max);
    assert!(ha - hb >= g.lower - 1e-12, "{} vs {}", ha - hb, g.lower);
}

#[test]
fn a_point_inside_a_tetrahedron_has_its_face_plane_depth() {
    let tetra = Hull::from_points(&[
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
    ]);
    // Nearest face plane z = 0 at 0.1 (x = 0 at 0.2, y = 0 at 0.3, the slanted face at
    // (1 − 0.6)/√3 = 0.23).
    let p = Hull::from_points(&[[0.2, 0.3, 0.1]]);
    let g = gjk_cso_depth(
        &Difference(&tetra.points(), &p.points()),
        [1.0, 0.0, 0.0],
        None,
        MAX_ITER,
        TOL_ABS,
        TOL_REL,
        DepthLimits::NONE,
    );
    assert!(g.converged && (g.lower + 0.1).abs() < 1e-12, "{g:?}");
}

#[test]
fn touching_boxes_read_zero() {
    // Face to face, and corner on face.
    for b in [unit_box([1.0, 0.2, -0.3]), unit_box([0.5, 0.5, 1.0])] {
        let g = depth(&unit_box([0.0; 3]), &b, None, DepthLimits::NONE);
        assert!(g.lower.abs() < 1e-9, "{g:?}");
    }
}

#[test]
fn a_warm_simplex_holding_the_origin_is_bounded_not_read_as_zero() {
    let (a, b) = (unit_box([0.0; 3]), unit_box([0.3, 0.1, 0.05]));
    let mut w = Witness::default();
    gjk_distance(&a, &b, [1.0, 0.0, 0.0], Some(&mut w), MAX_ITER);
    assert_eq!(
        w.n, 4,
        "the cold query leaves a tetrahedron around the origin"
    );
    // The rebuilt simplex holds the origin before any scan: GJK used to return 0 there.
    let mut warm = w;
    let cheap = gjk_distance(&a, &b, [1.0, 0.0, 0.0], Some(&mut warm), MAX_ITER);
    assert!(
        cheap.lower <= -0.7 + 1e-12 && cheap.iterations == 1,
        "{cheap:?}"
    );
    let mut warm = w;
    let g = depth(&a, &b, Some(&mut warm), DepthLimits::NONE);
    assert!((g.lower + 0.7).abs() < 1e-12, "{g:?}");
}

#[test]
fn the_limits_stop_early_and_leave_what_the_caller_keeps() {
    let (a, b) = (unit_box([0.0; 3]), unit_box([0.3, 0.1, 0.05]));
    let full = depth(&a, &b, None, DepthLimits::NONE);
    // A ceiling the scans reach at once: no expansion.
    let lim = DepthLimits {
        floor: f64::NEG_INFINITY,
        ceiling: -5.0,
        settle: f64::INFINITY,
    };
    let g = depth(&a, &b, None, lim);
    assert!(
        g.epa_iterations + g.epa_proposals == 0 && g.lower >= -5.0,
        "{g:?}"
    );
    // A ceiling between the scans' bound and the depth: min with it is unchanged.
    let lim = DepthLimits {
        floor: f64::NEG_INFINITY,
        ceiling: -0.75,
        settle: f64::INFINITY,
    };
    let g = depth(&a, &b, None, lim);
    assert!(g.lower >= -0.75 && g.lower <= full.lower + 1e-15, "{g:?}");
    // The exact value as floor: the expansion stops once it proves nothing above it.
    let lim = DepthLimits {
        floor: -0.7,
        ceiling: f64::INFINITY,
        settle: f64::INFINITY,
    };
    let g = depth(&a, &b, None, lim);
    assert!(g.converged && g.lower.max(-0.7) == -0.7, "{g:?}");
    assert!(g.epa_iterations <= full.epa_iterations);
}
