//! The manifest format: deterministic writing, exact round trips (ours and
//! PyYAML's), a strict loader that names what it refuses.

use collide::error::ErrorKind;
use collide::kernel::vec3::rot_from_rpy;
use collide::manifest::{
    AcmEntry, BoxPrim, Candidate, Capsule, Fit, FitChoice, Joint, JointKind, JointValues, Link,
    Manifest, Mimic, Primitive, RestPose, Source, dop26_directions, load_manifest, parse_manifest,
    to_yaml, write_manifest,
};
use std::path::Path;

fn round_up4(x: f64) -> f64 {
    ((x * 1e4) - 1e-7).ceil() / 1e4
}

/// A tight box: hull = corners of a smaller box, DOP = the hull's supports
/// rounded up to 4 decimals, as the fitter writes them.
fn tight_box() -> BoxPrim {
    let center = [0.1, 0.0, 0.2];
    let rpy = [0.0, 0.0, 0.0];
    let inner = [0.04, 0.03, 0.02];
    let mut hull = Vec::new();
    for sx in [-1.0, 1.0] {
        for sy in [-1.0, 1.0] {
            for sz in [-1.0, 1.0] {
                let v = [
                    center[0] + sx * inner[0],
                    center[1] + sy * inner[1],
                    center[2] + sz * inner[2],
                ];
                hull.push(v.map(|x: f64| (x * 1e4).round() / 1e4));
            }
        }
    }
    let r = rot_from_rpy(rpy);
    let mut dop = [f64::NEG_INFINITY; 26];
    for p in &hull {
        let d = [p[0] - center[0], p[1] - center[1], p[2] - center[2]];
        let q: Vec<f64> = (0..3)
            .map(|k| r[0][k] * d[0] + r[1][k] * d[1] + r[2][k] * d[2])
            .collect();
        for (k, u) in dop26_directions().iter().enumerate() {
            dop[k] = dop[k].max(u[0] * q[0] + u[1] * q[1] + u[2] * q[2]);
        }
    }
    BoxPrim {
        center,
        rpy,
        half_extents: [0.05, 0.04, 0.03],
        dop26: Some(dop.map(round_up4)),
        hull: Some(hull),
    }
}

fn candidate(kind: FitChoice, v: f64) -> Candidate {
    Candidate {
        kind,
        vol_ratio: Some(v),
        max_protrusion_m: 0.0123,
        mean_protrusion_m: 0.0045,
    }
}

fn fit(choice: FitChoice) -> Fit {
    Fit {
        choice,
        vol_ratio: Some(1.4321),
        max_protrusion_m: 0.0123,
        mean_protrusion_m: 0.0045,
        min_margin_m: 0.001,
        vertices: 1234,
        triangles: 2464,
        candidates: vec![
            candidate(FitChoice::Capsule, 1.4321),
            candidate(FitChoice::Box, 1.9),
        ],
        hull_excess_m: None,
        reason: String::new(),
    }
}

fn sample() -> Manifest {
    let revolute = |name: &str, parent: &str, child: &str| Joint {
        name: name.into(),
        kind: JointKind::Revolute,
        parent: parent.into(),
        child: child.into(),
        origin_xyz: [0.0, 0.0, 0.333],
        origin_rpy: [-std::f64::consts::FRAC_PI_2, 0.0, 0.0],
        axis: [0.0, 0.0, 1.0],
        limits: Some([-2.8973, 2.8973]),
        mimic: None,
        pivot: None,
    };
    let mut finger2 = revolute("finger_joint2", "link1", "finger2");
    finger2.kind = JointKind::Prismatic;
    finger2.limits = Some([0.0, 0.04]);
    finger2.mimic = Some(Mimic {
        joint: "finger_joint1".into(),
        multiplier: 1.0,
        offset: 0.0,
    });
    let mut finger1 = revolute("finger_joint1", "link1", "finger1");
    finger1.kind = JointKind::Prismatic;
    finger1.limits = Some([0.0, 0.04]);
    let mut hinge = revolute("hinge", "link0", "link1");
    hinge.pivot = Some([0.0, 0.1, 0.0]);
    let mut tight_fit = fit(FitChoice::TightBox);
    tight_fit.hull_excess_m = Some(0.0002);
    Manifest {
        schema_version: 1,
        robot: "test_arm".into(),
        generator: "collide 0.1.0".into(),
        sources: vec![Source {
            path: "package://example-robot-data/robots/test/urdf/test.urdf".into(),
            sha256: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef".into(),
            xacro: None,
        }],
        headroom_m: 0.001,
        hull_headroom_m: 0.0,
        margin_m: 0.0,
        truth: Default::default(),
        rest_pose: RestPose {
            q: JointValues(vec![
                ("hinge".into(), 0.1235),
                ("finger_joint1".into(), 0.02),
            ]),
            clear: true,
            min_distance_m: 0.0123,
        },
        joints: vec![hinge, finger1, finger2],
        links: vec![
            Link {
                name: "link0".into(),
                primitives: vec![Primitive::Capsule(Capsule {
                    a: [0.0, 0.0, -0.1],
                    b: [0.0, 0.0, 0.1235],
                    radius: 0.0601,
                })],
                fit: fit(FitChoice::Capsule),
            },
            Link {
                name: "link1".into(),
                primitives: vec![Primitive::Box(BoxPrim {
                    center: [0.0, -0.0001, 0.05],
                    rpy: [0.0, 0.0, 0.6109],
                    half_extents: [0.06, 0.05, 0.12],
                    dop26: None,
                    hull: None,
                })],
                fit: fit(FitChoice::Box),
            },
            Link {
                name: "finger1".into(),
                primitives: vec![Primitive::Box(tight_box())],
                fit: tight_fit,
            },
            Link {
                name: "finger2".into(),
                primitives: vec![
                    Primitive::Capsule(Capsule {
                        a: [0.0; 3],
                        b: [0.0, 0.0, 0.02],
                        radius: 0.01,
                    }),
                    Primitive::Capsule(Capsule {
                        a: [0.0, 0.0, 0.02],
                        b: [0.0, 0.0, 0.04],
                        radius: 0.008,
                    }),
                ],
                fit: fit(FitChoice::CapsuleChain2),
            },
        ],
        acm: vec![AcmEntry {
            a: "link0".into(),
            b: "link1".into(),
            reason: "adjacent".into(),
            proof: "parent and child".into(),
        }],
    }
}

fn name() -> &'static Path {
    Path::new("robots/test/manifest.yaml")
}

#[test]
fn written_yaml_is_stable() {
    let yaml = to_yaml(&sample()).unwrap();
    insta::assert_snapshot!("sample_manifest", yaml);
}

#[test]
fn write_load_write_gives_identical_bytes() {
    let m = sample();
    let first = to_yaml(&m).unwrap();
    let loaded = parse_manifest(name(), &first).unwrap();
    assert_eq!(loaded, m);
    assert_eq!(to_yaml(&loaded).unwrap(), first);
}

#[test]
fn four_decimal_numbers_are_written_as_such() {
    let yaml = to_yaml(&sample()).unwrap();
    assert!(yaml.contains("hinge: 0.1235\n"), "{yaml}");
    assert!(
        yaml.contains("b: [0.0, 0.0, 0.1235], radius: 0.0601}"),
        "{yaml}"
    );
    assert!(yaml.contains("limits: [-2.8973, 2.8973]"), "{yaml}");
    // Full precision where the source had it.
    assert!(
        yaml.contains("origin_rpy: [-1.5707963267948966, 0.0, 0.0]"),
        "{yaml}"
    );
}

#[test]
fn negative_zero_is_written_as_zero() {
    let mut m = sample();
    m.joints[0].origin_xyz = [-0.0, 0.0, 0.333];
    let yaml = to_yaml(&m).unwrap();
    assert!(!yaml.contains("-0.0,") && !yaml.contains("-0.0]"), "{yaml}");
}

#[test]
fn file_round_trip_through_write_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("manifest.yaml");
    write_manifest(&path, &sample()).unwrap();
    assert_eq!(load_manifest(&path).unwrap(), sample());
}

#[test]
fn the_writer_refuses_an_invalid_manifest() {
    let mut m = sample();
    m.links[0].primitives[0] = Primitive::Capsule(Capsule {
        a: [0.0; 3],
        b: [f64::NAN, 0.0, 0.0],
        radius: 0.1,
    });
    let e = to_yaml(&m).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Check);
    assert!(
        e.message
            .contains("links[0] (link0).primitives[0].b: NaN is not a finite number"),
        "{}",
        e.message
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("manifest.yaml");
    std::fs::write(&path, "old").unwrap();
    assert!(write_manifest(&path, &m).is_err());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
}

/// Awkward strings and extreme floats that must survive PyYAML too.
fn awkward() -> Manifest {
    let mut m = sample();
    m.robot = "on".into();
    m.generator = "1.5".into();
    m.sources[0].sha256 = "1234567890123456789012345678901234567890123456789012345678901e10".into();
    m.sources.push(Source {
        path: "null".into(),
        sha256: "a".repeat(64),
        xacro: None,
    });
    // A xacro source's record: a map inside the flow item, with values YAML would retype.
    m.sources.push(Source {
        path: "arm.urdf.xacro".into(),
        sha256: "b".repeat(64),
        xacro: Some(collide::manifest::XacroSource {
            expanded_sha256: "c".repeat(64),
            args: [
                ("name", "on"),
                ("ur_type", "1.5"),
                ("prefix", ""),
                ("x", "a: b, #c"),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        }),
    });
    m.joints[0].origin_xyz = [1e-7, 123456789012.5, 0.30000000000000004];
    m.joints[0].origin_rpy = [5e-324, -1.7976931348623157e308, 1e22];
    m
}

/// PyYAML's reading of `yaml`, as JSON; `None` when python3 or its yaml
/// module is missing.
fn pyyaml_as_json(yaml: &str) -> Option<String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new("python3")
        .args([
            "-c",
            "import yaml, json, sys; json.dump(yaml.safe_load(sys.stdin), sys.stdout)",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(yaml.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("No module named 'yaml'") {
        return None;
    }
    assert!(out.status.success(), "PyYAML failed: {stderr}");
    Some(String::from_utf8(out.stdout).unwrap())
}

#[test]
fn pyyaml_reads_back_the_same_numbers() {
    for m in [sample(), awkward()] {
        let Some(json) = pyyaml_as_json(&to_yaml(&m).unwrap()) else {
            println!("skipped: needs python3 with PyYAML (pip install pyyaml)");
            return;
        };
        // PyYAML's view, through JSON (Python writes floats in shortest
        // round-trip form), must be the manifest we wrote, bit for bit.
        let back: Manifest = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
        assert_eq!(back, m);
        let bits = |m: &Manifest| m.joints[0].origin_rpy.map(f64::to_bits);
        assert_eq!(bits(&back), bits(&m));
    }
}

fn refuse(yaml: &str) -> String {
    let e = parse_manifest(name(), yaml).expect_err("must be refused");
    assert_eq!(e.kind, ErrorKind::Input);
    assert!(
        e.message.starts_with("robots/test/manifest.yaml"),
        "{}",
        e.message
    );
    assert!(!e.message.contains('\n'), "one line: {}", e.message);
    e.message
}

/// The sample's YAML with `from` replaced by `to` (once, and it must be there).
fn edit(from: &str, to: &str) -> String {
    let yaml = to_yaml(&sample()).unwrap();
    assert!(yaml.contains(from), "`{from}` not in:\n{yaml}");
    yaml.replacen(from, to, 1)
}

#[test]
fn the_loader_names_what_it_refuses() {
    let cases: Vec<(String, &str)> = vec![
        (
            edit(
                "headroom_m: 0.001\n",
                "headroom_m: 0.001\nheadroom_mm: 1.0\n",
            ),
            ":7:1: unknown field `headroom_mm`",
        ),
        (
            edit("radius: 0.0601}", "radius: 0.0601, colour: red}"),
            "unknown field `colour`, expected one of a, b, radius",
        ),
        (edit("margin_m: 0.0\n", ""), "missing field `margin_m`"),
        (
            edit("clear: true", "clear: maybe"),
            ":13:10: invalid boolean",
        ),
        (
            edit("schema_version: 1", "schema_version: 2"),
            ":1:17: schema_version 2 is not supported",
        ),
        (
            edit("schema_version: 1\n", ""),
            "missing field `schema_version`",
        ),
        (
            edit(
                "kind: capsule, a: [0.0, 0.0, -0.1]",
                "kind: sphere, a: [0.0, 0.0, -0.1]",
            ),
            "unknown variant `sphere`",
        ),
        (
            edit("a: [0.0, 0.0, -0.1]", "a: [0.0, -0.1]"),
            "invalid length 2, expected an array of length 3",
        ),
        (
            edit("radius: 0.0601}", "radius: .nan}"),
            ":22:9: links[0] (link0).primitives[0].radius: NaN is not a finite number",
        ),
        (
            edit("headroom_m: 0.001", "headroom_m: .nan"),
            "headroom_m: NaN is not a finite number",
        ),
        (
            edit(
                "origin_xyz: [0.0, 0.0, 0.333]",
                "origin_xyz: [0.0, -.inf, 0.333]",
            ),
            "joints[0] (hinge).origin_xyz: -inf is not a finite number",
        ),
        (
            edit("mean_protrusion_m: 0.0045\n", "mean_protrusion_m: .NaN\n"),
            "links[0] (link0).fit: NaN is not a finite number",
        ),
        (
            edit("radius: 0.0601}", "radius: -0.0601}"),
            "primitives[0].radius: -0.0601 is not positive",
        ),
        (
            edit("choice: capsule\n", "choice: box\n"),
            "links[0] (link0).fit.choice: box does not match the primitives",
        ),
        (
            edit("dop26: [0.04, ", "dop26: ["),
            "invalid length 25, expected an array of length 26",
        ),
        (
            edit("  - [0.06, -0.03, 0.18]\n", "  - [0.2, -0.03, 0.18]\n"),
            "finger1).primitives[0].hull[0]: vertex [0.2, -0.03, 0.18] lies 5.000e-2 m outside its box",
        ),
        (
            edit("dop26: [0.04, 0.04,", "dop26: [0.04, 0.039,"),
            "primitives[0].hull[0]: vertex [0.06, -0.03, 0.18] lies 1.000e-3 m outside dop26[1]",
        ),
        (
            edit("dop26: [0.04,", "dop26: [0.07,"),
            "dop26[0]: 0.07 exceeds the box's half extent 0.05",
        ),
        (
            edit(
                "hull_excess_m: 0.0002\n",
                "hull_excess_m: 0.0002\n      hull: []\n",
            ),
            ":76:7: unknown field `hull`, expected one of choice",
        ),
        (
            edit("limits: [-2.8973, 2.8973], ", ""),
            "joints[0] (hinge).limits: a revolute joint needs limits [lower, upper]",
        ),
        (
            edit("type: revolute", "type: continuous"),
            "joints[0] (hinge).limits: a continuous joint has no limits",
        ),
        (
            edit("type: revolute", "type: fixed"),
            "joints[0] (hinge).limits: a fixed joint has no limits",
        ),
        (
            edit("limits: [-2.8973, 2.8973]", "limits: [2.8973, -2.8973]"),
            "lower 2.8973 is above upper -2.8973",
        ),
        (
            edit("type: prismatic", "type: floating"),
            "unknown variant `floating`",
        ),
        (
            edit("{joint: finger_joint1,", "{joint: finger_joint9,"),
            "joints[2] (finger_joint2).mimic.joint: names unknown joint `finger_joint9`",
        ),
        (
            edit("{joint: finger_joint1,", "{joint: finger_joint2,"),
            "a joint cannot mimic itself",
        ),
        (
            edit(
                "parent: link1, child: finger1",
                "parent: link7, child: finger1",
            ),
            "joints[1] (finger_joint1).parent: `link7` is neither the root `link0` nor a child of another joint (more than one root)",
        ),
        (
            edit(
                "parent: link1, child: finger2",
                "parent: link1, child: finger1",
            ),
            "link `finger1` already has a parent",
        ),
        (
            edit("hinge: 0.1235\n", "hinge: 0.1235\n    hinge: 0.2\n"),
            "duplicate mapping key",
        ),
        (
            edit("finger_joint1: 0.02\n", "finger_joint1: 0.05\n"),
            "rest_pose.q.finger_joint1: 0.05 is outside the joint's limits [0, 0.04]",
        ),
        (
            edit(
                "finger_joint1: 0.02\n",
                "finger_joint1: 0.02\n    thumb: 0.0\n",
            ),
            "rest_pose.q.thumb: names no joint of the manifest",
        ),
        (
            edit("{a: link0, b: link1,", "{a: link0, b: link9,"),
            "acm[0].b: `link9` is not a link of the manifest",
        ),
        (
            edit("sha256: 0123456789abcdef", "sha256: 0123456789ABCDEF"),
            "sources[0].sha256",
        ),
        (
            edit("- name: link1\n", "- name: link5\n"),
            "`link5` is not a link of the joint tree",
        ),
        (String::new(), "manifest is empty"),
        (
            "schema_version: 1\n---\nschema_version: 1\n".into(),
            ":3:1: a manifest is one YAML document; this is a second one",
        ),
        (
            "schema_version: 1.0\n".into(),
            ":1:17: schema_version must be the integer 1, not 1.0",
        ),
        (
            "schema_version: '1'\n".into(),
            ":1:17: schema_version must be the integer 1, not the text \"1\"",
        ),
        ("- a\n".into(), ":1:1: expected mapping start"),
    ];
    for (yaml, expected) in cases {
        let msg = refuse(&yaml);
        // The position, then the complaint (the field it names may stand between them).
        let (position, complaint) = match expected.strip_prefix(':') {
            Some(rest) => {
                let cut = rest.find(": ").map_or(expected.len(), |i| i + 3);
                (&expected[..cut], expected[cut..].trim_start())
            }
            None => ("", expected),
        };
        assert!(
            msg.contains(position) && msg.contains(complaint),
            "`{msg}` should contain `{expected}`"
        );
    }
}

#[test]
fn validation_errors_point_at_the_item_line() {
    let yaml = edit("radius: 0.0601}", "radius: -0.0601}");
    let msg = refuse(&yaml);
    let line = yaml
        .lines()
        .position(|l| l.contains("radius: -0.0601"))
        .unwrap()
        + 1;
    assert!(
        msg.starts_with(&format!("robots/test/manifest.yaml:{line}:")),
        "{msg}"
    );
}

#[test]
fn hull_size_limit() {
    let mut m = sample();
    let Primitive::Box(b) = &mut m.links[2].primitives[0] else {
        panic!()
    };
    let first = b.hull.as_ref().unwrap()[0];
    b.hull.as_mut().unwrap().resize(321, first);
    let e = to_yaml(&m).unwrap_err();
    assert!(
        e.message
            .contains("hull: has 321 vertices; 1 to 320 allowed"),
        "{}",
        e.message
    );
    b_resize(&mut m, 320);
    to_yaml(&m).unwrap();
}

fn b_resize(m: &mut Manifest, n: usize) {
    let Primitive::Box(b) = &mut m.links[2].primitives[0] else {
        panic!()
    };
    let first = b.hull.as_ref().unwrap()[0];
    b.hull.as_mut().unwrap().resize(n, first);
}

#[test]
fn rpy_is_fixed_axis_z_y_x() {
    // R = Rz(yaw)·Ry(pitch)·Rx(roll): x goes to y under yaw = 90°, and roll
    // acts first: roll 90° then yaw 90° maps y to z.
    let r = rot_from_rpy([0.0, 0.0, std::f64::consts::FRAC_PI_2]);
    assert!((r[1][0] - 1.0).abs() < 1e-15);
    let r = rot_from_rpy([
        std::f64::consts::FRAC_PI_2,
        0.0,
        std::f64::consts::FRAC_PI_2,
    ]);
    let y = [r[0][1], r[1][1], r[2][1]];
    assert!((y[2] - 1.0).abs() < 1e-15, "{y:?}");
}
