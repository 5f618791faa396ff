//! `collide init ROBOT_FILE [--out DIR] [--srdf FILE] [--xacro-arg NAME:=VALUE] [--truth GEOMETRY] [--adopt-contacts] [--force] [--json]`

use super::args::InitArgs;
use crate::error::{Error, Result};
use crate::init::{Init, InitOptions, RestChoice, pair_list, plan, write};
use crate::text::Table;
use crate::text::wrapped;
use crate::truth::design::AtPose;

/// Columns the summary's wrapped lines keep to.
const WIDTH: usize = 100;
/// Pairs named in one line of the summary; the others are counted.
const MAX_NAMED: usize = 12;

pub fn run(args: InitArgs) -> Result<i32> {
    if args.poses == 0 {
        return Err(Error::input(
            "--poses 0: the contacts by design are judged on at least one seeded pose",
        ));
    }
    let read = args.read.sweep_read();
    let options = InitOptions {
        out: args.out.clone(),
        srdf: args.srdf.clone(),
        adopt_contacts: args.adopt_contacts,
        force: args.force,
        truth: args.truth,
        poses: args.poses,
        seed: args.seed,
        ..InitOptions::new(read.clone())
    };
    let init = plan(&args.robot, &options)?;
    for w in &init.warnings {
        crate::messages::warning(w);
    }
    write(&init, args.force, &read)?;
    if args.json {
        crate::outln!(
            "{}",
            serde_json::to_string_pretty(&init.json()).expect("plain JSON")
        );
    } else {
        print_summary(&init);
    }
    Ok(0)
}

fn print_summary(init: &Init) {
    crate::outln!("wrote {}", init.config_path.display());
    // The table says what was decided; the reasons, which can name many pairs and joints,
    // follow it, wrapped (a reason inside the table made it hundreds of columns wide).
    let mut rest = Table::new(&["rest pose", "verdict"]);
    let mut reasons = Vec::new();
    for t in &init.tried {
        rest.row(vec![
            t.label.clone(),
            format!("not taken: {} far pair(s) touch", t.far_contacts.len()),
        ]);
        reasons.push(format!(
            "{}: the meshes of {} pair(s) more than 2 moving joints apart touch there ({}): the rest pose is the fix, not an exemption",
            t.label,
            t.far_contacts.len(),
            pair_list(&t.far_contacts, MAX_NAMED)
        ));
    }
    match &init.rest {
        RestChoice::GroupState(_) | RestChoice::Zero => {
            rest.row(vec![init.rest_label(), "chosen".into()]);
            reasons.push(format!(
                "{}: chosen: no checked pair's meshes touch there, contacts by design aside",
                init.rest_label()
            ));
        }
        RestChoice::Searched {
            values,
            distance,
            tried,
            ..
        } => {
            rest.row(vec![init.rest_label(), "chosen".into()]);
            reasons.push(format!(
                "{}: chosen: the nearest free pose found ({tried} poses tried), distance {distance:.3} from q = 0: {}",
                init.rest_label(),
                values
                    .iter()
                    .map(|(j, v)| format!("{j} = {v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    crate::out!("{}", rest.render());
    for r in &reasons {
        crate::out!("{}", wrapped("  ", r, WIDTH));
    }
    print_truth(init);
    if !init.stuck.is_empty() {
        let line = format!(
            "{} pair(s) more than 2 moving joints apart touch at rest and in most seeded poses, which no rest pose parts (not contacts by design, no row offered; `acm regenerate` may prove them always, else decide them yourself): {}",
            init.stuck.len(),
            init.stuck
                .iter()
                .map(|p| {
                    format!(
                        "{}/{} ({:.1}%)",
                        p.a,
                        p.b,
                        100.0 * p.touching_poses as f64 / init.poses.max(1) as f64
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        );
        say(&line);
    }
    if init.candidates.is_empty() {
        say(&format!(
            "no contacts by design: none of the {} checked pair(s) at most 2 moving joints apart touches at rest or in half of {} seeded poses",
            init.near_pairs, init.poses
        ));
        return;
    }
    let mut t = Table::new(&[
        "link a",
        "link b",
        "joints",
        "contact",
        "at rest",
        "allow row",
    ]);
    for c in &init.candidates {
        t.row(vec![
            c.a.clone(),
            c.b.clone(),
            c.candidate.joints_apart.to_string(),
            format!("{:.1}%", 100.0 * c.candidate.share()),
            match c.candidate.at_rest {
                AtPose::Deep(d) => format!("{} mm deep", crate::text::mm(d)),
                other => other.describe(),
            },
            if init.adopted {
                "adopted, unreviewed".into()
            } else {
                "commented out".into()
            },
        ]);
    }
    say(&format!(
        "contacts by design ({} of {} checked pair(s) at most 2 moving joints apart; contact share of {} seeded poses):",
        init.candidates.len(),
        init.near_pairs,
        init.poses
    ));
    crate::out!("{}", t.render());
    if init.adopted {
        say(&format!(
            "review the adopted rows in {}: each reason says it was adopted without review",
            init.config_path.display()
        ));
    } else {
        say(&format!(
            "uncomment the rows you confirm in {} and say why (or rerun with --adopt-contacts --force)",
            init.config_path.display()
        ));
    }
}

/// A line of prose, wrapped at [`WIDTH`].
fn say(text: &str) {
    crate::out!("{}", wrapped("", text, WIDTH));
}

/// The truth the contacts were judged on and, where coarse collision primitives make pairs
/// touch that the visual pieces keep apart, that evidence and the choice it offers.
fn print_truth(init: &Init) {
    if init.coarse_pairs.is_empty() {
        if init.truth_chosen {
            say(&format!("truth: {} (as chosen)", init.truth.as_str()));
        }
        return;
    }
    say(&format!(
        "the <collision> primitives of {} make {} checked pair(s) touch at {} while their visual pieces are apart:",
        init.coarse_links.join(", "),
        init.coarse_pairs.len(),
        init.evidence_pose
    ));
    let mut t = Table::new(&["link a", "link b", "collision + visual", "visual only"]);
    for p in &init.coarse_pairs {
        t.row(vec![
            p.a.clone(),
            p.b.clone(),
            p.with_collision.describe(),
            p.visual_apart(),
        ]);
    }
    crate::out!("{}", t.render());
    if init.truth_chosen {
        say(&format!(
            "truth: {} (as chosen); everything above is judged on it",
            init.truth.as_str()
        ));
    } else {
        say(&format!(
            "judged on collision + visual (the default); if the visual meshes are the robot's true shape, uncomment `truth: visual` in {} before `collide lower`, or rerun with --truth visual --force to choose the rest pose and the contacts by design on them too",
            init.config_path.display()
        ));
    }
}
