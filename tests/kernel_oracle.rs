//! Property tests of every kernel distance routine against parry3d-f64 as the oracle.
//!
//! Each proptest case is one random pair; every routine sees at least 100,000 pairs across
//! this file (`CASES` per test, several routines per case where they share a pair type).
//! Scales run from 1 mm to 2 m; each generator mixes general, touching, overlapping,
//! parallel and degenerate pairs (zero-length capsules, flat boxes, coplanar or planar hulls,
//! duplicate points, single points).
//!
//! Oracle tolerances: parry's segment–segment distance is closed form (exact to rounding):
//! `TOL_CLOSED`. Its GJK path returns the distance between two points of the solids (an
//! upper estimate) within ~1.5e-5 m: every kernel lower bound must be `<= oracle + TOL_CLOSED`
//! (the oracle is never below the truth, up to rounding), and every routine documented as
//! exact must also be `>= oracle − TOL_GJK`. Overlap (oracle 0) requires a kernel value
//! `<= TOL_CLOSED`; the overlap section at the end asserts more: every routine at most the
//! exact signed distance (minus the penetration depth), and exact there where documented so.
//!
//! These tests only assert. `cargo run --release --example kernel_report` measures how close
//! each routine comes to the oracle (the figures docs/kernel.md quotes).

use collide::kernel::distance_box_box::{box_box_gjk, box_box_refined, box_box_sat, box_cube_sat};
use collide::kernel::distance_box_capsule::box_capsule;
use collide::kernel::distance_capsule_capsule::capsule_capsule;
use collide::kernel::distance_hull_box::{box_dop, tight_box};
use collide::kernel::distance_hull_capsule::{hull_capsule, hull_segment_gjk, tight_capsule};
use collide::kernel::distance_hull_hull::{
    TightPosed, hull_hull_gjk, hull_hull_gjk_depth, tight_tight, tight_tight_stage1,
};
use collide::kernel::dop26::{Dop26, dop_dop_lower_bound, dop_of_points};
use collide::kernel::gjk::{DepthLimits, GjkResult, Witness, gjk_in_hull_frame_depth};
use collide::kernel::shapes::{Capsule, Hull, Obb};
use collide::kernel::vec3::{Mat3, V3, add, mul_mm, mul_mv, rot_axis_angle, sub};
mod common;
use common::kernel_models;

use common::parry_bridge::{Cloud, enum_seg_seg, gjk_multi, ppose, pv};
use parry3d_f64::math::Pose;
use parry3d_f64::query;
use parry3d_f64::query::PointQuery;
use parry3d_f64::shape::{Cuboid, Segment, SupportMap};
use proptest::prelude::*;

const CASES: u32 = 100_000;
const TOL_CLOSED: f64 = 1e-9;
const TOL_GJK: f64 = 1.5e-5;

// ---------------------------------------------------------------------------------------
// Geometry from raw numbers (so proptest can shrink them).

fn scale_of(u: f64) -> f64 {
    // u in [-1, 1] → 1 mm .. 2 m, log-uniform.
    10f64.powf(-3.0 + (u + 1.0) * 0.5 * (3.0 + 2.0f64.log10()))
}

fn rot_of(q: [f64; 4]) -> Mat3 {
    let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    if n < 1e-6 {
        return [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    }
    let (w, x, y, z) = (q[0] / n, q[1] / n, q[2] / n, q[3] / n);
    [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y - w * z),
            2.0 * (x * z + w * y),
        ],
        [
            2.0 * (x * y + w * z),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z - w * x),
        ],
        [
            2.0 * (x * z - w * y),
            2.0 * (y * z + w * x),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ]
}

fn v3(a: &[f64], s: f64) -> V3 {
    [a[0] * s, a[1] * s, a[2] * s]
}

// ---------------------------------------------------------------------------------------
// Oracles.

fn oracle_seg_seg(a0: V3, a1: V3, b0: V3, b1: V3) -> f64 {
    query::details::distance_segment_segment(
        &Pose::IDENTITY,
        &Segment::new(pv(a0), pv(a1)),
        &Segment::new(pv(b0), pv(b1)),
    )
}

fn oracle_box_segment(b: &Obb, a: V3, c: V3) -> f64 {
    // Segment in world coordinates is shape 1 (identity), the box is shape 2 at its pose.
    let seg = Segment::new(pv(a), pv(c));
    let cub = Cuboid::new(pv(b.half));
    let pose = ppose(b.center, &b.rot);
    let gjk = query::details::distance_support_map_support_map(&pose, &seg, &cub);
    let f = |t: f64| {
        cub.distance_to_point(
            &pose,
            pv(add(
                a,
                [(c[0] - a[0]) * t, (c[1] - a[1]) * t, (c[2] - a[2]) * t],
            )),
            true,
        )
    };
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..200 {
        let m1 = lo + (hi - lo) / 3.0;
        let m2 = hi - (hi - lo) / 3.0;
        if f(m1) <= f(m2) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    let ts = f(0.5 * (lo + hi)).min(f(0.0)).min(f(1.0));
    // A GJK zero is an overlap verdict, not a measured distance: trust the search there.
    if gjk > 0.0 { gjk.min(ts) } else { ts }
}

fn oracle_box_box(a: &Obb, b: &Obb) -> f64 {
    let pa = ppose(a.center, &a.rot);
    let pb = ppose(b.center, &b.rot);
    let ca = Cuboid::new(pv(a.half));
    let cb = Cuboid::new(pv(b.half));
    let d1 = query::distance(&pa, &ca, &pb, &cb).unwrap().distance;
    let d2 = query::details::distance_support_map_support_map(&pa.inv_mul(&pb), &ca, &cb);
    d1.min(d2)
}

fn oracle_cloud_cloud(a: &[V3], b: &[V3]) -> f64 {
    let ca = Cloud(a.iter().map(|p| pv(*p)).collect());
    let cb = Cloud(b.iter().map(|p| pv(*p)).collect());
    gjk_multi(&Pose::IDENTITY, &ca, &cb)
}

fn oracle_cloud_segment(a: &[V3], s0: V3, s1: V3) -> f64 {
    let ca = Cloud(a.iter().map(|p| pv(*p)).collect());
    gjk_multi(&Pose::IDENTITY, &ca, &Segment::new(pv(s0), pv(s1)))
}

fn oracle_cloud_box(a: &[V3], b: &Obb) -> f64 {
    let ca = Cloud(a.iter().map(|p| pv(*p)).collect());
    gjk_multi(&ppose(b.center, &b.rot), &ca, &Cuboid::new(pv(b.half)))
}

/// `lb` is a lower bound of the distance whose oracle is `oracle`. A positive oracle value is
/// the distance between two points of the solids (an upper estimate of the truth), so it
/// gets the rounding tolerance; a zero is parry's overlap verdict, which its GJK path may
/// return for pairs up to its own tolerance apart.
fn assert_lower(name: &str, lb: f64, oracle: f64) -> Result<(), TestCaseError> {
    let tol = if oracle > 0.0 { TOL_CLOSED } else { TOL_GJK };
    prop_assert!(
        lb <= oracle.max(0.0) + tol,
        "{name}: lower bound {lb:e} exceeds oracle {oracle:e}"
    );
    Ok(())
}

/// An upper estimate of the true distance for lower-bound checks: the smaller of parry's
/// GJK value when positive (the distance between two points of the solids) and the kernel
/// GJK's `upper` (`|v|`, also the distance between two points of the solids). A parry zero is
/// an overlap verdict, not a measured distance, and can be wrong by ~2e-5 m on near-touching
/// degenerate clouds. Taking the minimum only makes lower-bound checks stricter.
fn upper_estimate(parry: f64, kernel_upper: f64) -> f64 {
    if parry > 0.0 {
        parry.min(kernel_upper.max(0.0))
    } else {
        kernel_upper.max(0.0)
    }
}

/// `v` is documented exact (up to the oracle's own GJK tolerance).
fn assert_exact(name: &'static str, v: f64, oracle: f64) -> Result<(), TestCaseError> {
    assert_lower(name, v, oracle)?;
    if oracle > 0.0 {
        prop_assert!(
            v >= oracle - TOL_GJK,
            "{name}: {v:e} is below the oracle {oracle:e} by more than the tolerance"
        );
    } else {
        // parry's overlap verdict (0) holds only to its GJK tolerance.
        prop_assert!(v <= TOL_GJK, "{name}: overlap reported as {v:e}");
    }
    Ok(())
}

/// Gap along `n` between two point sets: `min_a n·a − max_b n·b`, computed from scratch.
fn plane_gap(a: &[V3], b: &[V3], n: V3) -> f64 {
    let d = |p: &V3| p[0] * n[0] + p[1] * n[1] + p[2] * n[2];
    let amin = a.iter().map(d).fold(f64::INFINITY, f64::min);
    let bmax = b.iter().map(d).fold(f64::NEG_INFINITY, f64::max);
    amin - bmax
}

/// Checks of a GJK result between point sets `a` and `b` (world frame):
/// 1. oracle-free: a positive `lower` must be certified by its plane, recomputed here;
/// 2. `lower <= oracle` (+ tolerance); where parry reports overlap (0) but `lower` exceeds
///    parry's tolerance, the certificate of (1) has already proven the separation, and the
///    case is counted as parry's error;
/// 3. exact on convergence: `lower >= oracle − TOL_GJK`.
fn check_gjk(
    name: &'static str,
    g: &GjkResult,
    a: &[V3],
    b: &[V3],
    oracle: f64,
    offset: f64,
) -> Result<(), TestCaseError> {
    let lower = g.lower - offset;
    if g.lower > 0.0 {
        let gap = plane_gap(a, b, g.normal);
        prop_assert!(
            gap >= g.lower - 1e-12,
            "{name}: lower bound {:e} not certified by its plane (gap {gap:e})",
            g.lower
        );
    }
    // Otherwise parry's overlap verdict is refuted by the certificate of (1): its error.
    if oracle > 0.0 || lower <= TOL_GJK {
        assert_lower(name, lower, oracle)?;
    }
    let u = upper_estimate(oracle, g.upper);
    if g.converged && u > 0.0 {
        prop_assert!(
            lower >= u - offset - TOL_GJK,
            "{name}: {lower:e} below the oracle {u:e} {g:?}"
        );
    }
    Ok(())
}

fn cfg() -> ProptestConfig {
    // KERNEL_ORACLE_CASES overrides the case count for quick local iterations.
    let cases = std::env::var("KERNEL_ORACLE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(CASES);
    // A fixed seed: the same pairs on every run, so CI's verdict does not hinge on a
    // fresh draw (a random run once met a degenerate box, all half extents 0, that
    // parry's GJK calls overlapping 0.05 mm apart while both SATs agree).
    ProptestConfig {
        cases,
        max_shrink_iters: 2000,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(20_260_924),
        ..ProptestConfig::default()
    }
}

// ---------------------------------------------------------------------------------------
// Capsule–capsule.

fn raw<const N: usize>() -> impl Strategy<Value = [f64; N]> {
    prop::array::uniform::<_, N>(-1.0f64..1.0)
}

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn capsule_capsule_matches_closed_form(cat in 0u8..6, su in -1.0f64..1.0, r in raw::<16>()) {
        let s = scale_of(su);
        let a0 = v3(&r[0..3], s);
        let mut a1 = add(a0, v3(&r[3..6], s));
        let b0 = v3(&r[6..9], s);
        let mut b1 = add(b0, v3(&r[9..12], s));
        let mut ra = r[12].abs() * 0.3 * s;
        let mut rb = r[13].abs() * 0.3 * s;
        match cat {
            1 => {
                // Parallel or anti-parallel (k may be 0: zero length).
                let k = r[14] * 2.0;
                b1 = add(b0, [k * (a1[0] - a0[0]), k * (a1[1] - a0[1]), k * (a1[2] - a0[2])]);
            }
            2 => {
                // Degenerate: zero-length one or both.
                a1 = a0;
                if r[15] > 0.0 { b1 = b0; }
            }
            3 | 4 => {
                // Touching (3) or overlapping (4): radii from the segment distance.
                let d = oracle_seg_seg(a0, a1, b0, b1).min(enum_seg_seg(a0, a1, b0, b1));
                let f = (r[14] + 1.0) * 0.5;
                ra = d * f;
                rb = d - ra;
                if cat == 4 { rb += s * (r[15].abs() + 0.01); }
            }
            _ => {}
        }
        // parry's closed form is off on some near-parallel pairs: the enumeration tightens it.
        let dseg = oracle_seg_seg(a0, a1, b0, b1).min(enum_seg_seg(a0, a1, b0, b1));
        let want = dseg - ra - rb;
        let got = capsule_capsule(a0, a1, ra, b0, b1, rb);
        prop_assert!((got - want).abs() <= TOL_CLOSED, "got {got:e}, closed form {want:e}");
        if cat == 3 { prop_assert!(got.abs() <= TOL_CLOSED); }
        if want <= 0.0 { prop_assert!(got <= TOL_CLOSED); }
    }
}

// ---------------------------------------------------------------------------------------
// Box–capsule.

fn make_box(r: &[f64], s: f64, flat: bool) -> Obb {
    let mut half = [r[7].abs() * s + 1e-4 * s, r[8].abs() * s, r[9].abs() * s];
    if flat {
        half[2] = 0.0;
    }
    Obb {
        center: v3(&r[0..3], s),
        rot: rot_of([r[3], r[4], r[5], r[6]]),
        half,
    }
}

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn box_capsule_is_exact(cat in 0u8..6, su in -1.0f64..1.0, r in raw::<20>()) {
        let s = scale_of(su);
        let b = make_box(&r, s, cat == 2 && r[19] > 0.0);
        let mut a = add(b.center, v3(&r[10..13], 2.0 * s));
        let mut c = add(a, v3(&r[13..16], 2.0 * s));
        let mut rad = r[16].abs() * 0.2 * s;
        match cat {
            1 => {
                // Parallel to a box axis, offset.
                let ax = [b.rot[0][0], b.rot[1][0], b.rot[2][0]];
                c = add(a, [ax[0] * r[17] * s, ax[1] * r[17] * s, ax[2] * r[17] * s]);
            }
            2 => {
                // Degenerate: zero-length capsule and/or zero radius; flat box above.
                c = a;
                if r[18] > 0.0 { rad = 0.0; }
            }
            3 => {
                // Touching: a segment tangent to a face at height rad.
                let face = (r[17].abs() * 3.0) as usize % 3;
                let sign = if r[18] >= 0.0 { 1.0 } else { -1.0 };
                let mut local = [r[10] * b.half[0], r[11] * b.half[1], r[12] * b.half[2]];
                local[face] = sign * (b.half[face] + rad);
                let t = (face + 1) % 3;
                let mut dir = [0.0; 3];
                dir[t] = r[13] * s;
                let l0 = sub(local, dir);
                let l1 = add(local, dir);
                // Keep the segment over the face: clamp the tangent coordinate.
                let clamp = |mut p: V3| { p[t] = p[t].clamp(-b.half[t], b.half[t]); p };
                a = add(b.center, mul_mv(&b.rot, clamp(l0)));
                c = add(b.center, mul_mv(&b.rot, clamp(l1)));
            }
            4 => {
                // Overlapping: the segment passes through the centre region.
                a = add(b.center, v3(&r[10..13], 0.3 * s));
                c = sub(b.center, v3(&r[13..16], 0.3 * s));
            }
            _ => {}
        }
        let got = box_capsule(&b, a, c, rad);
        let dseg = oracle_box_segment(&b, a, c);
        let oracle = (dseg - rad).max(0.0);
        // A core within rounding of the box (the oracle's distance is not exact there, ~1e-18 m
        // for a meeting core) is bounded, not measured: `box_capsule_overlap_*` checks it.
        if dseg > TOL_CLOSED {
            // Compare core distances to isolate the routine from the radius.
            let core = got + rad;
            prop_assert!(core <= dseg + TOL_CLOSED, "core {core:e} above oracle {dseg:e}");
            prop_assert!(core >= dseg - TOL_GJK, "core {core:e} below oracle {dseg:e}");
        } else {
            prop_assert!(
                got + rad <= TOL_GJK,
                "segment meets box: got {got:e} rad {rad:e} b {b:?} a {a:?} c {c:?}"
            );
        }
        assert_lower("box_capsule", got, oracle)?;
        if cat == 3 { prop_assert!(got.abs() <= 1e-9 + 1e-12 * s, "touching: {got:e}"); }
    }
}

// ---------------------------------------------------------------------------------------
// Box–box: SAT, refined, GJK.

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn box_box_bounds_and_refinement(cat in 0u8..6, su in -1.0f64..1.0, r in raw::<24>()) {
        let s = scale_of(su);
        let a = make_box(&r[0..10], s, cat == 3 && r[23] > 0.0);
        let mut b = make_box(&r[10..20], s, cat == 3 && r[22] > 0.0);
        match cat {
            1 => {
                // Parallel: same orientation.
                b.rot = a.rot;
            }
            2 => {
                // Touching face to face: b shares a's face plane, spun about its normal.
                let face = (r[20].abs() * 3.0) as usize % 3;
                let n = [a.rot[0][face], a.rot[1][face], a.rot[2][face]];
                let spin = rot_axis_angle([
                    if face == 0 { 1.0 } else { 0.0 },
                    if face == 1 { 1.0 } else { 0.0 },
                    if face == 2 { 1.0 } else { 0.0 },
                ], r[21] * 3.0);
                b.rot = mul_mm(&a.rot, &spin);
                let off = a.half[face] + b.half[face];
                let mut local = [r[11] * a.half[0], r[12] * a.half[1], r[13] * a.half[2]];
                local[face] = 0.0;
                b.center = add(add(a.center, mul_mv(&a.rot, local)), [n[0] * off, n[1] * off, n[2] * off]);
            }
            4 => {
                // Overlapping.
                b.center = add(a.center, v3(&r[10..13], 0.2 * s));
            }
            5 => {
                // Far apart relative to size.
                b.center = add(a.center, v3(&r[10..13], 5.0 * s));
            }
            _ => {}
        }
        let oracle = oracle_box_box(&a, &b);
        let sat = box_box_sat(&a, &b);
        assert_lower("box_box_sat", sat, oracle)?;
        let refined = box_box_refined(&a, &b, f64::INFINITY, None);
        prop_assert!(refined >= sat);
        assert_exact("box_box_refined", refined, oracle)?;
        let thr = r[23].abs() * s;
        let partial = box_box_refined(&a, &b, thr, None);
        assert_lower("box_box_refined(threshold)", partial, oracle)?;
        if sat <= thr { prop_assert!((partial - refined).abs() <= 1e-12); }
        let g = box_box_gjk(&a, &b, None);
        assert_exact("box_box_gjk", g, oracle)?;
        if cat == 2 { prop_assert!(refined.abs() <= 1e-9, "touching: {refined:e}"); }
    }

    #[test]
    fn box_cube_sat_equals_general_sat(su in -1.0f64..1.0, r in raw::<16>(), flat in any::<bool>()) {
        let s = scale_of(su);
        let b = make_box(&r[0..10], s, flat);
        let side = r[10].abs() * s * 0.5;
        let c = add(b.center, v3(&r[11..14], 2.0 * s));
        let cube = Obb { center: c, rot: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], half: [side; 3] };
        let general = box_box_sat(&cube, &b);
        let fast = box_cube_sat(&b, c, side);
        prop_assert!((general - fast).abs() <= 1e-15 * (1.0 + s), "{general:e} vs {fast:e}");
        let oracle = oracle_box_box(&cube, &b);
        assert_lower("box_cube_sat", fast, oracle)?;
    }
}

// ---------------------------------------------------------------------------------------
// Hulls.

/// A point cloud (link frame) of one of several kinds; `n` from the raw numbers.
fn make_cloud(kind: u8, n: usize, r: &[f64], s: f64) -> Vec<V3> {
    let mut pts = Vec::with_capacity(n);
    let get = |i: usize| r[i % r.len()];
    match kind {
        // General cloud in a box.
        0 => {
            for i in 0..n {
                pts.push([
                    get(3 * i) * s,
                    get(3 * i + 1) * s * 0.6,
                    get(3 * i + 2) * s * 0.3,
                ]);
            }
        }
        // On a sphere: every point extreme.
        1 => {
            for i in 0..n {
                let u = (i as f64 + 0.5) / n as f64;
                let z = 1.0 - 2.0 * u;
                let rr = (1.0 - z * z).max(0.0).sqrt();
                let phi = i as f64 * 2.399_963_229_728_653 + get(0);
                pts.push([
                    rr * phi.cos() * s,
                    rr * phi.sin() * s,
                    z * s * (0.5 + 0.5 * get(1).abs()),
                ]);
            }
        }
        // Grid on a cuboid surface: many coplanar faces and collinear points.
        2 => {
            let h = [
                s * (0.2 + get(0).abs()),
                s * (0.2 + get(1).abs()),
                s * (0.2 + get(2).abs()),
            ];
            for i in 0..n {
                let f = i % 6;
                let u = ((i / 6) % 3) as f64 - 1.0;
                let v = ((i / 18) % 3) as f64 - 1.0;
                let mut p = [u * h[0], v * h[1], u * h[2]];
                p[f / 2] = if f % 2 == 0 { h[f / 2] } else { -h[f / 2] };
                pts.push(p);
            }
        }
        // Planar: all in one plane (a flat hull).
        3 => {
            for i in 0..n {
                pts.push([get(2 * i) * s, get(2 * i + 1) * s, 0.0]);
            }
        }
        // Duplicates and a single point.
        _ => {
            let p = [get(0) * s, get(1) * s, get(2) * s];
            for i in 0..n {
                if i % 2 == 0 {
                    pts.push(p);
                } else {
                    pts.push([get(i) * s, p[1], p[2]]);
                }
            }
        }
    }
    pts
}

struct Tight {
    hull: Hull,
    dop: Dop26,
    obb_link: Obb,
    world_pts: Vec<V3>,
    pose_rot: Mat3,
    pose_pos: V3,
}

impl Tight {
    fn new(pts: Vec<V3>, box_rot: Mat3, pose_rot: Mat3, pose_pos: V3) -> Tight {
        // Box frame: box_rot; centre at the middle of the points' extent in that frame.
        let (mid, rel, half) = kernel_models::box_in_frame(&pts, &box_rot);
        let dop = Dop26::new(dop_of_points(&rel));
        let obb_link = Obb {
            center: mul_mv(&box_rot, mid),
            rot: box_rot,
            half,
        };
        let world_pts = pts
            .iter()
            .map(|p| add(mul_mv(&pose_rot, *p), pose_pos))
            .collect();
        Tight {
            hull: Hull::from_points(&pts),
            dop,
            obb_link,
            world_pts,
            pose_rot,
            pose_pos,
        }
    }

    fn world_obb(&self) -> Obb {
        Obb {
            center: add(mul_mv(&self.pose_rot, self.obb_link.center), self.pose_pos),
            rot: mul_mm(&self.pose_rot, &self.obb_link.rot),
            half: self.obb_link.half,
        }
    }

    fn posed(&self) -> TightPosed<'_> {
        TightPosed {
            obb: self.world_obb(),
            dop: &self.dop,
            hull: self.hull.posed(self.pose_rot, self.pose_pos),
        }
    }
}

/// Two tight links from raw numbers; `cat` selects general / touching / overlap / far.
fn make_tight(r: &[f64], kind: u8, n: usize, s: f64, at: V3) -> Tight {
    let pts = make_cloud(kind, n, &r[12..], s);
    Tight::new(
        pts,
        rot_of([r[0], r[1], r[2], r[3]]),
        rot_of([r[4], r[5], r[6], r[7]]),
        at,
    )
}

fn hull_count(u: f64, big: bool) -> usize {
    if big {
        152
    } else {
        1 + ((u.abs() * 48.0) as usize)
    }
}

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn hull_hull_staged_and_gjk(
        cat in 0u8..5, ka in 0u8..5, kb in 0u8..5, su in -1.0f64..1.0,
        r in prop::collection::vec(-1.0f64..1.0, 200), big in prop::bool::weighted(0.05),
    ) {
        let s = scale_of(su);
        let na = hull_count(r[8], big);
        let nb = hull_count(r[9], false);
        let a = make_tight(&r[0..], if big { 1 } else { ka }, na, s, [0.0; 3]);
        let spread = match cat { 2 => 0.1, 3 => 4.0, _ => 1.5 };
        let mut at = v3(&r[10..13], spread * s);
        let mut b = make_tight(&r[60..], kb, nb, s * (0.3 + r[59].abs()), at);
        if cat == 1 {
            // Touching: move b so that its support point along −u coincides with a's support
            // point along u; the plane through it normal to u separates them.
            let u = v3(&r[13..16], 1.0);
            let dotu = |p: &V3| p[0] * u[0] + p[1] * u[1] + p[2] * u[2];
            let sa = *a.world_pts.iter().max_by(|p, q| dotu(p).total_cmp(&dotu(q))).unwrap();
            let sb = *b.world_pts.iter().min_by(|p, q| dotu(p).total_cmp(&dotu(q))).unwrap();
            at = add(at, sub(sa, sb));
            b = make_tight(&r[60..], kb, nb, s * (0.3 + r[59].abs()), at);
        }
        let (pa, pb) = (a.posed(), b.posed());
        let mut w = Witness::default();
        let g = hull_hull_gjk(&pa.hull, &pb.hull, sub(pb.obb.center, pa.obb.center), Some(&mut w));
        let parry = oracle_cloud_cloud(&a.world_pts, &b.world_pts);
        check_gjk("hull_gjk", &g, &a.world_pts, &b.world_pts, parry, 0.0)?;
        let u = upper_estimate(parry, g.upper);
        let s1 = tight_tight_stage1(&pa, &pb);
        assert_lower("hull_stage1", s1, u)?;
        let dop = dop_dop_lower_bound(&pa.obb, pa.dop, &pb.obb, pb.dop);
        assert_lower("hull_dop26", dop, u)?;
        let full = tight_tight(&pa, &pb, f64::INFINITY, None).value;
        assert_lower("hull_staged", full, u)?;
        // Apart, the staged value is GJK's; in overlap the expanding polytope can only raise
        // GJK's bound (`hull_hull_overlap_bounds` checks it against the signed distance).
        if g.converged && g.upper > 0.0 { prop_assert!(full == s1.max(g.lower)); }
        prop_assert!(full >= s1.max(g.lower));
        let thr = r[22].abs() * s;
        let cheap = tight_tight(&pa, &pb, thr, None).value;
        assert_lower("hull_staged_threshold", cheap, u)?;
        // Warm start after a small coherent motion of b.
        let dr = rot_of([1.0, r[16] * 0.01, r[17] * 0.01, r[18] * 0.01]);
        let b2 = Tight::new(
            (0..nb).map(|i| [b.hull.x[i], b.hull.y[i], b.hull.z[i]]).collect(),
            b.obb_link.rot,
            mul_mm(&dr, &b.pose_rot),
            add(b.pose_pos, v3(&r[19..22], 0.01 * s)),
        );
        let pb2 = b2.posed();
        let mut w2 = w;
        let gw = hull_hull_gjk(&pa.hull, &pb2.hull, sub(pb2.obb.center, pa.obb.center), Some(&mut w2));
        let parry2 = oracle_cloud_cloud(&a.world_pts, &b2.world_pts);
        check_gjk("hull_gjk_warm", &gw, &a.world_pts, &b2.world_pts, parry2, 0.0)?;
        let staged_warm = tight_tight(&pa, &pb2, f64::INFINITY, Some(&mut w)).value;
        assert_lower("hull_staged_warm", staged_warm, upper_estimate(parry2, gw.upper))?;
        if cat == 1 {
            prop_assert!(g.upper <= 1e-9 || parry <= 1e-9, "touching construction: {parry:e}");
            prop_assert!(full <= TOL_CLOSED, "touching: {full:e}");
        }
    }

    #[test]
    fn hull_capsule_staged_and_gjk(
        cat in 0u8..4, ka in 0u8..5, su in -1.0f64..1.0,
        r in prop::collection::vec(-1.0f64..1.0, 120),
    ) {
        let s = scale_of(su);
        let n = hull_count(r[8], r[9] > 0.95);
        let a = make_tight(&r[0..], ka, n, s, [0.0; 3]);
        let spread = if cat == 2 { 0.1 } else { 1.5 };
        let p0 = v3(&r[10..13], spread * s);
        let mut p1 = add(p0, v3(&r[13..16], s));
        let mut rad = r[16].abs() * 0.2 * s;
        if cat == 1 {
            // Degenerate: a ball (zero-length core) or zero radius.
            p1 = p0;
            if r[17] > 0.0 { rad = 0.0; }
        }
        let pa = a.posed();
        let gs = hull_segment_gjk(&pa.hull, p0, p1, None);
        let parry_core = oracle_cloud_segment(&a.world_pts, p0, p1);
        if cat == 3 {
            // Touching: radius equal to the core distance.
            rad = upper_estimate(parry_core, gs.upper);
        }
        let c = Capsule { a: p0, b: p1, radius: rad };
        check_gjk("hull_capsule_gjk", &gs, &a.world_pts, &[p0, p1], parry_core, 0.0)?;
        let u = (upper_estimate(parry_core, gs.upper) - rad).max(0.0);
        let g = hull_capsule(&pa.hull, &c, None);
        prop_assert!(gs.lower - rad == g);
        assert_lower("hull_capsule", g, u)?;
        let staged = tight_capsule(&pa, &c, f64::INFINITY, None).value;
        assert_lower("hull_capsule_staged", staged, u)?;
        let thr = r[18].abs() * s;
        let cheap = tight_capsule(&pa, &c, thr, None).value;
        assert_lower("hull_capsule_threshold", cheap, u)?;
        // Touching when the core is apart (a core that meets the hull gives `rad = 0`: the
        // segment itself, whose signed distance is minus its depth).
        if cat == 3 && gs.converged && rad > 0.0 { prop_assert!(staged.abs() <= TOL_GJK, "touching: {staged:e}"); }
    }

    #[test]
    fn hull_box_staged_and_gjk(
        cat in 0u8..4, ka in 0u8..5, su in -1.0f64..1.0,
        r in prop::collection::vec(-1.0f64..1.0, 120), flat in any::<bool>(),
    ) {
        let s = scale_of(su);
        let n = hull_count(r[8], r[9] > 0.95);
        let a = make_tight(&r[0..], ka, n, s, [0.0; 3]);
        let mut b = make_box(&r[20..30], s, flat && cat == 1);
        let spread = if cat == 2 { 0.1 } else { 1.5 };
        b.center = v3(&r[30..33], spread * s);
        if cat == 3 {
            // Parallel: the box shares the hull's box orientation.
            b.rot = a.world_obb().rot;
        }
        let pa = a.posed();
        let gb = collide::kernel::gjk::gjk_distance(
            &pa.hull, &b, sub(b.center, pa.obb.center), None, collide::kernel::gjk::MAX_ITER,
        );
        let corners: Vec<V3> = (0..8u32).map(|id| {
            use collide::kernel::shapes::SupportMap;
            b.vertex(id)
        }).collect();
        let parry = oracle_cloud_box(&a.world_pts, &b);
        check_gjk("hull_box_gjk", &gb, &a.world_pts, &corners, parry, 0.0)?;
        let u = upper_estimate(parry, gb.upper);
        let bd = box_dop(b.half);
        let staged = tight_box(&pa, &b, &bd, f64::INFINITY, None).value;
        assert_lower("hull_box_staged", staged, u)?;
        if gb.converged && u > 0.0 {
            prop_assert!(staged >= u - TOL_GJK);
        }
        let thr = r[34].abs() * s;
        let cheap = tight_box(&pa, &b, &bd, thr, None).value;
        assert_lower("hull_box_threshold", cheap, u)?;
    }
}

// ---------------------------------------------------------------------------------------
// Overlap (issue 22): every routine's value is at most the exact signed distance.
//
// Hand-made overlapping pairs (cores crossing, a core inside a box, deep and shallow
// overlaps, parallel, zero-length) against the exact signed distance of the same solids:
// minus the penetration depth, by parry's `contact` (GJK, then EPA). EPA's polytope lies
// inside `A − B`, so its depth is never above the true one: its value is never below the
// truth (up to rounding), and a lower bound must not exceed it. Each routine is also run
// with a warm witness left by the same query (a simplex that already holds the origin).

const OVERLAP_CASES: u32 = 20_000;
const OVERLAP_HULL_CASES: u32 = 5_000;
/// How far below the signed distance a routine documented exact in overlap may read
/// (rounding).
const TOL_SIGNED_EXACT: f64 = 1e-9;

fn overlap_cfg(cases: u32) -> ProptestConfig {
    let mut c = cfg();
    c.cases = c.cases.min(cases);
    c
}

/// The exact signed distance of two convex solids, bracketed: `upper` is parry's `contact`
/// value (GJK, then EPA in overlap: never below the truth, see above), `lower` the one-sided
/// gap along parry's contact normal, recomputed here from the solids' own supports (the gap
/// along any unit direction is at most the signed distance). parry's EPA can stop short of
/// the depth (by 3 % on one pair of boxes), so `upper` alone would not show that a routine
/// is exact; `lower` does. `None` when EPA gives up (a flat difference).
#[derive(Debug, Clone, Copy)]
struct Signed {
    upper: f64,
    lower: f64,
}

fn signed<G1: SupportMap + ?Sized, G2: SupportMap + ?Sized>(
    p1: &Pose,
    g1: &G1,
    p2: &Pose,
    g2: &G2,
) -> Option<Signed> {
    let c = query::details::contact_support_map_support_map(&p1.inv_mul(p2), g1, g2, 1e3)?;
    // normal1: shape 1's outward normal, in its frame; the gap is min_2 n·x − max_1 n·x.
    let n = p1.rotation * c.normal1;
    let max1 = g1.support_point(p1, n).dot(n);
    let min2 = g2.support_point(p2, -n).dot(n);
    Some(Signed {
        upper: c.dist,
        lower: min2 - max1,
    })
}

/// A capsule's signed distance from its core's.
fn minus(s: Signed, r: f64) -> Signed {
    Signed {
        upper: s.upper - r,
        lower: s.lower - r,
    }
}

fn assert_below_signed(name: &str, v: f64, sd: Signed) -> Result<(), TestCaseError> {
    prop_assert!(
        sd.lower <= sd.upper + TOL_CLOSED,
        "oracle: the gap along parry's normal {:e} exceeds parry's value {:e}",
        sd.lower,
        sd.upper
    );
    prop_assert!(
        v <= sd.upper + TOL_CLOSED,
        "{name}: {v:e} is above the exact signed distance {:e}",
        sd.upper
    );
    Ok(())
}

fn assert_signed_exact(name: &str, v: f64, sd: Signed) -> Result<(), TestCaseError> {
    assert_below_signed(name, v, sd)?;
    prop_assert!(
        v >= sd.lower - TOL_SIGNED_EXACT,
        "{name}: {v:e} is below the signed distance, which is at least {:e} (parry: {:e})",
        sd.lower,
        sd.upper
    );
    Ok(())
}

fn lerp(a: V3, b: V3, t: f64) -> V3 {
    add(a, [(b[0] - a[0]) * t, (b[1] - a[1]) * t, (b[2] - a[2]) * t])
}

/// A box whose half extents are all at least 5 % of the scale (so that its difference with
/// a segment is never flat).
fn solid_box(r: &[f64], s: f64) -> Obb {
    Obb {
        center: v3(&r[0..3], s),
        rot: rot_of([r[3], r[4], r[5], r[6]]),
        half: [
            (0.05 + r[7].abs()) * s,
            (0.05 + r[8].abs()) * s,
            (0.05 + r[9].abs()) * s,
        ],
    }
}

fn segment_shape(a: V3, b: V3) -> Segment {
    Segment::new(pv(a), pv(b))
}

proptest! {
    #![proptest_config(overlap_cfg(OVERLAP_CASES))]

    /// Two capsules' signed distance is their cores' distance minus the radii: the cores'
    /// difference is flat, so crossing cores have signed distance 0, not a depth.
    #[test]
    fn capsule_capsule_overlap_is_the_signed_distance(
        cat in 0u8..4, su in -1.0f64..1.0, r in raw::<18>(),
    ) {
        let s = scale_of(su);
        let a0 = v3(&r[0..3], s);
        let a1 = if cat == 3 { a0 } else { add(a0, v3(&r[3..6], s)) };
        let pa = lerp(a0, a1, (r[6] + 1.0) * 0.5);
        let u = v3(&r[7..10], s);
        let (b0, b1) = match cat {
            // Cores crossing at `pa`.
            0 => (lerp(pa, sub(pa, u), (r[10] + 1.0) * 0.5), lerp(pa, add(pa, u), (r[11] + 1.0) * 0.5)),
            // Parallel, offset.
            2 => {
                let b0 = add(pa, v3(&r[12..15], 0.2 * s));
                (b0, lerp(b0, add(b0, sub(a1, a0)), r[10] * 2.0))
            }
            // Cores apart by up to a fifth of the scale (a sphere when `cat == 3`).
            _ => {
                let b0 = add(pa, v3(&r[12..15], 0.2 * s));
                (b0, if r[15] > 0.0 { b0 } else { add(b0, u) })
            }
        };
        let dseg = oracle_seg_seg(a0, a1, b0, b1).min(enum_seg_seg(a0, a1, b0, b1));
        let rsum = dseg + s * (0.001 + r[16].abs() * 0.3);
        let ra = rsum * (r[17] + 1.0) * 0.5;
        let rb = rsum - ra;
        let exact = dseg - ra - rb;
        let got = capsule_capsule(a0, a1, ra, b0, b1, rb);
        let sd = Signed { upper: exact, lower: exact };
        assert_signed_exact("capsule_capsule overlap", got, sd)?;
    }

    /// A capsule against a box with its core through, inside or outside the box.
    #[test]
    fn box_capsule_overlap_is_the_signed_distance(
        cat in 0u8..4, su in -1.0f64..1.0, r in raw::<20>(),
    ) {
        let s = scale_of(su);
        let b = solid_box(&r, s);
        let inside = |k: usize| {
            add(b.center, mul_mv(&b.rot, [r[k] * b.half[0], r[k + 1] * b.half[1], r[k + 2] * b.half[2]]))
        };
        let a = inside(10);
        let rad = r[16].abs() * 0.2 * s;
        let (a, c, rad) = match cat {
            // From inside the box out through its side.
            0 => (a, add(a, v3(&r[13..16], 3.0 * s)), rad),
            // Wholly inside.
            1 => (a, inside(13), rad),
            // A ball inside.
            2 => (a, a, rad),
            // The core (mostly) outside; the radius reaches into the box.
            _ => {
                let a = add(b.center, v3(&r[10..13], 3.0 * s));
                let c = add(a, v3(&r[13..16], s));
                (a, c, oracle_box_segment(&b, a, c) + s * (0.001 + r[17].abs() * 0.2))
            }
        };
        let sd = signed(&Pose::IDENTITY, &segment_shape(a, c), &ppose(b.center, &b.rot), &Cuboid::new(pv(b.half)));
        prop_assume!(sd.is_some());
        let sd = minus(sd.unwrap(), rad);
        let got = box_capsule(&b, a, c, rad);
        assert_signed_exact("box_capsule overlap", got, sd)?;
        let (got_dir, _) = collide::kernel::distance_box_capsule::box_capsule_dir(&b, a, c, rad);
        prop_assert!(got_dir == got);
    }

    /// Overlapping boxes: the SAT is the exact signed distance; GJK, cold or warm, bounds it.
    #[test]
    fn box_box_overlap_bounds(cat in 0u8..3, su in -1.0f64..1.0, r in raw::<24>()) {
        let s = scale_of(su);
        let a = solid_box(&r[0..10], s);
        let mut b = solid_box(&r[10..20], s);
        let spread = if cat == 2 { 0.02 } else { 0.3 };
        b.center = add(a.center, v3(&r[20..23], spread * s));
        if cat == 1 {
            b.rot = a.rot;
        }
        let pa = ppose(a.center, &a.rot);
        let pb = ppose(b.center, &b.rot);
        let sd = signed(&pa, &Cuboid::new(pv(a.half)), &pb, &Cuboid::new(pv(b.half)));
        prop_assume!(sd.is_some());
        let exact = sd.unwrap();
        let thr = r[23].abs() * s;
        let mut w = Witness::default();
        let cold = box_box_refined(&a, &b, f64::INFINITY, Some(&mut w));
        let warm = box_box_refined(&a, &b, f64::INFINITY, Some(&mut w));
        let mut w = Witness::default();
        let gjk_cold = box_box_gjk(&a, &b, Some(&mut w));
        let gjk_warm = box_box_gjk(&a, &b, Some(&mut w));
        assert_below_signed("box_box_gjk overlap", gjk_cold, exact)?;
        assert_below_signed("box_box_gjk overlap (warm)", gjk_warm, exact)?;
        if exact.upper < 0.0 {
            assert_signed_exact("box_box_sat overlap", box_box_sat(&a, &b), exact)?;
            assert_signed_exact("box_box_refined overlap", box_box_refined(&a, &b, f64::INFINITY, None), exact)?;
            assert_signed_exact("box_box_refined overlap (threshold)", box_box_refined(&a, &b, thr, None), exact)?;
            assert_signed_exact("box_box_refined overlap (cold witness)", cold, exact)?;
            assert_signed_exact("box_box_refined overlap (warm)", warm, exact)?;
        } else {
            assert_below_signed("box_box_refined near overlap", cold, exact)?;
            assert_below_signed("box_box_refined near overlap (warm)", warm, exact)?;
        }
    }
}

/// Point count of an overlap test's hull: 4 to 48, or 152.
fn overlap_hull_count(u: f64, big: bool) -> usize {
    if big {
        152
    } else {
        4 + ((u.abs() * 44.0) as usize)
    }
}

fn cloud(points: &[V3]) -> Cloud {
    Cloud(points.iter().map(|p| pv(*p)).collect())
}

proptest! {
    #![proptest_config(overlap_cfg(OVERLAP_HULL_CASES))]

    #[test]
    fn hull_hull_overlap_bounds(
        cat in 0u8..3, ka in 0u8..4, kb in 0u8..4, su in -1.0f64..1.0,
        r in prop::collection::vec(-1.0f64..1.0, 200), big in prop::bool::weighted(0.05),
    ) {
        let s = scale_of(su);
        let a = make_tight(&r[0..], if big { 1 } else { ka }, overlap_hull_count(r[8], big), s, [0.0; 3]);
        let spread = match cat { 0 => 0.3, 1 => 0.03, _ => 0.6 };
        let b = make_tight(&r[60..], kb, overlap_hull_count(r[9], false), s * (0.3 + r[59].abs()), v3(&r[10..13], spread * s));
        let sd = signed(&Pose::IDENTITY, &cloud(&a.world_pts), &Pose::IDENTITY, &cloud(&b.world_pts));
        prop_assume!(sd.is_some());
        let exact = sd.unwrap();
        let (pa, pb) = (a.posed(), b.posed());
        let seed = sub(pb.obb.center, pa.obb.center);
        let thr = r[22].abs() * s;
        assert_below_signed("hull_stage1 overlap", tight_tight_stage1(&pa, &pb), exact)?;
        assert_below_signed("hull_gjk overlap", hull_hull_gjk(&pa.hull, &pb.hull, seed, None).lower, exact)?;
        let staged = tight_tight(&pa, &pb, f64::INFINITY, None).value;
        assert_below_signed("hull_staged overlap", staged, exact)?;
        assert_below_signed("hull_staged overlap (threshold)", tight_tight(&pa, &pb, thr, None).value, exact)?;
        let mut w = Witness::default();
        let cold = tight_tight(&pa, &pb, f64::INFINITY, Some(&mut w)).value;
        let warm = tight_tight(&pa, &pb, f64::INFINITY, Some(&mut w)).value;
        assert_below_signed("hull_staged overlap (cold witness)", cold, exact)?;
        assert_below_signed("hull_staged overlap (warm)", warm, exact)?;
        let mut w = Witness::default();
        hull_hull_gjk(&pa.hull, &pb.hull, seed, Some(&mut w));
        let gw = hull_hull_gjk(&pa.hull, &pb.hull, seed, Some(&mut w));
        assert_below_signed("hull_gjk overlap (warm)", gw.lower, exact)?;
        // With the expanding polytope: exact on convergence.
        let gd = hull_hull_gjk_depth(&pa.hull, &pb.hull, seed, None, DepthLimits::NONE);
        if gd.converged {
            assert_signed_exact("hull_gjk_depth overlap", gd.lower, exact)?;
            prop_assert!(staged >= gd.lower - TOL_SIGNED_EXACT, "staged {staged:e} vs {:e}", gd.lower);
        } else {
            assert_below_signed("hull_gjk_depth overlap (not converged)", gd.lower, exact)?;
        }
    }

    #[test]
    fn hull_capsule_overlap_bounds(
        cat in 0u8..3, ka in 0u8..4, su in -1.0f64..1.0,
        r in prop::collection::vec(-1.0f64..1.0, 120), big in prop::bool::weighted(0.05),
    ) {
        let s = scale_of(su);
        let a = make_tight(&r[0..], if big { 1 } else { ka }, overlap_hull_count(r[8], big), s, [0.0; 3]);
        let p0 = v3(&r[10..13], if cat == 1 { 0.05 } else { 0.3 } * s);
        let p1 = match cat {
            1 => add(p0, v3(&r[13..16], 0.1 * s)),
            2 => p0,
            _ => add(p0, v3(&r[13..16], s)),
        };
        let rad = r[16].abs() * 0.2 * s;
        let sd = signed(&Pose::IDENTITY, &cloud(&a.world_pts), &Pose::IDENTITY, &segment_shape(p0, p1));
        prop_assume!(sd.is_some());
        let exact = minus(sd.unwrap(), rad);
        let c = Capsule { a: p0, b: p1, radius: rad };
        let pa = a.posed();
        let thr = r[18].abs() * s;
        assert_below_signed("hull_capsule overlap", hull_capsule(&pa.hull, &c, None), exact)?;
        assert_below_signed("hull_capsule_staged overlap", tight_capsule(&pa, &c, f64::INFINITY, None).value, exact)?;
        assert_below_signed("hull_capsule_staged overlap (threshold)", tight_capsule(&pa, &c, thr, None).value, exact)?;
        let mut w = Witness::default();
        let cold = tight_capsule(&pa, &c, f64::INFINITY, Some(&mut w)).value;
        let warm = tight_capsule(&pa, &c, f64::INFINITY, Some(&mut w)).value;
        assert_below_signed("hull_capsule_staged overlap (cold witness)", cold, exact)?;
        assert_below_signed("hull_capsule_staged overlap (warm)", warm, exact)?;
        let mut w = Witness::default();
        hull_capsule(&pa.hull, &c, Some(&mut w));
        assert_below_signed("hull_capsule overlap (warm)", hull_capsule(&pa.hull, &c, Some(&mut w)), exact)?;
        let seg = collide::kernel::shapes::Segment { a: p0, b: p1 };
        let gd = gjk_in_hull_frame_depth(&pa.hull, &pa.hull.segment_to_local(&seg), sub(p0, pa.obb.center), None, DepthLimits::NONE);
        if gd.converged {
            assert_signed_exact("hull_capsule_depth overlap", gd.lower - rad, exact)?;
            let staged = tight_capsule(&pa, &c, f64::INFINITY, None).value;
            prop_assert!(staged >= gd.lower - rad - TOL_SIGNED_EXACT, "staged {staged:e} vs {:e}", gd.lower - rad);
        } else {
            assert_below_signed("hull_capsule_depth overlap (not converged)", gd.lower - rad, exact)?;
        }
    }

    #[test]
    fn hull_box_overlap_bounds(
        cat in 0u8..3, ka in 0u8..4, su in -1.0f64..1.0,
        r in prop::collection::vec(-1.0f64..1.0, 120), big in prop::bool::weighted(0.05),
    ) {
        let s = scale_of(su);
        let a = make_tight(&r[0..], if big { 1 } else { ka }, overlap_hull_count(r[8], big), s, [0.0; 3]);
        let mut b = solid_box(&r[20..30], s * 0.5);
        b.center = v3(&r[30..33], if cat == 1 { 0.03 } else { 0.3 } * s);
        if cat == 2 {
            b.rot = a.world_obb().rot;
        }
        let sd = signed(&Pose::IDENTITY, &cloud(&a.world_pts), &ppose(b.center, &b.rot), &Cuboid::new(pv(b.half)));
        prop_assume!(sd.is_some());
        let exact = sd.unwrap();
        let pa = a.posed();
        let bd = box_dop(b.half);
        let thr = r[34].abs() * s;
        assert_below_signed("hull_box_staged overlap", tight_box(&pa, &b, &bd, f64::INFINITY, None).value, exact)?;
        assert_below_signed("hull_box_staged overlap (threshold)", tight_box(&pa, &b, &bd, thr, None).value, exact)?;
        let mut w = Witness::default();
        let cold = tight_box(&pa, &b, &bd, f64::INFINITY, Some(&mut w)).value;
        let warm = tight_box(&pa, &b, &bd, f64::INFINITY, Some(&mut w)).value;
        assert_below_signed("hull_box_staged overlap (cold witness)", cold, exact)?;
        assert_below_signed("hull_box_staged overlap (warm)", warm, exact)?;
        let gd = gjk_in_hull_frame_depth(&pa.hull, &pa.hull.box_to_local(&b), sub(b.center, pa.obb.center), None, DepthLimits::NONE);
        if gd.converged {
            assert_signed_exact("hull_box_depth overlap", gd.lower, exact)?;
            let staged = tight_box(&pa, &b, &bd, f64::INFINITY, None).value;
            prop_assert!(staged >= gd.lower - TOL_SIGNED_EXACT, "staged {staged:e} vs {:e}", gd.lower);
        } else {
            assert_below_signed("hull_box_depth overlap (not converged)", gd.lower, exact)?;
        }
    }
}
