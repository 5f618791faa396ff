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
