//! `metadata.yaml` (`rosbag2_bagfile_information`, versions 1 to 9) read into [`Metadata`]:
//! every field optional but the mapping itself, numbers given as YAML integers (or as
//! digits in a string), `offered_qos_profiles` kept as the YAML text it is stored as (a
//! sequence written as YAML is turned back into text). Errors name the field and what is
//! wrong; nothing here panics on any input.

use std::collections::BTreeMap;
use std::path::Path;

use yaml_rust2::{Yaml, YamlEmitter, YamlLoader};

use super::error::Ros2Error;
use super::types::{FileInfo, Metadata, TopicInfo};

/// The largest `metadata.yaml` read (a real one is a few KB; thousands of topics are < 10 MB).
pub const MAX_METADATA_BYTES: u64 = 64 << 20;

/// The newest metadata version whose fields this reader knows.
pub const NEWEST_VERSION: u32 = 9;

/// Reads and parses `path` (a `metadata.yaml`).
pub fn read_metadata(path: &Path) -> Result<Metadata, Ros2Error> {
    let len = std::fs::metadata(path)
        .map_err(|e| Ros2Error::io(path, "reading", e))?
        .len();
    if len > MAX_METADATA_BYTES {
        return Err(Ros2Error::Metadata {
            path: path.to_path_buf(),
            what: format!(
                "{len} bytes: larger than any metadata file ({MAX_METADATA_BYTES} bytes at most)"
            ),
        });
    }
    let bytes = std::fs::read(path).map_err(|e| Ros2Error::io(path, "reading", e))?;
    let text = String::from_utf8(bytes).map_err(|e| Ros2Error::Metadata {
        path: path.to_path_buf(),
        what: format!("not UTF-8 text (at byte {})", e.utf8_error().valid_up_to()),
    })?;
    parse_metadata(&text).map_err(|what| Ros2Error::Metadata {
        path: path.to_path_buf(),
        what,
    })
}

/// Parses the text of a `metadata.yaml`; the error says what is wrong.
pub fn parse_metadata(text: &str) -> Result<Metadata, String> {
    let docs = YamlLoader::load_from_str(text).map_err(|e| format!("not YAML: {e}"))?;
    let Some(doc) = docs.first() else {
        return Err("empty: no rosbag2_bagfile_information mapping".into());
    };
    let info = &doc["rosbag2_bagfile_information"];
    if !info.is_hash() {
        return Err("no rosbag2_bagfile_information mapping at the top".into());
    }
    let version = opt_u64(info, "version", "version")?.unwrap_or(0);
    let version =
        u32::try_from(version).map_err(|_| format!("version {version} is out of range"))?;
    let mut topics = Vec::new();
    if let Some(list) = opt_array(info, "topics_with_message_count")? {
        for (i, item) in list.iter().enumerate() {
            topics.push(topic(item, i)?);
        }
    }
    let mut files = Vec::new();
    if let Some(list) = opt_array(info, "files")? {
        for (i, item) in list.iter().enumerate() {
            files.push(file_info(item, i)?);
        }
    }
    let mut relative_file_paths = Vec::new();
    if let Some(list) = opt_array(info, "relative_file_paths")? {
        for (i, item) in list.iter().enumerate() {
            let name = format!("relative_file_paths[{i}]");
            relative_file_paths
                .push(scalar_text(item).ok_or_else(|| format!("{name}: not a file name"))?);
        }
    }
    Ok(Metadata {
        version,
        storage_identifier: opt_string(info, "storage_identifier", "storage_identifier")?
            .unwrap_or_default(),
        relative_file_paths,
        starting_time_ns: opt_i64(
            &info["starting_time"],
            "nanoseconds_since_epoch",
            "starting_time.nanoseconds_since_epoch",
        )?
        .unwrap_or(i64::MAX),
        duration_ns: opt_i64(&info["duration"], "nanoseconds", "duration.nanoseconds")?
            .unwrap_or(0),
        message_count: opt_u64(info, "message_count", "message_count")?.unwrap_or(0),
        topics,
        compression_format: opt_string(info, "compression_format", "compression_format")?
            .unwrap_or_default(),
        compression_mode: opt_string(info, "compression_mode", "compression_mode")?
            .unwrap_or_default(),
        ros_distro: opt_string(info, "ros_distro", "ros_distro")?,
        files,
        custom_data: custom_data(&info["custom_data"])?,
    })
}

/// One `topics_with_message_count` item.
fn topic(item: &Yaml, i: usize) -> Result<TopicInfo, String> {
    let at = format!("topics_with_message_count[{i}]");
    if !item.is_hash() {
        return Err(format!("{at}: not a mapping"));
    }
    let meta = &item["topic_metadata"];
    if !meta.is_hash() {
        return Err(format!("{at}: no topic_metadata mapping"));
    }
    let field = |key: &str| format!("{at}.topic_metadata.{key}");
    let name = opt_string(meta, "name", &field("name"))?
        .ok_or_else(|| format!("{}: missing", field("name")))?;
    Ok(TopicInfo {
        name,
        datatype: opt_string(meta, "type", &field("type"))?.unwrap_or_default(),
        serialization_format: opt_string(
            meta,
            "serialization_format",
            &field("serialization_format"),
        )?
        .unwrap_or_default(),
        offered_qos_profiles: qos_text(&meta["offered_qos_profiles"])
            .ok_or_else(|| format!("{}: not YAML text", field("offered_qos_profiles")))?,
        type_description_hash: opt_string(
            meta,
            "type_description_hash",
            &field("type_description_hash"),
        )?,
        message_count: opt_u64(item, "message_count", &format!("{at}.message_count"))?.unwrap_or(0),
    })
}

/// One `files` item (version 5 and later).
fn file_info(item: &Yaml, i: usize) -> Result<FileInfo, String> {
    let at = format!("files[{i}]");
    if !item.is_hash() {
        return Err(format!("{at}: not a mapping"));
    }
    Ok(FileInfo {
        path: opt_string(item, "path", &format!("{at}.path"))?
            .ok_or_else(|| format!("{at}.path: missing"))?,
        starting_time_ns: opt_i64(
            &item["starting_time"],
            "nanoseconds_since_epoch",
            &format!("{at}.starting_time.nanoseconds_since_epoch"),
        )?
        .unwrap_or(i64::MAX),
        duration_ns: opt_i64(
            &item["duration"],
            "nanoseconds",
            &format!("{at}.duration.nanoseconds"),
        )?
        .unwrap_or(0),
        message_count: opt_u64(item, "message_count", &format!("{at}.message_count"))?.unwrap_or(0),
    })
}

/// `custom_data`: a mapping of scalars (or `~`).
fn custom_data(node: &Yaml) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    match node {
        Yaml::BadValue | Yaml::Null => {}
        Yaml::Hash(map) => {
            for (k, v) in map {
                let key = scalar_text(k).ok_or("custom_data: a key is not text")?;
                let value = scalar_text(v)
                    .or_else(|| matches!(v, Yaml::Null).then(String::new))
                    .ok_or_else(|| format!("custom_data.{key}: not text"))?;
                out.insert(key, value);
            }
        }
        _ => return Err("custom_data: not a mapping".into()),
    }
    Ok(out)
}

/// `offered_qos_profiles`: the text as stored; a sequence or mapping written as YAML (not
/// as a string) is emitted back as text; absent or `~` is empty.
fn qos_text(node: &Yaml) -> Option<String> {
    match node {
        Yaml::BadValue | Yaml::Null => Some(String::new()),
        Yaml::String(s) => Some(s.clone()),
        Yaml::Array(_) | Yaml::Hash(_) => {
            let mut out = String::new();
            YamlEmitter::new(&mut out).dump(node).ok()?;
            Some(out.strip_prefix("---\n").unwrap_or(&out).to_string())
        }
        _ => None,
    }
}

/// A scalar as text (strings, numbers and booleans as written).
fn scalar_text(node: &Yaml) -> Option<String> {
    match node {
        Yaml::String(s) | Yaml::Real(s) => Some(s.clone()),
        Yaml::Integer(i) => Some(i.to_string()),
        Yaml::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

/// An array field, `None` when absent or `~`.
fn opt_array<'a>(map: &'a Yaml, key: &str) -> Result<Option<&'a Vec<Yaml>>, String> {
    match &map[key] {
        Yaml::BadValue | Yaml::Null => Ok(None),
        Yaml::Array(a) => Ok(Some(a)),
        _ => Err(format!("{key}: not a list")),
    }
}

/// A text field, `None` when absent or `~`.
fn opt_string(map: &Yaml, key: &str, name: &str) -> Result<Option<String>, String> {
    match &map[key] {
        Yaml::BadValue | Yaml::Null => Ok(None),
        other => scalar_text(other)
            .map(Some)
            .ok_or_else(|| format!("{name}: not text")),
    }
}

/// A signed integer field, `None` when absent or `~`.
fn opt_i64(map: &Yaml, key: &str, name: &str) -> Result<Option<i64>, String> {
    match &map[key] {
        Yaml::BadValue | Yaml::Null => Ok(None),
        Yaml::Integer(i) => Ok(Some(*i)),
        Yaml::String(s) => s
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| format!("{name}: '{}' is not an integer", s.escape_debug())),
        _ => Err(format!("{name}: not an integer")),
    }
}

/// A count field, `None` when absent or `~`.
fn opt_u64(map: &Yaml, key: &str, name: &str) -> Result<Option<u64>, String> {
    match &map[key] {
        Yaml::BadValue | Yaml::Null => Ok(None),
        Yaml::Integer(i) => u64::try_from(*i)
            .map(Some)
            .map_err(|_| format!("{name}: {i} is negative")),
        Yaml::String(s) | Yaml::Real(s) => s
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| format!("{name}: '{}' is not a count", s.escape_debug())),
        _ => Err(format!("{name}: not a count")),
    }
}

#[cfg(test)]
#[path = "metadata_tests.rs"]
mod tests;
