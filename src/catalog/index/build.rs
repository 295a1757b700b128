//! Building an index: every bag's messages as (time, file, connection, chunk, offset), grouped
//! by (topic, type, md5sum) and sorted. Bags are read from their index data (no chunk is
//! decompressed) wherever they have it.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::bag::writer::AtomicFile;
use crate::bag::{Bag, BagErrorKind, ConnId, Loss, OpenOptions, Unread};

use super::error::IndexError;
use super::layout::{
    BLOCK_ENTRIES, ENTRY_LEN, HEADER_LEN, IndexHeader, IndexedFile, IndexedTopic, MAGIC, RawEntry,
    checksum, encode_meta,
};

/// What was indexed, and what could not be.
#[derive(Clone, Debug, Default)]
pub struct BuildReport {
    /// Bags.
    pub files: usize,
    /// Topic groups (topic, type, md5sum).
    pub topics: usize,
    /// Messages.
    pub entries: u64,
    /// Size of the index file.
    pub bytes: u64,
    /// What opening damaged bags found lost (these messages are not in the index).
    pub losses: Vec<(PathBuf, Loss)>,
    /// Messages the bags' indexes list that could not be found (not in the index either).
    pub unread: Unread,
}

/// Refuses an index path that is not an index: a name ending in `.bag` (`index build *.bag`
/// makes the first bag the index), or an existing regular file that is not a bagscope index.
/// A FIFO or device is not read (that would block or consume it): the writer decides.
fn check_index_path(index: &Path) -> Result<(), IndexError> {
    let refuse = |why: String| {
        Err(IndexError::NotAnIndex {
            path: index.to_path_buf(),
            why,
        })
    };
    let ext = |p: &Path| {
        p.extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default()
    };
    let bag_name = match ext(index).as_str() {
        "bag" => true,
        "active" => index
            .file_stem()
            .is_some_and(|s| ext(Path::new(s)) == "bag"),
        _ => false,
    };
    if bag_name {
        return refuse("the name is that of a bag".into());
    }
    if !matches!(
        crate::bag::writer::FileKind::at(index),
        crate::bag::writer::FileKind::Regular
    ) {
        return Ok(());
    }
    let mut head = [0u8; 16];
    let read = std::fs::File::open(index).and_then(|mut f| {
        let mut n = 0;
        while n < head.len() {
            match std::io::Read::read(&mut f, head.get_mut(n..).unwrap_or_default())? {
                0 => break,
                k => n += k,
            }
        }
        Ok(n)
    });
    match read {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(IndexError::Io {
            path: index.to_path_buf(),
            what: "cannot read what is there",
            source: e,
        }),
        Ok(_) if head.starts_with(b"#ROSBAG") || head.starts_with(b"#ROSRECORD") => {
            refuse("it is a bag".into())
        }
        Ok(0) => Ok(()),
        Ok(n) if head.get(..n) == MAGIC.get(..n) => Ok(()),
        Ok(_) => refuse("the file exists and is not a bagscope index".into()),
    }
}

/// The size and modification time of a file, as the index records them.
pub fn stat(path: &Path) -> std::io::Result<(u64, i64)> {
    let meta = std::fs::metadata(path)?;
    let mtime = meta
        .modified()?
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
    Ok((meta.len(), mtime))
}

/// What reading the bags gave: their files, the entries per topic group, and what was lost.
#[derive(Default)]
struct Collected {
    files: Vec<IndexedFile>,
    groups: BTreeMap<(String, String, String), Vec<RawEntry>>,
    losses: Vec<(PathBuf, Loss)>,
    unread: Unread,
    /// Every topic seen, wanted or not.
    seen: BTreeSet<String>,
}

/// The [`IndexError::Io`] for `what` went wrong with `path`.
fn io(path: &Path, what: &'static str) -> impl FnOnce(std::io::Error) -> IndexError {
    let path = path.to_path_buf();
    move |source| IndexError::Io { path, what, source }
}

/// Builds the index `index` over `bags`, keeping only `topics` when not empty; `progress` is
/// told each bag as it is read.
pub fn build(
    index: &Path,
    bags: &[PathBuf],
    topics: &[String],
    progress: &mut dyn FnMut(&Path),
) -> Result<BuildReport, IndexError> {
    if crate::bag::writer::ensure_distinct(index, bags).is_err() {
        return Err(IndexError::SameFile {
            path: index.to_path_buf(),
        });
    }
    check_index_path(index)?;
    let index_dir = index
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .canonicalize()
        .map_err(io(index, "cannot resolve its directory"))?;
    let mut got = Collected::default();
    // A ROS 2 bag directory is indexed as its storage files.
    let bags = crate::bag::inputs::expand(bags);
    for (fi, path) in bags.iter().enumerate() {
        progress(path);
        let file = u32::try_from(fi).unwrap_or(u32::MAX);
        collect_bag(&mut got, path, file, &index_dir, topics)?;
    }
    check_topics_known(topics, &got.seen)?;
    let (topic_table, entry_count) = topic_table(&mut got.groups);
    let file_len = write_index(index, &got.files, &topic_table, &got.groups, entry_count)?;
    Ok(BuildReport {
        files: got.files.len(),
        topics: topic_table.len(),
        entries: entry_count,
        bytes: file_len,
        losses: got.losses,
        unread: got.unread,
    })
}

/// Reads the bag at `path` (number `file` in the index) into `got`, keeping the messages of
/// `topics` (all when empty).
fn collect_bag(
    got: &mut Collected,
    path: &Path,
    file: u32,
    index_dir: &Path,
    topics: &[String],
) -> Result<(), IndexError> {
    let abs = path.canonicalize().map_err(io(path, "cannot resolve it"))?;
    let (size, mtime_ns) = stat(&abs).map_err(io(path, "cannot read its size and time"))?;
    let bag = Bag::open_with(&abs, OpenOptions::default())?;
    got.seen
        .extend(bag.connections().iter().map(|c| c.topic.clone()));
    let wanted =
        |t: &str| topics.is_empty() || topics.iter().any(|w| super::super::topic_matches(w, t));
    let wanted_conn = |c: ConnId| bag.connection(c).is_some_and(|c| wanted(&c.topic));
    if let Some(r) = bag.recovery() {
        got.losses
            .extend(r.losses.iter().map(|l| (path.to_path_buf(), l.clone())));
    }
    for chunk in bag.chunks() {
        if !chunk.counts.iter().any(|(c, _)| wanted_conn(*c)) {
            continue;
        }
        let lost = bag.unfound(chunk.index, wanted_conn);
        if lost > 0 {
            got.unread
                .note(bag.error(BagErrorKind::NotFound { lost }).at(chunk.pos));
        }
        for e in bag.chunk_entries(chunk.index).iter() {
            let Some(c) = bag.connection(e.conn).filter(|c| wanted(&c.topic)) else {
                continue;
            };
            got.groups
                .entry((c.topic.clone(), c.datatype.clone(), c.md5sum.clone()))
                .or_default()
                .push(RawEntry {
                    time: e.time.as_nanos(),
                    file,
                    conn: c.file_id,
                    chunk: e.chunk,
                    offset: e.offset,
                });
        }
    }
    let relative = abs
        .strip_prefix(index_dir)
        .map_or_else(|_| abs.display().to_string(), |r| r.display().to_string());
    got.files.push(IndexedFile {
        path: abs.display().to_string(),
        relative,
        size,
        mtime_ns,
    });
    Ok(())
}

/// A topic asked for that no bag holds is a mistake, not an empty group.
fn check_topics_known(topics: &[String], seen: &BTreeSet<String>) -> Result<(), IndexError> {
    let missing: Vec<&String> = topics
        .iter()
        .filter(|t| !seen.iter().any(|k| super::super::topic_matches(t, k)))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(IndexError::UnknownTopics {
        topics: missing
            .iter()
            .map(|t| format!("'{t}'"))
            .collect::<Vec<_>>()
            .join(", "),
        known: seen.iter().cloned().collect::<Vec<_>>().join(", "),
    })
}

/// Sorts each group's entries and lists the groups with where their entries start; also
/// returns the number of entries.
fn topic_table(
    groups: &mut BTreeMap<(String, String, String), Vec<RawEntry>>,
) -> (Vec<IndexedTopic>, u64) {
    let mut topic_table = Vec::with_capacity(groups.len());
    let mut first = 0u64;
    for ((topic, datatype, md5sum), entries) in groups.iter_mut() {
        entries.sort_unstable();
        let count = entries.len() as u64;
        topic_table.push(IndexedTopic {
            topic: topic.clone(),
            datatype: datatype.clone(),
            md5sum: md5sum.clone(),
            first,
            count,
            start: entries.first().map_or(0, |e| e.time),
            end: entries.last().map_or(0, |e| e.time),
        });
        first += count;
    }
    (topic_table, first)
}

/// Writes the index file (a temporary file beside it, renamed over it when complete);
/// returns its size.
fn write_index(
    index: &Path,
    files: &[IndexedFile],
    topic_table: &[IndexedTopic],
    groups: &BTreeMap<(String, String, String), Vec<RawEntry>>,
    entry_count: u64,
) -> Result<u64, IndexError> {
    let meta = encode_meta(files, topic_table);
    let meta_offset = HEADER_LEN as u64;
    let entries_offset =
        (meta_offset + meta.len() as u64).div_ceil(ENTRY_LEN as u64) * ENTRY_LEN as u64;
    let blocks_offset = entries_offset + entry_count * ENTRY_LEN as u64;
    let blocks = entry_count.div_ceil(BLOCK_ENTRIES as u64);
    let file_len = blocks_offset + blocks * 8;
    // The header is written last: a FIFO or device gets the finished file.
    let mut out = AtomicFile::create_seekable(index)?;
    let write =
        |out: &mut AtomicFile, b: &[u8]| out.write_all(b).map_err(io(index, "cannot write"));
    write(&mut out, &[0u8; HEADER_LEN])?;
    write(&mut out, &meta)?;
    write(
        &mut out,
        &vec![0u8; usize::try_from(entries_offset - meta_offset - meta.len() as u64).unwrap_or(0)],
    )?;
    let mut block = Vec::with_capacity(BLOCK_ENTRIES * ENTRY_LEN);
    let mut block_sums = Vec::with_capacity(usize::try_from(blocks).unwrap_or(0) * 8);
    for e in groups.values().flatten() {
        e.encode(&mut block);
        if block.len() == BLOCK_ENTRIES * ENTRY_LEN {
            block_sums.extend_from_slice(&checksum(&block).to_le_bytes());
            write(&mut out, &block)?;
            block.clear();
        }
    }
    if !block.is_empty() {
        block_sums.extend_from_slice(&checksum(&block).to_le_bytes());
        write(&mut out, &block)?;
    }
    write(&mut out, &block_sums)?;
    let header = IndexHeader {
        file_len,
        file_count: u32::try_from(files.len()).unwrap_or(u32::MAX),
        topic_count: u32::try_from(topic_table.len()).unwrap_or(u32::MAX),
        entry_count,
        meta_offset,
        meta_len: meta.len() as u64,
        entries_offset,
        blocks_offset,
        meta_checksum: checksum(&meta),
        blocks_checksum: checksum(&block_sums),
    };
    out.patch(0, &header.encode())?;
    out.commit()?;
    Ok(file_len)
}
