//! `collide init ROBOT_FILE [--out DIR] [--srdf FILE] [--adopt-contacts] [--force] [--json]`

use super::args::InitArgs;
use crate::error::{Error, Result};
use crate::init::{Init, InitOptions, RestChoice, plan, write};
use crate::text::Table;
use crate::truth::design::AtPose;

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
    let mut rest = Table::new(&["rest pose", "why"]);
    for t in &init.tried {
        rest.row(vec![
            t.label.clone(),
            format!(
                "not taken: {} pair(s) more than 2 moving joints apart touch ({}): the rest pose is the fix, not an exemption",
                t.far_contacts.len(),
                t.far_contacts
                    .iter()
                    .take(3)
                    .map(|(a, b)| format!("{a}/{b}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ]);
    }
    let why = match &init.rest {
        RestChoice::GroupState(_) => {
            "chosen: no checked pair's meshes touch, contacts by design aside".to_string()
        }
        RestChoice::Zero => {
            "chosen: no checked pair's meshes touch, contacts by design aside".to_string()
        }
        RestChoice::Searched {
            values,
            distance,
            tried,
            ..
        } => format!(
            "chosen: the nearest free pose found ({tried} poses tried), distance {distance:.3} from q = 0: {}",
            values
                .iter()
                .map(|(j, v)| format!("{j} = {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    rest.row(vec![init.rest_label(), why]);
    crate::out!("{}", rest.render());
    if !init.stuck.is_empty() {
        crate::outln!(
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
    }
    if init.candidates.is_empty() {
        crate::outln!(
            "no contacts by design: none of the {} checked pair(s) at most 2 moving joints apart touches at rest or in half of {} seeded poses",
            init.near_pairs,
            init.poses
        );
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
    crate::outln!(
        "contacts by design ({} of {} checked pair(s) at most 2 moving joints apart; contact share of {} seeded poses):",
        init.candidates.len(),
        init.near_pairs,
        init.poses
    );
    crate::out!("{}", t.render());
    if init.adopted {
        crate::outln!(
            "review the adopted rows in {}: each reason says it was adopted without review",
            init.config_path.display()
        );
    } else {
        crate::outln!(
            "uncomment the rows you confirm in {} and say why (or rerun with --adopt-contacts --force)",
            init.config_path.display()
        );
    }
}
