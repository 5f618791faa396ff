//! A hull's support table: a cube map of directions (six faces of `EDGE × EDGE` cells), each
//! cell holding the vertex a full scan finds furthest along the cell's centre direction.
//!
//! GJK uses it only to **propose** simplex points before its full scans (`gjk`):
//! a proposal is a real vertex, so it gives a real point of `A − B` and can only lower the
//! simplex's distance (an upper estimate), never a bound. Every lower bound still comes from
//! a full linear scan ([`super::scan`]), so a poor entry costs iterations, never soundness.
//! Measured on the bench's 152-vertex hulls: with proposals a cold query needs 1.5 full
//! scans instead of 9 (docs/kernel.md).

use super::scan::{HullPoints, argmax_dot};
use super::vec3::{V3, select};

/// Cells along a cube face's edge. 24 (6.9 KB per hull) gave 1.48 full scans per cold query
/// on the bench's 152-vertex hulls and 2.17 on the Panda's; 16 (3 KB) gave 1.73 and 2.56, 32
/// (12 KB) 1.38 and 2.04.
pub const EDGE: usize = 24;
/// Cells in a table.
pub const CELLS: usize = 6 * EDGE * EDGE;

/// The cell of direction `d`: the face of its largest component (ties to the lower axis),
/// then the two other components divided by that one, on an `EDGE × EDGE` grid. Any input
/// (zero, infinite or NaN components) gives an index below [`CELLS`].
#[inline(always)]
pub fn cell(d: V3) -> usize {
    let ax = [d[0].abs(), d[1].abs(), d[2].abs()];
    let x_major = ax[0] >= ax[1] && ax[0] >= ax[2];
    let y_major = !x_major && ax[1] >= ax[2];
    // The face's axis k and the two others, (k + 1) % 3 and (k + 2) % 3, picked by selects
    // (random directions would mispredict branches).
    let pick = |x: f64, y: f64, z: f64| select(x_major, x, select(y_major, y, z));
    let (major, u, v) = (
        pick(d[0], d[1], d[2]),
        pick(d[1], d[2], d[0]),
        pick(d[2], d[0], d[1]),
    );
    let k = usize::from(!x_major) + usize::from(!x_major && !y_major);
    let face = 2 * k + usize::from(major < 0.0);
    let half_scale = 0.5 * EDGE as f64 / major.abs();
    // Clamped first (NaN to 0: `f64::max` ignores it), so the conversion needs no checks.
    let grid = |x: f64| {
        let g = (x * half_scale + 0.5 * EDGE as f64)
            .max(0.0)
            .min((EDGE - 1) as f64);
        // SAFETY: `g` is finite and within 0..=EDGE - 1.
        unsafe { g.to_int_unchecked::<u32>() as usize }
    };
    (face * EDGE + grid(u)) * EDGE + grid(v)
}

/// The centre direction of cell `c` (not normalised).
fn centre(c: usize) -> V3 {
    let (face, iu, iv) = (c / (EDGE * EDGE), (c / EDGE) % EDGE, c % EDGE);
    let k = face / 2;
    let at = |i: usize| -1.0 + (i as f64 + 0.5) * 2.0 / EDGE as f64;
    let mut d = [0.0; 3];
    d[k] = if face % 2 == 0 { 1.0 } else { -1.0 };
    d[(k + 1) % 3] = at(iu);
    d[(k + 2) % 3] = at(iv);
    d
}

/// The table of a hull, by one full scan per cell.
pub fn build(pts: &HullPoints<'_>) -> Vec<u16> {
    (0..CELLS)
        .map(|c| {
            let i = argmax_dot(pts, centre(c));
            u16::try_from(i).expect("a hull has at most 65,536 vertices")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cell_centre_maps_back_to_its_cell() {
        for c in 0..CELLS {
            assert_eq!(cell(centre(c)), c);
        }
    }

    #[test]
    fn any_direction_maps_inside_the_table() {
        let odd = [0.0, -0.0, 1.0, -1.0, 1e-300, f64::INFINITY, f64::NAN];
        for &x in &odd {
            for &y in &odd {
                for &z in &odd {
                    assert!(cell([x, y, z]) < CELLS);
                }
            }
        }
    }

    #[test]
    fn a_directions_cell_holds_the_direction() {
        // The cell's face is the direction's largest component, and the direction lies
        // within the cell's square on that face.
        let mut rng = crate::kernel::XorShift(0x51de_cafe_f00d_0001);
        let mut uniform = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
        for _ in 0..100_000 {
            let d = [uniform(), uniform(), uniform()];
            let c = cell(d);
            let m = centre(c);
            let k = (c / (EDGE * EDGE)) / 2;
            assert_eq!(d[k].signum(), m[k]);
            let w = 1.0 / EDGE as f64 + 1e-12;
            for j in [(k + 1) % 3, (k + 2) % 3] {
                assert!((d[j] / d[k].abs() - m[j]).abs() <= w, "{d:?} in cell {c}");
            }
        }
    }

    #[test]
    fn entries_are_full_scan_supports_of_the_cell_centres() {
        let pts: Vec<V3> = (0..40)
            .map(|i| {
                let t = i as f64 * 0.7;
                [t.cos() * (1.0 + 0.1 * t), t.sin(), (0.3 * t).sin() * 2.0]
            })
            .collect();
        let (x, y, z): (Vec<f64>, Vec<f64>, Vec<f64>) = (
            pts.iter().map(|p| p[0]).collect(),
            pts.iter().map(|p| p[1]).collect(),
            pts.iter().map(|p| p[2]).collect(),
        );
        let table = build(&HullPoints {
            x: &x,
            y: &y,
            z: &z,
            table: &[],
            climb: crate::kernel::scan::Climb::NONE,
        });
        for c in 0..CELLS {
            let d = centre(c);
            let best = pts
                .iter()
                .map(|p| p[0] * d[0] + p[1] * d[1] + p[2] * d[2])
                .fold(f64::NEG_INFINITY, f64::max);
            let p = pts[table[c] as usize];
            assert!(p[0] * d[0] + p[1] * d[1] + p[2] * d[2] >= best - 1e-12);
        }
    }
}
