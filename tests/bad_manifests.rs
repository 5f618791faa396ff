//! Every broken manifest in tests/bad/manifests.txt is refused by the strict
//! loader with one line naming the file, the line and the field; the file it
//! was made from loads. (Once `collide verify` reads manifests these cases can
//! join tests/bad/expected.txt, whose `manifest_*` lines run through it.)

mod common;

use collide::error::ErrorKind;
use collide::manifest::load_manifest;

#[test]
fn every_broken_manifest_gets_one_line_naming_file_line_and_field() {
    let dir = common::repo().join("tests/bad");
    let list = std::fs::read_to_string(dir.join("manifests.txt")).unwrap();
    let mut cases = 0;
    let mut failures = Vec::new();
    for line in list
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (file, want) = line.split_once('\t').expect("file<TAB>expected");
        cases += 1;
        let path = dir.join(file);
        let err = match load_manifest(&path) {
            Ok(_) => {
                failures.push(format!("{file}: accepted"));
                continue;
            }
            Err(e) => e,
        };
        let msg = &err.message;
        let problems = [
            (err.kind != ErrorKind::Input).then(|| format!("kind {:?}", err.kind)),
            (!msg.starts_with(&path.display().to_string())).then(|| "names no file".into()),
            (!msg.contains(want)).then(|| format!("does not say `{want}`")),
            msg.contains('\n').then(|| "more than one line".into()),
            (!err.context.is_empty()).then(|| "context lines".into()),
        ];
        for p in problems.into_iter().flatten() {
            failures.push(format!("{file}: {p}\n    got: {msg}"));
        }
    }
    assert!(cases >= 12, "only {cases} cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_listed_manifest_is_in_the_corpus_and_every_corpus_manifest_is_listed() {
    let dir = common::repo().join("tests/bad");
    let list = std::fs::read_to_string(dir.join("manifests.txt")).unwrap();
    let listed: Vec<&str> = list
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .filter_map(|l| l.split('\t').next())
        .collect();
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("manifest_") && n.ends_with(".yaml"))
        .collect();
    on_disk.sort();
    let mut listed_sorted: Vec<String> = listed.iter().map(|s| s.to_string()).collect();
    listed_sorted.sort();
    assert_eq!(listed_sorted, on_disk);
}

#[test]
fn the_manifest_they_were_made_from_loads() {
    // Each case breaks one thing of this file (regenerate it with
    // `collide lower tests/robots/chain.urdf --tight-link arm --out FILE --write`).
    let dir = tempfile::tempdir().unwrap();
    for tight in [false, true] {
        let out = dir.path().join(format!("chain_{tight}.yaml"));
        let mut cmd = common::collide();
        cmd.arg("lower")
            .arg(common::repo().join("tests/robots/chain.urdf"))
            .args(["--write", "--out"])
            .arg(&out);
        if tight {
            cmd.args(["--tight-link", "arm"]);
        }
        assert!(cmd.output().unwrap().status.success());
        load_manifest(&out).unwrap();
    }
}
