//! The containment proof on a manifest's written values: every vertex and every
//! surface triangle of every link's truth inside that link's primitives.

use crate::error::{Error, Result};
use crate::fit::{self, Proof};
use crate::geom::mesh::TriMesh;
use crate::manifest::Manifest;
use crate::manifest::fit::fit_primitive;
use rayon::prelude::*;
use std::collections::BTreeMap;

/// Proves one link's truth inside its written primitives.
pub fn prove_link(link: &crate::manifest::Link, mesh: &TriMesh) -> Result<Proof> {
    let prims: Vec<_> = link.primitives.iter().map(fit_primitive).collect();
    fit::proof::check_written(&prims)
        .and_then(|_| fit::prove(mesh, &prims, None))
        .map_err(|e| {
            Error::check(format!(
                "link `{}`: containment proof failed: {e}",
                link.name
            ))
        })
}

/// Proves every link; the achieved margin per link, or the first failure.
pub fn prove_manifest(
    m: &Manifest,
    truths: &BTreeMap<String, TriMesh>,
) -> Result<Vec<(String, Proof)>> {
    for name in truths.keys() {
        if !m.links.iter().any(|l| &l.name == name) {
            return Err(Error::check(format!(
                "link `{name}` has geometry but no primitives in the manifest"
            )));
        }
    }
    m.links
        .par_iter()
        .map(|link| {
            let Some(mesh) = truths.get(&link.name) else {
                return Err(Error::check(format!(
                    "link `{}` has primitives but no geometry in the robot",
                    link.name
                )));
            };
            let prims: Vec<_> = link.primitives.iter().map(fit_primitive).collect();
            fit::proof::check_written(&prims)
                .and_then(|_| fit::prove(mesh, &prims, None))
                .map(|p| (link.name.clone(), p))
                .map_err(|e| {
                    Error::check(format!(
                        "link `{}`: containment proof failed: {e}",
                        link.name
                    ))
                })
        })
        .collect()
}
