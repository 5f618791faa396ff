//! The bound `never` on the meshes clears boxes by: a point fixed in one link moves against
//! the other, anywhere inside a box of joint intervals, by at most `room_in_box` from where
//! it is at the box's centre. Checked on the Panda's kinematics (every link pair, on both
//! sides of the tree and through up to seven joints), at seeded boxes, points and samples.

mod common;

use collide::acm::chain::PairChain;
use collide::acm::mesh_never::room_in_box;
use collide::kernel::vec3::{V3, add, mul_mtv, mul_mv, norm, sub};
use common::kernel_models::{Rng, panda, random_q};

/// Point `p` of link `b`'s frame in link `a`'s frame, at the configuration posed in `ws`.
fn in_a(ws: &collide::kernel::Workspace, a: usize, b: usize, p: V3) -> V3 {
    let (rb, tb) = ws.link_pose(b);
    let (ra, ta) = ws.link_pose(a);
    let world = add(mul_mv(&rb, p), tb);
    mul_mtv(&ra, sub(world, ta))
}

#[test]
fn no_point_moves_further_than_its_room() {
    let model = panda();
    let mut ws = model.workspace();
    let mut rng = Rng(0x5eed_0001);
    let n = model.n_links();
    let mut checked = 0;
    for a in 0..n {
        for b in 0..n {
            if a == b {
                continue;
            }
            let chain = PairChain::new(&model, a, b);
            if chain.dofs.is_empty() {
                continue;
            }
            for _ in 0..8 {
                let centre = random_q(&model, &mut rng);
                let half: Vec<f64> = chain.dofs.iter().map(|_| rng.range(0.0, 1.2)).collect();
                model.fk(&centre, &mut ws);
                // A seeded point, or one on a joint's axis (where only the joints after it
                // move it: the part of the bound a first-order one would miss).
                let (rb, tb) = ws.link_pose(b);
                let on_axes: Vec<V3> = chain
                    .steps
                    .iter()
                    .map(|s| {
                        let (r, t) = ws.link_pose(s.link);
                        let j = &model.links()[s.link].joint;
                        let world = add(add(mul_mv(&r, j.pivot), t), mul_mv(&r, j.axis));
                        mul_mtv(&rb, sub(world, tb))
                    })
                    .collect();
                let pick = rng.next_u64() as usize % (on_axes.len() + 1);
                let p = on_axes.get(pick).copied().unwrap_or([
                    rng.range(-0.2, 0.2),
                    rng.range(-0.2, 0.2),
                    rng.range(-0.2, 0.2),
                ]);
                let room = room_in_box(&model, &ws, &chain, (a, b), &half, p, 0.0);
                let at_centre = in_a(&ws, a, b, p);
                // The box's corners (where the most motion is) and seeded points inside it.
                let corners = 1usize << chain.dofs.len().min(6);
                for k in 0..corners + 32 {
                    let mut q = centre.clone();
                    for (i, &d) in chain.dofs.iter().enumerate() {
                        q[d] += if k < corners {
                            if (k >> i) & 1 == 1 { half[i] } else { -half[i] }
                        } else {
                            rng.range(-half[i], half[i])
                        };
                    }
                    model.fk(&q, &mut ws);
                    let moved = norm(sub(in_a(&ws, a, b, p), at_centre));
                    assert!(
                        moved <= room * (1.0 + 1e-9) + 1e-12,
                        "links {a}, {b}: moved {moved} > room {room} (half {half:?})"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 1000, "{checked}");
}
