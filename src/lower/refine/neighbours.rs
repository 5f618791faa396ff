//! What a link's decomposition keeps out: its checked neighbours' vertices where they come
//! closest while apart.

use super::{REFINE_RAY_SEED, REFINE_RAYS, REFINE_STEPS};
use crate::error::Result;
use crate::geom::mesh::TriMesh;
use crate::geom::v3::{self, V3};
use crate::manifest::Manifest;
use crate::manifest::kernel::load_kernel;
use crate::truth::mesh::MeshTruth;
use crate::truth::poses::placements;
use crate::truth::reach::{Rays, ray_contacts};
use std::collections::{BTreeMap, BTreeSet};

/// The most points to keep out a link gathers ([`neighbours_to_clear`]; evenly strided
/// beyond that, before the decomposition keeps those inside its hull).
const MAX_NEIGHBOUR_POINTS: usize = 16_384;

/// Per link, the mesh vertices of the links it must clear, in its own frame: at the rest
/// pose and at the last free step of each of the refinement's rays (where, moving out from
/// rest, the robot comes closest before any checked pair's meshes touch), the vertices of
/// every link it is checked against (neither adjacent nor the user's, meshes apart) that lie
/// in its mesh's bounding box. What the contact-aware decomposition keeps out of a link's
/// pieces (a torso around its waist motor and the shoulders as they turn, a wrist around the
/// flange it folds onto). `skeleton` gives the joints and the rest pose; its links are not
/// read.
pub fn neighbours_to_clear(
    skeleton: &Manifest,
    truths: &BTreeMap<String, TriMesh>,
    user: &[(String, String)],
) -> Result<BTreeMap<String, Vec<V3>>> {
    // A robot of one rigid body has no pair to keep apart.
    if skeleton.joints.is_empty() {
        return Ok(BTreeMap::new());
    }
    let mut bare = skeleton.clone();
    bare.links.clear();
    bare.acm.clear();
    let k = load_kernel(&bare)?;
    let n = k.model.n_links();
    let mut tree = crate::acm::adjacency::LinkTree::of_model(&k.model);
    tree.has_geometry = k
        .link_names
        .iter()
        .map(|l| truths.contains_key(l))
        .collect();
    let mut exempt: BTreeSet<(usize, usize)> = tree
        .adjacent_pairs()
        .into_iter()
        .map(|(a, b, _)| (a.min(b), a.max(b)))
        .collect();
    for (a, b) in user {
        if let (Some(&a), Some(&b)) = (k.link_index.get(a), k.link_index.get(b)) {
            exempt.insert((a.min(b), a.max(b)));
        }
    }
    let truth = MeshTruth::new(&k.link_names, truths);
    let meshes: Vec<Option<&TriMesh>> = k
        .link_names
        .iter()
        .map(|l| truths.get(l).filter(|m| !m.vertices.is_empty()))
        .collect();
    let boxes: Vec<Option<(V3, V3)>> = meshes
        .iter()
        .map(|m| m.map(|m| crate::geom::obb::extents(&m.vertices, &v3::IDENTITY)))
        .collect();
    let spheres: Vec<Option<(V3, f64)>> = meshes
        .iter()
        .map(|m| m.map(|m| crate::truth::hull::sphere_of(m.vertices.iter().copied())))
        .collect();
    let pairs: Vec<(usize, usize)> = (0..n)
        .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
        .filter(|&(a, b)| meshes[a].is_some() && meshes[b].is_some() && !exempt.contains(&(a, b)))
        .collect();
    let rest_q = k.q_from(&skeleton.rest_pose.q);
    let mut ws = k.model.workspace();
    k.model.fk(&rest_q, &mut ws);
    let rest_place = placements(&ws, n);
    // Pairs touching at rest have no free pose to learn from (and would end every ray at
    // its first step): left out of the rays.
    let apart: Vec<(usize, usize)> = pairs
        .iter()
        .copied()
        .filter(|&(a, b)| !truth.touching(a, &rest_place[a], b, &rest_place[b]))
        .collect();
    let rays = ray_contacts(
        &k.model,
        &truth,
        &apart,
        Rays {
            rays: REFINE_RAYS,
            steps: REFINE_STEPS,
            seed: REFINE_RAY_SEED,
            rest_q: rest_q.clone(),
        },
    );
    let mut poses = vec![rest_q];
    for (r, &t) in rays.t_truth.iter().enumerate() {
        if t >= 1 {
            let mut q = vec![0.0; k.model.dof()];
            rays.rays
                .pose(&k.model, r, t.min(REFINE_STEPS + 1) - 1, &mut q);
            poses.push(q);
        }
    }
    let mut out: BTreeMap<String, Vec<V3>> = BTreeMap::new();
    for q in &poses {
        k.model.fk(q, &mut ws);
        let place = placements(&ws, n);
        for &(a, b) in &apart {
            let (Some((ca, ra)), Some((cb, rb))) = (spheres[a], spheres[b]) else {
                continue;
            };
            if v3::dist(place[a].transform_point(ca), place[b].transform_point(cb)) > ra + rb
                || truth.touching(a, &place[a], b, &place[b])
            {
                continue;
            }
            for (to, from) in [(a, b), (b, a)] {
                let (lo, hi) = boxes[to].expect("a link with a mesh");
                let inv = |w: V3| v3::mul_mtv(&place[to].rot, v3::sub(w, place[to].pos));
                let points: Vec<V3> = meshes[from]
                    .expect("a link with a mesh")
                    .vertices
                    .iter()
                    .map(|v| inv(place[from].transform_point(*v)))
                    .filter(|p| (0..3).all(|i| p[i] >= lo[i] && p[i] <= hi[i]))
                    .collect();
                if !points.is_empty() {
                    out.entry(k.link_names[to].clone())
                        .or_default()
                        .extend(points);
                }
            }
        }
    }
    // A link and its mirror image keep out the same points, each in its own frame: the
    // rays are not symmetric, and without this the two sides are cut differently.
    let names: Vec<String> = truths.keys().cloned().collect();
    let own = out.clone();
    for (name, partner) in super::mirror::mirror_pairs(&names, truths) {
        let (Some(points), Some(signs)) = (
            own.get(&partner),
            super::mirror::mirror_signs(&truths[&partner], &truths[&name]),
        ) else {
            continue;
        };
        out.entry(name)
            .or_default()
            .extend(points.iter().map(|&p| super::mirror::flip(p, signs)));
    }
    for points in out.values_mut() {
        if points.len() > MAX_NEIGHBOUR_POINTS {
            let step = points.len().div_ceil(MAX_NEIGHBOUR_POINTS);
            *points = points.iter().step_by(step).copied().collect();
        }
    }
    Ok(out)
}
