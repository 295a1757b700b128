//! One storage file made ready for the MCAP reader ([`prepare`]): read as what its first
//! bytes say it is (whatever its name): an MCAP file in place (its facts from its summary),
//! an SQLite `.db3` converted into an MCAP in memory, zstd data (`compression_mode: FILE`)
//! decompressed into a private temporary file first (bounded) and then read as what it
//! holds; messages compressed one by one (`MESSAGE`) decompressed while converting.

use std::io::Read;
use std::path::Path;

use super::error::Ros2Error;
use super::mcap_storage::{decompress_messages, read_summary, summary_facts};
use super::sqlite::{ConvertOptions, convert_db3, open_db};
use super::types::{Storage, StorageContent, StorageFacts};
use super::zstd::{Kind, decompress_file, head_of, sniff};

/// Bounds on what opening a bag directory may take in memory and temporary disk space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most a zstd-compressed storage file may decompress to (temporary disk space).
    pub max_decompressed: u64,
    /// The largest storage file converted into an MCAP in memory (a `.db3`, or an `.mcap`
    /// whose messages are compressed one by one): about the memory the conversion takes.
    pub max_converted: u64,
    /// The most one message may decompress to (`compression_mode: MESSAGE`).
    pub max_message: u64,
}

impl Default for Limits {
    /// 16 GiB decompressed, 8 GiB converted, 1 GiB per message.
    fn default() -> Self {
        Limits {
            max_decompressed: 16 << 30,
            max_converted: 8 << 30,
            max_message: 1 << 30,
        }
    }
}

/// Prepares the storage file `path`; `message_zstd`: each message is zstd-compressed.
/// Returns it with notes on what could not be converted.
pub fn prepare(
    path: &Path,
    message_zstd: bool,
    limits: &Limits,
) -> Result<(Storage, Vec<String>), Ros2Error> {
    let kind = sniff(&head_of(path)?);
    match kind {
        Kind::Zstd => {
            let dir = tempfile::Builder::new()
                .prefix("bagscope-zstd-")
                .tempdir()
                .map_err(|e| {
                    Ros2Error::io(path, "making a private directory to decompress into", e)
                })?;
            let plain = dir.path().join("storage");
            let mut out = std::io::BufWriter::new(
                std::fs::File::create(&plain)
                    .map_err(|e| Ros2Error::io(path, "decompressing into a private file", e))?,
            );
            decompress_file(path, &mut out, limits.max_decompressed)?;
            std::io::Write::flush(&mut out)
                .map_err(|e| Ros2Error::io(path, "decompressing into a private file", e))?;
            drop(out);
            match sniff(&head_of(&plain)?) {
                Kind::Sqlite => db3(path, &plain, Some(dir), message_zstd, limits),
                Kind::Mcap => {
                    let bytes = read_bounded(&plain, path, limits.max_converted)?;
                    drop(dir);
                    mcap_bytes(path, bytes, message_zstd, limits)
                }
                _ => Err(not_storage(
                    path,
                    "decompresses to neither an SQLite database nor an MCAP file",
                )),
            }
        }
        Kind::Sqlite => db3(path, path, None, message_zstd, limits),
        Kind::Mcap if message_zstd => {
            let bytes = read_bounded(path, path, limits.max_converted)?;
            mcap_bytes(path, bytes, true, limits)
        }
        Kind::Mcap => {
            let summary = read_summary(path)?;
            let storage = Storage {
                path: path.to_path_buf(),
                content: StorageContent::McapFile(path.to_path_buf()),
                facts: summary_facts(summary.as_ref()),
            };
            Ok((storage, Vec::new()))
        }
        Kind::Unknown => Err(not_storage(
            path,
            "neither an SQLite database, an MCAP file nor zstd data (by its first bytes)",
        )),
    }
}

/// A `.db3` (`file`, maybe a private decompressed copy of `shown`) converted.
fn db3(
    shown: &Path,
    file: &Path,
    private: Option<tempfile::TempDir>,
    message_zstd: bool,
    limits: &Limits,
) -> Result<(Storage, Vec<String>), Ros2Error> {
    let len = std::fs::metadata(file)
        .map_err(|e| Ros2Error::io(shown, "reading", e))?
        .len();
    if len > limits.max_converted {
        return Err(too_large(shown, len, limits.max_converted));
    }
    let db = open_db(file, shown, private)?;
    let options = ConvertOptions {
        message_zstd,
        max_message: limits.max_message,
        max_total: limits.max_converted,
    };
    let (bytes, facts, notes) = convert_db3(&db, options)?;
    drop(db);
    Ok((
        Storage {
            path: shown.to_path_buf(),
            content: StorageContent::McapBytes(bytes),
            facts,
        },
        notes,
    ))
}

/// An MCAP held in memory (decompressed, or read for its messages to be decompressed).
fn mcap_bytes(
    shown: &Path,
    bytes: Vec<u8>,
    message_zstd: bool,
    limits: &Limits,
) -> Result<(Storage, Vec<String>), Ros2Error> {
    let (bytes, facts) = if message_zstd {
        decompress_messages(shown, &bytes, limits.max_message, limits.max_converted)?
    } else {
        let facts = match mcap::Summary::read(&bytes) {
            Ok(summary) => summary_facts(summary.as_ref()),
            Err(_) => StorageFacts::default(),
        };
        (bytes, facts)
    };
    Ok((
        Storage {
            path: shown.to_path_buf(),
            content: StorageContent::McapBytes(bytes),
            facts,
        },
        Vec::new(),
    ))
}

/// The whole of `file` (standing for `shown`), refused past `limit` bytes.
fn read_bounded(file: &Path, shown: &Path, limit: u64) -> Result<Vec<u8>, Ros2Error> {
    let f = std::fs::File::open(file).map_err(|e| Ros2Error::io(shown, "opening", e))?;
    let len = f
        .metadata()
        .map_err(|e| Ros2Error::io(shown, "reading", e))?
        .len();
    if len > limit {
        return Err(too_large(shown, len, limit));
    }
    let mut bytes = Vec::new();
    f.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| Ros2Error::io(shown, "reading", e))?;
    if bytes.len() as u64 > limit {
        return Err(too_large(shown, bytes.len() as u64, limit));
    }
    Ok(bytes)
}

fn too_large(path: &Path, len: u64, limit: u64) -> Ros2Error {
    Ros2Error::TooLarge {
        path: path.to_path_buf(),
        what: format!("converting {len} bytes in memory"),
        limit,
    }
}

fn not_storage(path: &Path, what: &str) -> Ros2Error {
    Ros2Error::NoStorage {
        path: path.to_path_buf(),
        what: what.to_string(),
    }
}
