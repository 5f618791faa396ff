//! Support queries on a configuration-space obstacle `A − B`: the [`Cso`] trait (full scans,
//! which alone bound, and support tables' proposals, which only pick points), and the cold
//! start's proposals.

use super::simplex::{Simplex, origin_depth_in_tetrahedron};
use crate::kernel::shapes::SupportMap;
use crate::kernel::vec3::*;

/// The configuration-space obstacle `A − B` GJK works on, by its support map.
pub trait Cso {
    /// The point of `A − B` maximising `d · x`, with the ids of its two vertices.
    fn support(&self, d: V3) -> (V3, u32, u32);
    /// The point of `A − B` with the given vertex ids (a witness rebuilt from ids).
    fn point(&self, ia: u32, ib: u32) -> V3;
    /// Whether [`Self::proposal`] is cheaper than [`Self::support`] (a support table).
    fn has_proposals(&self) -> bool;
    /// A point of `A − B` near the support along `d`, with its ids, found cheaply: used
    /// only to propose simplex points, never for a bound.
    fn proposal(&self, d: V3) -> (V3, u32, u32);
}

/// `A − B` for any two support-mapped solids.
pub struct Difference<'s, A, B>(pub &'s A, pub &'s B);

impl<A: SupportMap, B: SupportMap> Cso for Difference<'_, A, B> {
    #[inline(always)]
    fn support(&self, d: V3) -> (V3, u32, u32) {
        let (pa, ia) = self.0.support(d);
        let (pb, ib) = self.1.support(neg(d));
        (sub(pa, pb), ia, ib)
    }

    #[inline(always)]
    fn point(&self, ia: u32, ib: u32) -> V3 {
        sub(self.0.vertex(ia), self.1.vertex(ib))
    }

    #[inline(always)]
    fn has_proposals(&self) -> bool {
        self.0.has_table() || self.1.has_table()
    }

    #[inline(always)]
    fn proposal(&self, d: V3) -> (V3, u32, u32) {
        let (pa, ia) = self.0.proposal(d);
        let (pb, ib) = self.1.proposal(neg(d));
        (sub(pa, pb), ia, ib)
    }
}

/// How the proposals ended (see [`propose`]).
pub(super) enum Proposed {
    /// The simplex stopped nearing the origin: full scans take over from it and its
    /// nearest point.
    Apart(V3),
    /// The origin lies inside a tetrahedron of `A − B` by more than the tolerance.
    Overlap,
    /// The simplex came within the tolerance of the origin without holding it deeply.
    NearOrigin,
}

/// The cold start with support tables: GJK steps on proposed points only, each joining the
/// simplex when it brings it nearer by more than the tolerance (as a scanned point must),
/// until one does not, or `max` proposals. No bound is taken from them. Returns the outcome
/// and the number of proposals.
#[inline(always)]
pub(super) fn propose<C: Cso>(
    c: &C,
    seed: V3,
    s: &mut Simplex,
    max: u32,
    tol_abs: f64,
    tol_rel: f64,
) -> (Proposed, u32) {
    let (w, ia, ib) = c.proposal(seed);
    s.push(w, ia, ib);
    let mut proposals = 1;
    let mut prev_ub = f64::INFINITY;
    loop {
        let v = s.closest();
        let vv = norm2(v);
        if vv <= tol_abs * tol_abs {
            let deep = vv <= 1e-300 && s.n == 4 && origin_depth_in_tetrahedron(&s.p) > tol_abs;
            let outcome = if deep {
                Proposed::Overlap
            } else {
                Proposed::NearOrigin
            };
            return (outcome, proposals);
        }
        let upper = vv.sqrt();
        if upper >= prev_ub || proposals >= max {
            return (Proposed::Apart(v), proposals);
        }
        prev_ub = upper;
        let (w, ia, ib) = c.proposal(neg(v));
        proposals += 1;
        if vv - dot(w, v) <= (tol_abs + tol_rel * upper) * upper || s.contains(ia, ib) {
            return (Proposed::Apart(v), proposals);
        }
        s.push(w, ia, ib);
    }
}
