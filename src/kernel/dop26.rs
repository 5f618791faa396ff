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
use super::vec3::{Mat3, V3, col, dot, mul_mtm, mul_mtv, sub};

const S2: f64 = std::f64::consts::SQRT_2;
const S3: f64 = 1.732_050_807_568_877_2;
const INV_S2: f64 = std::f64::consts::FRAC_1_SQRT_2;
const INV_S3: f64 = 0.577_350_269_189_625_8;

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

/// A DOP prepared for the chamber bound: values pre-multiplied by the axis lengths.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dop26 {
    /// The 26 support values as given (box frame, metres).
    pub d: [f64; 26],
    /// `face[axis][neg]`.
    face: [[f64; 2]; 3],
    /// `√2 · edge` value by `[excluded axis][sign of first kept axis][sign of second]`.
    edge: [[[f64; 2]; 2]; 3],
    /// `√3 · corner` value by sign bits.
    corner: [f64; 8],
}

impl Dop26 {
    pub fn new(d: [f64; 26]) -> Dop26 {
        let face = [[d[0], d[1]], [d[2], d[3]], [d[4], d[5]]];
        // Pair (x,y) excluded z: (+,+)=6 (−,−)=7 (+,−)=8 (−,+)=9; (x,z) excluded y: base 10;
        // (y,z) excluded x: base 14.
        let pair = |base: usize| {
            [
                [S2 * d[base], S2 * d[base + 2]],
                [S2 * d[base + 3], S2 * d[base + 1]],
            ]
        };
        let edge = [pair(14), pair(10), pair(6)];
        let mut corner = [0.0; 8];
        for (bits, c) in corner.iter_mut().enumerate() {
            *c = S3 * d[CORNER_BY_SIGNS[bits]];
        }
        Dop26 {
            d,
            face,
            edge,
            corner,
        }
    }

    /// Upper bound on `max_{x ∈ DOP} v · x` for any `v` (box frame), and the same for `−v`,
    /// by the chamber decomposition (module docs).
    #[inline(always)]
    pub fn support_pair(&self, v: V3) -> (f64, f64) {
        let ax = [v[0].abs(), v[1].abs(), v[2].abs()];
        let neg = [v[0] < 0.0, v[1] < 0.0, v[2] < 0.0];
        // Axis of largest and smallest magnitude (ties broken by index).
        let imax = if ax[0] >= ax[1] {
            if ax[0] >= ax[2] { 0 } else { 2 }
        } else if ax[1] >= ax[2] {
            1
        } else {
            2
        };
        let imin = if ax[0] < ax[1] {
            if ax[0] < ax[2] { 0 } else { 2 }
        } else if ax[1] < ax[2] {
            1
        } else {
            2
        };
        // With ties imax may equal imin only when all three are equal; pick distinct.
        let imin = if imin == imax { (imax + 1) % 3 } else { imin };
        let imid = 3 - imax - imin;
        let (a, b, c) = (ax[imax], ax[imid], ax[imin]);
        // Edge table is indexed by the excluded axis and the signs of the two kept axes in
        // increasing axis order.
        let (k0, k1) = if imax < imid {
            (imax, imid)
        } else {
            (imid, imax)
        };
        let bits = neg[0] as usize | (neg[1] as usize) << 1 | (neg[2] as usize) << 2;
        let (n0, n1, nm) = (neg[k0] as usize, neg[k1] as usize, neg[imax] as usize);
        let f_p = self.face[imax][nm];
        let f_n = self.face[imax][1 - nm];
        let e_p = self.edge[imin][n0][n1];
        let e_n = self.edge[imin][1 - n0][1 - n1];
        let c_p = self.corner[bits];
        let c_n = self.corner[7 - bits];
        let hp = (a - b) * f_p + (b - c) * e_p + c * c_p;
        let hn = (a - b) * f_n + (b - c) * e_n + c * c_n;
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
    let mut best = f64::NEG_INFINITY;
    for (k, (u, len)) in AXES.iter().enumerate() {
        // u in B's frame.
        let ub = [
            u[0] * c0[0] + u[1] * c1[0] + u[2] * c2[0],
            u[0] * c0[1] + u[1] * c1[1] + u[2] * c2[1],
            u[0] * c0[2] + u[1] * c1[2] + u[2] * c2[2],
        ];
        let proj = dot(*u, t);
        let (hb_p, hb_n) = db.support_pair(ub);
        // Gap along +u: min_B u·x − max_A u·x >= proj − len·d_A(+u) − h_B(−u).
        let gp = proj - len * da.d[2 * k] - hb_n;
        // Gap along −u: −proj − len·d_A(−u) − h_B(+u).
        let gn = -proj - len * da.d[2 * k + 1] - hb_p;
        best = best.max(gp.max(gn) / len);
    }
    best
}

/// 26-DOP SAT lower bound on the distance between two hulls contained in the DOPs `da`
/// (box frame `a`) and `db` (box frame `b`). Only the boxes' centres and rotations are used.
#[inline]
pub fn dop_dop_lower_bound(a: &Obb, da: &Dop26, b: &Obb, db: &Dop26) -> f64 {
    let m_ab = mul_mtm(&b.rot, &a.rot);
    let d = sub(b.center, a.center);
    let ta = mul_mtv(&a.rot, d);
    let tb = mul_mtv(&b.rot, [-d[0], -d[1], -d[2]]);
    let m_ba = mul_mtm(&a.rot, &b.rot);
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
        let pts = [
            [1.0, 0.0, 0.0],
            [-1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, -1.0, 0.0],
            [0.0, 0.0, 1.0],
            [0.0, 0.0, -1.0],
        ];
        let dop = Dop26::new(dop_of_points(&pts));
        let vs: [V3; 3] = [[1.0, 0.5, 0.25], [-0.2, 0.7, -0.7], [1.0, 1.0, 1.0]];
        for v in vs {
            let exact = v.iter().fold(0.0f64, |m, x: &f64| m.max(x.abs()));
            let p = dop.support(v);
            assert!(p >= exact - 1e-15, "{v:?}");
        }
    }

    #[test]
    fn octahedra_corner_to_corner_bound_is_tight() {
        let pts = [
            [1.0, 0.0, 0.0],
            [-1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, -1.0, 0.0],
            [0.0, 0.0, 1.0],
            [0.0, 0.0, -1.0],
        ];
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
