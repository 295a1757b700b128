//! MCAP files and ROS 2 bag directories in the explorer: the health view lists an MCAP file's
//! profile, writer, attachments and metadata records (bounded, escaped).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use bagscope::bag::{Bag, OpenOptions};
use bagscope::catalog::Catalog;
use bagscope::tui::action::Action;

use crate::common::tui::Harness;

/// 2023-11-14 22:13:20 UTC.
const T0: u64 = 1_700_000_000_000_000_000;

/// A CDR `std_msgs/msg/String`.
fn string_msg(text: &str) -> Vec<u8> {
    let mut out = vec![0, 1, 0, 0];
    out.extend(u32::try_from(text.len() + 1).unwrap().to_le_bytes());
    out.extend(text.as_bytes());
    out.push(0);
    out
}

/// An MCAP file (profile `ros2`) with ten messages on `/chatter`, the attachments
/// `(name, media type, size)` and the metadata records `(name, pairs)`.
fn mcap_file(
    path: &Path,
    attachments: &[(&str, &str, usize)],
    metadata: &[(&str, Vec<(&str, &str)>)],
) -> PathBuf {
    let file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut w = mcap::WriteOptions::new()
        .profile("ros2")
        .library("rosbag2 0.26 (bagscope test)")
        .create(file)
        .unwrap();
    let schema = w
        .add_schema("std_msgs/msg/String", "ros2msg", b"string data\n")
        .unwrap();
    let channel = w
        .add_channel(schema, "/chatter", "cdr", &BTreeMap::new())
        .unwrap();
    for i in 0..10u64 {
        let t = T0 + i * 100_000_000;
        w.write_to_known_channel(
            &mcap::records::MessageHeader {
                channel_id: channel,
                sequence: u32::try_from(i).unwrap(),
                log_time: t,
                publish_time: t,
            },
            &string_msg(&format!("hello {i}")),
        )
        .unwrap();
    }
    for (i, (name, media_type, size)) in attachments.iter().enumerate() {
        w.attach(&mcap::Attachment {
            log_time: T0 + 250_000_000 * u64::try_from(i).unwrap(),
            create_time: T0,
            name: (*name).to_string(),
            media_type: (*media_type).to_string(),
            data: Cow::Owned(vec![7u8; *size]),
        })
        .unwrap();
    }
    for (name, pairs) in metadata {
        w.write_metadata(&mcap::records::Metadata {
            name: (*name).to_string(),
            metadata: pairs
                .iter()
                .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
                .collect(),
        })
        .unwrap();
    }
    w.finish().unwrap();
    path.to_path_buf()
}

/// The explorer on the file at `path`, named by its file name alone (screens do not depend on
/// where the test wrote it).
fn harness_of(path: &Path, w: u16, hh: u16) -> Harness {
    let bytes = std::fs::read(path).unwrap();
    let name = path.file_name().unwrap();
    let bag = Bag::from_bytes(name, bytes, OpenOptions::default()).unwrap();
    let mut h = Harness::new(Catalog::new(vec![bag]), w, hh);
    h.scan();
    h
}

/// Every line of the health view, as text.
fn health_lines(h: &Harness) -> Vec<String> {
    let v = &h.app.overlays.health;
    (0..v.lines.len())
        .map(|i| v.line(i, 200).unwrap().0)
        .collect()
}

#[test]
fn the_health_view_lists_an_mcap_files_attachments_and_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let path = mcap_file(
        &dir.path().join("chatter.mcap"),
        &[
            ("calibration.yaml", "application/yaml", 1536),
            ("map\u{202e}lmay.pgm", "image/x-portable-graymap", 300),
        ],
        &[
            (
                "rosbag2",
                vec![("ros_distro", "jazzy"), ("recorded_by", "ops\u{1b}[2J")],
            ),
            ("run", vec![("operator", "ada"), ("site", "hall 3")]),
        ],
    );
    for (w, hh) in [(80u16, 24u16), (160, 48)] {
        let mut h = harness_of(&path, w, hh);
        h.act(&[Action::ToggleHealth, Action::Bottom]);
        let screen = h.screen();
        assert!(
            screen.contains("map\\u{202e}lmay.pgm") && screen.contains("ops\\u{1b}[2J"),
            "the file's text is escaped\n{screen}"
        );
        insta::assert_snapshot!(format!("mcap_health_end_{w}x{hh}"), screen);
    }
    let mut h = harness_of(&path, 120, 40);
    h.act(&[Action::ToggleHealth]);
    let lines = health_lines(&h);
    let want = [
        "read from its summary section",
        "profile ros2 · written by rosbag2 0.26 (bagscope test)",
        "    2 attachments",
        "calibration.yaml · application/yaml · 1.5 KiB · logged at",
        "map\\u{202e}lmay.pgm · image/x-portable-graymap · 300 bytes",
        "    2 metadata records",
        "      rosbag2",
        "        ros_distro: jazzy",
        "        site: hall 3",
    ];
    for w in want {
        assert!(
            lines.iter().any(|l| l.contains(w)),
            "{w:?} not in\n{}",
            lines.join("\n")
        );
    }
}

#[test]
fn many_attachments_and_metadata_records_are_counted_not_all_listed() {
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<String> = (0..25).map(|i| format!("file_{i:02}.bin")).collect();
    let attachments: Vec<(&str, &str, usize)> = names
        .iter()
        .map(|n| (n.as_str(), "application/octet-stream", 10))
        .collect();
    let keys: Vec<String> = (0..30).map(|i| format!("key_{i:02}")).collect();
    let long = "v".repeat(5000);
    let mut records: Vec<(&str, Vec<(&str, &str)>)> = vec![(
        "big",
        keys.iter().map(|k| (k.as_str(), long.as_str())).collect(),
    )];
    records.extend((0..22).map(|_| ("small", vec![("k", "v")])));
    let path = mcap_file(&dir.path().join("many.mcap"), &attachments, &records);
    let mut h = harness_of(&path, 100, 30);
    h.act(&[Action::ToggleHealth]);
    let lines = health_lines(&h);
    let text = lines.join("\n");
    for want in [
        "    25 attachments",
        "… and 5 more attachments (bagscope info lists them all)",
        "    23 metadata records",
        "… and 10 more keys (bagscope info lists them all)",
        "… and 3 more metadata records (bagscope info lists them all)",
    ] {
        assert!(text.contains(want), "{want:?} not in\n{text}");
    }
    assert!(
        !text.contains("file_20.bin"),
        "only the first 20 attachments"
    );
    // A 5000-character value is cut (to 200 characters, wrapped over a few lines).
    assert!(lines.len() < 400, "{} lines", lines.len());
}

/// The explorer started on a ROS 2 bag directory whose `metadata.yaml` disagrees with its
/// storage files (start, duration, counts): the opening thread adds the disagreements as
/// warnings, which the status bar counts and the health view lists, as `info` does.
#[test]
fn a_bag_directorys_disagreements_reach_the_health_view_and_the_status_bar() {
    use bagscope::tui::jobs::notify::Notify;
    use bagscope::tui::jobs::opening::{Bags, Progress, start};
    // Relative, so that the screens do not depend on where the tree is.
    let dir = PathBuf::from("../shared/corpus-mcap/rosbag2/sqlite3/multiple_files");
    if !dir.join("metadata.yaml").is_file() {
        crate::common::skip("../shared/corpus-mcap/rosbag2/sqlite3/multiple_files is absent");
        return;
    }
    let (cli_catalog, _) = Catalog::open(std::slice::from_ref(&dir), &OpenOptions::default());
    let cli_warnings: Vec<String> = cli_catalog
        .bags()
        .iter()
        .flat_map(Bag::warnings)
        .map(|w| w.to_string())
        .collect();
    assert!(!cli_warnings.is_empty(), "the metadata disagrees");
    for (w, hh) in [(80u16, 24u16), (160, 48)] {
        let (tx, rx) = std::sync::mpsc::channel::<Progress>();
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        start(
            Bags::Paths(vec![dir.clone()], OpenOptions::default()),
            Notify::from(tx),
            move |catalog, errors| {
                done_tx.send((catalog, errors)).unwrap();
            },
        )
        .unwrap();
        let (catalog, errors) = done_rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .unwrap();
        drop(rx);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(catalog.bags().len(), 3, "the directory's three files");
        let warnings: Vec<String> = catalog
            .bags()
            .iter()
            .flat_map(Bag::warnings)
            .map(|w| w.to_string())
            .collect();
        assert_eq!(warnings, cli_warnings, "as the command line says");
        let mut h = Harness::new(catalog, w, hh);
        h.scan();
        let status = h.status_bar();
        let n = warnings.len();
        assert!(
            status.contains(&format!("{n} warning")),
            "{n} warnings counted: {status}"
        );
        h.act(&[Action::ToggleHealth, Action::Bottom]);
        let lines = health_lines(&h).join("\n");
        for w in &warnings {
            let first: String = w.chars().take(30).collect();
            assert!(lines.contains(&first), "{w:?} not in\n{lines}");
        }
        insta::assert_snapshot!(format!("ros2_dir_health_end_{w}x{hh}"), h.screen());
    }
}

/// An MCAP file without a summary section (as some writers leave it out) of `chunks` chunks
/// of 50 messages on `/chatter`, as bytes, of profile `profile`.
fn mcap_without_summary(chunks: u64, profile: &str) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    let mut w = mcap::WriteOptions::new()
        .profile(profile)
        .library("no-summary writer")
        .chunk_size(Some(2000))
        .emit_summary_records(false)
        .emit_summary_offsets(false)
        .emit_statistics(false)
        .emit_chunk_indexes(false)
        .emit_attachment_indexes(false)
        .emit_metadata_indexes(false)
        .repeat_channels(false)
        .repeat_schemas(false)
        .create(&mut out)
        .unwrap();
    // ROS1 messages without the ros2 profile: `info` then uses its own layout, not `ros2 bag
    // info`'s.
    let ros2 = profile == "ros2";
    let (schema_encoding, encoding) = if ros2 {
        ("ros2msg", "cdr")
    } else {
        ("ros1msg", "ros1")
    };
    let schema = w
        .add_schema("std_msgs/String", schema_encoding, b"string data\n")
        .unwrap();
    let channel = w
        .add_channel(schema, "/chatter", encoding, &BTreeMap::new())
        .unwrap();
    for i in 0..chunks * 50 {
        let t = T0 + i * 10_000_000;
        w.write_to_known_channel(
            &mcap::records::MessageHeader {
                channel_id: channel,
                sequence: u32::try_from(i).unwrap(),
                log_time: t,
                publish_time: t,
            },
            &if ros2 {
                string_msg(&format!("hello {i:08}"))
            } else {
                let text = format!("hello {i:08}");
                let mut m = u32::try_from(text.len()).unwrap().to_le_bytes().to_vec();
                m.extend(text.as_bytes());
                m
            },
        )
        .unwrap();
    }
    w.finish().unwrap();
    drop(w);
    out.into_inner()
}

/// A scan of an MCAP file without a summary hands out the file as found so far: bags of
/// growing message counts, each with how far the scan is, the last one finished.
#[test]
fn an_mcap_scan_hands_out_growing_partial_bags() {
    use bagscope::bag::{PartialFn, PartialScan};
    use std::sync::{Arc, Mutex};
    let bytes = mcap_without_summary(400, "ros2");
    // The explorer opens it last, to show it as it is scanned.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no_summary.mcap");
    std::fs::write(&path, &bytes).unwrap();
    assert!(Bag::likely_needs_scan(&path));
    let with_summary = mcap_file(&dir.path().join("summary.mcap"), &[], &[]);
    assert!(!Bag::likely_needs_scan(&with_summary));
    // Per partial result: messages, bytes walked, file size, whether it says so.
    type Seen = Vec<(u64, u64, u64, bool)>;
    let seen: Arc<Mutex<Seen>> = Arc::default();
    let sink = Arc::clone(&seen);
    let options = OpenOptions {
        partial: Some(PartialFn(Arc::new(move |p: PartialScan| {
            let scanned = p.bag.recovery().and_then(|r| r.scanned).is_some();
            sink.lock()
                .unwrap()
                .push((p.bag.message_count(), p.done, p.total, scanned));
            true
        }))),
        ..OpenOptions::default()
    };
    let bag = Bag::from_bytes("no_summary.mcap", bytes, options).unwrap();
    assert_eq!(bag.message_count(), 400 * 50);
    let seen = seen.lock().unwrap().clone();
    assert!(!seen.is_empty(), "no partial result");
    let (first, _, _, _) = seen[0];
    assert!(
        first > 0 && first < bag.message_count(),
        "the first is handed out after the first chunks: {first}"
    );
    for pair in seen.windows(2) {
        assert!(pair[0].0 <= pair[1].0, "counts grow: {seen:?}");
        assert!(pair[0].1 < pair[1].1, "the scan goes on: {seen:?}");
    }
    for &(_, done, total, scanned) in &seen {
        assert!(done < total && scanned, "{seen:?}");
    }
    assert!(bag.recovery().unwrap().scanned.is_none());
    assert_eq!(bag.mcap().unwrap().library, "no-summary writer");
}

/// Returning false from the partial results' callback stops the scan.
#[test]
fn an_mcap_scan_stops_when_nobody_listens() {
    use bagscope::bag::{BagErrorKind, PartialFn};
    use std::sync::Arc;
    let options = OpenOptions {
        partial: Some(PartialFn(Arc::new(|_| false))),
        ..OpenOptions::default()
    };
    let err =
        Bag::from_bytes("no_summary.mcap", mcap_without_summary(40, "ros2"), options).unwrap_err();
    assert!(matches!(*err.kind, BagErrorKind::Cancelled), "{err}");
}

/// A valid MCAP file without a summary section is said to be read by a scan, not recovered
/// (nothing was lost, exit code 0), in `info` and the health view; one cut short still is.
#[test]
fn a_file_without_a_summary_is_read_by_a_scan_not_recovered() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole.mcap");
    let bytes = mcap_without_summary(20, "");
    std::fs::write(&whole, &bytes).unwrap();
    let cut = dir.path().join("cut.mcap");
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let (out, err, code) = crate::common::run_bagscope(&["info", whole.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.lines().any(|l| l.starts_with("read:")
            && l.ends_with(" by a scan: the file has no summary section (nothing was lost)")),
        "{out}"
    );
    assert!(
        !out.contains("recovered") && !out.contains("index:"),
        "{out}"
    );
    let (out, _, code) = crate::common::run_bagscope(&["info", cut.to_str().unwrap()]);
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("index:") && out.contains("lost:"), "{out}");
    let mut h = harness_of(&whole, 100, 30);
    assert!(
        h.status_bar().contains("whole.mcap · MCAP scanned"),
        "{}",
        h.status_bar()
    );
    h.act(&[Action::ToggleHealth]);
    let lines = health_lines(&h).join("\n");
    assert!(
        lines.contains(
            "#1 whole.mcap: read by a scan: the file has no summary section (nothing was lost)"
        ),
        "{lines}"
    );
    assert!(!lines.contains("recovered"), "{lines}");
    let mut h = harness_of(&cut, 100, 30);
    assert!(
        h.status_bar().contains("cut.mcap · MCAP recovered"),
        "{}",
        h.status_bar()
    );
    h.act(&[Action::ToggleHealth]);
    let lines = health_lines(&h).join("\n");
    assert!(
        lines.contains("recovered") && lines.contains("lost"),
        "{lines}"
    );
}
