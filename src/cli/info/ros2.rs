//! `bagscope info` for ROS 2 inputs — a rosbag2 directory, or an MCAP file recorded by ROS 2
//! (profile `ros2`, or CDR messages): the layout of `ros2 bag info` (files, bag size, storage
//! id, duration, start, end, messages, topic information with type, count and serialization
//! format), in text, YAML or JSON. The numbers come from the storage files, not from the
//! directory's `metadata.yaml`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use crate::bag::Bag;
use crate::cli::context::open_bag_with;
use crate::cli::json::Json;
use crate::cli::outcome::Outcome;
use crate::time::RosTime;

/// True when `bag` is shown in the `ros2 bag info` layout: a ROS 2 recording, or an MCAP
/// file none of whose channels is `ros1` (CDR, JSON, ...: the layout names each topic's
/// serialization format).
pub(super) fn is_ros2(bag: &Bag) -> bool {
    bag.mcap().is_some_and(|m| m.profile == "ros2")
        || (bag.mcap().is_some()
            && !bag.connections().is_empty()
            && bag
                .connections()
                .iter()
                .all(|c| c.message_encoding != "ros1"))
}

/// One topic over the storage files.
struct Topic {
    datatype: String,
    count: u64,
    format: String,
}

/// The facts `ros2 bag info` shows, over the storage files of one recording.
pub(super) struct Ros2Info {
    files: Vec<String>,
    size: u64,
    storage: String,
    start: Option<RosTime>,
    end: Option<RosTime>,
    messages: u64,
    topics: BTreeMap<String, Topic>,
}

impl Ros2Info {
    /// The facts of the storage files `bags` (in order).
    /// File names are shown relative to `dir` (a bag directory), as `ros2 bag info` does.
    pub(super) fn new(bags: &[Bag], dir: Option<&Path>) -> Ros2Info {
        let mut topics: BTreeMap<String, Topic> = BTreeMap::new();
        for b in bags {
            for c in b.connections() {
                let t = topics.entry(c.topic.clone()).or_insert_with(|| Topic {
                    datatype: c.datatype.clone(),
                    count: 0,
                    format: c.message_encoding.clone(),
                });
                t.count += c.message_count;
            }
        }
        let storage = |b: &Bag| {
            let name = b.path().to_string_lossy();
            if name.ends_with(".db3") || name.ends_with(".db3.zstd") {
                "sqlite3"
            } else {
                "mcap"
            }
        };
        Ros2Info {
            files: bags
                .iter()
                .map(|b| {
                    let p = b.path();
                    dir.and_then(|d| p.strip_prefix(d).ok())
                        .unwrap_or(p)
                        .display()
                        .to_string()
                })
                .collect(),
            size: bags.iter().map(Bag::size).sum(),
            storage: bags.first().map_or("mcap", storage).to_string(),
            start: bags.iter().filter_map(Bag::start_time).min(),
            end: bags.iter().filter_map(Bag::end_time).max(),
            messages: bags.iter().map(Bag::message_count).sum(),
            topics,
        }
    }

    fn duration_ns(&self) -> u64 {
        match (self.start, self.end) {
            (Some(s), Some(e)) => e.as_nanos().saturating_sub(s.as_nanos()),
            _ => 0,
        }
    }

    /// The `ros2 bag info` text.
    pub(super) fn text(&self) -> String {
        let mut out = String::new();
        let row = |out: &mut String, name: &str, value: &str| {
            let _ = writeln!(out, "{:<19}{value}", format!("{name}:"));
        };
        row(&mut out, "Files", &self.files.join("\n                   "));
        row(&mut out, "Bag size", &size(self.size));
        row(&mut out, "Storage id", &self.storage);
        let d = self.duration_ns();
        row(
            &mut out,
            "Duration",
            &format!("{}.{:09}s", d / 1_000_000_000, d % 1_000_000_000),
        );
        row(&mut out, "Start", &stamp(self.start));
        row(&mut out, "End", &stamp(self.end));
        row(&mut out, "Messages", &self.messages.to_string());
        let width = self.topics.keys().map(String::len).max().unwrap_or(0);
        let lines: Vec<String> = self
            .topics
            .iter()
            .map(|(name, t)| {
                format!(
                    "Topic: {name:<width$} | Type: {} | Count: {} | Serialization Format: {}",
                    t.datatype, t.count, t.format
                )
            })
            .collect();
        row(
            &mut out,
            "Topic information",
            &lines.join("\n                   "),
        );
        out.pop();
        out
    }

    /// The same facts as JSON.
    pub(super) fn json(&self, shown: &str) -> Json {
        let time =
            |t: Option<RosTime>| t.map_or(Json::Null, |t| Json::Int(i128::from(t.as_nanos())));
        Json::Obj(vec![
            ("path".into(), Json::Str(shown.to_string())),
            (
                "files".into(),
                Json::Arr(self.files.iter().map(|f| Json::Str(f.clone())).collect()),
            ),
            ("bag_size".into(), Json::Int(i128::from(self.size))),
            ("storage_id".into(), Json::Str(self.storage.clone())),
            (
                "duration_ns".into(),
                Json::Int(i128::from(self.duration_ns())),
            ),
            ("start_ns".into(), time(self.start)),
            ("end_ns".into(), time(self.end)),
            ("messages".into(), Json::Int(i128::from(self.messages))),
            (
                "topics".into(),
                Json::Arr(
                    self.topics
                        .iter()
                        .map(|(name, t)| {
                            Json::Obj(vec![
                                ("topic".into(), Json::Str(name.clone())),
                                ("type".into(), Json::Str(t.datatype.clone())),
                                ("count".into(), Json::Int(i128::from(t.count))),
                                ("serialization_format".into(), Json::Str(t.format.clone())),
                            ])
                        })
                        .collect(),
                ),
            ),
        ])
    }
}

/// A size as `ros2 bag info` prints it (`10.4 KiB`).
fn size(bytes: u64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < units.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", units.get(u).copied().unwrap_or("B"))
    }
}

/// A time as `ros2 bag info` prints it: local date and time with nanoseconds, then the epoch
/// seconds.
fn stamp(t: Option<RosTime>) -> String {
    let Some(t) = t else {
        return "-".into();
    };
    let secs = i64::from(t.sec);
    let date = chrono::DateTime::from_timestamp(secs, 0)
        .map(|d| {
            d.with_timezone(&chrono::Local)
                .format("%b %e %Y %H:%M:%S")
                .to_string()
        })
        .unwrap_or_default();
    format!("{date}.{:09} ({}.{:09})", t.nsec, t.sec, t.nsec)
}

/// What an input of `info` is.
pub(super) enum Input {
    /// It could not be opened (said already).
    Nothing,
    /// A bag (or ROS1 MCAP): the `rosbag info` layout.
    Bag(Bag),
    /// A ROS 2 recording: the `ros2 bag info` layout.
    Ros2(Ros2Info),
}

/// Opens `path`: a ROS 2 bag directory's storage files, or one file (a ROS 2 MCAP is shown
/// in the ROS 2 layout unless `health` asks for the health report). What cannot be opened or
/// was lost is printed and raises `outcome`.
/// `remember`: converted ROS 2 storage files may be kept in the cache (`--no-cache` says no).
pub(super) fn open_input(
    path: &Path,
    health: bool,
    remember: bool,
    outcome: &mut Outcome,
) -> Input {
    let options = if remember {
        crate::cli::cache_dir::open_options()
    } else {
        crate::bag::OpenOptions::default()
    };
    let mut bags = Vec::new();
    let dir = crate::bag::inputs::storage_files(path).filter(|f| !f.is_empty());
    if let Some(files) = &dir {
        for f in files {
            match open_bag_with(f, options.clone()) {
                Ok(b) => bags.push(b),
                Err(o) => *outcome = (*outcome).max(o),
            }
        }
    } else {
        match open_bag_with(path, options) {
            Ok(b) if is_ros2(&b) && !health => bags.push(b),
            Ok(b) => return Input::Bag(b),
            Err(o) => {
                *outcome = (*outcome).max(o);
                return Input::Nothing;
            }
        }
    }
    for b in &bags {
        if crate::cli::damage::print_losses(b) {
            *outcome = (*outcome).max(Outcome::Problems);
        }
    }
    if bags.is_empty() {
        return Input::Nothing;
    }
    Input::Ros2(Ros2Info::new(&bags, dir.is_some().then_some(path)))
}

/// A JSON tree written as block YAML (for `--yaml`).
pub(super) fn yaml(j: &Json) -> String {
    let mut out = String::new();
    write_yaml(j, 0, &mut out);
    out.pop();
    out
}

fn write_yaml(j: &Json, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    match j {
        Json::Obj(pairs) => {
            for (k, v) in pairs {
                match v {
                    Json::Obj(_) | Json::Arr(_) => {
                        let _ = writeln!(out, "{pad}{k}:");
                        write_yaml(v, indent + 2, out);
                    }
                    _ => {
                        let _ = writeln!(out, "{pad}{k}: {}", v.to_compact());
                    }
                }
            }
        }
        Json::Arr(items) => {
            for item in items {
                let mut inner = String::new();
                write_yaml(item, indent + 2, &mut inner);
                let trimmed = inner.trim_start();
                let _ = write!(out, "{pad}- {trimmed}");
                if !inner.ends_with('\n') {
                    out.push('\n');
                }
            }
        }
        other => {
            let _ = writeln!(out, "{pad}{}", other.to_compact());
        }
    }
}
