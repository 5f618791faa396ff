//! Minimum-volume capsule holding a point set with headroom.
//!
//! Search: for a fixed axis direction `d`, the axis line goes through the
//! centre of the minimum enclosing circle of the points projected on the plane
//! normal to `d`; along that line the radius/segment trade-off is optimised for
//! volume (a larger radius shortens the segment because the end caps reach
//! further). Axis directions tried: principal axes, caller-supplied axes (box
//! axes, hull face normals), a Fibonacci hemisphere; the best few are refined
//! by a pattern search on the sphere. The result is a local optimum of a
//! non-convex problem (no global guarantee), but it is always a *valid*
//! enclosing capsule: containment never depends on the optimiser.

use super::support;
use super::v3::{self, V3};

/// A capsule: the points within `radius` of the segment `a`-`b`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Capsule {
    pub a: V3,
    pub b: V3,
    pub radius: f64,
}

impl Capsule {
    pub fn volume(&self) -> f64 {
        let l = v3::dist(self.a, self.b);
        let r = self.radius;
        std::f64::consts::PI * r * r * l + 4.0 / 3.0 * std::f64::consts::PI * r * r * r
    }
    pub fn support(&self, u: V3) -> f64 {
        support::capsule(self.a, self.b, self.radius, u)
    }
    /// Signed depth of `p` inside (>= 0 inside): radius minus distance to the segment.
    pub fn depth(&self, p: V3) -> f64 {
        self.radius - dist_to_segment(p, self.a, self.b)
    }
    pub fn contains(&self, p: V3) -> bool {
        self.depth(p) >= 0.0
    }
    /// Unit axis direction (`a` to `b`), if the segment has length.
    pub fn axis(&self) -> Option<V3> {
        v3::normalize(v3::sub(self.b, self.a))
    }
}

/// Euclidean distance from `p` to the segment `a`-`b` (a point when `a == b`).
#[inline]
pub fn dist_to_segment(p: V3, a: V3, b: V3) -> f64 {
    let ab = v3::sub(b, a);
    let ap = v3::sub(p, a);
    let l2 = v3::norm2(ab);
    let t = if l2 > 0.0 {
        (v3::dot(ap, ab) / l2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    v3::norm(v3::sub(ap, v3::scale(ab, t)))
}

/// Points prepared once for many axis evaluations: a fixed pseudo-random order
/// (Welzl's expected linear time) that does not depend on anything but the input.
struct Prepared<'a> {
    pts: &'a [V3],
    order: Vec<usize>,
}

impl<'a> Prepared<'a> {
    fn new(pts: &'a [V3]) -> Self {
        let mut order: Vec<usize> = (0..pts.len()).collect();
        // Fisher-Yates with a fixed-seed xorshift: deterministic.
        let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
        for i in (1..order.len()).rev() {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            order.swap(i, (s % (i as u64 + 1)) as usize);
        }
        Prepared { pts, order }
    }
}

/// Result of fitting along one axis: capsule and its volume (with headroom).
#[derive(Debug, Clone, Copy)]
struct AxisFit {
    cap: Capsule,
    volume: f64,
}

/// Minimum enclosing circle (Welzl, iterative) of 2D points visited in `order`.
fn min_enclosing_circle(q: &[[f64; 2]], order: &[usize]) -> ([f64; 2], f64) {
    let d = |a: [f64; 2], b: [f64; 2]| ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt();
    let inside = |c: [f64; 2], r: f64, p: [f64; 2]| d(c, p) <= r * (1.0 + 1e-12) + 1e-15;
    let Some(&first) = order.first() else {
        return ([0.0, 0.0], 0.0);
    };
    let mut c = q[first];
    let mut r = 0.0;
    for (ii, &i) in order.iter().enumerate() {
        if inside(c, r, q[i]) {
            continue;
        }
        c = q[i];
        r = 0.0;
        for (jj, &j) in order[..ii].iter().enumerate() {
            if inside(c, r, q[j]) {
                continue;
            }
            c = [(q[i][0] + q[j][0]) / 2.0, (q[i][1] + q[j][1]) / 2.0];
            r = d(q[i], q[j]) / 2.0;
            for &k in &order[..jj] {
                if inside(c, r, q[k]) {
                    continue;
                }
                (c, r) = circle3(q[i], q[j], q[k]);
            }
        }
    }
    (c, r)
}

/// Circle through three points; for (near-)collinear points, the circle on
/// the farthest pair as diameter (which then holds the third).
fn circle3(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> ([f64; 2], f64) {
    let (bx, by) = (b[0] - a[0], b[1] - a[1]);
    let (cx, cy) = (c[0] - a[0], c[1] - a[1]);
    let det = 2.0 * (bx * cy - by * cx);
    let scale = (bx * bx + by * by).max(cx * cx + cy * cy);
    let dist = |p: [f64; 2], q: [f64; 2]| ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2)).sqrt();
    if det.abs() > 1e-12 * scale {
        let b2 = bx * bx + by * by;
        let c2 = cx * cx + cy * cy;
        let ux = (cy * b2 - by * c2) / det;
        let uy = (bx * c2 - cx * b2) / det;
        let center = [a[0] + ux, a[1] + uy];
        let r = dist(center, a).max(dist(center, b)).max(dist(center, c));
        return (center, r);
    }
    let pairs = [(a, b), (a, c), (b, c)];
    let (p, q) = pairs
        .iter()
        .copied()
        .max_by(|x, y| dist(x.0, x.1).total_cmp(&dist(y.0, y.1)))
        .unwrap_or((a, b));
    let center = [(p[0] + q[0]) / 2.0, (p[1] + q[1]) / 2.0];
    let r = dist(center, a).max(dist(center, b)).max(dist(center, c));
    (center, r)
}

/// Capsule along axis `d` (unit) holding every point with `headroom`,
/// radius/length chosen for least volume. `fine` selects a finer 1D search.
/// Minimises `f` on `[lo, hi]`: `samples` uniform samples, then golden-section
/// search in the bracket around the best one. Returns the argmin and whether
/// the best sample was at an end of the interval.
pub fn minimize(
    f: &dyn Fn(f64) -> f64,
    lo: f64,
    hi: f64,
    samples: usize,
    iters: usize,
) -> (f64, bool) {
    let step = (hi - lo) / samples as f64;
    let mut best = (lo, f(lo));
    let mut best_k = 0usize;
    for k in 1..=samples {
        let r = if k == samples {
            hi
        } else {
            lo + step * k as f64
        };
        let v = f(r);
        if v < best.1 {
            best = (r, v);
            best_k = k;
        }
    }
    let mut a = lo + step * best_k.saturating_sub(1) as f64;
    let mut b = (lo + step * (best_k + 1) as f64).min(hi);
    let g = 0.5 * (5f64.sqrt() - 1.0);
    let mut x1 = b - g * (b - a);
    let mut x2 = a + g * (b - a);
    let (mut f1, mut f2) = (f(x1), f(x2));
    for _ in 0..iters {
        if f1 <= f2 {
            b = x2;
            x2 = x1;
            f2 = f1;
            x1 = b - g * (b - a);
            f1 = f(x1);
        } else {
            a = x1;
            x1 = x2;
            f1 = f2;
            x2 = a + g * (b - a);
            f2 = f(x2);
        }
    }
    let (xm, fm) = if f1 <= f2 { (x1, f1) } else { (x2, f2) };
    let at_edge = best_k == 0 || best_k == samples;
    if fm < best.1 {
        (xm, at_edge)
    } else {
        (best.0, at_edge)
    }
}

/// `hint`: the effective radius of a nearby axis's fit, to narrow the search.
fn fit_axis(p: &Prepared, d: V3, headroom: f64, fine: bool, hint: Option<f64>) -> AxisFit {
    let (e1, e2) = v3::orthonormal_basis(d);
    let n = p.pts.len();
    let mut q = Vec::with_capacity(n);
    let mut t = Vec::with_capacity(n);
    let (mut tmin, mut tmax) = (f64::INFINITY, f64::NEG_INFINITY);
    for x in p.pts {
        q.push([v3::dot(*x, e1), v3::dot(*x, e2)]);
        let ti = v3::dot(*x, d);
        tmin = tmin.min(ti);
        tmax = tmax.max(ti);
        t.push(ti);
    }
    let (o, _) = min_enclosing_circle(&q, &p.order);
    let mut rho2 = Vec::with_capacity(n);
    let mut rho2_max: f64 = 0.0;
    for qi in &q {
        let r2 = (qi[0] - o[0]).powi(2) + (qi[1] - o[1]).powi(2);
        rho2_max = rho2_max.max(r2);
        rho2.push(r2);
    }
    let r_lo = rho2_max.sqrt();
    let half = (tmax - tmin) / 2.0;
    let r_hi = (rho2_max + half * half).sqrt();
    // Segment ends along the axis for effective radius `r` (points within r).
    let ends = |r: f64| -> (f64, f64) {
        let r2 = r * r;
        let (mut tb, mut ta) = (f64::NEG_INFINITY, f64::INFINITY);
        for (ti, r2i) in t.iter().zip(&rho2) {
            let s = (r2 - r2i).max(0.0).sqrt();
            tb = tb.max(ti - s);
            ta = ta.min(ti + s);
        }
        (ta, tb)
    };
    let vol = |r: f64| -> f64 {
        let (ta, tb) = ends(r);
        let l = (tb - ta).max(0.0);
        let rr = r + headroom;
        std::f64::consts::PI * rr * rr * l + 4.0 / 3.0 * std::f64::consts::PI * rr * rr * rr
    };
    let best_r = if r_hi - r_lo <= 1e-12 * r_hi.max(1e-9) {
        r_lo
    } else {
        // Near the previous axis the best radius moves little: search a
        // narrow bracket first, the whole range if the optimum is at its edge.
        let narrow = hint.and_then(|h| {
            let (lo, hi) = ((h * 0.95).max(r_lo), (h * 1.05).min(r_hi));
            if hi <= lo {
                return None;
            }
            let (x, at_edge) = minimize(&vol, lo, hi, 4, 14);
            (!at_edge || (x <= r_lo * (1.0 + 1e-12)) || (x >= r_hi * (1.0 - 1e-12))).then_some(x)
        });
        match narrow {
            Some(x) => x,
            None if fine => minimize(&vol, r_lo, r_hi, 16, 20).0,
            None => minimize(&vol, r_lo, r_hi, 8, 10).0,
        }
    };
    let (ta, tb) = ends(best_r);
    let (ta, tb) = if tb >= ta {
        (ta, tb)
    } else {
        ((ta + tb) / 2.0, (ta + tb) / 2.0)
    };
    let base = v3::add(v3::scale(e1, o[0]), v3::scale(e2, o[1]));
    let cap = Capsule {
        a: v3::axpy(base, ta, d),
        b: v3::axpy(base, tb, d),
        radius: best_r + headroom,
    };
    AxisFit {
        cap,
        volume: cap.volume(),
    }
}

/// How hard [`fit_capsule_with`] searches.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Search {
    /// Fibonacci directions over the sphere for the coarse axis scan (half of
    /// them, one hemisphere, are tried).
    pub scan: usize,
    /// Best distinct axes refined by pattern search.
    pub starts: usize,
    /// Directions of the coreset the search runs on (see
    /// [`crate::geom::hull::directional_coreset`]); the final axis is
    /// re-fitted on every point.
    pub coreset: usize,
}

impl Default for Search {
    fn default() -> Self {
        Search {
            scan: 64,
            starts: 2,
            coreset: 512,
        }
    }
}

/// Minimum-volume capsule holding `points` with `headroom` (see module doc).
/// `extra_axes` are further axis directions to try (need not be unit).
/// Returns `None` only for an empty point set.
pub fn fit_capsule(points: &[V3], headroom: f64, extra_axes: &[V3]) -> Option<Capsule> {
    fit_capsule_with(points, headroom, extra_axes, &Search::default())
}

/// [`fit_capsule`] with an explicit search budget.
pub fn fit_capsule_with(
    points: &[V3],
    headroom: f64,
    extra_axes: &[V3],
    search: &Search,
) -> Option<Capsule> {
    if points.is_empty() {
        return None;
    }
    let core = super::hull::directional_coreset(points, search.coreset);
    let p = Prepared::new(&core);
    let mut axes: Vec<V3> = Vec::new();
    let (_, cov) = v3::mean_cov(&core);
    let (_, pca) = v3::sym_eigen(&cov);
    for k in 0..3 {
        axes.push(v3::col(&pca, k));
    }
    axes.extend(extra_axes.iter().filter_map(|a| v3::normalize(*a)));
    // Upper hemisphere only: an axis and its opposite give the same capsule.
    axes.extend(
        support::fibonacci_directions(search.scan)
            .into_iter()
            .filter(|d| d[2] >= 0.0),
    );
    let mut scored: Vec<(f64, V3)> = axes
        .iter()
        .map(|&d| (fit_axis(&p, d, headroom, false, None).volume, d))
        .collect();
    scored.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Refine the best few distinct starting axes.
    let mut starts: Vec<V3> = Vec::new();
    for (_, d) in &scored {
        if starts.iter().all(|s| v3::dot(*s, *d).abs() < 0.995) {
            starts.push(*d);
        }
        if starts.len() >= search.starts.max(1) {
            break;
        }
    }
    let mut best: Option<(AxisFit, V3)> = None;
    for s in starts {
        let f = refine(&p, s, headroom);
        if best.is_none_or(|b| f.0.volume < b.0.volume) {
            best = Some(f);
        }
    }
    let (fit, axis) = best?;
    if core.len() == points.len() {
        return Some(fit.cap);
    }
    // The chosen axis, fitted on every point.
    let all = Prepared::new(points);
    Some(fit_axis(&all, axis, headroom, true, Some(fit.cap.radius - headroom)).cap)
}

/// Pattern search over the axis direction, shrinking the step on failure.
fn refine(p: &Prepared, d0: V3, headroom: f64) -> (AxisFit, V3) {
    let mut d = d0;
    let mut cur = fit_axis(p, d, headroom, true, None);
    let mut step = 0.05;
    while step > 3e-4 {
        let (e1, e2) = v3::orthonormal_basis(d);
        let mut improved = false;
        for (axis, sign) in [(e1, 1.0), (e1, -1.0), (e2, 1.0), (e2, -1.0)] {
            let r = v3::rot_axis_angle(axis, sign * step);
            let nd = v3::normalize(v3::mul_mv(&r, d)).unwrap_or(d);
            let f = fit_axis(p, nd, headroom, true, Some(cur.cap.radius - headroom));
            if f.volume < cur.volume * (1.0 - 1e-12) {
                cur = f;
                d = nd;
                improved = true;
                break;
            }
        }
        if !improved {
            step *= 0.5;
        }
    }
    (cur, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cylinder(radius: f64, len: f64, n: usize) -> Vec<V3> {
        let mut v = Vec::new();
        for i in 0..n {
            let a = i as f64 * std::f64::consts::TAU / n as f64;
            for z in [0.0, len] {
                v.push([radius * a.cos() + 0.3, radius * a.sin() - 0.1, z + 0.2]);
            }
        }
        v
    }

    #[test]
    fn long_cylinder_gives_axis_capsule() {
        let pts = cylinder(0.05, 1.0, 64);
        let c = fit_capsule(&pts, 0.001, &[]).unwrap();
        let ax = c.axis().unwrap();
        assert!(ax[2].abs() > 0.9999, "{ax:?}");
        // Radius close to the cylinder's (plus headroom), rim corners inside.
        assert!(c.radius < 0.0515 + 0.002, "{}", c.radius);
        for p in &pts {
            assert!(c.depth(*p) >= 0.001 - 1e-9, "{}", c.depth(*p));
        }
    }

    #[test]
    fn single_point_and_segment() {
        let c = fit_capsule(&[[1.0, 2.0, 3.0]], 0.001, &[]).unwrap();
        assert!((c.radius - 0.001).abs() < 1e-12);
        assert_eq!(c.a, c.b);
        let c = fit_capsule(
            &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.5, 0.0, 0.0]],
            0.001,
            &[],
        )
        .unwrap();
        assert!((c.radius - 0.001).abs() < 1e-9, "{}", c.radius);
        assert!((v3::dist(c.a, c.b) - 1.0).abs() < 1e-6);
    }

    #[test]
    fn mec_is_minimal_for_square() {
        let q = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.5, 0.5]];
        let order: Vec<usize> = (0..q.len()).collect();
        let (c, r) = min_enclosing_circle(&q, &order);
        assert!((c[0] - 0.5).abs() < 1e-12 && (c[1] - 0.5).abs() < 1e-12);
        assert!((r - 0.5f64.sqrt()).abs() < 1e-12);
    }
}
