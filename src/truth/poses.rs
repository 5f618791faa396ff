//! Seeded in-limit configurations: sample `index` of seed `seed` is the same whatever
//! the thread count, because each sample has its own generator seeded from both.

use crate::kernel::vec3::Iso;
use crate::kernel::{Model, Workspace};
use rand_core::Rng;
use rand_pcg::Pcg64;
use rayon::prelude::*;

/// A uniform draw in [0, 1) from 53 random bits.
fn unit(rng: &mut Pcg64) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Configuration `index` of `seed`: every dof uniform in its range (one turn for continuous joints).
pub fn uniform_q(model: &Model, seed: u64, index: u64, q: &mut [f64]) {
    let mut rng = Pcg64::new(seed as u128, index as u128);
    for (dof, value) in q.iter_mut().enumerate() {
        let (lo, hi) = model.dof_range(dof);
        *value = lo + (hi - lo) * unit(&mut rng);
    }
}

/// A path through whatever lies in the way: from configuration `index` of `seed`, every dof
/// moves `step` a call (even dofs up, odd ones down) and turns back at its limits, `calls`
/// configurations long. What the coherent mode and warm starts are measured and tested on.
pub fn turning_path(
    model: &Model,
    seed: u64,
    index: u64,
    step: f64,
    calls: usize,
) -> Vec<Vec<f64>> {
    let mut q = vec![0.0; model.dof()];
    uniform_q(model, seed, index, &mut q);
    let mut dir: Vec<f64> = (0..q.len())
        .map(|i| if i % 2 == 0 { step } else { -step })
        .collect();
    (0..calls)
        .map(|_| {
            for (i, v) in q.iter_mut().enumerate() {
                let (lo, hi) = model.dof_range(i);
                if *v + dir[i] > hi || *v + dir[i] < lo {
                    dir[i] = -dir[i];
                }
                *v += dir[i];
            }
            q.clone()
        })
        .collect()
}

/// A thread's buffers for one pose: the kernel workspace, the joint vector and every
/// link's placement.
pub struct PoseScratch {
    pub ws: Workspace,
    pub q: Vec<f64>,
    pub place: Vec<Iso>,
}

impl PoseScratch {
    pub fn new(model: &Model) -> PoseScratch {
        PoseScratch {
            ws: model.workspace(),
            q: vec![0.0; model.dof()],
            place: Vec::with_capacity(model.n_links()),
        }
    }

    /// Forward kinematics of `self.q` and every link's placement.
    pub fn place(&mut self, model: &Model) {
        model.fk(&self.q, &mut self.ws);
        fill_placements(&self.ws, &mut self.place, model.n_links());
    }

    /// Seeded pose `index` of `seed`: its joint values, FK and every link's placement.
    pub fn pose(&mut self, model: &Model, seed: u64, index: u64) {
        uniform_q(model, seed, index, &mut self.q);
        self.place(model);
    }
}

/// Every link's placement after [`Model::fk`] into `ws`.
pub fn placements(ws: &Workspace, n_links: usize) -> Vec<Iso> {
    let mut out = Vec::with_capacity(n_links);
    fill_placements(ws, &mut out, n_links);
    out
}

/// [`placements`] into a reused buffer.
pub fn fill_placements(ws: &Workspace, out: &mut Vec<Iso>, n_links: usize) {
    out.clear();
    out.extend((0..n_links).map(|i| {
        let (rot, pos) = ws.link_pose(i);
        Iso { rot, pos }
    }));
}

/// Runs `f` on seeded poses `0..poses` of `seed` in parallel (rayon), each with a
/// thread's [`PoseScratch`] whose `q` holds the pose (call [`PoseScratch::place`] for the
/// links' placements), and returns the results in pose order: the same whatever the
/// thread count.
pub fn for_each_pose<T, F>(model: &Model, seed: u64, poses: usize, f: F) -> Vec<T>
where
    T: Send,
    F: Fn(&mut PoseScratch, usize) -> T + Sync + Send,
{
    (0..poses)
        .into_par_iter()
        .map_init(
            || PoseScratch::new(model),
            |s, i| {
                uniform_q(model, seed, i as u64, &mut s.q);
                f(s, i)
            },
        )
        .collect()
}
