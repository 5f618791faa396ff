//! Every file in tests/bad/ is refused with one clear line naming the file, exit code 2.

mod common;

#[test]
fn every_bad_input_gets_one_clear_line_and_exit_2() {
    let dir = common::repo().join("tests/bad");
    let expected = std::fs::read_to_string(dir.join("expected.txt")).unwrap();
    let mut failures = Vec::new();
    let mut cases = 0;
    for line in expected
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (file, want) = line.split_once('\t').expect("file<TAB>expected");
        cases += 1;
        let command = if file.starts_with("manifest_") {
            "verify"
        } else {
            "inspect"
        };
        let out = common::collide()
            .arg(command)
            .arg(dir.join(file))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let first = stderr.lines().next().unwrap_or("");
        let problems = [
            (out.status.code() != Some(2)).then(|| format!("exit code {:?}", out.status.code())),
            (!first.starts_with("error: ")).then(|| "first line is not `error: ...`".to_string()),
            (!first.contains(want)).then(|| format!("does not say `{want}`")),
            (!first.contains(".")).then(|| "names no file".to_string()),
            stderr.contains("panicked").then(|| "panicked".to_string()),
            stderr
                .lines()
                .filter(|l| l.starts_with("error"))
                .nth(1)
                .map(|_| "more than one error line".to_string()),
        ];
        for p in problems.into_iter().flatten() {
            failures.push(format!("{file}: {p}\n    stderr: {}", stderr.trim()));
        }
    }
    assert!(cases >= 40, "only {cases} bad inputs");
    assert!(
        failures.is_empty(),
        "{} of {cases} bad inputs mishandled:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A config whose rest pose names a group_state the SRDF lacks is refused by every command
/// that reads a config, at the config's `rest_pose` line (inspect and fk once accepted it;
/// only lower refused it, later and without a line).
#[test]
fn every_command_that_reads_a_config_checks_its_rest_pose() {
    let bad = common::repo().join("tests/bad");
    for (file, line, want) in [
        (
            "config_rest_pose_unknown_state.yaml",
            5,
            "`ready` is not a group_state",
        ),
        (
            "config_rest_pose_unknown_joint.yaml",
            4,
            "joint `elbow` is not in robot",
        ),
    ] {
        let config = bad.join(file);
        let c = config.to_str().unwrap();
        for args in [
            vec!["inspect", c],
            vec!["inspect", c, "--json"],
            vec!["fk", c, "--json"],
            vec!["lower", c],
            vec!["acm", "regenerate", c],
        ] {
            let out = common::collide().args(&args).output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
            assert!(out.stdout.is_empty(), "{args:?}: printed before refusing");
            assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
            assert!(
                stderr.starts_with(&format!("error: {c}:{line}:1: ")) && stderr.contains(want),
                "{args:?}: {stderr}"
            );
        }
    }
}
