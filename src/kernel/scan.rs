//! The support scan of a hull: the index of the vertex maximising `d · p`, by a **full linear
//! scan** of every vertex. A hill climb on the hull's vertex graph can stop short of the
//! maximiser where the written hull (rounded to 1 µm) is not quite convex, and a bound taken
//! from it would then over-report clearance; `super::climb` proves at load how far short it
//! can stop and GJK subtracts that slack, so large hulls climb (`distance_hull_hull`) and
//! small ones, and every routine that needs the exact maximiser, scan here.
//!
//! Result contract, identical for every code path: the lowest index among the vertices whose
//! product is maximal, the product being [`dot_fma`], `fma(z, d2, fma(y, d1, x·d0))` in IEEE
//! double precision. NaN products are never selected (index 0 if no product exceeds −∞).
//! Because each product is the same IEEE expression in every path, the SIMD path returns
//! bit-for-bit the same index as the scalar reference, so results do not depend on which
//! path the CPU takes.
//!
//! Paths: AVX2 + FMA on x86-64 when the CPU has both (detected at run time, std only): one
//! pass stores every product and the maximum of each group of sixteen; a second pass finds
//! the first group holding the overall maximum (a bit mask built in a fixed number of steps,
//! so there is no data-dependent exit to mispredict) and compares only that group's
//! products. Otherwise a scalar loop with four interleaved lanes (`f64::mul_add`, exact in
//! software where the CPU lacks FMA). Measured on the development machine and not kept: a
//! single pass carrying indices by blend (1.5× slower inside GJK), group maxima without
//! stored products (recomputing the found group sits on GJK's serial chain: 1.3× slower), an
//! `f32` pre-filter with a rigorous error bound and an `f64` recheck of the candidates
//! (slower), AVX-512 (slower inside GJK; see docs/kernel.md).

use super::vec3::V3;

/// A point cloud in structure-of-arrays layout; the solid is its convex hull.
///
/// The slices must have equal lengths and at least one point. `table` is the cloud's
/// support table (`CELLS` entries of the `support_table` module) or empty; it only speeds GJK up.
/// `climb` is its vertex graph with a proven slack ([`super::climb`]) or [`Climb::NONE`].
#[derive(Clone, Copy, Debug)]
pub struct HullPoints<'a> {
    pub x: &'a [f64],
    pub y: &'a [f64],
    pub z: &'a [f64],
    pub table: &'a [u16],
    pub climb: Climb<'a>,
}

/// A hull's vertex graph for climbing, borrowed (`super::climb::Graph` owns it); `start`
/// empty means "scan".
#[derive(Clone, Copy, Debug, Default)]
pub struct Climb<'a> {
    pub start: &'a [u32],
    pub adj: &'a [u16],
    pub entry: u16,
    pub slack: f64,
}

impl Climb<'_> {
    /// No graph: the hull is scanned.
    pub const NONE: Climb<'static> = Climb {
        start: &[],
        adj: &[],
        entry: 0,
        slack: 0.0,
    };

    #[inline(always)]
    pub fn is_some(&self) -> bool {
        !self.start.is_empty()
    }
}

/// The most vertices the SIMD path scans (the kernel's hull limit); longer clouds take the
/// scalar path.
pub const MAX_SCAN: usize = 320;

/// Scalar reference implementation (four interleaved lanes, then a deterministic reduction).
#[inline]
pub fn argmax_dot_scalar(xs: &[f64], ys: &[f64], zs: &[f64], d: V3) -> usize {
    let n = xs.len();
    let (ys, zs) = (&ys[..n], &zs[..n]);
    let mut best = [f64::NEG_INFINITY; 4];
    let mut bi = [0usize; 4];
    let chunks = n / 4;
    for c in 0..chunks {
        let i = 4 * c;
        for l in 0..4 {
            let v = dot_fma(xs[i + l], ys[i + l], zs[i + l], d);
            if v > best[l] {
                best[l] = v;
                bi[l] = i + l;
            }
        }
    }
    for i in 4 * chunks..n {
        let l = i - 4 * chunks;
        let v = dot_fma(xs[i], ys[i], zs[i], d);
        if v > best[l] {
            best[l] = v;
            bi[l] = i;
        }
    }
    reduce(&best, &bi)
}

/// The product every path evaluates: `fma(z, d2, fma(y, d1, x·d0))`, rounded once per
/// fused operation (`f64::mul_add` is exact-then-rounded in software where the CPU lacks FMA).
#[inline(always)]
pub fn dot_fma(x: f64, y: f64, z: f64, d: V3) -> f64 {
    z.mul_add(d[2], y.mul_add(d[1], x * d[0]))
}

/// Lane reduction: the largest value, ties to the lowest index.
#[inline(always)]
fn reduce(best: &[f64], bi: &[usize]) -> usize {
    let mut b = 0;
    for l in 1..best.len() {
        if best[l] > best[b] || (best[l] == best[b] && bi[l] < bi[b]) {
            b = l;
        }
    }
    bi[b]
}

/// Whether this CPU takes the AVX2 + FMA path (detected once by std, then cached).
#[inline(always)]
fn simd_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// [`argmax_dot`] on two clouds at once (the two halves of a GJK support query).
#[inline]
pub fn argmax_dot2(a: &HullPoints<'_>, da: V3, b: &HullPoints<'_>, db: V3) -> (usize, usize) {
    #[cfg(target_arch = "x86_64")]
    {
        let fits = |p: &HullPoints<'_>| (16..=MAX_SCAN).contains(&p.x.len());
        if fits(a) && fits(b) && simd_available() {
            // SAFETY: the features were detected at run time.
            return unsafe { x86::argmax2_avx2((a.x, a.y, a.z), da, (b.x, b.y, b.z), db) };
        }
    }
    (argmax_dot(a, da), argmax_dot(b, db))
}

/// Index of the vertex maximising `d · p` (see the module docs for the exact contract).
#[inline]
pub fn argmax_dot(p: &HullPoints<'_>, d: V3) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        if (16..=MAX_SCAN).contains(&p.x.len()) && simd_available() {
            // SAFETY: the feature was detected at run time.
            return unsafe { x86::argmax_avx2(p.x, p.y, p.z, d) };
        }
    }
    argmax_dot_scalar(p.x, p.y, p.z, d)
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::MAX_SCAN;
    use crate::kernel::vec3::V3;
    use std::arch::x86_64::*;

    /// Pass 1: every product stored into `pp` (`n` of them) and each full group's lane-wise
    /// maximum into `gp` (`n / 16` of them); returns the maximum (−∞ when none exceeds it).
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn products_and_max(
        xs: &[f64],
        ys: &[f64],
        zs: &[f64],
        d: V3,
        pp: *mut f64,
        gp: *mut __m256d,
    ) -> f64 {
        let n = xs.len();
        assert!(ys.len() >= n && zs.len() >= n && n <= MAX_SCAN);
        let d0 = _mm256_set1_pd(d[0]);
        let d1 = _mm256_set1_pd(d[1]);
        let d2 = _mm256_set1_pd(d[2]);
        let (px, py, pz) = (xs.as_ptr(), ys.as_ptr(), zs.as_ptr());
        // SAFETY (all loops): loads and stores touch i..i+4 with i + 4 <= n <= MAX_SCAN.
        let dot4 = |i: usize| unsafe {
            _mm256_fmadd_pd(
                _mm256_loadu_pd(pz.add(i)),
                d2,
                _mm256_fmadd_pd(
                    _mm256_loadu_pd(py.add(i)),
                    d1,
                    _mm256_mul_pd(_mm256_loadu_pd(px.add(i)), d0),
                ),
            )
        };
        let ninf = _mm256_set1_pd(f64::NEG_INFINITY);
        let mut all = ninf;
        let c16 = n / 16;
        for c in 0..c16 {
            let i = 16 * c;
            let (v0, v1, v2, v3) = (dot4(i), dot4(i + 4), dot4(i + 8), dot4(i + 12));
            unsafe {
                _mm256_storeu_pd(pp.add(i), v0);
                _mm256_storeu_pd(pp.add(i + 4), v1);
                _mm256_storeu_pd(pp.add(i + 8), v2);
                _mm256_storeu_pd(pp.add(i + 12), v3);
            }
            // max_pd(v, m) returns m when v is NaN: NaN products are never the maximum.
            let g01 = _mm256_max_pd(v1, _mm256_max_pd(v0, ninf));
            let g23 = _mm256_max_pd(v3, _mm256_max_pd(v2, ninf));
            let g = _mm256_max_pd(g23, g01);
            // SAFETY: c < n / 16 <= MAX_SCAN / 16, the callers' group buffer length.
            unsafe { gp.add(c).write(g) };
            all = _mm256_max_pd(g, all);
        }
        let mut i = 16 * c16;
        while i + 4 <= n {
            let v = dot4(i);
            unsafe { _mm256_storeu_pd(pp.add(i), v) };
            all = _mm256_max_pd(v, all);
            i += 4;
        }
        let m = _mm256_max_pd(all, _mm256_permute4x64_pd::<0b01_00_11_10>(all));
        let m = _mm256_max_pd(m, _mm256_permute_pd::<0b0101>(m));
        let mut best = _mm256_cvtsd_f64(m);
        for k in i..n {
            let v = super::dot_fma(xs[k], ys[k], zs[k], d);
            // SAFETY: k < n <= MAX_SCAN.
            unsafe { pp.add(k).write(v) };
            if v > best {
                best = v;
            }
        }
        best
    }

    /// Pass 2: the first of the `n` stored products equal to `best` (0 when `best` is −∞),
    /// looked up through the group maxima.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn first_equal(pp: *const f64, gp: *const __m256d, n: usize, best: f64) -> usize {
        if best == f64::NEG_INFINITY {
            // No product exceeds −∞ (all NaN or −∞): index 0, as the scalar reference.
            return 0;
        }
        let mb = _mm256_set1_pd(best);
        // SAFETY: callers pass n products written by `products_and_max`.
        let eq = |i: usize| unsafe {
            _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_EQ_OQ>(_mm256_loadu_pd(pp.add(i)), mb))
        };
        // Which groups of sixteen hold the maximum, as a bit mask built in a fixed number of
        // steps (no data-dependent exit to mispredict), then the first such group's lanes.
        let groups = n / 16;
        let mut hit = 0u32;
        for c in 0..groups {
            // SAFETY: `products_and_max` wrote one maximum per full group.
            let g = unsafe { gp.add(c).read() };
            hit |= u32::from(_mm256_movemask_pd(_mm256_cmp_pd::<_CMP_EQ_OQ>(g, mb)) != 0) << c;
        }
        if hit != 0 {
            let i = 16 * hit.trailing_zeros() as usize;
            let m = eq(i) | (eq(i + 4) << 4) | (eq(i + 8) << 8) | (eq(i + 12) << 12);
            return i + m.trailing_zeros() as usize;
        }
        let mut i = 16 * groups;
        while i + 4 <= n {
            let m = eq(i);
            if m != 0 {
                return i + m.trailing_zeros() as usize;
            }
            i += 4;
        }
        // SAFETY: every k < n was written.
        (i..n)
            .find(|&k| unsafe { pp.add(k).read() } == best)
            .unwrap_or(0)
    }

    /// AVX2 + FMA two-pass scan of one cloud.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn argmax_avx2(xs: &[f64], ys: &[f64], zs: &[f64], d: V3) -> usize {
        // Only `..n` is written, then read: the rest need not be initialised.
        let mut products = std::mem::MaybeUninit::<[f64; MAX_SCAN]>::uninit();
        let mut groups = std::mem::MaybeUninit::<[__m256d; MAX_SCAN / 16]>::uninit();
        let pp = products.as_mut_ptr() as *mut f64;
        let gp = groups.as_mut_ptr() as *mut __m256d;
        unsafe {
            let best = products_and_max(xs, ys, zs, d, pp, gp);
            first_equal(pp, gp, xs.len(), best)
        }
    }

    /// Both clouds of a GJK support query in one function: the two first passes are
    /// independent, so the CPU overlaps them.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn argmax2_avx2(
        a: (&[f64], &[f64], &[f64]),
        da: V3,
        b: (&[f64], &[f64], &[f64]),
        db: V3,
    ) -> (usize, usize) {
        let mut pa = std::mem::MaybeUninit::<[f64; MAX_SCAN]>::uninit();
        let mut pb = std::mem::MaybeUninit::<[f64; MAX_SCAN]>::uninit();
        let mut ga = std::mem::MaybeUninit::<[__m256d; MAX_SCAN / 16]>::uninit();
        let mut gb = std::mem::MaybeUninit::<[__m256d; MAX_SCAN / 16]>::uninit();
        let (ppa, ppb) = (pa.as_mut_ptr() as *mut f64, pb.as_mut_ptr() as *mut f64);
        let (gpa, gpb) = (
            ga.as_mut_ptr() as *mut __m256d,
            gb.as_mut_ptr() as *mut __m256d,
        );
        unsafe {
            let besta = products_and_max(a.0, a.1, a.2, da, ppa, gpa);
            let bestb = products_and_max(b.0, b.1, b.2, db, ppb, gpb);
            (
                first_equal(ppa, gpa, a.0.len(), besta),
                first_equal(ppb, gpb, b.0.len(), bestb),
            )
        }
    }

    #[cfg(test)]
    pub(super) fn paths(xs: &[f64], ys: &[f64], zs: &[f64], d: V3) -> Vec<usize> {
        let mut out = vec![];
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            out.push(unsafe { argmax_avx2(xs, ys, zs, d) });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_product_above_minus_infinity_gives_index_zero_on_every_path() {
        let n = 20;
        let mut xs = vec![f64::NEG_INFINITY; n];
        xs[0] = f64::NAN;
        let (ys, zs) = (vec![0.0; n], vec![0.0; n]);
        let d = [1.0, 0.0, 0.0];
        assert_eq!(argmax_dot_scalar(&xs, &ys, &zs, d), 0);
        #[cfg(target_arch = "x86_64")]
        for got in x86::paths(&xs, &ys, &zs, d) {
            assert_eq!(got, 0);
        }
    }

    #[test]
    fn simd_paths_equal_the_scalar_reference_bit_for_bit() {
        // Deterministic pseudo-random clouds with many exact ties (values on a coarse grid).
        let mut rng = crate::kernel::XorShift(0x1234_5678_9abc_def1);
        let mut next = || ((rng.next_u64() >> 40) % 9) as f64 * 0.25 - 1.0;
        for n in [1usize, 3, 7, 8, 9, 15, 16, 17, 31, 33, 64, 152, 320] {
            for _ in 0..200 {
                let mut xs: Vec<f64> = (0..n).map(|_| next()).collect();
                // NaN products are never selected, on any path.
                if n > 4 && next() > 0.5 {
                    xs[n / 3] = f64::NAN;
                }
                let ys: Vec<f64> = (0..n).map(|_| next()).collect();
                let zs: Vec<f64> = (0..n).map(|_| next()).collect();
                let d = [next(), next(), next()];
                let want = argmax_dot_scalar(&xs, &ys, &zs, d);
                // Lowest index among the maxima.
                let dots: Vec<f64> = (0..n).map(|i| dot_fma(xs[i], ys[i], zs[i], d)).collect();
                let m = dots
                    .iter()
                    .cloned()
                    .filter(|v| !v.is_nan())
                    .fold(f64::NEG_INFINITY, f64::max);
                assert_eq!(want, dots.iter().position(|&v| v == m).unwrap());
                #[cfg(target_arch = "x86_64")]
                for got in x86::paths(&xs, &ys, &zs, d) {
                    assert_eq!(got, want, "n = {n}");
                }
                let p = HullPoints {
                    x: &xs,
                    y: &ys,
                    z: &zs,
                    table: &[],
                    climb: Climb::NONE,
                };
                assert_eq!(argmax_dot(&p, d), want);
                // The paired scan gives each cloud's own answer.
                let e = [d[1], d[2], d[0]];
                assert_eq!(argmax_dot2(&p, d, &p, e), (want, argmax_dot(&p, e)));
            }
        }
    }
}
