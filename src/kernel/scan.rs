//! The support scan of a hull: the index of the vertex maximising `d · p`, by a **full linear
//! scan** of every vertex (never hill climbing: a local search can stop at a vertex that is not
//! the maximiser and so over-report clearance).
//!
//! Result contract, identical for every code path: the lowest index among the vertices whose
//! dot product is maximal, the dot product being evaluated as `(x·d0 + y·d1) + z·d2` in IEEE
//! double precision without fused multiply-add. NaN products are never selected (index 0 if
//! all are NaN). Because each product is the same IEEE expression in every path, the SIMD
//! paths return bit-for-bit the same index as the scalar reference, so results do not depend
//! on which path the CPU takes.
//!
//! Paths: AVX2 on x86-64 when the CPU has it (detected at run time, std only): a first pass
//! takes the maximum product over four accumulators, a second pass returns the first index
//! whose identically recomputed product equals it. Otherwise a scalar loop with four
//! interleaved lanes. No FMA is used in any path. (An AVX-512 variant measured slower inside
//! GJK on the development machine, so there is none.)

use super::shapes::HullPoints;
use super::vec3::V3;

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
            let v = xs[i + l] * d[0] + ys[i + l] * d[1] + zs[i + l] * d[2];
            if v > best[l] {
                best[l] = v;
                bi[l] = i + l;
            }
        }
    }
    for i in 4 * chunks..n {
        let l = i - 4 * chunks;
        let v = xs[i] * d[0] + ys[i] * d[1] + zs[i] * d[2];
        if v > best[l] {
            best[l] = v;
            bi[l] = i;
        }
    }
    reduce(&best, &bi)
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

/// Index of the vertex maximising `d · p` (see the module docs for the exact contract).
#[inline]
pub fn argmax_dot(p: &HullPoints<'_>, d: V3) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        if p.x.len() >= 16 && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the feature was detected at run time.
            return unsafe { x86::argmax_avx2_2pass(p.x, p.y, p.z, d) };
        }
    }
    argmax_dot_scalar(p.x, p.y, p.z, d)
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use crate::kernel::vec3::V3;
    use std::arch::x86_64::*;

    /// AVX2 two-pass: the maximum by `max_pd` over four accumulators, then the first index
    /// whose (identically recomputed) product equals it.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn argmax_avx2_2pass(xs: &[f64], ys: &[f64], zs: &[f64], d: V3) -> usize {
        let n = xs.len();
        assert!(ys.len() >= n && zs.len() >= n);
        let d0 = _mm256_set1_pd(d[0]);
        let d1 = _mm256_set1_pd(d[1]);
        let d2 = _mm256_set1_pd(d[2]);
        let (px, py, pz) = (xs.as_ptr(), ys.as_ptr(), zs.as_ptr());
        // SAFETY (both loops): every load reads i..i+4 with i + 4 <= n.
        let dot4 = |i: usize| unsafe {
            _mm256_add_pd(
                _mm256_add_pd(
                    _mm256_mul_pd(_mm256_loadu_pd(px.add(i)), d0),
                    _mm256_mul_pd(_mm256_loadu_pd(py.add(i)), d1),
                ),
                _mm256_mul_pd(_mm256_loadu_pd(pz.add(i)), d2),
            )
        };
        let ninf = _mm256_set1_pd(f64::NEG_INFINITY);
        let (mut m0, mut m1, mut m2, mut m3) = (ninf, ninf, ninf, ninf);
        let c16 = n / 16;
        for c in 0..c16 {
            let i = 16 * c;
            // max_pd(v, m) returns m when v is NaN: NaN products are never the maximum.
            m0 = _mm256_max_pd(dot4(i), m0);
            m1 = _mm256_max_pd(dot4(i + 4), m1);
            m2 = _mm256_max_pd(dot4(i + 8), m2);
            m3 = _mm256_max_pd(dot4(i + 12), m3);
        }
        let mut i = 16 * c16;
        while i + 4 <= n {
            m0 = _mm256_max_pd(dot4(i), m0);
            i += 4;
        }
        let m = _mm256_max_pd(_mm256_max_pd(m0, m1), _mm256_max_pd(m2, m3));
        let mut lanes = [0.0f64; 4];
        // SAFETY: four doubles.
        unsafe { _mm256_storeu_pd(lanes.as_mut_ptr(), m) };
        let mut best = lanes[0].max(lanes[1]).max(lanes[2].max(lanes[3]));
        for k in i..n {
            let v = xs[k] * d[0] + ys[k] * d[1] + zs[k] * d[2];
            if v > best {
                best = v;
            }
        }
        let mb = _mm256_set1_pd(best);
        let mut i = 0;
        while i + 4 <= n {
            let eq = _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_EQ_OQ>(dot4(i), mb));
            if eq != 0 {
                return i + eq.trailing_zeros() as usize;
            }
            i += 4;
        }
        for k in i..n {
            let v = xs[k] * d[0] + ys[k] * d[1] + zs[k] * d[2];
            if v == best {
                return k;
            }
        }
        0
    }

    #[cfg(test)]
    pub(super) fn paths(xs: &[f64], ys: &[f64], zs: &[f64], d: V3) -> Vec<usize> {
        let mut out = vec![];
        if std::arch::is_x86_feature_detected!("avx2") {
            out.push(unsafe { argmax_avx2_2pass(xs, ys, zs, d) });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simd_paths_equal_the_scalar_reference_bit_for_bit() {
        // Deterministic pseudo-random clouds with many exact ties (values on a coarse grid).
        let mut s = 0x1234_5678_9abc_def1u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 40) % 9) as f64 * 0.25 - 1.0
        };
        for n in [1usize, 3, 7, 8, 9, 15, 16, 17, 31, 33, 64, 152, 320] {
            for _ in 0..200 {
                let xs: Vec<f64> = (0..n).map(|_| next()).collect();
                let ys: Vec<f64> = (0..n).map(|_| next()).collect();
                let zs: Vec<f64> = (0..n).map(|_| next()).collect();
                let d = [next(), next(), next()];
                let want = argmax_dot_scalar(&xs, &ys, &zs, d);
                // Lowest index among the maxima.
                let dots: Vec<f64> = (0..n)
                    .map(|i| xs[i] * d[0] + ys[i] * d[1] + zs[i] * d[2])
                    .collect();
                let m = dots.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                assert_eq!(want, dots.iter().position(|&v| v == m).unwrap());
                #[cfg(target_arch = "x86_64")]
                for got in x86::paths(&xs, &ys, &zs, d) {
                    assert_eq!(got, want, "n = {n}");
                }
                let p = HullPoints {
                    x: &xs,
                    y: &ys,
                    z: &zs,
                };
                assert_eq!(argmax_dot(&p, d), want);
            }
        }
    }
}
