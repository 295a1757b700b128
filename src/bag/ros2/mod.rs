//! ROS 2 bag directories (rosbag2): `metadata.yaml` and its storage files, `.mcap` or
//! SQLite `.db3`, split and zstd-compressed as the metadata says.
//!
//! A directory opens as one recording: [`open_dir`] reads the metadata and prepares each
//! storage file in order as an MCAP the bag layer opens ([`Storage`]): an `.mcap` file as it
//! is, a `.db3` file (read-only, through the bundled SQLite; a private copy when it has a
//! write-ahead log) or a zstd-compressed file converted into an MCAP file. The storage
//! files are the truth; what the metadata says that they contradict is a
//! [`Ros2Bag::disagreements`] note.
//!
//! Memory and disk: a `.db3` of any size is converted in bounded memory (tens of MB) into
//! an MCAP file: the cache entry for it when the caller names a cache directory (the next
//! open reads it at once), else an unlinked temporary file in `$TMPDIR`. The disk space it
//! takes is about the `.db3`'s size. [`Limits`] bounds what decompressing takes, and the
//! one case still read into memory (an `.mcap` whose messages are compressed one by one).
//!
//! Files: `types.rs` (the values), `metadata.rs` (`metadata.yaml`), `layout.rs` (which files,
//! in which order), `prepare.rs` (one storage file), `sqlite.rs` (`.db3` tables), `db3.rs`
//! (`.db3` → MCAP, in time order), `order.rs` (the bounded reorder window), `output.rs`
//! (where a conversion is written), `cache.rs` (conversions kept between runs),
//! `mcap_storage.rs` (`.mcap`: summary, per-message decompression), `convert.rs` (the MCAP
//! writer), `zstd.rs` (bounded decompression, sniffing), `disagree.rs` (metadata against
//! storage), `error.rs`.

mod cache;
mod convert;
mod db3;
mod disagree;
mod error;
mod layout;
mod mcap_storage;
mod metadata;
mod order;
mod output;
mod prepare;
mod recording;
mod sqlite;
mod types;
mod zstd;

use std::path::Path;

pub use disagree::compare;
pub use error::Ros2Error;
pub use layout::paths_to_open;
pub use metadata::{MAX_METADATA_BYTES, NEWEST_VERSION, parse_metadata, read_metadata};
pub use prepare::{Limits, prepare};
pub use recording::disagreements_of;
pub use types::{
    FileInfo, Metadata, Ros2Bag, Storage, StorageContent, StorageFacts, TopicFacts, TopicInfo,
};

use super::error::BagError;
use layout::{is_storage_name, plan, storage_files_in};

/// True when `path` is a rosbag2 bag directory: it holds a `metadata.yaml`, or (a recording
/// whose metadata was never written) `.db3` storage files, or `.mcap` files named like the
/// directory's split series (`DIR_N.mcap`).
#[allow(clippy::case_sensitive_file_extension_comparisons)] // rosbag2 writes them in lower case
pub fn is_ros2_dir(path: &Path) -> bool {
    if !path.is_dir() {
        return false;
    }
    if path.join("metadata.yaml").is_file() {
        return true;
    }
    let Some(dir_name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    storage_files_in(path).is_ok_and(|names| {
        names.iter().any(|n| {
            n.ends_with(".db3")
                || n.ends_with(".db3.zstd")
                || n.strip_prefix(dir_name)
                    .and_then(|rest| rest.strip_prefix('_'))
                    .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
        })
    })
}

/// Reads a ROS 2 bag directory's metadata and prepares its storage files (converted ones
/// into unlinked temporary files).
pub fn open_dir(dir: &Path) -> Result<Ros2Bag, BagError> {
    open_dir_with(dir, &Limits::default(), None).map_err(BagError::from)
}

/// [`open_dir`] with chosen [`Limits`] and cache directory (see [`prepare`]), and the error
/// as it is.
///
/// A storage file that cannot be read is a note (the others still open); the directory is
/// an error only when no listed file opens, or the compression is unknown. A directory
/// without `metadata.yaml` (or with one that does not parse) opens its storage files in
/// natural name order, with a note, and metadata made up from them.
pub fn open_dir_with(
    dir: &Path,
    limits: &Limits,
    cache: Option<&Path>,
) -> Result<Ros2Bag, Ros2Error> {
    let meta_path = dir.join("metadata.yaml");
    let present = storage_files_in(dir)?;
    let mut notes = Vec::new();
    let found = if meta_path.is_file() {
        match read_metadata(&meta_path) {
            Ok(m) => Some(m),
            Err(e) if !present.is_empty() => {
                notes.push(format!(
                    "{}; the storage files were opened in name order",
                    e.line()
                ));
                None
            }
            Err(e) => return Err(e),
        }
    } else {
        if !present.is_empty() {
            notes.push(format!(
                "{}: no metadata.yaml; the storage files were opened in name order (`ros2 bag reindex` writes one)",
                dir.display()
            ));
        }
        None
    };
    let (format, mode) = found.as_ref().map_or((String::new(), String::new()), |m| {
        (m.compression_format.clone(), m.compression_mode.clone())
    });
    let message_zstd = check_compression(&meta_path, &format, &mode)?;
    let names = match &found {
        Some(m) => {
            if m.version > NEWEST_VERSION {
                notes.push(format!(
                    "{}: version {} is newer than this reader knows ({NEWEST_VERSION}): fields it added are not read",
                    meta_path.display(),
                    m.version
                ));
            }
            let (names, more) = plan(dir, m, &present);
            notes.extend(more);
            names
        }
        None => present.clone(),
    };
    let mut storage = Vec::new();
    let mut failed = Vec::new();
    for name in &names {
        match prepare::prepare(&dir.join(name), message_zstd, limits, cache) {
            Ok((s, more)) => {
                storage.push(s);
                notes.extend(more);
            }
            Err(e) => {
                notes.push(format!("{}; not opened", e.line()));
                failed.push(e);
            }
        }
    }
    if storage.is_empty() {
        if let Some(first) = failed.into_iter().next() {
            return Err(first);
        }
        if names.is_empty() && found.is_none() {
            return Err(Ros2Error::NoStorage {
                path: dir.to_path_buf(),
                what: "no metadata.yaml and no storage file (.db3, .mcap)".into(),
            });
        }
    }
    let metadata = found.unwrap_or_else(|| made_up(&storage, &names));
    Ok(Ros2Bag {
        dir: dir.to_path_buf(),
        metadata,
        storage,
        notes,
    })
}

/// `message_zstd` for the metadata's compression, or the error naming an unknown one.
fn check_compression(meta_path: &Path, format: &str, mode: &str) -> Result<bool, Ros2Error> {
    let unknown = || Ros2Error::UnknownCompression {
        path: meta_path.to_path_buf(),
        format: crate::printable::escape(format).into_owned(),
        mode: crate::printable::escape(mode).into_owned(),
    };
    let mode_up = mode.to_ascii_uppercase();
    match format.to_ascii_lowercase().as_str() {
        "" => Ok(false),
        "zstd" => match mode_up.as_str() {
            "FILE" | "" | "NONE" => Ok(false),
            "MESSAGE" => Ok(true),
            _ => Err(unknown()),
        },
        _ => Err(unknown()),
    }
}

/// Metadata for a directory without (readable) `metadata.yaml`, from its storage files.
fn made_up(storage: &[Storage], names: &[String]) -> Metadata {
    let storage_identifier = names
        .iter()
        .find(|n| is_storage_name(n))
        .map(|n| {
            if n.contains(".db3") {
                "sqlite3"
            } else {
                "mcap"
            }
        })
        .unwrap_or_default()
        .to_string();
    let mut topics: Vec<TopicInfo> = Vec::new();
    for t in storage.iter().flat_map(|s| &s.facts.topics) {
        let count = t.message_count.unwrap_or(0);
        if let Some(m) = topics.iter_mut().find(|m| m.name == t.name) {
            m.message_count += count;
        } else {
            topics.push(TopicInfo {
                name: t.name.clone(),
                datatype: t.datatype.clone(),
                serialization_format: t.serialization_format.clone(),
                offered_qos_profiles: t.offered_qos_profiles.clone(),
                type_description_hash: None,
                message_count: count,
            });
        }
    }
    let span = storage
        .iter()
        .filter_map(|s| s.facts.span_ns)
        .reduce(|(a, b), (c, d)| (a.min(c), b.max(d)));
    Metadata {
        version: 0,
        storage_identifier,
        relative_file_paths: names.to_vec(),
        starting_time_ns: span
            .and_then(|(s, _)| i64::try_from(s).ok())
            .unwrap_or(i64::MAX),
        duration_ns: span
            .and_then(|(s, e)| i64::try_from(e - s).ok())
            .unwrap_or(0),
        message_count: storage.iter().filter_map(|s| s.facts.message_count).sum(),
        topics,
        ..Metadata::default()
    }
}
