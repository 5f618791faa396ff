//! Contact sets: which checked pairs' meshes touch, per seeded pose, computed once.

use super::mesh::MeshTruth;
use super::poses::for_each_pose;
use crate::kernel::Model;

/// The touching pairs of seeded poses, computed once (see [`mesh_contacts`]). The hull
/// truth's contacts have the same shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeshContacts {
    pub poses: usize,
    pub seed: u64,
    /// The link pairs asked about (kernel link indices, `a < b`, sorted): a pair outside
    /// this list was not computed, so [`judge`] refuses a model that checks one.
    pub pairs: Vec<(u32, u32)>,
    /// Per pose `i` (`uniform_q(model, seed, i)`): the pairs of `pairs` whose meshes touch,
    /// sorted.
    pub contacts: Vec<Vec<(u32, u32)>>,
}

impl MeshContacts {
    /// In how many poses the meshes of kernel links `a` and `b` (either order) touch.
    pub fn count(&self, a: usize, b: usize) -> usize {
        let key = (a.min(b) as u32, a.max(b) as u32);
        self.contacts
            .iter()
            .filter(|pose| pose.binary_search(&key).is_ok())
            .count()
    }
}

/// `pairs` as `(min, max)`, without self-pairs or indices outside `0..n`, sorted, deduplicated.
pub fn normalized_pairs(pairs: &[(usize, usize)], n: usize) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = pairs
        .iter()
        .filter(|&&(a, b)| a != b && a < n && b < n)
        .map(|&(a, b)| (a.min(b) as u32, a.max(b) as u32))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Mesh contacts of every pair of `pairs` (kernel link indices, either order) on `poses`
/// seeded poses: pose `i` is `truth::poses::uniform_q(model, seed, i)`, links placed by the
/// kernel's forward kinematics. Parallel over poses (rayon); the output does not depend on
/// the thread count.
pub fn mesh_contacts(
    model: &Model,
    truth: &MeshTruth,
    pairs: &[(usize, usize)],
    poses: usize,
    seed: u64,
) -> MeshContacts {
    mesh_contacts_with_progress(
        model,
        truth,
        pairs,
        poses,
        seed,
        &crate::progress::ProgressBar::hidden(),
    )
}

/// [`mesh_contacts`], counting each pose on `bar`.
pub fn mesh_contacts_with_progress(
    model: &Model,
    truth: &MeshTruth,
    pairs: &[(usize, usize)],
    poses: usize,
    seed: u64,
    bar: &crate::progress::ProgressBar,
) -> MeshContacts {
    let pairs = normalized_pairs(pairs, model.n_links().min(truth.n_links()));
    let contacts = for_each_pose(model, seed, poses, |s, _| {
        s.place(model);
        let place = &s.place;
        let touching: Vec<(u32, u32)> = pairs
            .iter()
            .copied()
            .filter(|&(a, b)| {
                let (a, b) = (a as usize, b as usize);
                truth.touching(a, &place[a], b, &place[b])
            })
            .collect();
        bar.inc(1);
        touching
    });
    MeshContacts {
        poses,
        seed,
        pairs,
        contacts,
    }
}
