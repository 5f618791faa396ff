//! Triangle–triangle distance in closed form (up to floating-point rounding).
//!
//! Two triangles that do not intersect are closest at a vertex of one and a point of the
//! other, or at a point of an edge of each: the distance is the least of the six
//! vertex–triangle and nine edge–edge distances. They intersect (distance 0) when an edge of
//! one pierces the other; coplanar overlaps show as a zero among the fifteen. The mesh truth
//! asks this when GJK cannot prove a pair of thin triangles apart: GJK's iterations stall on
//! slivers, and a "cannot tell" there read as a contact micrometres away.

use super::v3::{V3, add, cross, dot, norm2, scale, sub};
use crate::kernel::distance_capsule_capsule::segment_segment_sq;

/// Distance between triangles `a` and `b` (0 when they touch or intersect).
pub fn triangle_distance(a: [V3; 3], b: [V3; 3]) -> f64 {
    if pierces(a, b) || pierces(b, a) {
        return 0.0;
    }
    let mut best = f64::INFINITY;
    for p in a {
        best = best.min(point_triangle_sq(p, b));
    }
    for p in b {
        best = best.min(point_triangle_sq(p, a));
    }
    for i in 0..3 {
        for j in 0..3 {
            let (d2, _, _) = segment_segment_sq(a[i], a[(i + 1) % 3], b[j], b[(j + 1) % 3]);
            best = best.min(d2);
        }
    }
    best.sqrt()
}

/// Does an edge of `a` cross triangle `b` (endpoints on strictly opposite sides of its
/// plane, or one on it, and the crossing inside `b`)? Edges in `b`'s plane are left to the
/// distances.
fn pierces(a: [V3; 3], b: [V3; 3]) -> bool {
    let n = cross(sub(b[1], b[0]), sub(b[2], b[0]));
    if norm2(n) == 0.0 {
        return false;
    }
    let side = a.map(|p| dot(n, sub(p, b[0])));
    (0..3).any(|i| {
        let (p, q) = (a[i], a[(i + 1) % 3]);
        let (sp, sq) = (side[i], side[(i + 1) % 3]);
        if (sp > 0.0 && sq > 0.0) || (sp < 0.0 && sq < 0.0) || (sp == 0.0 && sq == 0.0) {
            return false;
        }
        let t = sp / (sp - sq);
        inside_triangle(add(p, scale(sub(q, p), t)), b, n)
    })
}

/// Is `p` (in the plane of `t`, normal `n`) inside `t`, edges included?
fn inside_triangle(p: V3, t: [V3; 3], n: V3) -> bool {
    (0..3).all(|i| dot(n, cross(sub(t[(i + 1) % 3], t[i]), sub(p, t[i]))) >= 0.0)
}

/// Squared distance from `p` to triangle `t` (the closest point by Voronoi regions).
fn point_triangle_sq(p: V3, t: [V3; 3]) -> f64 {
    let [a, b, c] = t;
    let (ab, ac, ap) = (sub(b, a), sub(c, a), sub(p, a));
    let (d1, d2) = (dot(ab, ap), dot(ac, ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return norm2(ap);
    }
    let bp = sub(p, b);
    let (d3, d4) = (dot(ab, bp), dot(ac, bp));
    if d3 >= 0.0 && d4 <= d3 {
        return norm2(bp);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return norm2(sub(p, add(a, scale(ab, v))));
    }
    let cp = sub(p, c);
    let (d5, d6) = (dot(ab, cp), dot(ac, cp));
    if d6 >= 0.0 && d5 <= d6 {
        return norm2(cp);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return norm2(sub(p, add(a, scale(ac, w))));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return norm2(sub(p, add(b, scale(sub(c, b), w))));
    }
    let denom = va + vb + vc;
    if denom == 0.0 {
        // A degenerate triangle: its edges hold every point of it.
        return [(a, b), (b, c), (c, a)]
            .iter()
            .map(|&(x, y)| segment_segment_sq(p, p, x, y).0)
            .fold(f64::INFINITY, f64::min);
    }
    let (v, w) = (vb / denom, vc / denom);
    norm2(sub(p, add(a, add(scale(ab, v), scale(ac, w)))))
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: [V3; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];

    fn shifted(t: [V3; 3], d: V3) -> [V3; 3] {
        t.map(|p| add(p, d))
    }

    #[test]
    fn parallel_triangles_are_their_offset_apart() {
        let d = triangle_distance(T, shifted(T, [0.1, 0.1, 0.25]));
        assert!((d - 0.25).abs() < 1e-15, "{d}");
    }

    #[test]
    fn a_triangle_piercing_another_through_its_middle_is_at_zero() {
        // Vertical, through (0.25, 0.25): no vertex or edge of either comes near the other's.
        let v = [[0.25, 0.25, -1.0], [0.3, 0.2, 1.0], [0.2, 0.3, 1.0]];
        assert_eq!(triangle_distance(T, v), 0.0);
        assert_eq!(triangle_distance(v, T), 0.0);
    }

    #[test]
    fn skew_edges_give_the_edge_distance() {
        // An edge along y at x = 0.5, 0.3 above the x axis edge of T, the rest further up.
        let b = [[0.5, -1.0, 0.3], [0.5, 1.0, 0.3], [0.5, 0.0, 2.0]];
        let d = triangle_distance(T, b);
        assert!((d - 0.3).abs() < 1e-15, "{d}");
    }

    #[test]
    fn a_vertex_over_the_face_gives_its_height() {
        let b = [[0.2, 0.2, 0.05], [0.2, 0.2, 1.0], [0.3, 0.3, 1.0]];
        let d = triangle_distance(T, b);
        assert!((d - 0.05).abs() < 1e-15, "{d}");
    }

    #[test]
    fn coplanar_triangles_apart_and_overlapping() {
        let apart = triangle_distance(T, shifted(T, [2.0, 0.0, 0.0]));
        assert!((apart - 1.0).abs() < 1e-15, "{apart}");
        let small = [[0.1, 0.1, 0.0], [0.2, 0.1, 0.0], [0.1, 0.2, 0.0]];
        assert_eq!(triangle_distance(T, small), 0.0);
    }

    #[test]
    fn agrees_with_parry_and_with_dense_sampling_on_seeded_triangles() {
        use parry3d_f64::math::{Pose, Vector};
        use parry3d_f64::shape::Triangle;
        let parry = |t: [V3; 3]| {
            let v = t.map(|p| Vector::new(p[0], p[1], p[2]));
            Triangle::new(v[0], v[1], v[2])
        };
        use rand_core::Rng;
        let mut rng = rand_pcg::Pcg64::new(7, 0);
        let mut coord = move || (rng.next_u64() >> 11) as f64 * (2.0 / (1u64 << 53) as f64) - 1.0;
        for _ in 0..300 {
            let mut tri =
                || -> [V3; 3] { std::array::from_fn(|_| std::array::from_fn(|_| coord())) };
            let (a, b) = (tri(), tri());
            let d = triangle_distance(a, b);
            // Sampled points give upper bounds; none may fall below the exact distance.
            let mut sampled = f64::INFINITY;
            let n = 12;
            for i in 0..=n {
                for j in 0..=(n - i) {
                    let (u, v) = (i as f64 / n as f64, j as f64 / n as f64);
                    let p = add(
                        a[0],
                        add(scale(sub(a[1], a[0]), u), scale(sub(a[2], a[0]), v)),
                    );
                    sampled = sampled.min(point_triangle_sq(p, b).sqrt());
                }
            }
            assert!(d <= sampled + 1e-12, "{d} > {sampled}");
            let oracle = parry3d_f64::query::distance(
                &Pose::IDENTITY,
                &parry(a),
                &Pose::IDENTITY,
                &parry(b),
            )
            .unwrap()
            .distance;
            assert!((d - oracle).abs() < 1e-9, "{d} vs parry {oracle}");
        }
    }
}
