//! One storage file made ready for the MCAP reader ([`prepare`]): read as what its first
//! bytes say it is (whatever its name): an MCAP file in place (its facts from its summary),
//! an SQLite `.db3` converted into an MCAP file (`output.rs`: the cache entry, or an
//! unlinked temporary file), zstd data (`compression_mode: FILE`) decompressed into a
//! private temporary file first (bounded) and then read as what it holds; messages
//! compressed one by one (`MESSAGE`) decompressed while converting.

use std::io::{BufWriter, Read};
use std::path::Path;

use super::cache::Cache;
use super::db3::{ConvertOptions, convert_db3};
use super::error::Ros2Error;
use super::mcap_storage::{decompress_messages, read_summary, read_summary_of, summary_facts};
use super::order::Window;
use super::output::{Made, convert_into_file};
use super::sqlite::open_db;
use super::types::{Storage, StorageContent};
use super::zstd::{Kind, decompress_file, head_of, sniff};

/// Bounds on what opening a bag directory may take in memory and temporary disk space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most a zstd-compressed storage file may decompress to (temporary disk space);
    /// also the most a file's messages compressed one by one may decompress to together,
    /// or 32 times the file's size where that is more.
    pub max_decompressed: u64,
    /// The largest `.mcap` storage file whose messages are compressed one by one: it is
    /// read into memory to be rewritten. (A `.db3` of any size is converted in bounded
    /// memory.)
    pub max_converted: u64,
    /// The most one message may decompress to (`compression_mode: MESSAGE`).
    pub max_message: u64,
}

impl Default for Limits {
    /// 16 GiB decompressed, 8 GiB read into memory, 1 GiB per message.
    fn default() -> Self {
        Limits {
            max_decompressed: 16 << 30,
            max_converted: 8 << 30,
            max_message: 1 << 30,
        }
    }
}

/// Prepares the storage file `path`; `message_zstd`: each message is zstd-compressed;
/// `cache`: the directory converted files are kept in between runs (none: each conversion
/// goes into an unlinked temporary file). Returns it with notes on what could not be
/// converted.
pub fn prepare(
    path: &Path,
    message_zstd: bool,
    limits: &Limits,
    cache: Option<&Path>,
) -> Result<(Storage, Vec<String>), Ros2Error> {
    let cache = cache.map(|d| Cache::new(d.to_path_buf()));
    let cache = cache.as_ref();
    let len = std::fs::metadata(path)
        .map_err(|e| Ros2Error::io(path, "reading", e))?
        .len();
    let kind = sniff(&head_of(path)?);
    let made = match kind {
        Kind::Zstd => zstd_file(path, len, message_zstd, limits, cache)?,
        Kind::Sqlite => {
            let wal = super::sqlite::sidecar(path, "-wal");
            let mut convert = |out| {
                let db = open_db(path, path, None)?;
                let c = convert_db3(&db, options(message_zstd, limits, len), out)?;
                Ok((c.out, c.facts, c.notes))
            };
            convert_into_file(
                path,
                &[path, &wal],
                variant("db3", message_zstd),
                len,
                cache,
                &mut convert,
            )?
        }
        Kind::Mcap if message_zstd => {
            let bytes = read_bounded(path, path, limits.max_converted)?;
            let max_total = total_limit(limits, len);
            let mut convert = |out| {
                let (out, facts) =
                    decompress_messages(path, &bytes, limits.max_message, max_total, out)?;
                Ok((out, facts, Vec::new()))
            };
            convert_into_file(
                path,
                &[path],
                "mcap message-zstd",
                len.saturating_mul(3),
                cache,
                &mut convert,
            )?
        }
        Kind::Mcap => {
            let summary = read_summary(path)?;
            let storage = Storage {
                path: path.to_path_buf(),
                content: StorageContent::McapFile(path.to_path_buf()),
                facts: summary_facts(summary.as_ref()),
            };
            return Ok((storage, Vec::new()));
        }
        Kind::Unknown => {
            return Err(not_storage(
                path,
                "neither an SQLite database, an MCAP file nor zstd data (by its first bytes)",
            ));
        }
    };
    let Made { file, facts, notes } = made;
    Ok((
        Storage {
            path: path.to_path_buf(),
            content: StorageContent::Converted(file),
            facts,
        },
        notes,
    ))
}

/// A zstd-compressed storage file (`compression_mode: FILE`): an SQLite database inside is
/// decompressed into a private directory and converted (the conversion cached as for a
/// `.db3`); an MCAP inside is decompressed into an unlinked temporary file.
fn zstd_file(
    path: &Path,
    len: u64,
    message_zstd: bool,
    limits: &Limits,
    cache: Option<&Cache>,
) -> Result<Made, Ros2Error> {
    let head = zstd_head(path)?;
    match sniff(&head) {
        Kind::Sqlite => {
            let mut convert = |out| {
                let dir = tempfile::Builder::new()
                    .prefix("bagscope-zstd-")
                    .tempdir()
                    .map_err(|e| {
                        Ros2Error::io(path, "making a private directory to decompress into", e)
                    })?;
                let plain = dir.path().join("storage");
                decompress_to(path, &plain, limits.max_decompressed)?;
                let db = open_db(&plain, path, Some(dir))?;
                let c = convert_db3(&db, options(message_zstd, limits, len), out)?;
                Ok((c.out, c.facts, c.notes))
            };
            convert_into_file(
                path,
                &[path],
                variant("db3.zstd", message_zstd),
                len.saturating_mul(3),
                cache,
                &mut convert,
            )
        }
        Kind::Mcap if message_zstd => {
            // Rare (both modes at once): decompressed, then read into memory to rewrite.
            let dir = tempfile::Builder::new()
                .prefix("bagscope-zstd-")
                .tempdir()
                .map_err(|e| Ros2Error::io(path, "making a private directory", e))?;
            let plain = dir.path().join("storage");
            decompress_to(path, &plain, limits.max_decompressed)?;
            let bytes = read_bounded(&plain, path, limits.max_converted)?;
            drop(dir);
            let max_total = total_limit(limits, len);
            let mut convert = |out| {
                let (out, facts) =
                    decompress_messages(path, &bytes, limits.max_message, max_total, out)?;
                Ok((out, facts, Vec::new()))
            };
            convert_into_file(
                path,
                &[path],
                "mcap.zstd message-zstd",
                len,
                None,
                &mut convert,
            )
        }
        Kind::Mcap => {
            let mut file = tempfile::tempfile().map_err(|e| {
                Ros2Error::io(path, "making a temporary file to decompress into", e)
            })?;
            {
                let mut out = BufWriter::new(&mut file);
                decompress_file(path, &mut out, limits.max_decompressed)?;
                std::io::Write::flush(&mut out)
                    .map_err(|e| Ros2Error::io(path, "decompressing into a temporary file", e))?;
            }
            let facts = match read_summary_of(&mut file, path) {
                Ok(summary) => summary_facts(summary.as_ref()),
                Err(_) => super::types::StorageFacts::default(),
            };
            Ok(Made {
                file,
                facts,
                notes: Vec::new(),
            })
        }
        _ => Err(not_storage(
            path,
            "decompresses to neither an SQLite database nor an MCAP file",
        )),
    }
}

/// How a `.db3` is converted.
fn options(message_zstd: bool, limits: &Limits, len: u64) -> ConvertOptions {
    ConvertOptions {
        message_zstd,
        max_message: limits.max_message,
        max_total: total_limit(limits, len),
        window: Window::default(),
    }
}

/// The most a file of `len` bytes whose messages are compressed one by one may decompress
/// to together.
fn total_limit(limits: &Limits, len: u64) -> u64 {
    limits.max_decompressed.max(len.saturating_mul(32))
}

/// The cache variant of a file of `kind` read with `message_zstd`.
fn variant(kind: &str, message_zstd: bool) -> &'static str {
    match (kind, message_zstd) {
        ("db3", false) => "db3",
        ("db3", true) => "db3 message-zstd",
        (_, false) => "db3.zstd",
        (_, true) => "db3.zstd message-zstd",
    }
}

/// The first (up to) 16 decompressed bytes of the zstd file `path`.
fn zstd_head(path: &Path) -> Result<Vec<u8>, Ros2Error> {
    let file = std::fs::File::open(path).map_err(|e| Ros2Error::io(path, "opening", e))?;
    let zstd = |e| Ros2Error::Zstd {
        path: path.to_path_buf(),
        source: e,
    };
    let decoder = zstd::stream::read::Decoder::new(file).map_err(zstd)?;
    let mut head = Vec::with_capacity(16);
    decoder.take(16).read_to_end(&mut head).map_err(zstd)?;
    Ok(head)
}

/// Decompresses the zstd file `path` into the new file `plain` (at most `limit` bytes).
fn decompress_to(path: &Path, plain: &Path, limit: u64) -> Result<(), Ros2Error> {
    let file = std::fs::File::create(plain)
        .map_err(|e| Ros2Error::io(path, "decompressing into a private file", e))?;
    let mut out = BufWriter::new(file);
    decompress_file(path, &mut out, limit)?;
    std::io::Write::flush(&mut out)
        .map_err(|e| Ros2Error::io(path, "decompressing into a private file", e))
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
        what: format!("reading {len} bytes into memory to decompress its messages"),
        limit,
    }
}

fn not_storage(path: &Path, what: &str) -> Ros2Error {
    Ros2Error::NoStorage {
        path: path.to_path_buf(),
        what: what.to_string(),
    }
}
