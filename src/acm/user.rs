//! `user` rows: the robot config's `allow:` entries, exemptions decided rather than proven.
//!
//! Each entry becomes a manifest row `{reason: user, proof: <the entry's reason>}`, unless
//! the pair is proven anyway (then the proven row stays and the entry is redundant). Since no
//! proof backs a user row, the report measures how often the pair's meshes really touch on
//! seeded poses: an exemption of a pair that never touches there is reported as unnecessary.

use super::{SrdfRow, SrdfStatus};
use crate::error::{Error, Result};
use crate::io::allow::AllowEntry;
use crate::manifest::kernel::LoadedKernel;
use crate::manifest::{AcmEntry, Manifest};
use crate::model::LinkPair;
use crate::truth::contacts::mesh_contacts_with_progress;
use crate::truth::mesh::MeshTruth;
use std::collections::BTreeSet;
use std::path::Path;

/// The manifest's `reason` of a user row.
pub const USER: &str = "user";

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UserStatus {
    /// Written as a `user` row.
    Exempt,
    /// Already proven (`adjacent`, `always` or `never`): the proven row is kept.
    Redundant(String),
}

/// One `allow:` entry and what became of it.
#[derive(Debug, Clone)]
pub struct UserRow {
    /// Lower name first, as in the manifest.
    pub a: String,
    pub b: String,
    pub reason: String,
    /// Where the entry is in the config.
    pub at: Option<(u32, u32)>,
    pub status: UserStatus,
    /// Seeded poses in which the pair's meshes touch (within the manifest's margin), of
    /// `poses`; measured for `Exempt` rows only.
    pub mesh_contacts: Option<usize>,
    /// Seeded poses (the same ones) in which the pair's primitives overlap: what the kernel
    /// would stop on without the row.
    pub primitive_overlaps: usize,
    pub poses: usize,
}

impl UserRow {
    /// Exempt, yet the meshes touched in none of the sampled poses.
    pub fn unnecessary(&self) -> bool {
        self.status == UserStatus::Exempt && self.mesh_contacts == Some(0) && self.poses > 0
    }
}

/// Adds a `user` row to `rows` (the proven exemptions, sorted) for each entry of `allow` the
/// proofs do not already exempt, and says what became of each. An entry naming a link the
/// manifest has no primitives for is an error at its line in `config`: the manifest is older
/// than the robot.
pub fn merge(
    rows: &mut Vec<AcmEntry>,
    allow: &[AllowEntry],
    m: &Manifest,
    config: &Path,
) -> Result<Vec<UserRow>> {
    let mut out = Vec::new();
    for (i, e) in allow.iter().enumerate() {
        for (field, link) in [("a", &e.a), ("b", &e.b)] {
            if !m.links.iter().any(|l| &l.name == link) {
                return Err(Error::at(
                    config,
                    e.at,
                    format!(
                        "allow[{i}].{field}: link `{link}` has no primitives in the manifest; run `collide lower --write` first"
                    ),
                ));
            }
        }
        let LinkPair { a, b } = e.pair();
        let proven = rows
            .iter()
            .find(|r| r.a == a && r.b == b && r.reason != USER);
        let status = match proven {
            Some(r) => UserStatus::Redundant(r.reason.clone()),
            None => {
                rows.push(AcmEntry {
                    a: a.to_string(),
                    b: b.to_string(),
                    reason: USER.to_string(),
                    proof: e.reason.clone(),
                });
                UserStatus::Exempt
            }
        };
        out.push(UserRow {
            a: a.to_string(),
            b: b.to_string(),
            reason: e.reason.clone(),
            at: e.at,
            status,
            mesh_contacts: None,
            primitive_overlaps: 0,
            poses: 0,
        });
    }
    rows.sort_by(|x, y| (&x.a, &x.b).cmp(&(&y.a, &y.b)));
    Ok(out)
}

/// Fills in each exempt row's contact counts on `poses` seeded poses (the poses of the ACM's
/// sampling report with the same `seed`, placed by kernel `k`'s forward kinematics), on
/// `truth` (the manifest's links, with its margin); primitive overlaps from `overlaps`, the
/// sampling report's `(a, b, poses)` list.
pub fn measure(
    user: &mut [UserRow],
    k: &LoadedKernel,
    truth: &MeshTruth,
    overlaps: &[(String, String, usize)],
    poses: usize,
    seed: u64,
) -> Result<()> {
    for u in user.iter_mut() {
        u.poses = poses;
        u.primitive_overlaps = overlaps
            .iter()
            .find(|(a, b, _)| *a == u.a && *b == u.b)
            .map_or(0, |o| o.2);
    }
    let exempt: Vec<usize> = (0..user.len())
        .filter(|&i| user[i].status == UserStatus::Exempt)
        .collect();
    if exempt.is_empty() || poses == 0 {
        return Ok(());
    }
    let pairs: Vec<(usize, usize)> = exempt
        .iter()
        .map(|&i| (k.link_index[&user[i].a], k.link_index[&user[i].b]))
        .collect();
    let bar = crate::progress::bar(poses as u64, "allowed pairs' mesh contacts");
    let contacts = mesh_contacts_with_progress(&k.model, truth, &pairs, poses, seed, &bar);
    bar.finish_and_clear();
    for (&i, &(x, y)) in exempt.iter().zip(&pairs) {
        user[i].mesh_contacts = Some(contacts.count(x, y));
    }
    Ok(())
}

/// Which SRDF rows `--adopt-srdf` copies into the config's `allow:`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Adopt {
    /// Every row collide refutes or cannot prove.
    All,
    /// These pairs (either order); each must be such a row.
    Pairs(Vec<(String, String)>),
}

/// The `allow:` entries that adopt `srdf`'s rows as `adopt` asks: rows collide refutes or
/// cannot prove, with the SRDF's reason and line (`srdf_file` names the file), skipping pairs
/// `allow` already holds. A named pair that is no such row is refused with why.
pub fn adopted(
    srdf: &[SrdfRow],
    allow: &[AllowEntry],
    srdf_file: &str,
    adopt: &Adopt,
) -> std::result::Result<Vec<AllowEntry>, String> {
    let held: BTreeSet<LinkPair> = allow.iter().map(AllowEntry::pair).collect();
    let verdict = |s: &SrdfStatus| match s {
        SrdfStatus::Refuted { .. } => Some("refuted"),
        SrdfStatus::Unproven(_) => Some("unproven"),
        SrdfStatus::Proven(_) | SrdfStatus::NoGeometry => None,
    };
    let entry = |r: &SrdfRow, verdict: &str| {
        let given = if r.reason.trim().is_empty() {
            "no reason given".to_string()
        } else {
            r.reason.clone()
        };
        AllowEntry {
            a: r.a.clone(),
            b: r.b.clone(),
            reason: format!(
                "adopted from {srdf_file}:{} ({given}), {verdict} by collide",
                r.line
            ),
            at: None,
        }
    };
    let mut out: Vec<AllowEntry> = Vec::new();
    let mut taken: BTreeSet<(String, String)> = BTreeSet::new();
    let mut take = |r: &SrdfRow, verdict: &str, out: &mut Vec<AllowEntry>| {
        if !held.contains(&LinkPair::new(&r.a, &r.b)) && taken.insert((r.a.clone(), r.b.clone())) {
            out.push(entry(r, verdict));
        }
    };
    match adopt {
        Adopt::All => {
            for r in srdf {
                if let Some(v) = verdict(&r.status) {
                    take(r, v, &mut out);
                }
            }
        }
        Adopt::Pairs(pairs) => {
            for (x, y) in pairs {
                let (a, b) = if x <= y { (x, y) } else { (y, x) };
                let Some(r) = srdf.iter().find(|r| &r.a == a && &r.b == b) else {
                    return Err(format!("no row of the SRDF disables {x} / {y}"));
                };
                match (&r.status, verdict(&r.status)) {
                    (_, Some(v)) => take(r, v, &mut out),
                    (SrdfStatus::Proven(by), _) => {
                        return Err(format!(
                            "the SRDF row {x} / {y} (line {}) is proven `{by}`: it is exempt without adoption",
                            r.line
                        ));
                    }
                    _ => {
                        return Err(format!(
                            "the SRDF row {x} / {y} (line {}) names a link without geometry: the kernel never checks it",
                            r.line
                        ));
                    }
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(a: &str, b: &str, reason: &str, line: u32, status: SrdfStatus) -> SrdfRow {
        SrdfRow {
            a: a.into(),
            b: b.into(),
            reason: reason.into(),
            line,
            status,
        }
    }

    fn rows() -> Vec<SrdfRow> {
        vec![
            row("a", "b", "Never", 3, SrdfStatus::Proven("never")),
            row(
                "c",
                "d",
                "Default",
                4,
                SrdfStatus::Refuted {
                    q: vec![],
                    depth: 0.001,
                },
            ),
            row("e", "f", "", 5, SrdfStatus::Unproven("budget".into())),
            row("g", "h", "Never", 6, SrdfStatus::NoGeometry),
        ]
    }

    #[test]
    fn every_row_collide_does_not_prove_is_adopted_with_its_file_line_and_reason() {
        let got = adopted(&rows(), &[], "r.srdf", &Adopt::All).unwrap();
        let text: Vec<_> = got
            .iter()
            .map(|e| format!("{} {} {}", e.a, e.b, e.reason))
            .collect();
        assert_eq!(
            text,
            [
                "c d adopted from r.srdf:4 (Default), refuted by collide",
                "e f adopted from r.srdf:5 (no reason given), unproven by collide"
            ]
        );
    }

    #[test]
    fn held_pairs_are_skipped_and_named_pairs_must_be_unproven_rows() {
        let held = AllowEntry {
            a: "d".into(),
            b: "c".into(),
            reason: "mine".into(),
            at: None,
        };
        let got = adopted(&rows(), &[held], "r.srdf", &Adopt::All).unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].a, "e");
        let pick = |x: &str, y: &str| Adopt::Pairs(vec![(x.into(), y.into())]);
        assert_eq!(
            adopted(&rows(), &[], "r.srdf", &pick("f", "e")).unwrap()[0].b,
            "f"
        );
        assert!(
            adopted(&rows(), &[], "r.srdf", &pick("b", "a"))
                .unwrap_err()
                .contains("proven `never`")
        );
        assert!(
            adopted(&rows(), &[], "r.srdf", &pick("a", "z"))
                .unwrap_err()
                .contains("no row")
        );
    }
}
