//! The 26-DOP (discrete oriented polytope) of a refined link, and the DOP–DOP separating-axis
//! **lower bound** used as stage 1 of the tight–tight narrow phase.
//!
//! # Direction order
//!
//! A DOP is given by 26 support values `d_k = max_{x ∈ hull} n_k · x`, in the **box frame**
//! (origin at the box centre, axes the box axes), for these unit directions `n_k`:
//!
//! | k | direction (before normalisation) |
//! |---|---|
//! | 0–5 (faces) | +x, −x, +y, −y, +z, −z |
//! | 6–9 (xy edges) | (+1,+1,0), (−1,−1,0), (+1,−1,0), (−1,+1,0) |
//! | 10–13 (xz edges) | (+1,0,+1), (−1,0,−1), (+1,0,−1), (−1,0,+1) |
//! | 14–17 (yz edges) | (0,+1,+1), (0,−1,−1), (0,+1,−1), (0,−1,+1) |
//! | 18–25 (corners) | (+,+,+), (−,−,−), (+,+,−), (−,−,+), (+,−,+), (−,+,−), (−,+,+), (+,−,−) |
//!
//! Edge directions are divided by √2 and corner directions by √3: the values are support
//! distances along unit vectors, in metres. Directions come in antipodal pairs `(2m, 2m+1)`.
//!
//! # Support upper bound in any direction (the "chamber" bound)
//!
//! For a direction `v` (box frame) with sorted magnitudes `a >= b >= c` on axes `i, j, k` and
//! signs `σ`, `v = (a − b)·σ_i e_i + (b − c)·(σ_i e_i + σ_j e_j) + c·(σ_i e_i + σ_j e_j + σ_k e_k)`
//! with non-negative coefficients, and the three vectors are `1`, `√2` and `√3` times DOP
//! directions (a face, an edge, a corner). A support function is sublinear, so
//! `h(v) <= (a − b)·F + (b − c)·√2·E + c·√3·C` with `F, E, C` the matching DOP values. This
//! is an upper bound on the DOP's (hence the hull's) support in direction `v`; it is exact
//! for a box given as a DOP.
//!
//! # DOP–DOP lower bound
//!
//! For each of the 13 axes of `A` and each sign, the gap between the two solids along that
//! unit direction `u` is at least `u·(c_B − c_A) − d_A(u) − h̄_B(−u)`, where `d_A(u)` is `A`'s
//! stored value and `h̄_B` the chamber bound of `B`; the same with the roles swapped for
//! `B`'s 13 axes. The result is the maximum of these 52 values. Each is a valid lower bound
//! on the distance between the two hulls (a gap along a unit direction never exceeds the
//! distance) because `d_A` and `h̄_B` over-estimate the supports of the hulls inside the DOPs.

use super::shapes::Obb;
use super::vec3::{Mat3, V3, add, col, dot, mul_mtm, mul_mtv, sub, transpose};

const S2: f64 = std::f64::consts::SQRT_2;
const S3: f64 = 1.732_050_807_568_877_2;
const INV_S2: f64 = std::f64::consts::FRAC_1_SQRT_2;
const INV_S3: f64 = 0.577_350_269_189_625_8;

/// The vertices of the octahedron `|x| + |y| + |z| <= 1`, for hand-computed test cases: the
/// first six directions (the ± axes).
#[cfg(test)]
pub(crate) fn unit_octahedron() -> [V3; 6] {
    DIRECTIONS[..6].try_into().expect("six directions")
}

/// The 26 unit directions, in the documented order.
pub const DIRECTIONS: [V3; 26] = {
    let a = INV_S2;
    let c = INV_S3;
    [
        [1.0, 0.0, 0.0],
        [-1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, -1.0, 0.0],
        [0.0, 0.0, 1.0],
        [0.0, 0.0, -1.0],
        [a, a, 0.0],
        [-a, -a, 0.0],
        [a, -a, 0.0],
        [-a, a, 0.0],
        [a, 0.0, a],
        [-a, 0.0, -a],
        [a, 0.0, -a],
        [-a, 0.0, a],
        [0.0, a, a],
        [0.0, -a, -a],
        [0.0, a, -a],
        [0.0, -a, a],
        [c, c, c],
        [-c, -c, -c],
        [c, c, -c],
        [-c, -c, c],
        [c, -c, c],
        [-c, c, -c],
        [-c, c, c],
        [c, -c, -c],
    ]
};

/// Integer (unnormalised) axis vectors of the 13 antipodal pairs, pair `m` being directions
/// `2m` (this vector) and `2m + 1` (its negation), and the axis length.
const AXES: [([f64; 3], f64); 13] = [
    ([1.0, 0.0, 0.0], 1.0),
    ([0.0, 1.0, 0.0], 1.0),
    ([0.0, 0.0, 1.0], 1.0),
    ([1.0, 1.0, 0.0], S2),
    ([1.0, -1.0, 0.0], S2),
    ([1.0, 0.0, 1.0], S2),
    ([1.0, 0.0, -1.0], S2),
    ([0.0, 1.0, 1.0], S2),
    ([0.0, 1.0, -1.0], S2),
    ([1.0, 1.0, 1.0], S3),
    ([1.0, 1.0, -1.0], S3),
    ([1.0, -1.0, 1.0], S3),
    ([-1.0, 1.0, 1.0], S3),
];

/// Corner direction index by sign bits (bit `i` set when component `i` is negative).
const CORNER_BY_SIGNS: [usize; 8] = [18, 24, 22, 21, 20, 23, 25, 19];

/// `(imax, imid, imin)` by the comparison bits `(a>=b) | (b>=c)<<1 | (a>=c)<<2` of the
/// magnitudes `(a, b, c)`; the two impossible bit patterns (only reachable with NaN) map to
/// the identity order.
const PERM_BY_CMP: [[usize; 3]; 8] = [
    [2, 1, 0], // a<b, b<c, a<c: c > b > a
    [2, 0, 1], // a>=b, b<c, a<c: c > a >= b
    [1, 2, 0], // a<b, b>=c, a<c: b >= c > a
    [0, 1, 2], // a>=b, b>=c, a<c: impossible
    [0, 1, 2], // a<b, b<c, a>=c: impossible
    [0, 2, 1], // a>=b, b<c, a>=c: a >= c > b
    [1, 0, 2], // a<b, b>=c, a>=c: b > a >= c
    [0, 1, 2], // a>=b, b>=c, a>=c
];

/// A DOP prepared for the chamber bound: for every magnitude order and sign pattern of `v`,
/// the coefficients `(F, √2·E − F, √3·C − √2·E)` so that the bound is
/// `max·k0 + mid·k1 + min·k2` (module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dop26 {
    /// The 26 support values as given (box frame, metres).
    pub d: [f64; 26],
    /// Indexed by `cmp_bits · 8 + sign_bits`.
    tab: [[f64; 3]; 64],
}

impl Dop26 {
    pub fn new(d: [f64; 26]) -> Dop26 {
        let face = |axis: usize, neg: bool| d[2 * axis + neg as usize];
        // Edge over the kept axes (i < j) with signs: pair base by excluded axis; within a
        // pair (+,+)=base, (−,−)=base+1, (+,−)=base+2, (−,+)=base+3.
        let edge = |i: usize, j: usize, ni: bool, nj: bool| {
            let (i, j, ni, nj) = if i < j {
                (i, j, ni, nj)
            } else {
                (j, i, nj, ni)
            };
            let base = match (i, j) {
                (0, 1) => 6,
                (0, 2) => 10,
                _ => 14,
            };
            let off = match (ni, nj) {
                (false, false) => 0,
                (true, true) => 1,
                (false, true) => 2,
                (true, false) => 3,
            };
            S2 * d[base + off]
        };
        let mut tab = [[0.0; 3]; 64];
        for (cmp, perm) in PERM_BY_CMP.iter().enumerate() {
            for bits in 0..8usize {
                let neg = |k: usize| bits & (1 << k) != 0;
                let [imax, imid, _] = *perm;
                let f = face(imax, neg(imax));
                let e = edge(imax, imid, neg(imax), neg(imid));
                let c = S3 * d[CORNER_BY_SIGNS[bits]];
                tab[cmp * 8 + bits] = [f, e - f, c - e];
            }
        }
        Dop26 { d, tab }
    }

    /// Upper bound on `max_{x ∈ DOP} v · x` for any `v` (box frame), and the same for `−v`,
    /// by the chamber decomposition (module docs). Branch-free.
    #[inline(always)]
    pub fn support_pair(&self, v: V3) -> (f64, f64) {
        let (a, b, c) = (v[0].abs(), v[1].abs(), v[2].abs());
        let cmp = (a >= b) as usize | ((b >= c) as usize) << 1 | ((a >= c) as usize) << 2;
        let bits =
            (v[0] < 0.0) as usize | ((v[1] < 0.0) as usize) << 1 | ((v[2] < 0.0) as usize) << 2;
        let hi = a.max(b).max(c);
        let lo = a.min(b).min(c);
        let mid = a.min(b).max(a.max(b).min(c));
        let kp = &self.tab[cmp * 8 + bits];
        let kn = &self.tab[cmp * 8 + (7 - bits)];
        let hp = hi * kp[0] + mid * kp[1] + lo * kp[2];
        let hn = hi * kn[0] + mid * kn[1] + lo * kn[2];
        (hp, hn)
    }

    /// Upper bound on the DOP support along `v` (box frame).
    #[inline]
    pub fn support(&self, v: V3) -> f64 {
        self.support_pair(v).0
    }
}

/// One side of the DOP–DOP bound: `A`'s 26 directions against `B`'s chamber bound.
/// `m = R_Bᵀ R_A` (A's axes in B's frame), `t = R_Aᵀ (c_B − c_A)` (offset in A's frame).
#[inline(always)]
fn one_side(da: &Dop26, db: &Dop26, m: &Mat3, t: V3) -> f64 {
    let c0 = col(m, 0);
    let c1 = col(m, 1);
    let c2 = col(m, 2);
    let e01p = add(c0, c1);
    let e01m = sub(c0, c1);
    let e02p = add(c0, c2);
    let e02m = sub(c0, c2);
    // The 13 axis vectors of AXES, in B's frame, and their projections of t.
    let ub: [V3; 13] = [
        c0,
        c1,
        c2,
        e01p,
        e01m,
        e02p,
        e02m,
        add(c1, c2),
        sub(c1, c2),
        add(e01p, c2),
        sub(e01p, c2),
        add(e01m, c2),
        sub(add(c1, c2), c0),
    ];
    let proj: [f64; 13] = [
        t[0],
        t[1],
        t[2],
        t[0] + t[1],
        t[0] - t[1],
        t[0] + t[2],
        t[0] - t[2],
        t[1] + t[2],
        t[1] - t[2],
        (t[0] + t[1]) + t[2],
        (t[0] + t[1]) - t[2],
        (t[0] - t[1]) + t[2],
        (t[1] + t[2]) - t[0],
    ];
    let mut best = f64::NEG_INFINITY;
    for k in 0..13 {
        let inv = INV_LEN[k];
        let len = AXES[k].1;
        let (hb_p, hb_n) = db.support_pair(ub[k]);
        // Gap along +u: min_B u·x − max_A u·x >= proj − len·d_A(+u) − h_B(−u); along −u:
        // −proj − len·d_A(−u) − h_B(+u); both divided by |u| = len.
        let gp = (proj[k] - len * da.d[2 * k] - hb_n) * inv;
        let gn = (-proj[k] - len * da.d[2 * k + 1] - hb_p) * inv;
        best = best.max(gp.max(gn));
    }
    best
}

/// `1 / |u|` for the 13 axes, rounded **down** so that dividing a gap by the length through
/// this factor never enlarges a positive gap (the bound stays a lower bound) — for negative
/// gaps it moves them towards zero by at most one ulp, immaterial and still below any
/// positive true distance.
const INV_LEN: [f64; 13] = {
    let one = 1.0;
    let i2 = 0.707_106_781_186_547_5 * (1.0 - f64::EPSILON);
    let i3 = 0.577_350_269_189_625_7 * (1.0 - f64::EPSILON);
    [one, one, one, i2, i2, i2, i2, i2, i2, i3, i3, i3, i3]
};

/// 26-DOP SAT lower bound on the distance between two hulls contained in the DOPs `da`
/// (box frame `a`) and `db` (box frame `b`). Only the boxes' centres and rotations are used.
#[inline]
pub fn dop_dop_lower_bound(a: &Obb, da: &Dop26, b: &Obb, db: &Dop26) -> f64 {
    let m_ab = mul_mtm(&b.rot, &a.rot);
    let d = sub(b.center, a.center);
    let ta = mul_mtv(&a.rot, d);
    let tb = mul_mtv(&b.rot, [-d[0], -d[1], -d[2]]);
    let m_ba = transpose(&m_ab);
    one_side(da, db, &m_ab, ta).max(one_side(db, da, &m_ba, tb))
}

/// The 26 support values of a point set given in the box frame (for building DOPs).
pub fn dop_of_points(points_box_frame: &[V3]) -> [f64; 26] {
    let mut d = [f64::NEG_INFINITY; 26];
    for p in points_box_frame {
        for (k, n) in DIRECTIONS.iter().enumerate() {
            d[k] = d[k].max(dot(*n, *p));
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::vec3::{IDENTITY, norm, rot_from_rpy};

    fn box_dop(h: V3) -> [f64; 26] {
        let mut pts = vec![];
        for sx in [-1.0, 1.0] {
            for sy in [-1.0, 1.0] {
                for sz in [-1.0, 1.0] {
                    pts.push([sx * h[0], sy * h[1], sz * h[2]]);
                }
            }
        }
        dop_of_points(&pts)
    }

    #[test]
    fn directions_are_unit_and_antipodal() {
        for k in 0..13 {
            let a = DIRECTIONS[2 * k];
            let b = DIRECTIONS[2 * k + 1];
            assert!((norm(a) - 1.0).abs() < 1e-15);
            assert!((a[0] + b[0]).abs() + (a[1] + b[1]).abs() + (a[2] + b[2]).abs() < 1e-15);
            let (u, len) = AXES[k];
            for i in 0..3 {
                assert!((u[i] / len - a[i]).abs() < 1e-15, "axis {k}");
            }
        }
    }

    #[test]
    fn chamber_bound_is_exact_for_a_box() {
        let h = [0.3, 0.1, 0.7];
        let dop = Dop26::new(box_dop(h));
        let vs: [V3; 5] = [
            [1.0, 0.2, -0.3],
            [-0.1, 0.9, 0.4],
            [0.3, -0.3, -2.0],
            [0.5, 0.5, 0.5],
            [0.0, 0.0, 1.0],
        ];
        for v in vs {
            let exact = h[0] * v[0].abs() + h[1] * v[1].abs() + h[2] * v[2].abs();
            let (p, n) = dop.support_pair(v);
            assert!((p - exact).abs() < 1e-14, "{v:?}: {p} vs {exact}");
            assert!((n - exact).abs() < 1e-14);
        }
    }

    #[test]
    fn chamber_bound_over_estimates_an_octahedron() {
        // Octahedron |x|+|y|+|z| <= 1: true support is max |v_i|.
        let pts = unit_octahedron();
        let dop = Dop26::new(dop_of_points(&pts));
        let vs: [V3; 3] = [[1.0, 0.5, 0.25], [-0.2, 0.7, -0.7], [1.0, 1.0, 1.0]];
        for v in vs {
            let exact = v.iter().fold(0.0f64, |m, x: &f64| m.max(x.abs()));
            let p = dop.support(v);
            assert!(p >= exact - 1e-15, "{v:?}");
        }
    }

    #[test]
    fn chamber_bound_never_under_estimates_a_cloud() {
        // Random clouds and directions, with many ties and zeros (coarse grid values).
        let mut rng = crate::kernel::XorShift(0x9e37_79b9_7f4a_7c15);
        let mut next = || ((rng.next_u64() >> 40) % 11) as f64 * 0.2 - 1.0;
        for _ in 0..2000 {
            let n = 1 + (next() + 1.0) as usize * 3;
            let pts: Vec<V3> = (0..n)
                .map(|_| [next(), next() * 0.5, next() * 2.0])
                .collect();
            let dop = Dop26::new(dop_of_points(&pts));
            for _ in 0..20 {
                let v = [next(), next(), next()];
                let hmax = pts
                    .iter()
                    .map(|p| dot(*p, v))
                    .fold(f64::NEG_INFINITY, f64::max);
                let hmin = pts.iter().map(|p| dot(*p, v)).fold(f64::INFINITY, f64::min);
                let (hp, hn) = dop.support_pair(v);
                assert!(hp >= hmax - 1e-12, "{v:?}: {hp} < {hmax}");
                assert!(hn >= -hmin - 1e-12, "{v:?}: {hn} < {}", -hmin);
            }
        }
    }

    #[test]
    fn octahedra_corner_to_corner_bound_is_tight() {
        let pts = unit_octahedron();
        let dop = Dop26::new(dop_of_points(&pts));
        let b0 = Obb {
            center: [0.0; 3],
            rot: IDENTITY,
            half: [1.0; 3],
        };
        let b1 = Obb {
            center: [3.0, 0.0, 0.0],
            rot: rot_from_rpy([0.3, 0.0, 0.0]),
            half: [1.0; 3],
        };
        // Tips at x=1 and x=2: distance 1, found on the x axis.
        let lb = dop_dop_lower_bound(&b0, &dop, &b1, &dop);
        assert!((lb - 1.0).abs() < 1e-14, "{lb}");
    }
}
