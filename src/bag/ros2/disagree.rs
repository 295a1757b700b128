//! What `metadata.yaml` says that the storage files contradict ([`Ros2Bag::disagreements`]):
//! start, duration, message counts in all, per topic and per file, types, serialization
//! formats and QoS profiles, and topics on one side only. The storage is the truth; each
//! disagreement is one line for the health view, with text from the bag escaped.

use std::collections::BTreeMap;

use crate::bag::handle::Bag;
use crate::printable::escape;

use super::types::{Metadata, Ros2Bag, StorageFacts, TopicFacts};

impl Ros2Bag {
    /// What the metadata says that the opened storage files (`bags`, in order) contradict:
    /// start, duration, message counts per topic and in all, types, serialization formats.
    /// One line per disagreement, for the health view; the storage is the truth. The notes
    /// of opening ([`Ros2Bag::notes`]: files missing or not listed, rows left out) come
    /// first. Counts and times are taken from `bags` when there is one per storage file
    /// (else from what opening found), types, formats and QoS from the storage files.
    pub fn disagreements(&self, bags: &[Bag]) -> Vec<String> {
        let mut facts: Vec<StorageFacts> = self.storage.iter().map(|s| s.facts.clone()).collect();
        if bags.len() == facts.len() {
            for (f, bag) in facts.iter_mut().zip(bags) {
                overlay(f, bag);
            }
        }
        let names: Vec<String> = self
            .storage
            .iter()
            .map(|s| {
                s.path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
            })
            .collect();
        let mut out = self.notes.clone();
        out.extend(compare(&self.metadata, &names, &facts));
        out
    }
}

impl StorageFacts {
    /// What an opened storage file holds: its topics (type, format, counts) and span.
    pub fn of_bag(bag: &Bag) -> StorageFacts {
        let mut facts = StorageFacts::default();
        for c in bag.connections() {
            if !facts.topics.iter().any(|t| t.name == c.topic) {
                facts.topics.push(TopicFacts {
                    name: c.topic.clone(),
                    datatype: c.datatype.clone(),
                    serialization_format: c.message_encoding.clone(),
                    offered_qos_profiles: bag
                        .mcap()
                        .and_then(|m| m.channel_metadata.get(&c.file_id))
                        .and_then(|m| m.get("offered_qos_profiles"))
                        .cloned()
                        .unwrap_or_default(),
                    message_count: None,
                });
            }
        }
        overlay(&mut facts, bag);
        facts
    }
}

/// Counts and times of an opened storage file replace what opening found.
fn overlay(facts: &mut StorageFacts, bag: &Bag) {
    let count = bag.message_count();
    facts.message_count = Some(count);
    facts.span_ns = match (bag.start_time(), bag.end_time()) {
        (Some(a), Some(b)) if count > 0 => Some((nanos(a), nanos(b))),
        _ => None,
    };
    let mut per_topic: BTreeMap<&str, u64> = BTreeMap::new();
    for c in bag.connections() {
        *per_topic.entry(c.topic.as_str()).or_default() += c.message_count;
    }
    for t in &mut facts.topics {
        t.message_count = Some(per_topic.get(t.name.as_str()).copied().unwrap_or(0));
    }
    for (topic, n) in per_topic {
        if !facts.topics.iter().any(|t| t.name == topic) {
            facts.topics.push(TopicFacts {
                name: topic.to_string(),
                message_count: Some(n),
                ..TopicFacts::default()
            });
        }
    }
}

fn nanos(t: crate::time::RosTime) -> u64 {
    u64::from(t.sec) * 1_000_000_000 + u64::from(t.nsec)
}

/// The storage's view of one topic, over all files.
#[derive(Default)]
struct Seen {
    datatype: String,
    serialization_format: String,
    offered_qos_profiles: String,
    count: Option<u64>,
}

/// The disagreements between `metadata` and the storage files (`names`, `facts`).
pub fn compare(metadata: &Metadata, names: &[String], facts: &[StorageFacts]) -> Vec<String> {
    let mut out = Vec::new();
    let total: Option<u64> = facts.iter().map(|f| f.message_count).sum();
    let span = facts
        .iter()
        .filter_map(|f| f.span_ns)
        .reduce(|(a, b), (c, d)| (a.min(c), b.max(d)));
    if let Some(total) = total {
        if total != metadata.message_count {
            out.push(format!(
                "message_count: metadata.yaml says {}, the storage files hold {total}",
                metadata.message_count
            ));
        }
    }
    match (metadata.start_ns(), span) {
        (Some(m), Some((s, e))) => {
            if m != s {
                out.push(format!(
                    "starting_time: metadata.yaml says {}, the first message is at {}",
                    secs(m),
                    secs(s)
                ));
            }
            let spans = i128::from(e) - i128::from(s);
            if i128::from(metadata.duration_ns) != spans {
                out.push(format!(
                    "duration: metadata.yaml says {}, the messages span {}",
                    duration(i128::from(metadata.duration_ns)),
                    duration(spans)
                ));
            }
        }
        (None, Some((s, _))) if metadata.starting_time_ns == i64::MAX => out.push(format!(
            "starting_time: metadata.yaml says none (INT64_MAX, an empty bag), the first message is at {}",
            secs(s)
        )),
        (None, Some((s, _))) => out.push(format!(
            "starting_time: metadata.yaml says {} ns, the first message is at {}",
            metadata.starting_time_ns,
            secs(s)
        )),
        (Some(m), None) if total == Some(0) => out.push(format!(
            "starting_time: metadata.yaml says {}, the storage files hold no message",
            secs(m)
        )),
        _ => {}
    }
    topics(metadata, facts, &mut out);
    files(metadata, names, facts, &mut out);
    out
}

/// Per topic: on one side only, counts, types, formats, QoS.
fn topics(metadata: &Metadata, facts: &[StorageFacts], out: &mut Vec<String>) {
    let mut seen: BTreeMap<&str, Seen> = BTreeMap::new();
    let mut order: Vec<&str> = Vec::new();
    for t in facts.iter().flat_map(|f| &f.topics) {
        let entry = seen.entry(t.name.as_str()).or_insert_with(|| {
            order.push(t.name.as_str());
            Seen {
                count: Some(0),
                ..Seen::default()
            }
        });
        for (mine, theirs) in [
            (&mut entry.datatype, &t.datatype),
            (&mut entry.serialization_format, &t.serialization_format),
            (&mut entry.offered_qos_profiles, &t.offered_qos_profiles),
        ] {
            if mine.is_empty() {
                mine.clone_from(theirs);
            }
        }
        entry.count = match (entry.count, t.message_count) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
    }
    for m in &metadata.topics {
        let name = escape(&m.name);
        let Some(s) = seen.get(m.name.as_str()) else {
            out.push(format!(
                "{name}: metadata.yaml lists it ({} messages), no storage file has it",
                m.message_count
            ));
            continue;
        };
        if let Some(n) = s.count.filter(|&n| n != m.message_count) {
            out.push(format!(
                "{name}: metadata.yaml says {} messages, the storage files hold {n}",
                m.message_count
            ));
        }
        if !s.datatype.is_empty() && s.datatype != m.datatype {
            out.push(format!(
                "{name}: metadata.yaml says type {}, the storage says {}",
                escape(&m.datatype),
                escape(&s.datatype)
            ));
        }
        if !s.serialization_format.is_empty() && s.serialization_format != m.serialization_format {
            out.push(format!(
                "{name}: metadata.yaml says serialization format {}, the storage says {}",
                escape(&m.serialization_format),
                escape(&s.serialization_format)
            ));
        }
        if !s.offered_qos_profiles.is_empty()
            && !m.offered_qos_profiles.is_empty()
            && !same_qos(&s.offered_qos_profiles, &m.offered_qos_profiles)
        {
            out.push(format!(
                "{name}: metadata.yaml's offered_qos_profiles differ from the storage's"
            ));
        }
    }
    for name in order {
        if !metadata.topics.iter().any(|m| m.name == name) {
            let s = seen.get(name);
            out.push(format!(
                "{} ({}): in the storage files, not in metadata.yaml",
                escape(name),
                escape(s.map_or("", |s| s.datatype.as_str()))
            ));
        }
    }
}

/// Per file of the metadata's `files` list (version 5 and later): count and start.
fn files(metadata: &Metadata, names: &[String], facts: &[StorageFacts], out: &mut Vec<String>) {
    for f in &metadata.files {
        let listed = std::path::Path::new(&f.path)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Some(at) = names.iter().position(|n| *n == listed) else {
            continue;
        };
        let Some(fact) = facts.get(at) else { continue };
        let shown = escape(&listed);
        if let Some(n) = fact.message_count.filter(|&n| n != f.message_count) {
            out.push(format!(
                "{shown}: metadata.yaml says {} messages, the file holds {n}",
                f.message_count
            ));
        }
        let start = u64::try_from(f.starting_time_ns)
            .ok()
            .filter(|_| f.starting_time_ns != i64::MAX);
        if let (Some(m), Some((s, _))) = (start, fact.span_ns) {
            if m != s {
                out.push(format!(
                    "{shown}: metadata.yaml says it starts at {}, its first message is at {}",
                    secs(m),
                    secs(s)
                ));
            }
        }
    }
}

/// Two `offered_qos_profiles` texts say the same: equal as YAML (the metadata may be written
/// in another style than the storage's text), else equal as trimmed text.
fn same_qos(a: &str, b: &str) -> bool {
    if a.trim() == b.trim() {
        return true;
    }
    match (
        yaml_rust2::YamlLoader::load_from_str(a),
        yaml_rust2::YamlLoader::load_from_str(b),
    ) {
        (Ok(x), Ok(y)) => x.iter().map(canon).eq(y.iter().map(canon)),
        _ => false,
    }
}

/// `y` with every mapping's keys in sorted order (mappings compare in insertion order).
fn canon(y: &yaml_rust2::Yaml) -> yaml_rust2::Yaml {
    use yaml_rust2::Yaml;
    match y {
        Yaml::Array(a) => Yaml::Array(a.iter().map(canon).collect()),
        Yaml::Hash(h) => {
            let mut entries: Vec<(Yaml, Yaml)> =
                h.iter().map(|(k, v)| (canon(k), canon(v))).collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Yaml::Hash(entries.into_iter().collect())
        }
        other => other.clone(),
    }
}

/// `SECONDS.NANOSECONDS` since the epoch.
fn secs(ns: u64) -> String {
    format!("{}.{:09}", ns / 1_000_000_000, ns % 1_000_000_000)
}

/// `S.NNNNNNNNN s`, signed.
fn duration(ns: i128) -> String {
    let sign = if ns < 0 { "-" } else { "" };
    let a = ns.unsigned_abs();
    format!("{sign}{}.{:09} s", a / 1_000_000_000, a % 1_000_000_000)
}

#[cfg(test)]
#[path = "disagree_tests.rs"]
mod tests;
