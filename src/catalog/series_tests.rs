//! Tests of series extraction on the fixture bags, compared with the official reader.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;

use super::*;
use crate::bag::OpenOptions;
use crate::msg::path::PathError;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn catalog(names: &[&str]) -> Catalog {
    let paths: Vec<PathBuf> = names.iter().map(|n| fixture(n)).collect();
    let (c, errors) = Catalog::open(&paths, &OpenOptions::default());
    assert!(errors.is_empty(), "{errors:?}");
    c
}

fn run(c: &Catalog, spec: &str) -> (Column, SeriesStats, Vec<SeriesUpdate>) {
    let request = SeriesRequest::parse(c, spec).unwrap();
    let mut updates = Vec::new();
    let (column, stats) = extract(
        c,
        &request,
        &Registry::bundled(),
        &AtomicBool::new(false),
        |u| {
            updates.push(u.clone());
            true
        },
    )
    .unwrap();
    (column, stats, updates)
}

fn python() -> &'static str {
    if Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3"
    } else {
        "python3"
    }
}

/// `(time ns, value)` of `topic`'s `field` (Python attribute syntax) read with the official
/// `rosbag` library, or why it cannot be run.
fn official(bag: &Path, topic: &str, field: &str) -> Result<Vec<(i64, f64)>, String> {
    let have = Command::new(python())
        .args(["-c", "import rosbag, roslz4, genpy"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !have {
        return Err(format!(
            "{} cannot import rosbag/roslz4/genpy (apt-get install python3-rosbag python3-roslz4)",
            python()
        ));
    }
    let script = "import sys, rosbag\n\
        bag, topic, field = sys.argv[1:4]\n\
        for _, m, t in rosbag.Bag(bag).read_messages(topics=[topic]):\n\
        \x20   v = eval('m.' + field)\n\
        \x20   v = v.to_sec() if hasattr(v, 'to_sec') else float(v)\n\
        \x20   print(t.to_nsec(), repr(v))\n";
    let out = Command::new(python())
        .args(["-c", script])
        .arg(bag)
        .args([topic, field])
        .output()
        .map_err(|e| e.to_string())?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (t, v) = l.split_once(' ').unwrap();
            (t.parse().unwrap(), v.parse().unwrap())
        })
        .collect())
}

/// The column equals what the official reader gives, value for value (bit for bit).
#[test]
fn matches_the_official_reader() {
    for (bag, spec, topic, field) in [
        (
            "recorded.bag",
            "/imu/linear_acceleration/z",
            "/imu",
            "linear_acceleration.z",
        ),
        (
            "recorded_lz4.bag",
            "/imu/linear_acceleration.z",
            "/imu",
            "linear_acceleration.z",
        ),
        (
            "recorded_bz2.bag",
            "/odom/pose/pose/position/x",
            "/odom",
            "pose.pose.position.x",
        ),
        (
            "recorded.bag",
            "/odom/pose/covariance[0]",
            "/odom",
            "pose.covariance[0]",
        ),
        (
            "recorded.bag",
            "/tf/transforms[0].transform.translation.x",
            "/tf",
            "transforms[0].transform.translation.x",
        ),
        ("recorded.bag", "/imu/header/stamp", "/imu", "header.stamp"),
        // Two connections on one topic; a byte field.
        ("recorded.bag", "/rosout/level", "/rosout", "level"),
        (
            "recorded.bag",
            "/rosout/header/stamp",
            "/rosout",
            "header.stamp",
        ),
    ] {
        let expected = match official(&fixture(bag), topic, field) {
            Ok(v) => v,
            Err(why) => {
                println!("skipped: {why}");
                return;
            }
        };
        let (column, stats, _) = run(&catalog(&[bag]), spec);
        assert!(!expected.is_empty(), "{bag} {spec}");
        let got: Vec<(i64, u64)> = column
            .times
            .iter()
            .zip(&column.values)
            .map(|(t, v)| (*t, v.to_bits()))
            .collect();
        let want: Vec<(i64, u64)> = expected.iter().map(|(t, v)| (*t, v.to_bits())).collect();
        assert_eq!(got, want, "{bag} {spec}");
        assert_eq!(stats.messages, expected.len() as u64);
        assert_eq!(stats.lost(), 0);
    }
}

#[test]
fn delivers_sorted_pieces_with_progress() {
    let c = catalog(&["recorded.bag", "recorded_lz4.bag"]);
    let (column, stats, updates) = run(&c, "/imu/angular_velocity/x");
    // Two bags of the same recording: every message twice.
    assert_eq!(column.len(), 110);
    assert_eq!(stats.messages, 110);
    assert!(column.times.is_sorted());
    assert!(updates.len() > 1, "{}", updates.len());
    let mut merged = Column::new();
    let mut last = 0.0;
    for u in &updates {
        assert!(u.fraction >= last && u.fraction <= 1.0);
        last = u.fraction;
        assert!(u.piece.times.is_sorted());
        merged.merge(u.piece.clone());
        assert_eq!(u.points, merged.len());
    }
    assert_eq!(merged, column);
    let end = updates.last().unwrap();
    assert!(end.done && (end.fraction - 1.0).abs() < 1e-12);
    assert!(column.heap_bytes() <= 16 * column.len() * 2);
}

#[test]
fn stops_when_cancelled() {
    let c = catalog(&["recorded.bag"]);
    let request = SeriesRequest::parse(&c, "/imu/linear_acceleration/z").unwrap();
    let (column, _) = extract(
        &c,
        &request,
        &Registry::bundled(),
        &AtomicBool::new(true),
        |_| true,
    )
    .unwrap();
    assert!(column.is_empty());
    // A callback saying stop ends after the first piece.
    let mut calls = 0;
    let (column, _) = extract(
        &c,
        &request,
        &Registry::bundled(),
        &AtomicBool::new(false),
        |_| {
            calls += 1;
            false
        },
    )
    .unwrap();
    assert_eq!(calls, 1);
    assert!(column.len() < 55);
}

#[test]
fn runs_on_a_thread() {
    let job = spawn(
        catalog(&["recorded.bag"]),
        SeriesRequest::parse(&catalog(&["recorded.bag"]), "/odom/twist/twist/linear/x").unwrap(),
        Registry::bundled(),
    )
    .unwrap();
    let mut column = Column::new();
    let mut done = false;
    for u in &job.updates {
        let u = u.unwrap();
        column.merge(u.piece);
        done = u.done;
    }
    assert!(done);
    assert_eq!(column.len(), 27);
}

/// Why extracting `request` fails.
fn extract_err(c: &Catalog, request: &SeriesRequest) -> SeriesError {
    extract(
        c,
        request,
        &Registry::bundled(),
        &AtomicBool::new(false),
        |_| true,
    )
    .unwrap_err()
}

#[test]
fn bad_paths_are_typed_errors() {
    let c = catalog(&["recorded.bag"]);
    assert_eq!(
        SeriesRequest::parse(&c, "/nothing/x").unwrap_err(),
        SeriesError::NoTopic("/nothing/x".into())
    );
    let request = SeriesRequest::parse(&c, "/imu/linear_acceleration/w").unwrap();
    let e = extract_err(&c, &request);
    assert!(
        matches!(&e, SeriesError::Path { error: PathError::UnknownField { available, .. }, .. }
            if available == &["x", "y", "z"]),
        "{e:?}"
    );
    let request = SeriesRequest::parse(&c, "/chatter/data").unwrap();
    let e = extract_err(&c, &request);
    assert!(matches!(e, SeriesError::NotPlottable { .. }), "{e:?}");
}

/// A damaged chunk costs its messages, counted; the rest is plotted.
#[test]
fn damaged_chunks_are_counted_not_fatal() {
    let path = fixture("recorded.bag");
    let mut bytes = std::fs::read(&path).unwrap();
    let good = Bag::open(&path).unwrap();
    let chunk = good
        .chunks()
        .iter()
        .filter(|c| {
            c.counts
                .iter()
                .any(|&(conn, _)| good.connection(conn).is_some_and(|c| c.topic == "/imu"))
        })
        .nth(1)
        .unwrap()
        .clone();
    // The second chunk holding /imu messages: its data scrambled.
    let head = good.head(chunk.index).unwrap();
    let at = usize::try_from(head.data_offset).unwrap();
    let len = usize::try_from(head.compressed_size).unwrap();
    for b in &mut bytes[at..at + len] {
        *b ^= 0x5a;
    }
    let bag = Bag::from_bytes("damaged.bag", bytes, OpenOptions::default()).unwrap();
    let c = Catalog::new(vec![bag]);
    let (column, stats, _) = run(&c, "/imu/linear_acceleration/z");
    assert!(stats.lost() > 0, "{stats:?}");
    assert!(!stats.problems.is_empty());
    assert!(!column.is_empty(), "{stats:?}");
    assert_eq!(column.len() as u64 + stats.lost(), 55, "{stats:?}");
}

#[test]
fn merge_interleaves_in_time_order() {
    let mut a = Column::from_points(vec![(1, 1.0), (5, 5.0), (9, 9.0)]);
    a.merge(Column::from_points(vec![(6, 6.0), (2, 2.0)]));
    assert_eq!(a.times, [1, 2, 5, 6, 9]);
    assert_eq!(a.values, [1.0, 2.0, 5.0, 6.0, 9.0]);
    a.merge(Column::from_points(vec![(9, 10.0), (12, 12.0)]));
    assert_eq!(a.times, [1, 2, 5, 6, 9, 9, 12]);
    assert_eq!(a.values[4..6], [9.0, 10.0]);
    let mut e = Column::new();
    e.merge(a.clone());
    assert_eq!(e, a);
    assert_eq!(time_ns(RosTime::new(2, 5)), 2_000_000_005);
}

#[test]
fn a_colon_names_the_topic_whole() {
    let c = catalog(&["recorded.bag"]);
    let a = SeriesRequest::parse(&c, "/odom: twist.twist.linear.x").unwrap();
    let b = SeriesRequest::parse(&c, "/odom/twist/twist/linear/x").unwrap();
    assert_eq!(
        (a.topic.as_str(), a.path.text()),
        ("/odom", "twist.twist.linear.x")
    );
    assert_eq!(b.topic, "/odom");
    assert!(matches!(
        SeriesRequest::parse(&c, "/nothing: x"),
        Err(SeriesError::NoTopic(_))
    ));
}

#[test]
fn a_field_after_a_colon_is_the_same_series_and_labels_say_how_it_was_written() {
    let c = catalog(&["recorded.bag"]);
    let (a, _, _) = run(&c, "/imu/linear_acceleration/z");
    let (b, _, _) = run(&c, "/imu: linear_acceleration.z");
    assert!(!a.is_empty());
    assert_eq!(a, b);
    let label = |spec| SeriesRequest::parse(&c, spec).unwrap().label();
    assert_eq!(
        label("/imu/linear_acceleration/z"),
        "/imu/linear_acceleration/z"
    );
    assert_eq!(
        label("/imu: linear_acceleration.z"),
        "/imu/linear_acceleration.z"
    );
    let computed = SeriesRequest::parse(&c, "/imu: abs(linear_acceleration.z)");
    // A computation is an expression (it compiles once the expression language has it).
    if let Ok(r) = &computed {
        assert!(!r.path.is_path());
        assert_eq!(r.label(), "/imu: abs(linear_acceleration.z)");
    }
    // A syntax error names the topic and points at its column.
    let e = SeriesRequest::parse(&c, "/imu: linear_acceleration.z >").unwrap_err();
    assert!(
        matches!(&e, SeriesError::Expr { topic, .. } if topic == "/imu"),
        "{e:?}"
    );
}

/// The path `diff` and `rate` take (gathered on the workers, finished in receive-time order
/// per topic) gives the same column as evaluating where the messages are decoded, on single
/// bags and on a catalog whose bags interleave.
#[test]
fn the_ordered_path_gives_the_same_column() {
    for names in [
        &["recorded.bag"][..],
        &["recorded_lz4.bag"][..],
        &["recorded.bag", "recorded_bz2.bag"][..],
    ] {
        let c = catalog(names);
        for spec in ["/imu/linear_acceleration/z", "/odom: twist.twist.linear.x"] {
            let (want, want_stats, _) = run(&c, spec);
            let request = SeriesRequest::parse(&c, spec).unwrap();
            let mut pieces = Vec::new();
            let (got, stats) = extract_in_order(&c, &request, &Registry::bundled(), |u| {
                pieces.push(u.piece.clone());
                true
            })
            .unwrap();
            assert!(!want.is_empty(), "{names:?} {spec}");
            assert_eq!(got, want, "{names:?} {spec}");
            assert_eq!(stats, want_stats, "{names:?} {spec}");
            // Each piece in order, and after the one before.
            let mut merged = Column::new();
            for p in pieces {
                assert!(p.times.is_sorted());
                if let (Some(a), Some(b)) = (merged.times.last(), p.times.first()) {
                    assert!(a <= b);
                }
                merged.merge(p);
            }
            assert_eq!(merged, want);
        }
    }
}

#[test]
fn computed_series_with_diff_and_rate_follow_the_topic_in_receive_order() {
    let c = catalog(&["recorded.bag"]);
    let (plain, _, _) = run(&c, "/imu/linear_acceleration/z");
    let (seq, _, _) = run(&c, "/imu/header/seq");
    let (diff, stats, _) = run(&c, "/imu: diff(linear_acceleration.z)");
    let (rate, _, _) = run(&c, "/imu: rate(header.seq)");
    let (norm, _, _) = run(
        &c,
        "/imu: norm(linear_acceleration) - abs(linear_acceleration.z)",
    );
    // The first message has no previous one: no value.
    assert_eq!(diff.len(), plain.len() - 1);
    assert_eq!(stats.no_value, 1);
    for i in 1..plain.len() {
        assert_eq!(diff.times[i - 1], plain.times[i]);
        let want = plain.values[i] - plain.values[i - 1];
        assert!((diff.values[i - 1] - want).abs() <= 1e-12 * want.abs().max(1.0));
        let dt = (seq.times[i] - seq.times[i - 1]) as f64 / 1e9;
        let want = (seq.values[i] - seq.values[i - 1]) / dt;
        assert!((rate.values[i - 1] - want).abs() <= 1e-12 * want.abs());
    }
    assert_eq!(norm.len(), plain.len());
    assert!(norm.values.iter().all(|v| *v >= -1e-12));
}
