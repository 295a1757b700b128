//! Our `rostopic echo` YAML and `rostopic echo -p` CSV against Debian's `rostopic` itself, run on
//! the same bags (our fixture `recorded.bag`, and topics of the shared corpus when present).
//! Skips when `rostopic` is not installed.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use bagscope::bag::{Bag, Query};
use bagscope::msg::csv::CsvLayout;
use bagscope::msg::{Registry, Schema, decode, yaml};

use crate::common::msg_support;

fn rostopic(args: &[&str]) -> Option<String> {
    let out = Command::new("rostopic").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

fn have_rostopic() -> bool {
    // `rostopic -h` exits with 64 after printing its usage.
    let ok = Command::new("rostopic").arg("-h").output().is_ok_and(|o| {
        String::from_utf8_lossy(&o.stdout).contains("rostopic echo")
            || String::from_utf8_lossy(&o.stderr).contains("rostopic echo")
    });
    if !ok {
        eprintln!("skipping: Debian's rostopic is not installed (apt install python3-rostopic)");
    }
    ok
}

/// Our `echo` and `echo -p` output for one topic, messages in bag order.
fn ours(bag: &Bag, topic: &str) -> (String, String) {
    let registry = Registry::bundled();
    let conns: Vec<_> = bag
        .connections()
        .iter()
        .filter(|c| c.topic == topic)
        .collect();
    let schemas: std::collections::HashMap<_, _> = conns
        .iter()
        .map(|c| {
            let s =
                Schema::for_connection(&c.datatype, &c.message_definition, &c.md5sum, &registry)
                    .unwrap();
            (c.id, s)
        })
        .collect();
    let mut echo = String::new();
    let mut plot = String::new();
    let mut layout: Option<CsvLayout> = None;
    for m in bag.messages(&Query::all().connections(conns.iter().map(|c| c.id))) {
        let m = m.unwrap();
        let value = decode(&schemas[&m.entry.conn], &m.data).unwrap();
        yaml::write_echo(&mut echo, &value).unwrap();
        let layout = layout.get_or_insert_with(|| {
            let l = CsvLayout::new(&value);
            plot.push_str(&l.header());
            plot.push('\n');
            l
        });
        // rostopic prints each message's values in its own shape, unquoted, whatever the
        // header says; we keep rows aligned with the first message's columns (docs/export.md).
        // Compare the values with rostopic's, and check our row equals them when it fits.
        let (cells, fit) = layout.cells(&value);
        let own = CsvLayout::new(&value);
        let (own_cells, _) = own.cells(&value);
        if fit.is_exact() {
            assert_eq!(cells, own_cells);
        } else {
            assert_ne!(layout.columns(), own.columns());
        }
        writeln!(plot, "{},{}", m.entry.time.as_nanos(), own_cells.join(",")).unwrap();
    }
    (echo, plot)
}

/// Asserts equality line by line, showing the first line that differs.
fn same(ours: &str, theirs: &str, what: &str) {
    for (i, (a, b)) in ours.lines().zip(theirs.lines()).enumerate() {
        assert_eq!(a, b, "{what}: line {}", i + 1);
    }
    assert_eq!(
        ours.lines().count(),
        theirs.lines().count(),
        "{what}: line count"
    );
    assert_eq!(ours, theirs, "{what}");
}

fn check_bag(path: &Path, topics: &[&str]) {
    let bag = Bag::open(path).unwrap();
    let p = path.to_str().unwrap();
    for topic in topics {
        let (echo, plot) = ours(&bag, topic);
        let theirs = rostopic(&["echo", "-b", p, topic])
            .unwrap_or_else(|| panic!("rostopic echo -b {p} {topic} failed"));
        same(&echo, &theirs, &format!("{p} {topic}: echo"));
        let theirs = rostopic(&["echo", "-b", p, "-p", topic])
            .unwrap_or_else(|| panic!("rostopic echo -b {p} -p {topic} failed"));
        same(&plot, &theirs, &format!("{p} {topic}: echo -p"));
    }
}

#[test]
fn fixture_bag_echo_matches_rostopic() {
    if !have_rostopic() {
        return;
    }
    let bag = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recorded.bag");
    check_bag(&bag, crate::common::RECORDED_TOPICS);
}

#[test]
fn corpus_echo_matches_rostopic() {
    if !have_rostopic() {
        return;
    }
    let Some(dir) = msg_support::corpus_dir() else {
        return;
    };
    check_bag(
        &dir.join("gen-mixed_none.bag"),
        &[
            "/custom/all_types",
            "/gps/fix",
            "/path",
            "/points",
            "/array",
            "/pose2d",
            "/empty",
        ],
    );
    check_bag(
        &dir.join("webviz-only-a-cube.bag"),
        &["/marker_in_parent_frame", "/tf"],
    );
    check_bag(&dir.join("embag-array_test.bag"), &["/array_test"]);
    check_bag(
        &dir.join("rosnumpy-test.bag"),
        &[
            "/compressedimage",
            "/image",
            "/occupancygrid",
            "/pointcloud",
            "/transform",
        ],
    );
    check_bag(
        &dir.join("matlabrosbag-example-old.bag"),
        &["/scarab1/amcl_pose", "/scarab1/odom"],
    );
    check_bag(
        &dir.join("rosbagjs-example.bag"),
        &["/rosout", "/tf", "/turtle1/pose", "/turtle1/color_sensor"],
    );
    // (rostopic cannot read V1.2 bags: noetic's reader passes an argument the 1.2 reader does
    // not take.)
}
