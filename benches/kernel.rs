//! Kernel speed against parry3d-f64 on the very same queries, in the same run.
//!
//! Run: `cargo bench --bench kernel -- --warm-up-time 1 --measurement-time 2`.
//!
//! Criterion measures every routine one query per iteration, cycling through a fixed set of
//! 1024 random queries (so branch prediction cannot memorise one query). After the criterion
//! groups, a summary table is printed with this process's own medians (15 samples of whole
//! passes over the query set) for the kernel and for parry, and their ratio (hull–hull GJK
//! cold and warm at 32, 152 and 320 vertices), then the `check_self_collision`
//! per-configuration median and p99 on the models, and the box–box SAT deficit against the
//! exact distance.

#[path = "../tests/common/kernel_models.rs"]
mod kernel_models;

use collide::kernel::Model;
use collide::kernel::distance_box_box::{box_box_refined, box_box_sat, box_cube_sat};
use collide::kernel::distance_box_capsule::box_capsule;
use collide::kernel::distance_capsule_capsule::capsule_capsule;
use collide::kernel::distance_hull_hull::{
    TightPosed, hull_hull_gjk, tight_tight, tight_tight_stage1,
};
use collide::kernel::dop26::{Dop26, dop_of_points};
use collide::kernel::gjk::{GjkResult, MAX_ITER, Witness, gjk_distance};
use collide::kernel::shapes::{Hull, Obb, Segment as KSegment};
use collide::kernel::vec3::{Mat3, V3, add, mul_mm, mul_mtv, mul_mv, rot_axis_angle, sub};
use criterion::Criterion;
use kernel_models::{Rng, ellipsoid_points, humanoid29, panda, panda_tight, random_q};
use parry3d_f64::math::{Matrix, Pose, Rotation, Vector};
use parry3d_f64::query;
use parry3d_f64::shape::{Capsule, ConvexPolyhedron, Cuboid};
use std::hint::black_box;
use std::time::{Duration, Instant};

const N: usize = 1024;

fn pv(v: V3) -> Vector {
    Vector::new(v[0], v[1], v[2])
}

fn ppose(c: V3, r: &Mat3) -> Pose {
    let m = Matrix::from_cols(
        Vector::new(r[0][0], r[1][0], r[2][0]),
        Vector::new(r[0][1], r[1][1], r[2][1]),
        Vector::new(r[0][2], r[1][2], r[2][2]),
    );
    Pose::from_parts(pv(c), Rotation::from_mat3(&m).normalize())
}

fn rand_rot(rng: &mut Rng) -> Mat3 {
    let axis = loop {
        let v = [
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
        ];
        let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        if n > 0.1 && n <= 1.0 {
            break [v[0] / n, v[1] / n, v[2] / n];
        }
    };
    rot_axis_angle(axis, rng.range(-3.1, 3.1))
}

fn rand_v(rng: &mut Rng, s: f64) -> V3 {
    [rng.range(-s, s), rng.range(-s, s), rng.range(-s, s)]
}

// ------------------------------------------------------------------------------------------
// Query sets (link-sized shapes, 2–30 cm, placed around one another, ~30% overlapping).

struct CapQ {
    a0: V3,
    a1: V3,
    ra: f64,
    b0: V3,
    b1: V3,
    rb: f64,
    pa: Capsule,
    pb: Capsule,
}

fn cap_queries(rng: &mut Rng) -> Vec<CapQ> {
    (0..N)
        .map(|_| {
            let a0 = rand_v(rng, 0.2);
            let a1 = add(a0, rand_v(rng, 0.2));
            let b0 = rand_v(rng, 0.2);
            let b1 = add(b0, rand_v(rng, 0.2));
            let (ra, rb) = (rng.range(0.02, 0.06), rng.range(0.02, 0.06));
            CapQ {
                a0,
                a1,
                ra,
                b0,
                b1,
                rb,
                pa: Capsule::new(pv(a0), pv(a1), ra),
                pb: Capsule::new(pv(b0), pv(b1), rb),
            }
        })
        .collect()
}

fn rand_box(rng: &mut Rng, spread: f64) -> Obb {
    Obb {
        center: rand_v(rng, spread),
        rot: rand_rot(rng),
        half: [
            rng.range(0.02, 0.15),
            rng.range(0.02, 0.15),
            rng.range(0.02, 0.15),
        ],
    }
}

struct BoxCapQ {
    b: Obb,
    c: CapQ,
    pose: Pose,
    cub: Cuboid,
}

fn box_cap_queries(rng: &mut Rng) -> Vec<BoxCapQ> {
    cap_queries(rng)
        .into_iter()
        .map(|c| {
            let b = rand_box(rng, 0.2);
            BoxCapQ {
                pose: ppose(b.center, &b.rot),
                cub: Cuboid::new(pv(b.half)),
                b,
                c,
            }
        })
        .collect()
}

struct BoxBoxQ {
    a: Obb,
    b: Obb,
    pa: Pose,
    pb: Pose,
    ca: Cuboid,
    cb: Cuboid,
}

fn box_box_queries(rng: &mut Rng, spread: f64) -> Vec<BoxBoxQ> {
    (0..N)
        .map(|_| {
            let a = rand_box(rng, spread);
            let b = rand_box(rng, spread);
            BoxBoxQ {
                pa: ppose(a.center, &a.rot),
                pb: ppose(b.center, &b.rot),
                ca: Cuboid::new(pv(a.half)),
                cb: Cuboid::new(pv(b.half)),
                a,
                b,
            }
        })
        .collect()
}

struct CubeQ {
    b: Obb,
    c: V3,
    s: f64,
    pb: Pose,
    cb: Cuboid,
    pc: Pose,
    cc: Cuboid,
}

fn cube_queries(rng: &mut Rng) -> Vec<CubeQ> {
    (0..N)
        .map(|_| {
            let b = rand_box(rng, 0.0);
            let s = 0.0125;
            let c = rand_v(rng, 0.3);
            CubeQ {
                pb: ppose(b.center, &b.rot),
                cb: Cuboid::new(pv(b.half)),
                pc: Pose::from_parts(pv(c), Rotation::IDENTITY),
                cc: Cuboid::new(Vector::new(s, s, s)),
                b,
                c,
                s,
            }
        })
        .collect()
}

/// A hull of `n` ellipsoid points (every point a vertex) with its box and DOP.
struct HullShape {
    hull: Hull,
    dop: Dop26,
    obb_local: Obb,
    poly: ConvexPolyhedron,
}

fn hull_shape(n: usize, r: V3, rot: Mat3) -> HullShape {
    let pts = ellipsoid_points(n, [0.0; 3], r, &rot);
    let inbox: Vec<V3> = pts.iter().map(|p| mul_mtv(&rot, *p)).collect();
    let mut half = [0.0f64; 3];
    for p in &inbox {
        for i in 0..3 {
            half[i] = half[i].max(p[i].abs());
        }
    }
    let poly = ConvexPolyhedron::from_convex_hull(&pts.iter().map(|p| pv(*p)).collect::<Vec<_>>())
        .expect("hull");
    assert_eq!(
        poly.points().len(),
        n,
        "every ellipsoid point is a hull vertex"
    );
    HullShape {
        hull: Hull::from_points(&pts),
        dop: Dop26::new(dop_of_points(&inbox)),
        obb_local: Obb {
            center: [0.0; 3],
            rot,
            half,
        },
        poly,
    }
}

#[derive(Clone, Copy)]
struct Placed {
    rot: Mat3,
    pos: V3,
}

impl Placed {
    fn obb(&self, h: &HullShape) -> Obb {
        Obb {
            center: add(mul_mv(&self.rot, h.obb_local.center), self.pos),
            rot: mul_mm(&self.rot, &h.obb_local.rot),
            half: h.obb_local.half,
        }
    }
    fn pose(&self) -> Pose {
        ppose(self.pos, &self.rot)
    }
    /// Hull `h` placed here, as the kernel's tight-pair routines take it.
    fn tight<'h>(&self, h: &'h HullShape) -> TightPosed<'h> {
        TightPosed {
            obb: self.obb(h),
            dop: &h.dop,
            hull: h.hull.posed(self.rot, self.pos),
        }
    }
}

/// Hull pairs near contact: B at a random direction from A, at a centre distance that puts
/// the gap between about −1 cm and +3 cm. Returns (A placement, B placements). With
/// `coherent`, consecutive B placements differ by a small step (≈2 mm, 3 mrad) along a closed
/// loop, as a controller's successive configurations do.
fn hull_poses(
    rng: &mut Rng,
    a: &HullShape,
    b: &HullShape,
    coherent: bool,
) -> Vec<(Placed, Placed)> {
    let pa = Placed {
        rot: collide::kernel::vec3::IDENTITY,
        pos: [0.0; 3],
    };
    let reach = |h: &HullShape, d: V3| {
        let mut m: f64 = 0.0;
        for i in 0..h.hull.x.len() {
            m = m.max(h.hull.x[i] * d[0] + h.hull.y[i] * d[1] + h.hull.z[i] * d[2]);
        }
        m
    };
    let mut out = Vec::with_capacity(N);
    let base_dir = {
        let v = rand_v(rng, 1.0);
        let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        [v[0] / n, v[1] / n, v[2] / n]
    };
    let base_rot = rand_rot(rng);
    for k in 0..N {
        let (dir, rot, gap) = if coherent {
            // A closed loop: angle θ runs once around; small wobble of direction and spin.
            let th = 2.0 * std::f64::consts::PI * k as f64 / N as f64;
            let d = add(
                base_dir,
                [0.3 * th.sin(), 0.3 * th.cos(), 0.2 * (2.0 * th).sin()],
            );
            let n = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
            let spin = rot_axis_angle([0.0, 0.0, 1.0], 0.5 * th.sin());
            (
                [d[0] / n, d[1] / n, d[2] / n],
                mul_mm(&spin, &base_rot),
                0.01 + 0.02 * (3.0 * th).sin(),
            )
        } else {
            let v = rand_v(rng, 1.0);
            let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt().max(1e-3);
            (
                [v[0] / n, v[1] / n, v[2] / n],
                rand_rot(rng),
                rng.range(-0.01, 0.03),
            )
        };
        // Distance between centres so that the supports along dir are `gap` apart.
        let rb = reach(b, mul_mtv(&rot, [-dir[0], -dir[1], -dir[2]]));
        let dist = reach(a, dir) + rb + gap;
        out.push((
            pa,
            Placed {
                rot,
                pos: [dir[0] * dist, dir[1] * dist, dir[2] * dist],
            },
        ));
    }
    out
}

/// Hull–hull GJK at one size: two ellipsoid hulls of `n` vertices each (the same radii at
/// every size), their near-contact placements (cold) and coherent loop (warm), and for
/// parry's warm start the separating direction of each warm query's predecessor.
struct HullPair {
    n: usize,
    a: HullShape,
    b: HullShape,
    cold: Vec<(Placed, Placed)>,
    warm: Vec<(Placed, Placed)>,
    prev_dir: Vec<Vector>,
}

impl HullPair {
    fn new(n: usize, rng: &mut Rng) -> HullPair {
        let a = hull_shape(n, [0.06, 0.05, 0.12], rand_rot(rng));
        let b = hull_shape(n, [0.05, 0.07, 0.10], rand_rot(rng));
        let cold = hull_poses(rng, &a, &b, false);
        let warm = hull_poses(rng, &a, &b, true);
        let mut pair = HullPair {
            n,
            a,
            b,
            cold,
            warm,
            prev_dir: Vec::new(),
        };
        pair.prev_dir = (0..N)
            .map(|k| pv(pair.gjk(pair.warm[(k + N - 1) % N], None).normal))
            .collect();
        pair
    }

    /// The kernel's GJK on the two hulls at one placement.
    fn gjk(&self, (pa, pb): (Placed, Placed), warm: Option<&mut Witness>) -> GjkResult {
        let (a, b) = (
            self.a.hull.posed(pa.rot, pa.pos),
            self.b.hull.posed(pb.rot, pb.pos),
        );
        hull_hull_gjk(&a, &b, sub(pb.pos, pa.pos), warm)
    }

    fn kernel_cold(&self, k: usize) -> f64 {
        self.gjk(self.cold[k], None).lower
    }

    fn parry_cold(&self, k: usize) -> f64 {
        let (pa, pb) = self.cold[k];
        query::distance(&pa.pose(), &self.a.poly, &pb.pose(), &self.b.poly)
            .unwrap()
            .distance
    }

    /// Step `k` of the coherent loop, the witness carried from the previous step.
    fn kernel_warm(&self, k: usize, w: &mut Witness) -> f64 {
        self.gjk(self.warm[k % N], Some(w)).lower
    }

    fn parry_warm(&self, k: usize) -> f64 {
        let (pa, pb) = self.warm[k % N];
        let mut simplex = query::gjk::VoronoiSimplex::new();
        // parry's warm start: seed with the previous query's separating direction.
        query::details::distance_support_map_support_map_with_params(
            &pa.pose().inv_mul(&pb.pose()),
            &self.a.poly,
            &self.b.poly,
            &mut simplex,
            Some(-self.prev_dir[k % N]),
        )
    }

    /// Support queries (full scans) per call: cold, the points proposed before them (cold),
    /// and warm (twice round the loop).
    fn support_queries(&self) -> (f64, f64, f64) {
        let (mut it, mut proposed) = (0u32, 0u32);
        for q in &self.cold {
            let g = self.gjk(*q, None);
            it += g.iterations;
            proposed += g.proposals;
        }
        let mut w = Witness::default();
        let warm: u32 = (0..2 * N)
            .map(|k| self.gjk(self.warm[k % N], Some(&mut w)).iterations)
            .sum();
        (
            it as f64 / N as f64,
            proposed as f64 / N as f64,
            warm as f64 / (2 * N) as f64,
        )
    }
}

// ------------------------------------------------------------------------------------------
// Own timing for the summary table.

fn ns_per_call<Q>(qs: &[Q], mut f: impl FnMut(&Q) -> f64) -> f64 {
    let mut sink = 0.0;
    for q in qs {
        sink += f(q);
    }
    let t = Instant::now();
    for q in qs {
        sink += f(black_box(q));
    }
    let pass = t.elapsed().as_secs_f64().max(1e-9);
    let reps = ((0.01 / pass) as usize).max(1);
    let mut samples = Vec::with_capacity(15);
    for _ in 0..15 {
        let t = Instant::now();
        for _ in 0..reps {
            for q in qs {
                sink += f(black_box(q));
            }
        }
        samples.push(t.elapsed().as_nanos() as f64 / (reps * qs.len()) as f64);
    }
    black_box(sink);
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// Like [`ns_per_call`] but in sequence with state carried between calls (warm start).
fn ns_per_call_seq(n: usize, mut f: impl FnMut(usize) -> f64) -> f64 {
    let mut sink = 0.0;
    for k in 0..n {
        sink += f(k);
    }
    let mut samples = Vec::with_capacity(15);
    for _ in 0..15 {
        let t = Instant::now();
        for _ in 0..4 {
            for k in 0..n {
                sink += f(k);
            }
        }
        samples.push(t.elapsed().as_nanos() as f64 / (4 * n) as f64);
    }
    black_box(sink);
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

struct Row {
    name: String,
    target: &'static str,
    kernel: f64,
    parry: Option<(f64, &'static str)>,
}

impl Row {
    fn new(name: impl Into<String>, target: &'static str, kernel: f64) -> Row {
        Row {
            name: name.into(),
            target,
            kernel,
            parry: None,
        }
    }

    /// The same query timed in parry, and what parry was asked.
    fn vs(self, parry: f64, what: &'static str) -> Row {
        Row {
            parry: Some((parry, what)),
            ..self
        }
    }
}

fn print_table(rows: &[Row]) {
    println!();
    println!(
        "| routine | kernel ns/call | target | parry3d-f64 ns/call (query) | kernel speed-up |"
    );
    println!("|---|---:|---:|---|---:|");
    for r in rows {
        match r.parry {
            Some((p, what)) => println!(
                "| {} | {:.1} | {} | {:.1} ({}) | {:.2}× |",
                r.name,
                r.kernel,
                r.target,
                p,
                what,
                p / r.kernel
            ),
            None => println!("| {} | {:.1} | {} | n/a | |", r.name, r.kernel, r.target),
        }
    }
}

fn check_percentiles(name: &str, m: &Model, warm: bool) -> (f64, f64, f64) {
    let mut rng = Rng(0xbe0c_4a11_0000_0001);
    let qs: Vec<Vec<f64>> = (0..20_000).map(|_| random_q(m, &mut rng)).collect();
    let mut ws = m.workspace();
    ws.set_warm_start(warm);
    let mut sink = 0.0;
    for q in qs.iter().take(2000) {
        sink += m.check_self_collision(q, &mut ws, false).min_distance;
    }
    let mut t = Vec::with_capacity(qs.len());
    let mut trips = 0usize;
    for q in &qs {
        let s = Instant::now();
        let r = m.check_self_collision(black_box(q), &mut ws, false);
        t.push(s.elapsed().as_nanos() as f64);
        trips += r.tripped as usize;
        sink += r.min_distance;
    }
    black_box(sink);
    t.sort_by(f64::total_cmp);
    let med = t[t.len() / 2];
    let p99 = t[t.len() * 99 / 100];
    let tripped = trips as f64 / qs.len() as f64;
    println!(
        "| {name} | {} | {} | {:.2} | {:.2} | {:.0} % |",
        m.n_links(),
        m.checked_pairs().len(),
        med / 1000.0,
        p99 / 1000.0,
        100.0 * tripped
    );
    (med, p99, tripped)
}

fn sat_deficit() {
    // Random disjoint pairs of link-sized boxes; exact distance by the refined routine (GJK,
    // validated against parry in tests/kernel_oracle.rs).
    let mut rng = Rng(0x0def_1c17);
    let mut all = Vec::new();
    let mut near = Vec::new();
    while all.len() < 100_000 {
        let a = rand_box(&mut rng, 0.25);
        let b = rand_box(&mut rng, 0.25);
        let exact = box_box_refined(&a, &b, f64::INFINITY, None);
        if exact <= 0.0 {
            continue;
        }
        let d = exact - box_box_sat(&a, &b);
        all.push(d);
        if exact <= 0.03 {
            near.push(d);
        }
    }
    let stats = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        let exact_share = v.iter().filter(|d| **d <= 1e-9).count() as f64 / v.len() as f64;
        (
            v.len(),
            mean,
            v[v.len() / 2],
            v[v.len() * 95 / 100],
            v[v.len() - 1],
            exact_share,
        )
    };
    println!();
    println!(
        "box–box SAT deficit (exact − SAT), random disjoint pairs of boxes with half extents 2–15 cm:"
    );
    println!("| set | pairs | mean mm | median mm | p95 mm | max mm | SAT exact (≤1 nm) |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (name, v) in [
        ("all disjoint", &mut all),
        ("near contact (exact ≤ 30 mm)", &mut near),
    ] {
        let (n, mean, med, p95, max, ex) = stats(v);
        println!(
            "| {name} | {n} | {:.3} | {:.3} | {:.3} | {:.3} | {:.1} % |",
            mean * 1e3,
            med * 1e3,
            p95 * 1e3,
            max * 1e3,
            ex * 100.0
        );
    }
}

fn main() {
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    let mut rng = Rng(0x6b65_726e_656c_0001);
    let caps = cap_queries(&mut rng);
    let boxcaps = box_cap_queries(&mut rng);
    let boxes = box_box_queries(&mut rng, 0.25);
    let cubes = cube_queries(&mut rng);
    // The 152-vertex pair draws from the main stream (the queries of the reference figures);
    // the other sizes from their own seeds, so adding a size changes no other query.
    let h152 = HullPair::new(152, &mut rng);
    let h32 = HullPair::new(32, &mut Rng(0x6b65_726e_656c_0020));
    let h320 = HullPair::new(320, &mut Rng(0x6b65_726e_656c_0140));
    // (size, target cold ns, target warm ns): the targets are for 152 vertices.
    let hull_sizes = [(&h32, "", ""), (&h152, "≤ 800", "≤ 300"), (&h320, "", "")];
    let (h152a, h152b, hull_cold) = (&h152.a, &h152.b, &h152.cold);
    let seg_q: Vec<(Placed, V3, V3, f64)> = hull_cold
        .iter()
        .map(|(_, pb)| {
            let a = add(pb.pos, rand_v(&mut rng, 0.05));
            let b = add(a, rand_v(&mut rng, 0.1));
            (*pb, a, b, 0.03)
        })
        .collect();

    // Closures per routine: kernel and parry, same query.
    let k_cap = |q: &CapQ| capsule_capsule(q.a0, q.a1, q.ra, q.b0, q.b1, q.rb);
    let p_cap = |q: &CapQ| {
        query::distance(&Pose::IDENTITY, &q.pa, &Pose::IDENTITY, &q.pb)
            .unwrap()
            .distance
    };
    let p_cap_seg = |q: &CapQ| {
        query::details::distance_segment_segment(&Pose::IDENTITY, &q.pa.segment, &q.pb.segment)
            - q.ra
            - q.rb
    };
    let k_boxcap = |q: &BoxCapQ| box_capsule(&q.b, q.c.a0, q.c.a1, q.c.ra);
    let p_boxcap = |q: &BoxCapQ| {
        query::distance(&q.pose, &q.cub, &Pose::IDENTITY, &q.c.pa)
            .unwrap()
            .distance
    };
    let k_sat = |q: &BoxBoxQ| box_box_sat(&q.a, &q.b);
    let p_sat = |q: &BoxBoxQ| {
        let pos12 = q.pa.inv_mul(&q.pb);
        let pos21 = pos12.inverse();
        let s1 =
            query::sat::cuboid_cuboid_find_local_separating_normal_oneway(&q.ca, &q.cb, &pos12);
        let s2 =
            query::sat::cuboid_cuboid_find_local_separating_normal_oneway(&q.cb, &q.ca, &pos21);
        let s3 = query::sat::cuboid_cuboid_find_local_separating_edge_twoway(&q.ca, &q.cb, &pos12);
        s1.0.max(s2.0).max(s3.0)
    };
    let k_bb_exact = |q: &BoxBoxQ| box_box_refined(&q.a, &q.b, f64::INFINITY, None);
    let p_bb = |q: &BoxBoxQ| {
        query::distance(&q.pa, &q.ca, &q.pb, &q.cb)
            .unwrap()
            .distance
    };
    let p_bb_gjk = |q: &BoxBoxQ| {
        query::details::distance_support_map_support_map(&q.pa.inv_mul(&q.pb), &q.ca, &q.cb)
    };
    let k_cube = |q: &CubeQ| box_cube_sat(&q.b, q.c, q.s);
    let p_cube = |q: &CubeQ| {
        let pos12 = q.pc.inv_mul(&q.pb);
        let pos21 = pos12.inverse();
        let s1 =
            query::sat::cuboid_cuboid_find_local_separating_normal_oneway(&q.cc, &q.cb, &pos12);
        let s2 =
            query::sat::cuboid_cuboid_find_local_separating_normal_oneway(&q.cb, &q.cc, &pos21);
        let s3 = query::sat::cuboid_cuboid_find_local_separating_edge_twoway(&q.cc, &q.cb, &pos12);
        s1.0.max(s2.0).max(s3.0)
    };
    let hull_cold_q: Vec<usize> = (0..N).collect();
    let k_stage1 = |&k: &usize| {
        let (pa, pb) = hull_cold[k];
        tight_tight_stage1(&pa.tight(h152a), &pb.tight(h152b))
    };
    let k_staged = |&k: &usize| {
        let (pa, pb) = hull_cold[k];
        tight_tight(&pa.tight(h152a), &pb.tight(h152b), f64::INFINITY, None).value
    };
    let k_hull_seg = |q: &(Placed, V3, V3, f64)| {
        let (pb, a, b, r) = *q;
        let h = h152b.hull.posed(pb.rot, pb.pos);
        gjk_distance(&h, &KSegment { a, b }, sub(a, pb.pos), None, MAX_ITER).lower - r
    };
    let p_hull_seg = |q: &(Placed, V3, V3, f64)| {
        let (pb, a, b, r) = *q;
        let cap = Capsule::new(pv(a), pv(b), r);
        query::distance(&pb.pose(), &h152b.poly, &Pose::IDENTITY, &cap)
            .unwrap()
            .distance
    };
    let box_for_hull: Vec<(Placed, Obb, Pose, Cuboid)> = hull_cold
        .iter()
        .map(|(_, pb)| {
            let o = Obb {
                center: add(pb.pos, rand_v(&mut rng, 0.05)),
                rot: rand_rot(&mut rng),
                half: [0.04, 0.05, 0.06],
            };
            (*pb, o, ppose(o.center, &o.rot), Cuboid::new(pv(o.half)))
        })
        .collect();
    let k_hull_box = |q: &(Placed, Obb, Pose, Cuboid)| {
        let h = h152b.hull.posed(q.0.rot, q.0.pos);
        gjk_distance(&h, &q.1, sub(q.1.center, q.0.pos), None, MAX_ITER).lower
    };
    let p_hull_box = |q: &(Placed, Obb, Pose, Cuboid)| {
        query::distance(&q.0.pose(), &h152b.poly, &q.2, &q.3)
            .unwrap()
            .distance
    };

    // ---- Criterion: one query per iteration, cycling through the set.
    macro_rules! bench {
        ($g:expr, $name:expr, $qs:expr, $f:expr) => {{
            let qs = &$qs;
            let f = &$f;
            let mut i = 0usize;
            $g.bench_function($name, |b| {
                b.iter(|| {
                    let q = &qs[i % qs.len()];
                    i += 1;
                    f(black_box(q))
                })
            });
        }};
    }
    {
        let mut g = c.benchmark_group("routine");
        bench!(g, "capsule_capsule/kernel", caps, k_cap);
        bench!(g, "capsule_capsule/parry_distance", caps, p_cap);
        bench!(
            g,
            "capsule_capsule/parry_segment_closed_form",
            caps,
            p_cap_seg
        );
        bench!(g, "box_capsule/kernel", boxcaps, k_boxcap);
        bench!(g, "box_capsule/parry_distance", boxcaps, p_boxcap);
        bench!(g, "box_box_sat/kernel", boxes, k_sat);
        bench!(g, "box_box_sat/parry_sat", boxes, p_sat);
        bench!(g, "box_box_exact/kernel_sat_plus_gjk", boxes, k_bb_exact);
        bench!(g, "box_box_exact/parry_distance", boxes, p_bb);
        bench!(g, "box_box_exact/parry_gjk", boxes, p_bb_gjk);
        bench!(g, "box_cube_sat/kernel", cubes, k_cube);
        bench!(g, "box_cube_sat/parry_sat", cubes, p_cube);
        bench!(g, "hull152_stage1_dop26_box/kernel", hull_cold_q, k_stage1);
        for (p, _, _) in hull_sizes {
            let n = p.n;
            bench!(
                g,
                format!("hull{n}_gjk_cold/kernel"),
                hull_cold_q,
                |&k: &usize| p.kernel_cold(k)
            );
            bench!(
                g,
                format!("hull{n}_gjk_cold/parry_distance"),
                hull_cold_q,
                |&k: &usize| p.parry_cold(k)
            );
        }
        bench!(g, "hull152_capsule_gjk/kernel", seg_q, k_hull_seg);
        bench!(g, "hull152_capsule_gjk/parry_distance", seg_q, p_hull_seg);
        bench!(g, "hull152_box_gjk/kernel", box_for_hull, k_hull_box);
        bench!(
            g,
            "hull152_box_gjk/parry_distance",
            box_for_hull,
            p_hull_box
        );
        g.finish();
    }
    // Warm start: the witness is carried along the coherent trajectory.
    {
        let mut g = c.benchmark_group("routine");
        for (p, _, _) in hull_sizes {
            let n = p.n;
            let mut w = Witness::default();
            let mut k = 0usize;
            g.bench_function(format!("hull{n}_gjk_warm/kernel"), |b| {
                b.iter(|| {
                    k += 1;
                    p.kernel_warm(k, &mut w)
                })
            });
            let mut k = 0usize;
            g.bench_function(format!("hull{n}_gjk_warm/parry_init_dir"), |b| {
                b.iter(|| {
                    k += 1;
                    p.parry_warm(k)
                })
            });
        }
        g.finish();
    }
    let models = [
        ("panda (capsules + boxes)", panda()),
        ("humanoid 29-DoF (capsules + boxes)", humanoid29()),
        ("panda, 152-vertex hull on every link", panda_tight(152)),
    ];
    {
        let mut g = c.benchmark_group("check_self_collision");
        for (name, m) in &models {
            let mut rng = Rng(42);
            let qs: Vec<Vec<f64>> = (0..N).map(|_| random_q(m, &mut rng)).collect();
            let mut ws = m.workspace();
            let mut i = 0usize;
            g.bench_function(*name, |b| {
                b.iter(|| {
                    i += 1;
                    m.check_self_collision(black_box(&qs[i % N]), &mut ws, false)
                })
            });
        }
        g.finish();
    }

    // ---- Summary table from this process's own timing.
    // Hull–hull GJK at every size, cold and warm, each against parry on the same queries;
    // parry's cold figure at 152 vertices also stands beside the staged row.
    let (mut hull_cold_rows, mut hull_warm_rows) = (Vec::new(), Vec::new());
    let mut p_hull_cold_ns = f64::NAN;
    for (p, cold_target, warm_target) in hull_sizes {
        let n = p.n;
        let parry_cold_ns = ns_per_call(&hull_cold_q, |&k| p.parry_cold(k));
        if n == h152.n {
            p_hull_cold_ns = parry_cold_ns;
        }
        hull_cold_rows.push(
            Row::new(
                format!("hull–hull GJK cold, {n} v"),
                cold_target,
                ns_per_call(&hull_cold_q, |&k| p.kernel_cold(k)),
            )
            .vs(parry_cold_ns, "distance(ConvexPolyhedron ×2)"),
        );
        let mut w = Witness::default();
        hull_warm_rows.push(
            Row::new(
                format!("hull–hull GJK warm, {n} v"),
                warm_target,
                ns_per_call_seq(N, |k| p.kernel_warm(k, &mut w)),
            )
            .vs(
                ns_per_call_seq(N, |k| p.parry_warm(k)),
                "GJK seeded with previous direction",
            ),
        );
    }
    let p_cap_ns = ns_per_call(&caps, p_cap);
    let p_cap_seg_ns = ns_per_call(&caps, p_cap_seg);
    let k_cap_ns = ns_per_call(&caps, k_cap);
    let mut rows = vec![
        Row::new("capsule–capsule (exact)", "≤ 15", k_cap_ns).vs(
            p_cap_seg_ns.min(p_cap_ns),
            if p_cap_seg_ns < p_cap_ns {
                "segment–segment closed form − radii"
            } else {
                "distance(Capsule, Capsule)"
            },
        ),
        Row::new("  (parry's general dispatcher)", "", k_cap_ns)
            .vs(p_cap_ns, "distance(Capsule, Capsule)"),
        Row::new(
            "box–capsule (exact)",
            "≤ 80",
            ns_per_call(&boxcaps, k_boxcap),
        )
        .vs(ns_per_call(&boxcaps, p_boxcap), "distance(Cuboid, Capsule)"),
        Row::new(
            "box–box 15-axis SAT (lower bound)",
            "≤ 100",
            ns_per_call(&boxes, k_sat),
        )
        .vs(ns_per_call(&boxes, p_sat), "sat:: 2× face + edge"),
        Row::new(
            "box–box exact (SAT + GJK)",
            "",
            ns_per_call(&boxes, k_bb_exact),
        )
        .vs(
            ns_per_call(&boxes, p_bb).min(ns_per_call(&boxes, p_bb_gjk)),
            "best of distance(Cuboid, Cuboid) / GJK",
        ),
        Row::new(
            "box–cube SAT (cube-specialised)",
            "",
            ns_per_call(&cubes, k_cube),
        )
        .vs(ns_per_call(&cubes, p_cube), "sat:: 2× face + edge"),
        Row::new(
            "tight–tight stage 1 (box SAT + 26-DOP), 152 v",
            "",
            ns_per_call(&hull_cold_q, k_stage1),
        ),
    ];
    rows.extend(hull_cold_rows);
    // The 800 ns names GJK on the hulls (the 152 v cold row above); this row adds
    // stage 1, which the kernel runs first.
    rows.push(
        Row::new(
            "tight–tight staged cold (stage 1, then GJK), 152 v",
            "",
            ns_per_call(&hull_cold_q, k_staged),
        )
        .vs(p_hull_cold_ns, "distance(ConvexPolyhedron ×2)"),
    );
    rows.extend(hull_warm_rows);
    rows.extend([
        Row::new(
            "hull–capsule GJK, 152 v",
            "",
            ns_per_call(&seg_q, k_hull_seg),
        )
        .vs(
            ns_per_call(&seg_q, p_hull_seg),
            "distance(ConvexPolyhedron, Capsule)",
        ),
        Row::new(
            "hull–box GJK, 152 v",
            "",
            ns_per_call(&box_for_hull, k_hull_box),
        )
        .vs(
            ns_per_call(&box_for_hull, p_hull_box),
            "distance(ConvexPolyhedron, Cuboid)",
        ),
    ]);
    print_table(&rows);
    for (p, _, _) in hull_sizes {
        let (cold_iters, cold_proposals, warm_iters) = p.support_queries();
        println!(
            "hull–hull GJK support queries (full scans) per call, {} v: cold {cold_iters:.2} \
             (after {cold_proposals:.2} proposed points), warm {warm_iters:.2}",
            p.n
        );
    }
    println!();
    println!(
        "check_self_collision per configuration (20 000 uniform random in-limit configurations, one call each, timed with Instant):"
    );
    println!("| model | links | checked pairs | median µs | p99 µs | configurations tripped |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (name, m) in &models {
        check_percentiles(name, m, false);
    }
    check_percentiles("panda, 152-vertex hulls, warm start", &models[2].1, true);
    sat_deficit();
    c.final_summary();
}
