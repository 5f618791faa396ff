//! Seeded in-limit configurations: sample `index` of seed `seed` is the same whatever
//! the thread count, because each sample has its own generator seeded from both.

use crate::acm::never::dof_range;
use crate::kernel::Model;
use rand_core::Rng;
use rand_pcg::Pcg64;

/// A uniform draw in [0, 1) from 53 random bits.
fn unit(rng: &mut Pcg64) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Configuration `index` of `seed`: every dof uniform in its range (one turn for continuous joints).
pub fn uniform_q(model: &Model, seed: u64, index: u64, q: &mut [f64]) {
    let mut rng = Pcg64::new(seed as u128, index as u128);
    for (dof, value) in q.iter_mut().enumerate() {
        let (lo, hi) = dof_range(model, dof);
        *value = lo + (hi - lo) * unit(&mut rng);
    }
}
