//! `acm regenerate` for a robot: the manifest's ACM decided anew on the robot's meshes,
//! the config's `allow:` rows merged in (with the SRDF rows the user adopts into it), the
//! rest pose re-checked, and the new manifest text, proven to parse. Nothing is written
//! here: the caller writes the files it is given.

use super::user::{self, Adopt, UserRow};
use super::{AcmOptions, Regenerated};
use crate::error::{Error, Result};
use crate::io::allow::{self, AllowEntry};
use crate::io::atomic::Rewrite;
use crate::io::robot::{LoadedRobot, ReadOptions, allow_of_text};
use crate::manifest::{self, Manifest};
use std::path::{Path, PathBuf};

/// What `acm regenerate` made of a robot.
pub struct RegeneratedRobot {
    pub result: Regenerated,
    /// The manifest with its new ACM and rest verdict.
    pub manifest: Manifest,
    /// Its text.
    pub manifest_file: Rewrite,
    /// The robot config's `allow:` list with the adopted SRDF rows appended, when any were.
    pub config_edit: Option<Rewrite>,
    pub adopted: Vec<AllowEntry>,
    pub user_rows: Vec<UserRow>,
    /// Checked pairs in contact at the rest pose: (a, b, distance m).
    pub rest_contacts: Vec<(String, String, f64)>,
    /// The config the user rows come from (the robot argument for a bare description).
    pub config_path: PathBuf,
    /// What the mesh readers ignored, one line each: the caller prints them.
    pub warnings: Vec<String>,
    /// When the rest pose trips on a real contact: the contacts by design `collide init`
    /// would offer (a, b, evidence).
    pub design_candidates: Vec<(String, String, String)>,
}

/// Regenerates the ACM of the manifest at `path` (whose text is `old_text`) for `loaded`,
/// proving on its meshes (read within `read`'s limits).
pub fn regenerate_robot(
    loaded: &LoadedRobot,
    robot_arg: &Path,
    path: &Path,
    old_text: &str,
    options: &AcmOptions,
    adopt: Option<&Adopt>,
    read: &ReadOptions,
) -> Result<RegeneratedRobot> {
    let _total = super::timing::Phase::start("total (after loading the robot)");
    let phase = super::timing::Phase::start("loading meshes");
    let mut m = manifest::parse_manifest(path, old_text)?;
    let cache = crate::truth::meshes::load_meshes(
        &loaded.robot,
        &read.mesh_limits,
        read.max_total_triangles,
    )?;
    let truths: std::collections::BTreeMap<_, _> =
        crate::truth::meshes::truths(&loaded.robot, &cache)?
            .into_iter()
            .collect();
    drop(phase);
    let mut result = super::regenerate(&m, loaded.srdf.as_ref(), options, Some(&truths))?;

    // User rows: the config's `allow:` list, plus the SRDF rows adopted into it.
    let mut allow: Vec<AllowEntry> = loaded
        .config
        .as_ref()
        .map(|c| c.allow.clone())
        .unwrap_or_default();
    let mut adopted = Vec::new();
    let mut config_edit = None;
    if let Some(adopt) = adopt {
        let (new_allow, new, e) = adopt_rows(loaded, robot_arg, &result, &allow, adopt)?;
        allow = new_allow;
        adopted = new;
        config_edit = e;
    }
    let config_path = loaded
        .config_path
        .clone()
        .unwrap_or_else(|| robot_arg.to_path_buf());
    let mut user_rows = user::merge(&mut result.rows, &allow, &m, &config_path)?;
    let truth = result
        .truth
        .as_ref()
        .expect("regenerate was given the meshes");
    let phase = super::timing::Phase::start("allowed pairs' mesh contacts");
    user::measure(
        &mut user_rows,
        &result.kernel,
        truth,
        &result.sampling.colliding,
        options.samples,
        options.seed,
    )?;

    drop(phase);
    let phase = super::timing::Phase::start("rest pose and manifest text");
    m.acm = result.rows.clone();
    let (rest, rest_contacts) = crate::manifest::rest::check_rest(&m)?;
    m.rest_pose.clear = rest.clear;
    m.rest_pose.min_distance_m = rest.min_distance_m;
    let text = manifest::to_yaml(&m)?;
    manifest::parse_manifest(path, &text)?;
    drop(phase);
    let _phase = super::timing::Phase::start("design candidates at rest");
    let design_candidates = crate::truth::design::at_rest_candidates(&m, &truths)?;
    Ok(RegeneratedRobot {
        result,
        manifest: m,
        manifest_file: Rewrite {
            path: path.to_path_buf(),
            old: old_text.to_string(),
            new: text,
        },
        config_edit,
        adopted,
        user_rows,
        rest_contacts,
        config_path,
        warnings: cache.warnings,
        design_candidates,
    })
}

/// The SRDF rows `adopt` selects as `allow:` entries: the config's list with them appended
/// (read back from the edited text, so it is exactly what the file will hold), the new
/// entries, and the edit (none when every row is already there).
fn adopt_rows(
    loaded: &LoadedRobot,
    robot_arg: &Path,
    result: &Regenerated,
    allow: &[AllowEntry],
    adopt: &Adopt,
) -> Result<(Vec<AllowEntry>, Vec<AllowEntry>, Option<Rewrite>)> {
    let config = loaded.config_path.clone().ok_or_else(|| {
        Error::at(
            robot_arg,
            None,
            "--adopt-srdf adds to a robot config's `allow:` list; give the robot.yaml, not the description",
        )
    })?;
    let Some(srdf) = &loaded.srdf else {
        return Err(Error::at(
            &config,
            None,
            "--adopt-srdf: the config names no `srdf`",
        ));
    };
    let srdf_file = srdf
        .disabled
        .first()
        .and_then(|d| d.location.file.file_name())
        .map_or_else(
            || "the SRDF".to_string(),
            |f| f.to_string_lossy().into_owned(),
        );
    let new = user::adopted(&result.srdf, allow, &srdf_file, adopt)
        .map_err(|why| Error::input(format!("--adopt-srdf: {why}")))?;
    if new.is_empty() {
        return Ok((allow.to_vec(), new, None));
    }
    let old = std::fs::read_to_string(&config)
        .map_err(|e| Error::at(&config, None, format!("cannot read: {e}")))?;
    let text = allow::append_entries(&old, &new).map_err(|why| {
        Error::at(
            &config,
            None,
            format!("cannot add the adopted SRDF rows: {why}"),
        )
    })?;
    let reread = allow_of_text(&config, &text, &loaded.robot)?;
    let wanted: Vec<_> = allow.iter().chain(&new).map(triple).collect();
    if reread.iter().map(triple).collect::<Vec<_>>() != wanted {
        return Err(Error::at(
            &config,
            None,
            "the edited `allow:` list does not read back as written (an unusual layout?); add the adopted rows by hand",
        ));
    }
    Ok((
        reread,
        new,
        Some(Rewrite {
            path: config,
            old,
            new: text,
        }),
    ))
}

fn triple(e: &AllowEntry) -> (&str, &str, &str) {
    (&e.a, &e.b, &e.reason)
}
