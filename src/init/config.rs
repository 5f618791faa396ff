//! The robot config `init` writes: its text (every decision with its evidence, as
//! comments where the user decides) and the write itself.

use super::*;

/// `a/b, c/d and 3 more pair(s)`: every pair counted, the first `max` named.
pub fn pair_list(pairs: &[(String, String)], max: usize) -> String {
    let shown: Vec<String> = pairs
        .iter()
        .take(max)
        .map(|(a, b)| format!("{a}/{b}"))
        .collect();
    let mut s = shown.join(", ");
    if pairs.len() > max {
        s += &format!(" and {} more pair(s)", pairs.len() - max);
    }
    s
}

/// A file reference (`package://pkg/x.urdf`, `../x.urdf`) as a YAML scalar: plain when a
/// colon in it is never followed by a space or the end, as YAML allows.
fn reference(text: &str) -> String {
    let colons_ok = text
        .match_indices(':')
        .all(|(i, _)| text[i + 1..].starts_with(|c: char| c != ' '));
    let plain = colons_ok
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./:".contains(c))
        && text.starts_with(|c: char| c.is_ascii_alphanumeric() || "_./".contains(c));
    if plain {
        text.to_string()
    } else {
        quoted(text)
    }
}

/// A number as YAML reads it back exactly.
fn number(v: f64) -> String {
    format!("{v:?}")
}

/// Comment lines of `text`, wrapped at about 92 columns, each `indent# ...`.
pub(super) fn comment(indent: &str, text: &str) -> String {
    crate::text::wrapped(&format!("{indent}# "), text, 92)
}

/// Why the rest poses before the choice were not taken.
pub(super) fn tried_text(tried: &[Tried]) -> String {
    tried
        .iter()
        .map(|t| {
            format!(
                "{}: the meshes of {} touch there",
                t.label,
                pair_list(&t.far_contacts, 3)
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The reason of an adopted row.
pub fn adopted_reason(c: &Candidate) -> String {
    format!(
        "adopted by collide init without review, as a contact by design: {}",
        c.evidence()
    )
}

/// The config's text.
pub(super) fn config_text(init: &Init, mjcf: bool) -> String {
    let mut t = String::new();
    t += &comment(
        "",
        &format!(
            "Written by `collide init` from {}. Review the rest pose and the contacts by design below: they are yours to decide.",
            init.description.display()
        ),
    );
    t += &format!("name: {}\n", scalar(&init.name));
    t += &format!(
        "{}: {}\n",
        if mjcf { "mjcf" } else { "urdf" },
        reference(&init.description_ref)
    );
    if !init.xacro_args.is_empty() {
        t += "xacro_args:\n";
        for (name, value) in &init.xacro_args {
            t += &format!("  {}: {}\n", scalar(name), quoted(value));
        }
    }
    if let Some(s) = &init.srdf_ref {
        t += &format!("srdf: {}\n", reference(s));
    }
    t += &truth_text(init);
    let far = format!(
        "pairs more than {} moving joints apart are never contacts by design: the rest pose is the fix",
        design::MAX_JOINTS_APART
    );
    let ruled_out = if init.tried.is_empty() {
        String::new()
    } else {
        format!(" Not taken: {} ({far}).", tried_text(&init.tried))
    };
    match &init.rest {
        RestChoice::GroupState(name) => {
            t += &comment(
                "",
                &format!(
                    "The first SRDF group_state where no checked pair's meshes touch, contacts by design aside.{ruled_out}"
                ),
            );
            t += &format!("rest_pose: {}\n", scalar(name));
        }
        RestChoice::Zero => {
            t += &comment(
                "",
                &format!(
                    "No rest_pose: q = 0 clamped into the limits, where no checked pair's meshes touch, contacts by design aside.{ruled_out}"
                ),
            );
        }
        RestChoice::Searched {
            values,
            distance,
            tried,
            clearance_m,
        } => {
            let apart = if *clearance_m > 0.0 {
                format!("at least {} mm apart", clearance_m * 1e3)
            } else {
                "apart".to_string()
            };
            t += &comment(
                "",
                &format!(
                    "The nearest pose to q = 0 a seeded search found ({tried} poses tried) where the meshes of every pair more than {} moving joints apart are {apart}: joint-space distance {distance:.3} from q = 0; the joints not named stay at q = 0 clamped.{ruled_out}",
                    design::MAX_JOINTS_APART,
                ),
            );
            t += "rest_pose:\n";
            for (joint, v) in values {
                t += &format!("  {}: {}\n", scalar(joint), number(*v));
            }
        }
    }
    if !init.stuck.is_empty() {
        t += &comment(
            "",
            &format!(
                "These pairs, more than {} moving joints apart, touch at the rest poses tried and in at least {:.0} % of {} seeded poses: no rest pose can be expected to part them, and they are too far apart to be contacts by design by collide's rule, so no row is offered. `acm regenerate` may prove them `always`; if it cannot, decide them yourself: {}.",
                design::MAX_JOINTS_APART,
                100.0 * design::MIN_SHARE,
                init.poses,
                init.stuck
                    .iter()
                    .map(|p| format!(
                        "{}/{} ({:.1} %)",
                        p.a,
                        p.b,
                        100.0 * p.touching_poses as f64 / init.poses.max(1) as f64
                    ))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
    }
    let rule = format!(
        "checked pairs at most {} moving joints apart whose meshes touch at the rest pose or in at least {:.0} % of {} seeded poses (seed {})",
        design::MAX_JOINTS_APART,
        100.0 * design::MIN_SHARE,
        init.poses,
        init.seed
    );
    if init.candidates.is_empty() {
        t += &comment("", &format!("No contacts by design found: no {rule}."));
        return t;
    }
    if init.adopted {
        t += &comment(
            "",
            &format!(
                "Contacts by design, adopted by `collide init --adopt-contacts` without review: {rule}. Keep the rows you confirm, with your own reason, and remove the others."
            ),
        );
    } else {
        t += &comment(
            "",
            &format!(
                "Contacts by design for you to decide: {rule}. Uncomment `allow:` and the rows you confirm, and write why they touch."
            ),
        );
    }
    // Commented out as a whole, `allow:` included: a YAML reader looks past the comments
    // after a key with no value, and gives up after a few dozen.
    let mut rows = String::from("allow:\n");
    for c in &init.candidates {
        let mut evidence = format!("{} / {}: {}", c.a, c.b, c.candidate.evidence());
        if c.candidate.only_at_rest() {
            evidence += "; it touches at this rest pose but in fewer than half the seeded poses: another rest pose may be the fix";
        }
        if c.candidate.touching_poses == c.candidate.poses {
            evidence += " (`acm regenerate` may prove it `always`)";
        }
        rows += &comment("  ", &evidence);
        let reason = if init.adopted {
            adopted_reason(&c.candidate)
        } else {
            "TODO: why these links touch by design".to_string()
        };
        rows += &format!(
            "  - {{a: {}, b: {}, reason: {}}}\n",
            scalar(&c.a),
            scalar(&c.b),
            quoted(&reason)
        );
    }
    if init.adopted {
        t += &rows;
    } else {
        for line in rows.lines() {
            t += &format!("# {line}\n");
        }
    }
    t
}

/// Writes the config atomically (creating its directory), then loads it back: a config
/// that does not load is taken back (the old one restored under --force) and the error
/// returned.
pub fn write(init: &Init, force: bool, read: &ReadOptions) -> Result<()> {
    refuse_existing(&init.config_path, force)?;
    let dir = init.config_path.parent().unwrap_or(Path::new("."));
    let created = !dir.as_os_str().is_empty() && !dir.exists();
    if created {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::at(dir, None, format!("cannot create the directory: {e}")))?;
    }
    let old = std::fs::read(&init.config_path).ok();
    crate::io::atomic::write_atomic(&init.config_path, init.text.as_bytes())?;
    let check = load_robot(&init.config_path, &read.load).and_then(|l| {
        let allow = l.config.as_ref().map_or(0, |c| c.allow.len());
        let want = if init.adopted {
            init.candidates.len()
        } else {
            0
        };
        if allow == want {
            Ok(())
        } else {
            Err(Error::at(
                &init.config_path,
                None,
                format!("reads back {allow} allow row(s), not {want}"),
            ))
        }
    });
    if let Err(mut e) = check {
        match old {
            Some(bytes) => crate::io::atomic::write_atomic(&init.config_path, &bytes)?,
            None => {
                let _ = std::fs::remove_file(&init.config_path);
                if created {
                    let _ = std::fs::remove_dir(dir);
                }
            }
        }
        e.message = format!(
            "the config `collide init` wrote does not load, so it was taken back: {}",
            e.message
        );
        return Err(e);
    }
    Ok(())
}
