//! The occupancy grid: which cells of a regular lattice are occupied, held so that a query
//! visits occupied cells only.
//!
//! Cell `(i, j, k)` is the axis-aligned box `origin + pitch · ([i, i+1] × [j, j+1] × [k, k+1])`.
//!
//! # The sparse index
//!
//! Cells are grouped in bricks of 8 × 8 × 8. A brick stores one byte per row of 8 cells
//! along x (64 rows: `row = 8·z + y` in the brick) and a 64-bit summary of its non-empty
//! rows. The bricks that hold an occupied cell are listed once; a dense table over the
//! span of occupied bricks maps brick coordinates to that list (`u32::MAX`: empty). A
//! window query reads one table entry per brick of the window (an empty brick costs that
//! read and nothing else), then in an occupied brick only the rows that are both in the
//! window and non-empty (a bit scan of the summary masked by the window's rows), and in a
//! row only its occupied cells (a bit scan of the row masked by the window's columns).
//! Empty space is never enumerated cell by cell.
//!
//! Built once (allocates); queries allocate nothing. `Send + Sync` (plain data).

use super::super::vec3::{V3, finite};

/// Most occupied cells a grid may hold (16.7 million: 2 bytes of index and a bit each).
pub const MAX_CELLS: usize = 1 << 24;
/// Most bricks (8 × 8 × 8 cells) the box around the occupied cells may span: the dense
/// brick table is 4 bytes a brick, so at most 16 MiB.
pub const MAX_BRICK_SPAN: usize = 1 << 22;
/// Largest cell index magnitude accepted (cell centres stay exact integers in `f64`
/// arithmetic and brick coordinates in `i32`).
pub const MAX_INDEX: i64 = 1 << 28;

const B: i32 = 8;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Brick {
    /// Bit `x` of `rows[8·z + y]`: cell `(x, y, z)` of the brick is occupied.
    rows: [u8; 64],
    /// Bit `r`: `rows[r] != 0`.
    summary: u64,
}

impl Brick {
    const EMPTY: Brick = Brick {
        rows: [0; 64],
        summary: 0,
    };
}

/// An occupancy grid with a sparse index (module docs). Immutable once built.
#[derive(Clone, Debug, PartialEq)]
pub struct OccupancyGrid {
    origin: V3,
    pitch: f64,
    n_cells: usize,
    /// Brick coordinates of the first brick of the dense table.
    brick_lo: [i32; 3],
    /// Bricks per axis of the dense table (0 for an empty grid).
    brick_dims: [usize; 3],
    /// Dense over the brick span: index into `bricks`, `u32::MAX` for an empty brick.
    brick_of: Vec<u32>,
    bricks: Vec<Brick>,
}

/// Checks the lattice: a finite origin and a finite pitch above zero.
pub(crate) fn check_lattice(origin: V3, pitch: f64) -> Result<(), String> {
    if !finite(origin) {
        return Err(format!("origin {origin:?} is not finite"));
    }
    if !(pitch.is_finite() && pitch > 0.0) {
        return Err(format!(
            "pitch is {pitch}, expected a finite number > 0 (metres)"
        ));
    }
    Ok(())
}

impl OccupancyGrid {
    /// A grid whose occupied cells are `cells` (duplicates allowed). Errors: a non-finite
    /// origin, a pitch that is not a finite number above 0, more than [`MAX_CELLS`]
    /// distinct cells, an index beyond ±[`MAX_INDEX`], or occupied cells spanning more
    /// than [`MAX_BRICK_SPAN`] bricks. Nothing is built on error.
    pub fn from_cells(origin: V3, pitch: f64, cells: &[[i32; 3]]) -> Result<OccupancyGrid, String> {
        check_lattice(origin, pitch)?;
        if let Some((n, c)) = cells
            .iter()
            .enumerate()
            .find(|(_, c)| c.iter().any(|&v| i64::from(v).abs() > MAX_INDEX))
        {
            return Err(format!(
                "cell {n} is {c:?}: indices must lie within ±{MAX_INDEX}"
            ));
        }
        let mut sorted = cells.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        if sorted.len() > MAX_CELLS {
            return Err(format!(
                "{} occupied cells, more than the limit of {MAX_CELLS}",
                sorted.len()
            ));
        }
        let mut grid = OccupancyGrid {
            origin,
            pitch,
            n_cells: sorted.len(),
            brick_lo: [0; 3],
            brick_dims: [0; 3],
            brick_of: Vec::new(),
            bricks: Vec::new(),
        };
        if sorted.is_empty() {
            return Ok(grid);
        }
        let mut lo = [i32::MAX; 3];
        let mut hi = [i32::MIN; 3];
        for c in &sorted {
            for a in 0..3 {
                let b = c[a].div_euclid(B);
                lo[a] = lo[a].min(b);
                hi[a] = hi[a].max(b);
            }
        }
        let dims = [0, 1, 2].map(|a| (hi[a] - lo[a] + 1) as usize);
        let span = dims[0] as u128 * dims[1] as u128 * dims[2] as u128;
        if span > MAX_BRICK_SPAN as u128 {
            return Err(format!(
                "the occupied cells span {} x {} x {} cells, more than the limit of {MAX_BRICK_SPAN} bricks of 8^3 cells",
                dims[0] * 8,
                dims[1] * 8,
                dims[2] * 8
            ));
        }
        grid.brick_lo = lo;
        grid.brick_dims = dims;
        grid.brick_of = vec![u32::MAX; span as usize];
        for c in &sorted {
            let slot = grid.slot([0, 1, 2].map(|a| c[a].div_euclid(B)));
            if grid.brick_of[slot] == u32::MAX {
                grid.brick_of[slot] = grid.bricks.len() as u32;
                grid.bricks.push(Brick::EMPTY);
            }
            let b = &mut grid.bricks[grid.brick_of[slot] as usize];
            let [x, y, z] = [0, 1, 2].map(|a| c[a].rem_euclid(B) as usize);
            b.rows[8 * z + y] |= 1 << x;
            b.summary |= 1 << (8 * z + y);
        }
        Ok(grid)
    }

    /// The dense-table slot of brick `b` (inside the span).
    #[inline(always)]
    fn slot(&self, b: [i32; 3]) -> usize {
        let [dx, dy, _] = self.brick_dims;
        let r = [0, 1, 2].map(|a| (b[a] - self.brick_lo[a]) as usize);
        (r[2] * dy + r[1]) * dx + r[0]
    }

    pub fn origin(&self) -> V3 {
        self.origin
    }

    pub fn pitch(&self) -> f64 {
        self.pitch
    }

    /// Number of distinct occupied cells.
    pub fn len(&self) -> usize {
        self.n_cells
    }

    pub fn is_empty(&self) -> bool {
        self.n_cells == 0
    }

    /// Bytes held by the index (the dense brick table and the occupied bricks).
    pub fn index_bytes(&self) -> usize {
        self.brick_of.len() * 4 + self.bricks.len() * std::mem::size_of::<Brick>()
    }

    /// Whether cell `c` is occupied.
    pub fn contains(&self, c: [i32; 3]) -> bool {
        let mut hit = false;
        self.for_each_in(c, c, |_| {
            hit = true;
            true
        });
        hit
    }

    /// The centre of cell `c` and its half side.
    #[inline(always)]
    pub fn cell_center(&self, c: [i32; 3]) -> V3 {
        let h = 0.5 * self.pitch;
        [0, 1, 2].map(|a| self.origin[a] + self.pitch * f64::from(c[a]) + h)
    }

    /// The range of cell indices along every axis whose boxes may come within `reach` of
    /// the box `[lo, hi]`, widened by one cell on each side so that rounding in the
    /// caller's box or here never drops a cell: every cell whose box is within `reach` of
    /// `[lo, hi]` lies in the range (a cell outside it along axis `a` is more than `reach`
    /// apart along that axis alone). `None` when a bound is not finite (the caller treats
    /// that as unknown, never as free).
    pub fn window(&self, lo: V3, hi: V3, reach: f64) -> Option<([i32; 3], [i32; 3])> {
        let mut a_lo = [0i32; 3];
        let mut a_hi = [0i32; 3];
        for a in 0..3 {
            let x = ((lo[a] - reach - self.origin[a]) / self.pitch).floor() - 1.0;
            let y = ((hi[a] + reach - self.origin[a]) / self.pitch).floor() + 1.0;
            if !(x.is_finite() && y.is_finite()) {
                return None;
            }
            // Clamped to what an index can be; beyond it nothing is stored.
            let lim = (MAX_INDEX + 1) as f64;
            a_lo[a] = x.clamp(-lim, lim) as i32;
            a_hi[a] = y.clamp(-lim, lim) as i32;
        }
        Some((a_lo, a_hi))
    }

    /// Calls `f` on every occupied cell with `lo <= c <= hi` (inclusive, per axis), in a
    /// fixed order; stops when `f` returns `true` and then returns `true`. No allocation.
    #[inline]
    pub fn for_each_in(
        &self,
        lo: [i32; 3],
        hi: [i32; 3],
        mut f: impl FnMut([i32; 3]) -> bool,
    ) -> bool {
        if self.bricks.is_empty() {
            return false;
        }
        // Clamp to the span of stored bricks (cell coordinates).
        let mut clo = [0i32; 3];
        let mut chi = [0i32; 3];
        for a in 0..3 {
            let span_lo = self.brick_lo[a] * B;
            let span_hi = (self.brick_lo[a] + self.brick_dims[a] as i32) * B - 1;
            clo[a] = lo[a].max(span_lo);
            chi[a] = hi[a].min(span_hi);
            if clo[a] > chi[a] {
                return false;
            }
        }
        let blo = clo.map(|v| v.div_euclid(B));
        let bhi = chi.map(|v| v.div_euclid(B));
        for bz in blo[2]..=bhi[2] {
            let (z0, z1) = local_range(bz, clo[2], chi[2]);
            for by in blo[1]..=bhi[1] {
                let (y0, y1) = local_range(by, clo[1], chi[1]);
                let ymask = bits8(y0, y1) as u64;
                let mut rows = 0u64;
                for z in z0..=z1 {
                    rows |= ymask << (8 * z);
                }
                for bx in blo[0]..=bhi[0] {
                    let idx = self.brick_of[self.slot([bx, by, bz])];
                    if idx == u32::MAX {
                        continue;
                    }
                    let (x0, x1) = local_range(bx, clo[0], chi[0]);
                    let xmask = bits8(x0, x1);
                    let brick = &self.bricks[idx as usize];
                    let mut m = brick.summary & rows;
                    while m != 0 {
                        let r = m.trailing_zeros();
                        m &= m - 1;
                        let mut xs = brick.rows[r as usize] & xmask;
                        while xs != 0 {
                            let x = xs.trailing_zeros() as i32;
                            xs &= xs - 1;
                            let c = [bx * B + x, by * B + (r % 8) as i32, bz * B + (r / 8) as i32];
                            if f(c) {
                                return true;
                            }
                        }
                    }
                }
            }
        }
        false
    }

    /// Every occupied cell, in the order of [`Self::for_each_in`] over the whole span
    /// (allocates; for tests and tools).
    pub fn cells(&self) -> Vec<[i32; 3]> {
        let mut out = Vec::with_capacity(self.n_cells);
        self.for_each_in([i32::MIN; 3], [i32::MAX; 3], |c| {
            out.push(c);
            false
        });
        out
    }
}

/// The local index range `[a, b]` (0..8) of brick `brick` within the cell range `[lo, hi]`.
#[inline(always)]
fn local_range(brick: i32, lo: i32, hi: i32) -> (u32, u32) {
    let start = brick * B;
    ((lo - start).max(0) as u32, (hi - start).min(B - 1) as u32)
}

/// Bits `a..=b` of a byte.
#[inline(always)]
fn bits8(a: u32, b: u32) -> u8 {
    ((0xFFu32 << a) & (0xFFu32 >> (7 - b))) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_queries_find_exactly_the_cells_inside() {
        let mut cells = vec![];
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..500 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            cells.push([
                (s % 40) as i32 - 20,
                ((s >> 8) % 40) as i32 - 20,
                ((s >> 16) % 40) as i32 - 20,
            ]);
        }
        let g = OccupancyGrid::from_cells([0.0; 3], 0.025, &cells).unwrap();
        let mut uniq = cells.clone();
        uniq.sort_unstable();
        uniq.dedup();
        assert_eq!(g.len(), uniq.len());
        for (lo, hi) in [
            ([-20, -20, -20], [19, 19, 19]),
            ([-3, 2, -9], [7, 5, 0]),
            ([0, 0, 0], [0, 0, 0]),
            ([-1, -9, 4], [12, -1, 17]),
        ] {
            let mut got = vec![];
            g.for_each_in(lo, hi, |c| {
                got.push(c);
                false
            });
            got.sort_unstable();
            let want: Vec<_> = uniq
                .iter()
                .copied()
                .filter(|c| (0..3).all(|a| lo[a] <= c[a] && c[a] <= hi[a]))
                .collect();
            assert_eq!(got, want, "window {lo:?}..{hi:?}");
        }
        assert!(g.contains(uniq[0]));
    }

    #[test]
    fn bad_lattices_and_limits_are_refused() {
        assert!(OccupancyGrid::from_cells([0.0; 3], 0.0, &[]).is_err());
        assert!(OccupancyGrid::from_cells([0.0; 3], -1.0, &[]).is_err());
        assert!(OccupancyGrid::from_cells([0.0; 3], f64::NAN, &[]).is_err());
        assert!(OccupancyGrid::from_cells([f64::INFINITY, 0.0, 0.0], 0.1, &[]).is_err());
        let far = OccupancyGrid::from_cells([0.0; 3], 0.1, &[[0, 0, 0], [1 << 27, 1 << 27, 0]]);
        assert!(far.unwrap_err().contains("bricks"));
        let huge = OccupancyGrid::from_cells([0.0; 3], 0.1, &[[i32::MAX, 0, 0]]);
        assert!(huge.unwrap_err().contains("within"));
    }
}
