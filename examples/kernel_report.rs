//! How close each kernel distance routine comes to parry3d-f64 on seeded random pairs, apart
//! and in overlap: the figures docs/kernel.md quotes. `tests/kernel_oracle.rs` asserts the
//! bounds; this only measures and prints (it replaces the `zz_*_report` tests, which printed
//! what the property tests had recorded and so depended on the order tests ran in).
//!
//! `cargo run --release --example kernel_report [-- PAIRS]` (default 20,000 pairs per
//! routine and case; seeded, so the same pairs on every run).
//!
//! Apart, the oracle is the distance (parry's closed form for segments, checked against an
//! enumeration of the parameter square; the smaller of parry's GJK from seven starts and the
//! kernel's own `|v|` for solids, both distances between actual points, so never below the
//! truth) and the figure is the largest `|kernel − oracle|` where the routine claims
//! exactness. In overlap the oracle is the signed distance (minus the penetration depth),
//! bracketed: parry's `contact` (EPA, never below the truth) from above, the one-sided gap
//! along parry's contact normal (never above the truth) from below. The figures are the
//! largest amount a value exceeds the bracket's top (a lower bound must not: rounding only)
//! and the largest amount it falls short of the bracket's bottom (how tight it is).

#[path = "../tests/common/kernel_models.rs"]
mod kernel_models;
#[path = "../tests/common/parry_bridge.rs"]
mod parry_bridge;

use collide::kernel::distance_box_box::{box_box_refined, box_box_sat};
use collide::kernel::distance_box_capsule::box_capsule;
use collide::kernel::distance_capsule_capsule::capsule_capsule;
use collide::kernel::distance_hull_box::{box_dop, tight_box};
use collide::kernel::distance_hull_capsule::tight_capsule;
use collide::kernel::distance_hull_hull::{TightPosed, hull_hull_gjk_depth, tight_tight};
use collide::kernel::dop26::{Dop26, dop_of_points};
use collide::kernel::gjk::{DepthLimits, gjk_in_hull_frame_depth};
use collide::kernel::shapes::{Capsule, Hull, Obb, Segment as KSegment};
use collide::kernel::vec3::{Mat3, V3, add, mul_mm, mul_mv, rot_axis_angle, sub};
use kernel_models::{Rng, box_in_frame};
use parry_bridge::{Cloud, enum_seg_seg, gjk_multi, ppose, pv};
use parry3d_f64::math::Pose;
use parry3d_f64::query;
use parry3d_f64::query::PointQuery;
use parry3d_f64::shape::{Cuboid, Segment, SupportMap};

/// Largest deviations of one routine and case, and how many pairs it saw.
#[derive(Default)]
struct Stat {
    pairs: usize,
    /// Apart: largest |kernel − oracle|. Overlap: largest excess over the bracket's top.
    worst: f64,
    /// Overlap only: largest shortfall below the bracket's bottom.
    short: f64,
    /// Overlap only: pairs more than 1e-9 m below the bracket's bottom.
    loose: usize,
}

impl Stat {
    fn apart(&mut self, v: f64, oracle: f64) {
        self.pairs += 1;
        self.worst = self.worst.max((v - oracle).abs());
    }

    fn overlap(&mut self, v: f64, sd: Signed) {
        self.pairs += 1;
        self.worst = self.worst.max(v - sd.upper);
        let short = sd.lower - v;
        self.short = self.short.max(short);
        self.loose += usize::from(short > 1e-9);
    }

    fn print_apart(&self, name: &str) {
        println!(
            "{name:<44} apart    {:>6} pairs  max |kernel − oracle| {:.1e} m",
            self.pairs, self.worst
        );
    }

    fn print_overlap(&self, name: &str) {
        println!(
            "{name:<44} overlap  {:>6} pairs  max above the signed distance {:.1e} m, max below {:.1e} m ({} pairs below by > 1 nm)",
            self.pairs,
            self.worst.max(0.0),
            self.short.max(0.0),
            self.loose
        );
    }
}

/// The signed distance bracketed (see the module docs).
#[derive(Clone, Copy)]
struct Signed {
    upper: f64,
    lower: f64,
}

thread_local! {
    /// The brackets' widths (parry's EPA value above the gap along its own normal): count
    /// above 1 nm, largest, and queries.
    static BRACKET: std::cell::Cell<(usize, f64, usize)> = const { std::cell::Cell::new((0, 0.0, 0)) };
}

fn signed<G1: SupportMap + ?Sized, G2: SupportMap + ?Sized>(
    p1: &Pose,
    g1: &G1,
    p2: &Pose,
    g2: &G2,
) -> Option<Signed> {
    let c = query::details::contact_support_map_support_map(&p1.inv_mul(p2), g1, g2, 1e3)?;
    let n = p1.rotation * c.normal1;
    let max1 = g1.support_point(p1, n).dot(n);
    let min2 = g2.support_point(p2, -n).dot(n);
    let sd = Signed {
        upper: c.dist,
        lower: min2 - max1,
    };
    if sd.upper < 0.0 {
        BRACKET.with(|b| {
            let (k, w, q) = b.get();
            let width = sd.upper - sd.lower;
            b.set((k + usize::from(width > 1e-9), w.max(width), q + 1));
        });
    }
    Some(sd)
}

fn minus(s: Signed, r: f64) -> Signed {
    Signed {
        upper: s.upper - r,
        lower: s.lower - r,
    }
}

// ---------------------------------------------------------------------------------------
// Random geometry.

struct Gen(Rng);

impl Gen {
    fn u(&mut self) -> f64 {
        self.0.range(-1.0, 1.0)
    }

    fn v(&mut self, s: f64) -> V3 {
        [self.u() * s, self.u() * s, self.u() * s]
    }

    /// 1 mm .. 2 m, log-uniform.
    fn scale(&mut self) -> f64 {
        10f64.powf(self.0.range(-3.0, 2f64.log10()))
    }

    fn rot(&mut self) -> Mat3 {
        let axis = self.v(1.0);
        let n = (axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]).sqrt();
        if n < 1e-9 {
            return [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        }
        let angle = self.0.range(-std::f64::consts::PI, std::f64::consts::PI);
        rot_axis_angle([axis[0] / n, axis[1] / n, axis[2] / n], angle)
    }

    fn obb(&mut self, s: f64) -> Obb {
        Obb {
            center: self.v(s),
            rot: self.rot(),
            half: [
                (0.05 + self.u().abs()) * s,
                (0.05 + self.u().abs()) * s,
                (0.05 + self.u().abs()) * s,
            ],
        }
    }

    /// A point cloud: inside a box, or on an ellipsoid (every point extreme).
    fn cloud(&mut self, n: usize, s: f64) -> Vec<V3> {
        if self.u() > 0.0 {
            (0..n)
                .map(|_| [self.u() * s, self.u() * s * 0.6, self.u() * s * 0.3])
                .collect()
        } else {
            let r = [s, s * (0.3 + 0.7 * self.u().abs()), s * 0.5];
            let rot = self.rot();
            kernel_models::ellipsoid_points(n, [0.0; 3], r, &rot)
        }
    }
}

/// A tight link placed in the world, and its points there.
struct Tight {
    hull: Hull,
    dop: Dop26,
    obb: Obb,
    rot: Mat3,
    pos: V3,
    world: Vec<V3>,
}

impl Tight {
    fn new(pts: Vec<V3>, box_rot: Mat3, rot: Mat3, pos: V3) -> Tight {
        let (mid, rel, half) = box_in_frame(&pts, &box_rot);
        let obb = Obb {
            center: add(mul_mv(&rot, mul_mv(&box_rot, mid)), pos),
            rot: mul_mm(&rot, &box_rot),
            half,
        };
        let world = pts.iter().map(|p| add(mul_mv(&rot, *p), pos)).collect();
        Tight {
            hull: Hull::from_points(&pts),
            dop: Dop26::new(dop_of_points(&rel)),
            obb,
            rot,
            pos,
            world,
        }
    }

    fn posed(&self) -> TightPosed<'_> {
        TightPosed {
            obb: self.obb,
            dop: &self.dop,
            hull: self.hull.posed(self.rot, self.pos),
        }
    }

    fn cloud(&self) -> Cloud {
        Cloud(self.world.iter().map(|p| pv(*p)).collect())
    }
}

fn tight(g: &mut Gen, n: usize, s: f64, at: V3) -> Tight {
    let pts = g.cloud(n, s);
    let (box_rot, rot) = (g.rot(), g.rot());
    Tight::new(pts, box_rot, rot, at)
}

// ---------------------------------------------------------------------------------------
// Apart oracles (as in tests/kernel_oracle.rs).

thread_local! {
    /// parry's segment–segment distance above the enumeration by more than 1 nm: count and
    /// largest excess.
    static SEG_SEG: std::cell::Cell<(usize, f64)> = const { std::cell::Cell::new((0, 0.0)) };
}

fn seg_seg(a0: V3, a1: V3, b0: V3, b1: V3) -> f64 {
    let parry = query::details::distance_segment_segment(
        &Pose::IDENTITY,
        &Segment::new(pv(a0), pv(a1)),
        &Segment::new(pv(b0), pv(b1)),
    );
    let en = enum_seg_seg(a0, a1, b0, b1);
    if parry > en + 1e-9 {
        SEG_SEG.with(|c| {
            let (k, m) = c.get();
            c.set((k + 1, m.max(parry - en)));
        });
    }
    parry.min(en)
}

/// parry's GJK and a ternary search over its exact point projection (the point–box distance
/// is convex along the segment); the smaller.
fn box_segment(b: &Obb, a: V3, c: V3) -> f64 {
    let cub = Cuboid::new(pv(b.half));
    let pose = ppose(b.center, &b.rot);
    let gjk =
        query::details::distance_support_map_support_map(&pose, &Segment::new(pv(a), pv(c)), &cub);
    let f = |t: f64| {
        let p = [
            a[0] + (c[0] - a[0]) * t,
            a[1] + (c[1] - a[1]) * t,
            a[2] + (c[2] - a[2]) * t,
        ];
        cub.distance_to_point(&pose, pv(p), true)
    };
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..200 {
        let (m1, m2) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
        if f(m1) <= f(m2) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    let ts = f(0.5 * (lo + hi)).min(f(0.0)).min(f(1.0));
    if gjk > 0.0 { gjk.min(ts) } else { ts }
}

// ---------------------------------------------------------------------------------------

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000);
    let mut g = Gen(Rng(20_260_924));
    println!("{n} seeded pairs per routine and case (parry3d-f64 as the oracle)\n");

    // Capsule–capsule: the signed distance is the cores' distance minus the radii, apart or
    // overlapping (two segments' difference is flat), so one closed form is the oracle.
    let (mut apart, mut over) = (Stat::default(), Stat::default());
    for _ in 0..n {
        let s = g.scale();
        let (a0, b0) = (g.v(s), g.v(s));
        let (a1, b1) = (add(a0, g.v(s)), add(b0, g.v(s)));
        let d = seg_seg(a0, a1, b0, b1);
        let (ra, rb) = (g.u().abs() * 0.3 * s, g.u().abs() * 0.3 * s);
        if d - ra - rb > 0.0 {
            apart.apart(capsule_capsule(a0, a1, ra, b0, b1, rb), d - ra - rb);
        }
        // The same cores, overlapping by up to a third of the scale.
        let (ra, rb) = (d * 0.5 + g.u().abs() * 0.3 * s, d * 0.5);
        let exact = d - ra - rb;
        over.overlap(
            capsule_capsule(a0, a1, ra, b0, b1, rb),
            Signed {
                upper: exact,
                lower: exact,
            },
        );
    }
    apart.print_apart("capsule_capsule (exact)");
    over.print_overlap("capsule_capsule (exact)");

    // Box–capsule.
    let (mut apart, mut over) = (Stat::default(), Stat::default());
    for _ in 0..n {
        let s = g.scale();
        let b = g.obb(s);
        let a = add(b.center, g.v(2.0 * s));
        let c = add(a, g.v(2.0 * s));
        let r = g.u().abs() * 0.2 * s;
        let d = box_segment(&b, a, c);
        if d > 1e-9 {
            apart.apart(box_capsule(&b, a, c, r) + r, d);
        }
        // A core from inside the box out through it, or wholly inside.
        let inside = |g: &mut Gen| {
            let l = [g.u() * b.half[0], g.u() * b.half[1], g.u() * b.half[2]];
            add(b.center, mul_mv(&b.rot, l))
        };
        let a = inside(&mut g);
        let c = if g.u() > 0.0 {
            inside(&mut g)
        } else {
            add(a, g.v(3.0 * s))
        };
        let sd = signed(
            &Pose::IDENTITY,
            &Segment::new(pv(a), pv(c)),
            &ppose(b.center, &b.rot),
            &Cuboid::new(pv(b.half)),
        );
        if let Some(sd) = sd {
            over.overlap(box_capsule(&b, a, c, r), minus(sd, r));
        }
    }
    apart.print_apart("box_capsule (exact; core distance)");
    over.print_overlap("box_capsule (exact)");

    // Box–box.
    let (mut apart, mut over_sat, mut over_ref) =
        (Stat::default(), Stat::default(), Stat::default());
    for _ in 0..n {
        let s = g.scale();
        let a = g.obb(s);
        let mut b = g.obb(s);
        b.center = add(a.center, g.v(3.0 * s));
        let (pa, pb) = (ppose(a.center, &a.rot), ppose(b.center, &b.rot));
        let (ca, cb) = (Cuboid::new(pv(a.half)), Cuboid::new(pv(b.half)));
        let d = query::distance(&pa, &ca, &pb, &cb).unwrap().distance.min(
            query::details::distance_support_map_support_map(&pa.inv_mul(&pb), &ca, &cb),
        );
        if d > 0.0 {
            apart.apart(box_box_refined(&a, &b, f64::INFINITY, None), d);
        }
        b.center = add(a.center, g.v(0.3 * s));
        let pb = ppose(b.center, &b.rot);
        if let Some(sd) = signed(&pa, &ca, &pb, &cb).filter(|sd| sd.upper < 0.0) {
            over_sat.overlap(box_box_sat(&a, &b), sd);
            over_ref.overlap(box_box_refined(&a, &b, f64::INFINITY, None), sd);
        }
    }
    apart.print_apart("box_box_refined (exact)");
    over_sat.print_overlap("box_box_sat (exact in overlap)");
    over_ref.print_overlap("box_box_refined (exact)");

    // Hulls: staged routines (exact apart on GJK convergence, in overlap on the expanding
    // polytope's convergence) and the expanding polytope's full scans.
    let mut stats: [(Stat, Stat); 3] = Default::default();
    let (mut scans, mut queries, mut unconverged) = ([0u64; 3], [0u64; 3], [0u64; 3]);
    let hull_pairs = n / 4;
    for _ in 0..hull_pairs {
        let s = g.scale();
        let na = if g.u() > 0.9 {
            152
        } else {
            4 + (g.u().abs() * 44.0) as usize
        };
        let a = tight(&mut g, na, s, [0.0; 3]);
        let pa = a.posed();
        for overlap in [false, true] {
            let spread = if overlap { 0.3 } else { 2.0 };
            // Hull–hull.
            let nb = 4 + (g.u().abs() * 44.0) as usize;
            let sb = s * (0.3 + g.u().abs());
            let at = g.v(spread * s);
            let b = tight(&mut g, nb, sb, at);
            let pb = b.posed();
            let v = tight_tight(&pa, &pb, f64::INFINITY, None).value;
            let seed = sub(pb.obb.center, pa.obb.center);
            let gd = hull_hull_gjk_depth(&pa.hull, &pb.hull, seed, None, DepthLimits::NONE);
            if overlap {
                if let Some(sd) = signed(&Pose::IDENTITY, &a.cloud(), &Pose::IDENTITY, &b.cloud())
                    .filter(|sd| sd.upper < 0.0)
                {
                    stats[0].1.overlap(v, sd);
                    scans[0] += u64::from(gd.epa_iterations);
                    queries[0] += 1;
                    unconverged[0] += u64::from(!gd.converged);
                }
            } else if gd.converged && gd.upper > 0.0 {
                let o = gjk_multi(&Pose::IDENTITY, &a.cloud(), &b.cloud()).min(gd.upper);
                stats[0].0.apart(v, o);
            }
            // Hull–capsule.
            let p0 = g.v(spread * s);
            let p1 = add(p0, g.v(s));
            let r = g.u().abs() * 0.2 * s;
            let c = Capsule {
                a: p0,
                b: p1,
                radius: r,
            };
            let v = tight_capsule(&pa, &c, f64::INFINITY, None).value;
            let seg = KSegment { a: p0, b: p1 };
            let local = pa.hull.segment_to_local(&seg);
            let gd = gjk_in_hull_frame_depth(
                &pa.hull,
                &local,
                sub(p0, pa.obb.center),
                None,
                DepthLimits::NONE,
            );
            let pseg = Segment::new(pv(p0), pv(p1));
            if overlap {
                if let Some(sd) = signed(&Pose::IDENTITY, &a.cloud(), &Pose::IDENTITY, &pseg)
                    .filter(|sd| sd.upper < 0.0)
                {
                    stats[1].1.overlap(v, minus(sd, r));
                    scans[1] += u64::from(gd.epa_iterations);
                    queries[1] += 1;
                    unconverged[1] += u64::from(!gd.converged);
                }
            } else if gd.converged && gd.upper > 0.0 {
                let o = gjk_multi(&Pose::IDENTITY, &a.cloud(), &pseg).min(gd.upper);
                // Capsule values compared on the core (the radius is exact arithmetic).
                if o - r > 0.0 {
                    stats[1].0.apart(v + r, o);
                }
            }
            // Hull–box.
            let mut bx = g.obb(s * 0.5);
            bx.center = g.v(spread * s);
            let v = tight_box(&pa, &bx, &box_dop(bx.half), f64::INFINITY, None).value;
            let local = pa.hull.box_to_local(&bx);
            let gd = gjk_in_hull_frame_depth(
                &pa.hull,
                &local,
                sub(bx.center, pa.obb.center),
                None,
                DepthLimits::NONE,
            );
            let (pbx, cbx) = (ppose(bx.center, &bx.rot), Cuboid::new(pv(bx.half)));
            if overlap {
                if let Some(sd) =
                    signed(&Pose::IDENTITY, &a.cloud(), &pbx, &cbx).filter(|sd| sd.upper < 0.0)
                {
                    stats[2].1.overlap(v, sd);
                    scans[2] += u64::from(gd.epa_iterations);
                    queries[2] += 1;
                    unconverged[2] += u64::from(!gd.converged);
                }
            } else if gd.converged && gd.upper > 0.0 {
                let o = gjk_multi(&pbx, &a.cloud(), &cbx).min(gd.upper);
                stats[2].0.apart(v, o);
            }
        }
    }
    for (k, name) in ["tight_tight", "tight_capsule", "tight_box"]
        .iter()
        .enumerate()
    {
        stats[k]
            .0
            .print_apart(&format!("{name} (exact on GJK convergence)"));
        stats[k]
            .1
            .print_overlap(&format!("{name} (exact on EPA convergence)"));
        println!(
            "{:<44}          expanding polytope: {:.2} full scans per overlapping query, {} of {} not converged",
            "",
            scans[k] as f64 / queries[k].max(1) as f64,
            unconverged[k],
            queries[k]
        );
    }
    let (k, m) = SEG_SEG.with(|c| c.get());
    let (bk, bw, bq) = BRACKET.with(|b| b.get());
    println!(
        "\nparry: segment–segment above the enumeration by > 1 nm on {k} pairs (max {m:.1e} m); \
         EPA value above the gap along its own normal by > 1 nm on {bk} of {bq} overlapping pairs (max {bw:.1e} m)"
    );
}
