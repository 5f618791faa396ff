//! Links that mirror each other (left and right): found by name and shape, and the map
//! between their frames, so both sides get the same geometry.

use crate::geom::mesh::TriMesh;
use crate::geom::v3::{self, V3};
use std::collections::{BTreeMap, BTreeSet};

/// Links that mirror each other: names that differ only by a left/right marker
/// (`left`/`right`, `l_`/`r_`, `_l`/`_r`, `L_`/`R_`, ...) whose truth meshes have the same
/// extents along each axis of their link frames (within 3 mm or 3 %: vendors export the
/// two sides as separate meshes, a few vertices apart). Each maps to the other.
pub fn mirror_pairs(
    names: &[String],
    truths: &BTreeMap<String, TriMesh>,
) -> BTreeMap<String, String> {
    const MARKERS: [(&str, &str); 8] = [
        ("left", "right"),
        ("Left", "Right"),
        ("LEFT", "RIGHT"),
        ("l_", "r_"),
        ("_l_", "_r_"),
        ("_l", "_r"),
        ("L_", "R_"),
        ("_L", "_R"),
    ];
    let known: BTreeSet<&str> = names.iter().map(String::as_str).collect();
    let extents = |n: &str| -> Option<[f64; 3]> {
        let m = truths.get(n).filter(|m| !m.vertices.is_empty())?;
        let (lo, hi) = crate::geom::obb::extents(&m.vertices, &v3::IDENTITY);
        Some(v3::sub(hi, lo))
    };
    let alike = |a: &str, b: &str| match (extents(a), extents(b)) {
        (Some(x), Some(y)) => {
            (0..3).all(|k| (x[k] - y[k]).abs() <= (0.003f64).max(0.03 * x[k].max(y[k])))
        }
        _ => false,
    };
    let mut out = BTreeMap::new();
    for name in names {
        if out.contains_key(name) {
            continue;
        }
        let mut partner = None;
        for (l, r) in MARKERS {
            for (from, to) in [(l, r), (r, l)] {
                // Replace one occurrence at a word boundary-ish place: prefix, suffix or infix.
                let candidates = [
                    name.strip_prefix(from).map(|rest| format!("{to}{rest}")),
                    name.strip_suffix(from).map(|rest| format!("{rest}{to}")),
                    (from.len() > 2 || from.starts_with('_') && from.ends_with('_'))
                        .then(|| name.replacen(from, to, 1))
                        .filter(|n| n != name),
                ];
                for c in candidates.into_iter().flatten() {
                    if partner.is_none() && &c != name && known.contains(c.as_str()) {
                        partner = Some(c);
                    }
                }
            }
        }
        if let Some(p) = partner
            && alike(name, &p)
        {
            out.insert(name.clone(), p.clone());
            out.insert(p, name.clone());
        }
    }
    out
}

/// The sign flips (per axis, +1 or -1) that carry link `a`'s mesh onto its mirror image
/// `b`'s, each in its own frame: the flips under which the bounding boxes and the vertex
/// centroids agree best, within 3 mm or 3 % of the larger extent. A reflection (an odd
/// number of flips) wins a tie within a millimetre: mirrored links are reflections of each
/// other, and a symmetric mesh alone cannot say which plane. `None` when no flip fits.
pub fn mirror_signs(a: &TriMesh, b: &TriMesh) -> Option<V3> {
    if a.vertices.is_empty() || b.vertices.is_empty() {
        return None;
    }
    let (alo, ahi) = crate::geom::obb::extents(&a.vertices, &v3::IDENTITY);
    let (blo, bhi) = crate::geom::obb::extents(&b.vertices, &v3::IDENTITY);
    let centroid = |m: &TriMesh| {
        let n = m.vertices.len() as f64;
        m.vertices
            .iter()
            .fold([0.0; 3], |c, p| v3::add(c, v3::scale(*p, 1.0 / n)))
    };
    let (ac, bc) = (centroid(a), centroid(b));
    let size = (0..3)
        .map(|k| (ahi[k] - alo[k]).max(bhi[k] - blo[k]))
        .fold(0.0, f64::max);
    let tolerance = (0.003f64).max(0.03 * size);
    let mut best: Option<(f64, V3)> = None;
    for flips in 0..8u32 {
        let s: V3 = std::array::from_fn(|k| if flips >> k & 1 == 1 { -1.0 } else { 1.0 });
        let mut error: f64 = 0.0;
        for k in 0..3 {
            let (lo, hi) = if s[k] > 0.0 {
                (alo[k], ahi[k])
            } else {
                (-ahi[k], -alo[k])
            };
            error = error
                .max((lo - blo[k]).abs())
                .max((hi - bhi[k]).abs())
                .max((s[k] * ac[k] - bc[k]).abs());
        }
        let reflection = flips.count_ones() % 2 == 1;
        let score = error + if reflection { 0.0 } else { 1e-3 };
        if error <= tolerance && best.is_none_or(|(b, _)| score < b) {
            best = Some((score, s));
        }
    }
    best.map(|(_, s)| s)
}

/// `p` carried by [`mirror_signs`]' flips.
pub fn flip(p: V3, signs: V3) -> V3 {
    [p[0] * signs[0], p[1] * signs[1], p[2] * signs[2]]
}
