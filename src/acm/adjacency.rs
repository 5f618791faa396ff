//! Adjacent pairs: links joined by one moving joint, after welding fixed-joint
//! groups into rigid bodies and collapsing bodies without geometry (as MoveIt does).

/// The link tree as the ACM sees it.
pub struct LinkTree {
    /// Parent link of each link (`None` for the root); links in topological order.
    pub parent: Vec<Option<usize>>,
    /// Whether the joint from the parent is fixed.
    pub fixed_to_parent: Vec<bool>,
    pub has_geometry: Vec<bool>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Adjacency {
    /// Same rigid body: fixed joints only between them.
    Rigid,
    /// One moving joint between their rigid bodies, possibly through bodies without geometry.
    Joint,
}

impl LinkTree {
    /// The tree of a kernel model's links.
    pub fn of_model(model: &crate::kernel::Model) -> LinkTree {
        let links = model.links();
        LinkTree {
            parent: links.iter().map(|l| l.parent).collect(),
            fixed_to_parent: links
                .iter()
                .map(|l| l.joint.kind == crate::kernel::model::JointKind::Fixed)
                .collect(),
            has_geometry: links.iter().map(|l| !l.primitives.is_empty()).collect(),
        }
    }

    /// The rigid body (index of its topmost link) each link belongs to.
    pub fn rigid_body(&self) -> Vec<usize> {
        let mut body = (0..self.parent.len()).collect::<Vec<_>>();
        for i in 0..self.parent.len() {
            if let (Some(p), true) = (self.parent[i], self.fixed_to_parent[i]) {
                body[i] = body[p];
            }
        }
        body
    }

    /// Every adjacent pair (a < b) with how they are adjacent, sorted.
    pub fn adjacent_pairs(&self) -> Vec<(usize, usize, Adjacency)> {
        let n = self.parent.len();
        let body = self.rigid_body();
        let mut body_has_geometry = vec![false; n];
        for i in 0..n {
            body_has_geometry[body[i]] |= self.has_geometry[i];
        }
        // The nearest ancestor body with geometry, skipping bodies without any.
        let parent_body = |b: usize| self.parent[b].map(|p| body[p]);
        let nearest_geometric_ancestor = |b: usize| {
            let mut current = parent_body(b);
            while let Some(a) = current {
                if body_has_geometry[a] {
                    return Some(a);
                }
                current = parent_body(a);
            }
            None
        };
        let mut adjacent_bodies = std::collections::BTreeSet::new();
        for b in 0..n {
            if body[b] == b
                && body_has_geometry[b]
                && let Some(a) = nearest_geometric_ancestor(b)
            {
                adjacent_bodies.insert((a.min(b), a.max(b)));
            }
        }
        let mut out = Vec::new();
        for i in 0..n {
            for j in i + 1..n {
                if !self.has_geometry[i] || !self.has_geometry[j] {
                    continue;
                }
                let (bi, bj) = (body[i], body[j]);
                if bi == bj {
                    out.push((i, j, Adjacency::Rigid));
                } else if adjacent_bodies.contains(&(bi.min(bj), bi.max(bj))) {
                    out.push((i, j, Adjacency::Joint));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collapses_links_without_geometry_and_welds_fixed_joints() {
        // 0 base -> 1 (no geometry, moving) -> 2 (moving) -fixed-> 3 ; 2 -> 4 (moving)
        let tree = LinkTree {
            parent: vec![None, Some(0), Some(1), Some(2), Some(2)],
            fixed_to_parent: vec![false, false, false, true, false],
            has_geometry: vec![true, false, true, true, true],
        };
        let pairs = tree.adjacent_pairs();
        assert!(pairs.contains(&(0, 2, Adjacency::Joint)), "{pairs:?}");
        assert!(pairs.contains(&(2, 3, Adjacency::Rigid)));
        assert!(pairs.contains(&(2, 4, Adjacency::Joint)));
        assert!(
            pairs.contains(&(3, 4, Adjacency::Joint)),
            "the welded link is adjacent too"
        );
        assert!(!pairs.iter().any(|p| p.0 == 0 && p.1 == 4));
    }
}
