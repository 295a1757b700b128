//! `bagscope convert` between RoCKIn YAML and bags: YAML → bag → YAML keeps every value (and
//! the second round gives the same bytes), bags of any type come back with the same
//! payloads, every kind of bad input is reported at its line and column with exit code 1 and
//! nothing written, and the output is never the input. (Checks against the official tools
//! are in `rockin_interop.rs`.)

use std::path::{Path, PathBuf};
use std::process::Output;

use bagscope::bag::{Bag, Query};
use bagscope::msg::Registry;
use bagscope::rockin::{Item, Limits, MessageReader};

use crate::common::{bagscope, fixtures_dir};

fn run(args: &[&Path]) -> Output {
    bagscope().arg("convert").args(args).output().unwrap()
}

fn convert(input: &Path, output: &Path) {
    crate::common::convert(input, output, &[]);
}

fn fixtures() -> Vec<PathBuf> {
    crate::common::rockin_fixtures()
}

fn items(yaml: &Path) -> Vec<Item> {
    let registry = Registry::bundled();
    let file = std::io::BufReader::new(std::fs::File::open(yaml).unwrap());
    MessageReader::new(file, &registry, Limits::default())
        .collect::<Result<Vec<_>, _>>()
        .unwrap_or_else(|e| panic!("{}: {e}", yaml.display()))
}

fn assert_same_items(a: &[Item], b: &[Item], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert_eq!(
            (&x.topic, &x.datatype, x.time.sec, x.time.nsec),
            (&y.topic, &y.datatype, y.time.sec, y.time.nsec),
            "{what}: item {i}"
        );
        assert!(
            x.value.bitwise_eq(&y.value),
            "{what}: item {i}: {:?} != {:?}",
            x.value,
            y.value
        );
    }
}

#[test]
fn yaml_to_bag_to_yaml_is_lossless() {
    let dir = tempfile::tempdir().unwrap();
    let files = fixtures();
    assert!(files.len() >= 14);
    for yaml in files {
        let name = yaml.file_stem().unwrap().to_string_lossy().to_string();
        let a_bag = dir.path().join(format!("{name}.a.bag"));
        let a_yaml = dir.path().join(format!("{name}.a.yaml"));
        let b_bag = dir.path().join(format!("{name}.b.bag"));
        let b_yaml = dir.path().join(format!("{name}.b.yaml"));
        convert(&yaml, &a_bag);
        convert(&a_bag, &a_yaml);
        convert(&a_yaml, &b_bag);
        convert(&b_bag, &b_yaml);
        // Every value of the original, in the original order, survives.
        assert_same_items(&items(&yaml), &items(&a_yaml), &name);
        // From then on the files are byte for byte the same.
        assert_eq!(
            std::fs::read(&a_yaml).unwrap(),
            std::fs::read(&b_yaml).unwrap(),
            "{name}: YAML"
        );
        assert_eq!(
            std::fs::read(&a_bag).unwrap(),
            std::fs::read(&b_bag).unwrap(),
            "{name}: bag"
        );
    }
}

/// (topic, time, payload) of every message, sorted.
fn payloads(bag: &Path) -> Vec<(String, u64, Vec<u8>)> {
    let bag = Bag::open(bag).unwrap();
    let mut v: Vec<_> = bag
        .messages(&Query::all())
        .map(|m| {
            let m = m.unwrap();
            let c = bag.connection(m.entry.conn).unwrap();
            (c.topic.clone(), m.entry.time.as_nanos(), m.data.to_vec())
        })
        .collect();
    v.sort();
    v
}

#[test]
fn bags_of_any_type_come_back_with_the_same_payloads() {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "recorded.bag",
        "recorded_lz4.bag",
        "v12_indexed.bag",
        "v10.bag",
    ] {
        let input = fixtures_dir().join(name);
        let yaml = dir.path().join(format!("{name}.yaml"));
        let back = dir.path().join(format!("{name}.back.bag"));
        convert(&input, &yaml);
        let text = std::fs::read_to_string(&yaml).unwrap();
        assert!(
            text.contains("  type: "),
            "{name}: non-RoCKIn topics carry their type"
        );
        // The 1.2 bag types /rosout with the old name roslib/Log, which only --msg-path can
        // define for the way back.
        let msgs = dir.path().join("msgs");
        let roslib = msgs.join("roslib/msg");
        std::fs::create_dir_all(&roslib).unwrap();
        let log = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/msgs/rosgraph_msgs/Log.msg");
        std::fs::copy(log, roslib.join("Log.msg")).unwrap();
        let o = bagscope()
            .arg("convert")
            .arg(&yaml)
            .arg(&back)
            .arg("--msg-path")
            .arg(&msgs)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let (a, b) = (payloads(&input), payloads(&back));
        assert!(!a.is_empty());
        assert_eq!(a.len(), b.len(), "{name}");
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x, y, "{name}");
        }
    }
}

#[test]
fn empty_lists_and_files() {
    let dir = tempfile::tempdir().unwrap();
    for (i, text) in ["[]\n", "", "# nothing\n---\n"].iter().enumerate() {
        let yaml = dir.path().join(format!("e{i}.yaml"));
        std::fs::write(&yaml, text).unwrap();
        let bag = dir.path().join(format!("e{i}.bag"));
        convert(&yaml, &bag);
        assert_eq!(Bag::open(&bag).unwrap().message_count(), 0);
        let back = dir.path().join(format!("e{i}.back.yaml"));
        convert(&bag, &back);
        assert_eq!(std::fs::read_to_string(&back).unwrap(), "[]\n");
    }
}

#[test]
fn types_outside_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = dir.path().join("t.yaml");
    std::fs::write(
        &yaml,
        "- topic: /scan_range\n  type: std_msgs/Float32\n  secs: 5\n  nsecs: 6\n  message:\n    data: 0.1\n\
         - topic: custom\n  type: my_pkg/Thing\n  secs: 7\n  nsecs: 0\n  message: {count: 3, names: [a, \"b c\"]}\n",
    )
    .unwrap();
    let bag = dir.path().join("t.bag");
    // my_pkg/Thing is not bundled: an error at its name.
    let o = run(&[&yaml, &bag]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("my_pkg/Thing") && err.contains("(at line 8, column 9)"),
        "{err}"
    );
    assert!(!bag.exists());
    // With its definition under --msg-path it converts.
    let msgs = dir.path().join("msgs/my_pkg/msg");
    std::fs::create_dir_all(&msgs).unwrap();
    std::fs::write(msgs.join("Thing.msg"), "uint16 count\nstring[] names\n").unwrap();
    let o = bagscope()
        .arg("convert")
        .arg(&yaml)
        .arg(&bag)
        .arg("--msg-path")
        .arg(dir.path().join("msgs"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let b = Bag::open(&bag).unwrap();
    let types: Vec<(&str, &str)> = b
        .connections()
        .iter()
        .map(|c| (c.topic.as_str(), c.datatype.as_str()))
        .collect();
    assert_eq!(
        types,
        [
            ("/scan_range", "std_msgs/Float32"),
            ("custom", "my_pkg/Thing")
        ]
    );
    let back = dir.path().join("back.yaml");
    let o = bagscope()
        .arg("convert")
        .arg(&bag)
        .arg(&back)
        .output()
        .unwrap();
    assert!(o.status.success());
    let text = std::fs::read_to_string(&back).unwrap();
    assert!(text.contains("    data: 0.10000000149011612\n"), "{text}");
    assert!(
        text.contains("    names:\n      - \"a\"\n      - \"b c\"\n"),
        "{text}"
    );
}

/// A RoCKIn item on `topic` with the message `body` (lines indented by 4).
fn item(topic: &str, body: &str) -> String {
    let mut s = format!("- topic: {topic}\n  secs: 1397024209\n  nsecs: 156423000\n  message:\n");
    for line in body.lines() {
        s.push_str("    ");
        s.push_str(line);
        s.push('\n');
    }
    s
}

fn listing(dir: &Path) -> Vec<String> {
    crate::common::listing(dir)
}

/// Converting `text` fails with exit code 1, an error naming `(line, column)` and `what`,
/// and leaves nothing but the input behind.
fn assert_error(text: &str, line: u64, column: u64, what: &str) {
    let dir = tempfile::tempdir().unwrap();
    let yaml = dir.path().join("in.yaml");
    std::fs::write(&yaml, text).unwrap();
    let bag = dir.path().join("out.bag");
    let o = run(&[&yaml, &bag]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{text}\n{err}");
    let at = format!("(at line {line}, column {column})");
    assert!(
        err.starts_with(&format!("bagscope: error: {}: ", yaml.display()))
            && err.contains(&at)
            && err.contains(what),
        "expected {at} and '{what}' for\n{text}\ngot: {err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(listing(dir.path()), ["in.yaml"], "nothing is left behind");
}

#[test]
fn every_error_names_its_line_and_column() {
    let pose2d = |theta: &str| item("pose2d", &format!("x: 5.5\ny: 6\n{theta}"));
    let ok = pose2d("theta: 6.4");
    // Unknown topic: at the topic's name.
    assert_error(
        &(ok.clone() + &item("scan", "data: x")),
        8,
        10,
        "unknown topic 'scan'",
    );
    // Missing field: at the first key of the message that lacks it.
    assert_error(
        &pose2d(""),
        5,
        5,
        "missing field 'theta' (float64) of geometry_msgs/Pose2D",
    );
    // A field the type does not have.
    assert_error(
        &pose2d("theta: 1\nz: 2"),
        8,
        5,
        "message: unexpected field 'z': geometry_msgs/Pose2D has the fields x, y, theta",
    );
    // Wrong type of value.
    assert_error(
        &pose2d("theta: abc"),
        7,
        12,
        "message.theta: expected a number (float64), found 'abc'",
    );
    assert_error(&pose2d("theta: [1]"), 7, 12, "found a list");
    let image = |field: &str| {
        item(
            "image",
            &format!(
                "header:\n  seq: 1\n  stamp: {{secs: 1, nsecs: 2}}\n  frame_id: ''\nheight: 1\nwidth: 1\n\
                 encoding: mono8\n{field}\nstep: 1\ndata: !!binary AA==\n"
            ),
        )
    };
    assert_error(
        &image("is_bigendian: 0\nis_bigendian: 0"),
        13,
        5,
        "'is_bigendian' is given twice",
    );
    // Out of range.
    assert_error(
        &image("is_bigendian: 256"),
        12,
        19,
        "message.is_bigendian: 256 is out of range for uint8 (0 to 255)",
    );
    assert_error(
        &image("is_bigendian: -1"),
        12,
        19,
        "-1 is out of range for uint8",
    );
    assert_error(
        &item("image", "header:\n  seq: 4294967296\n"),
        6,
        12,
        "message.header.seq: 4294967296 is out of range for uint32",
    );
    assert_error(
        "- topic: command\n  secs: 1\n  nsecs: 1000000000\n  message:\n    data: x\n",
        3,
        10,
        "nsecs: 1000000000 is out of range for nsecs (0 to 999999999)",
    );
    assert_error(&pose2d("theta: 1e999"), 7, 12, "out of range for float64");
    // Bad base64: at the offending character, also inside a block scalar.
    assert_error(
        &item("audio", "data: !!binary QUJ*RA=="),
        5,
        23,
        "bad base64: '*' is not a base64 character",
    );
    assert_error(
        &item("audio", "data: !!binary |\n  QUJD\n  RE$G\n"),
        7,
        9,
        "bad base64",
    );
    assert_error(
        &item("audio", "data: QUJDR"),
        5,
        15,
        "one character left over",
    );
    assert_error(
        &item("audio", "data: [1, 2, 300]"),
        5,
        18,
        "message.data[2]: 300 is out of range for uint8",
    );
    // Path of nested arrays.
    let path = item(
        "path",
        "header: {seq: 0, stamp: {secs: 0, nsecs: 0}, frame_id: map}\nposes:\n- header: {seq: 0, stamp: {secs: 0, nsecs: 0}, frame_id: map}\n  pose:\n    position: {x: 0, y: 0, z: 0}\n    orientation: {x: 0, y: 0, z: 0, w: one}\n",
    );
    assert_error(
        &path,
        10,
        44,
        "message.poses[0].pose.orientation.w: expected a number",
    );
    // Items.
    assert_error(
        "- topic: command\n  secs: 1\n  nsecs: 0\n",
        1,
        3,
        "this message item has no 'message'",
    );
    assert_error(
        &(ok.clone() + "  color: red\n"),
        8,
        3,
        "unexpected key 'color'",
    );
    assert_error("topic: command\n", 1, 1, "expected a list of messages");
    assert_error("- [1, 2]\n", 1, 3, "expected a message item");
    // YAML syntax.
    assert_error(
        &pose2d("theta: 'abc"),
        8,
        1,
        "the file ends inside a single-quoted string that starts at line 7, column 12",
    );
    assert_error(
        &pose2d(" theta: 1"),
        7,
        11,
        "a `key:` inside a multi-line plain scalar",
    );
    assert_error(
        "- topic: pose2d\n  secs: 1\n  nsecs: 0\n  message:\n    x: 5.5\n   y: 6\n",
        6,
        4,
        "bad indentation",
    );
}

#[test]
fn truncated_files_are_errors_at_their_end() {
    let text =
        std::fs::read_to_string(fixtures_dir().join("rockin/synthetic-all-topic-types.yaml"))
            .unwrap();
    // Cut inside the flow list of the point cloud's data.
    let cut = text.find("0, 0, 64, 64").unwrap();
    let truncated = &text[..cut];
    let lines = truncated.lines().count() as u64;
    let col = truncated.lines().last().unwrap().chars().count() as u64 + 1;
    assert_error(
        truncated,
        lines,
        col,
        "the file ends inside the flow sequence that starts at",
    );
    // Cut in the middle of a line inside a message: at the end of the file.
    let cut = text.find("    z: 0.0\n   orientation:").unwrap() + 8;
    let truncated = &text[..cut];
    let lines = truncated.lines().count() as u64;
    assert_error(
        truncated,
        lines,
        9,
        "the file ends before field 'orientation' (geometry_msgs/Quaternion) of geometry_msgs/Pose (truncated?)",
    );
    // Cut at a line's end inside a message: the message lacks fields, and the file ends.
    let cut = text.find("   orientation:").unwrap();
    let truncated = &text[..cut];
    let position = truncated.lines().position(|l| l == "   position:").unwrap() as u64 + 1;
    assert_error(
        truncated,
        position,
        4,
        "missing field 'orientation' (geometry_msgs/Quaternion) of geometry_msgs/Pose (the file ends inside this message: truncated?)",
    );
    // Cut inside an item's keys.
    let cut = text.find("  nsecs: 500000000").unwrap() - 3;
    let truncated = &text[..cut];
    let lines = truncated.lines().count() as u64;
    assert_error(
        truncated,
        lines,
        17,
        "the file ends before the 'nsecs' of this message item (truncated?)",
    );
}

#[test]
fn direction_and_output_checks() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = dir.path().join("in.yaml");
    std::fs::copy(fixtures_dir().join("rockin/spec-example.yaml"), &yaml).unwrap();
    let original = std::fs::read(&yaml).unwrap();
    // Neither direction.
    for (a, b) in [
        ("in.yaml", "out.yaml"),
        ("in.yaml", "out.txt"),
        ("x.bag", "y.bag"),
    ] {
        let o = run(&[&dir.path().join(a), &dir.path().join(b)]);
        assert_eq!(o.status.code(), Some(2), "{a} {b}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("cannot tell which way to convert"));
    }
    // OUT is IN through a symbolic link: refused, the input untouched.
    #[cfg(unix)]
    {
        let link = dir.path().join("link.bag");
        std::os::unix::fs::symlink(&yaml, &link).unwrap();
        let o = run(&[&yaml, &link]);
        assert_eq!(o.status.code(), Some(2));
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("is the input"),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(std::fs::read(&yaml).unwrap(), original);
        let bag = dir.path().join("a.bag");
        convert(&yaml, &bag);
        let ylink = dir.path().join("link.yaml");
        std::os::unix::fs::symlink(&bag, &ylink).unwrap();
        let before = std::fs::read(&bag).unwrap();
        let o = run(&[&bag, &ylink]);
        assert_eq!(o.status.code(), Some(2));
        assert_eq!(std::fs::read(&bag).unwrap(), before);
    }
    // --compression is for YAML → bag only.
    let bag = dir.path().join("c.bag");
    let o = bagscope()
        .arg("convert")
        .arg(&yaml)
        .arg(&bag)
        .args(["--compression", "bz2"])
        .output()
        .unwrap();
    assert!(o.status.success());
    let b = Bag::open(&bag).unwrap();
    assert_eq!(
        b.head(0).unwrap().compression,
        bagscope::format::Compression::Bz2
    );
    let o = bagscope()
        .arg("convert")
        .arg(&bag)
        .arg(dir.path().join("c.yaml"))
        .args(["--compression", "lz4"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    // A missing input.
    let o = run(&[&dir.path().join("missing.yaml"), &dir.path().join("m.bag")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing.yaml: cannot open"));
    assert!(!dir.path().join("m.bag").exists());
}

#[test]
fn the_spec_example_reads_as_written() {
    let it = items(&fixtures_dir().join("rockin/spec-example.yaml"));
    assert_eq!(it.len(), 2);
    assert_eq!(it[0].topic, "pose2d");
    assert_eq!(it[0].datatype, "geometry_msgs/Pose2D");
    assert_eq!(
        (it[0].time.sec, it[0].time.nsec),
        (1_397_024_209, 156_423_000)
    );
    assert_eq!(it[0].value.get("y").unwrap().as_f64(), Some(6.0));
    let img = &it[1].value;
    assert_eq!(
        img.get("data").unwrap().array_len(),
        Some(48),
        "4 × 12 bytes"
    );
    assert_eq!(img.at_path("header.seq").unwrap().as_f64(), Some(306.0));
    assert_eq!(img.get("encoding").unwrap().as_str_lossy().unwrap(), "bgr8");
}

/// A deterministic pseudo-random sequence.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

#[test]
fn mutated_inputs_never_panic() {
    let registry = Registry::bundled();
    let mut rng = Lcg(42);
    let specials = b"-:#[]{},'\"|>!&*?\\ \t\n=%@`~0129aZ\x00\xc3\xa9";
    let mut errors = 0;
    for yaml in fixtures() {
        let original = std::fs::read(&yaml).unwrap();
        for round in 0..250 {
            let mut data = original.clone();
            match round % 4 {
                0 => data.truncate(rng.below(data.len() + 1)),
                1 => {
                    for _ in 0..1 + rng.below(4) {
                        let at = rng.below(data.len());
                        data[at] = specials[rng.below(specials.len())];
                    }
                }
                2 => {
                    let at = rng.below(data.len());
                    let n = rng.below(64).min(data.len() - at);
                    data.drain(at..at + n);
                }
                _ => {
                    let at = rng.below(data.len());
                    let piece: Vec<u8> = data[rng.below(data.len())..]
                        .iter()
                        .take(rng.below(80))
                        .copied()
                        .collect();
                    data.splice(at..at, piece);
                }
            }
            let lines = data.split(|&b| b == b'\n').count() as u64;
            let limits = Limits {
                max_line: 4096,
                max_scalar: 4096,
                max_depth: 16,
            };
            for item in MessageReader::new(&data[..], &registry, limits) {
                match item {
                    Ok(it) => {
                        // What reads must also serialize.
                        bagscope::msg::encode(&it.schema, &it.value).unwrap();
                    }
                    Err(e) => {
                        errors += 1;
                        assert!(
                            e.mark.line >= 1 && e.mark.line <= lines + 1 && e.mark.column >= 1,
                            "{}: {e}",
                            yaml.display()
                        );
                        break;
                    }
                }
            }
        }
    }
    assert!(errors > 1000, "mutations are mostly errors: {errors}");
}

#[test]
fn every_field_kind_round_trips() {
    let ext = fixtures_dir().join("rockin/extension");
    let msgs = ext.join("msgs");
    let mut registry = Registry::bundled();
    registry.add_msg_path(&msgs).unwrap();
    let read = |yaml: &Path| -> Vec<Item> {
        let file = std::io::BufReader::new(std::fs::File::open(yaml).unwrap());
        MessageReader::new(file, &registry, Limits::default())
            .collect::<Result<Vec<_>, _>>()
            .unwrap()
    };
    let dir = tempfile::tempdir().unwrap();
    let yaml = ext.join("all-field-kinds.yaml");
    let steps = [
        (yaml.clone(), dir.path().join("a.bag")),
        (dir.path().join("a.bag"), dir.path().join("a.yaml")),
        (dir.path().join("a.yaml"), dir.path().join("b.bag")),
        (dir.path().join("b.bag"), dir.path().join("b.yaml")),
    ];
    for (input, output) in &steps {
        let o = bagscope()
            .arg("convert")
            .arg(input)
            .arg(output)
            .arg("--msg-path")
            .arg(&msgs)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let original = read(&yaml);
    let back = read(&dir.path().join("a.yaml"));
    assert_eq!(original.len(), 2);
    assert_same_items(&original, &back, "all-field-kinds");
    let text = std::fs::read_to_string(dir.path().join("a.yaml")).unwrap();
    assert_eq!(
        text,
        std::fs::read_to_string(dir.path().join("b.yaml")).unwrap()
    );
    assert_eq!(
        std::fs::read(dir.path().join("a.bag")).unwrap(),
        std::fs::read(dir.path().join("b.bag")).unwrap()
    );
    // Values that only survive when written with care.
    for line in [
        "    f32s: [0.10000000149011612, -0.0, nan, inf, -inf, 3.4028234663852886e+38, 1.401298464324817e-45]",
        "    f64s: [0.1, -0.0, nan, inf, -inf, 1.7976931348623157e+308, 5e-324, 1e+16]",
        "      - \"é\\n\\x01\\t\\\"\\\\\"",
        "    raw: !!binary /wA=",
        "    big: 18446744073709551615",
        "    neg: -9223372036854775808",
        "    nothings:\n      - {}\n      - {}",
    ] {
        assert!(text.contains(line), "{line}\n{text}");
    }
    let v = &original[0].value;
    let raw = v.get("raw").unwrap();
    assert!(matches!(raw, bagscope::msg::Value::String(b) if b.as_ref() == b"\xff\x00"));
}
