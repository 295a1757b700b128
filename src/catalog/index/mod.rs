//! A persistent index over many bags, in the spirit of ROS's `bagserver`: for every topic,
//! the sorted `(time, file, connection, chunk, offset)` of its messages, binary-searched with
//! positioned reads (`pread`, one 32-byte entry each), so that locating an interval costs a few
//! small reads whatever the size of the index (format: `docs/index-format.md`). The index is
//! never mapped: an index file that shrinks while it is read gives a "damaged" error naming
//! the short read, not SIGBUS. Only the header, the metadata and the block checksum table are
//! read into memory at open; entries are read when used.

mod build;
mod error;
mod layout;
mod query;

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub use build::{BuildReport, build, stat};
pub use error::IndexError;
pub use layout::{IndexedFile, IndexedTopic, RawEntry};
pub use query::IndexMessages;

use crate::bag::{Bag, OpenOptions, Source};
use crate::time::RosTime;

use super::{Catalog, CatalogMessage};
use layout::{BLOCK_ENTRIES, ENTRY_LEN, HEADER_LEN, IndexHeader, checksum, decode_meta};

/// An open index.
pub struct Index {
    path: PathBuf,
    source: Source,
    header: IndexHeader,
    files: Vec<IndexedFile>,
    topics: Vec<IndexedTopic>,
    /// Which entry blocks have had their checksum verified.
    verified: Mutex<Vec<bool>>,
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index")
            .field("path", &self.path)
            .field("entries", &self.header.entry_count)
            .finish_non_exhaustive()
    }
}

impl Index {
    /// Opens an index: checks its header and metadata, and that every bag it names is still
    /// the file that was indexed (size and modification time).
    pub fn open(path: &Path) -> Result<Index, IndexError> {
        let damaged = |what: String| IndexError::Damaged {
            path: path.to_path_buf(),
            what,
        };
        let source = Source::open(path).map_err(|source| IndexError::Io {
            path: path.to_path_buf(),
            what: "cannot open",
            source,
        })?;
        let head = Self::slice(&source, 0, (HEADER_LEN as u64).min(source.len()))
            .map_err(damaged)?
            .unwrap_or_default();
        let header = IndexHeader::decode_sized(&head, source.len()).map_err(damaged)?;
        let meta = Self::slice(&source, header.meta_offset, header.meta_len)
            .map_err(damaged)?
            .ok_or_else(|| damaged("metadata out of range".into()))?;
        let meta: &[u8] = &meta;
        if checksum(meta) != header.meta_checksum {
            return Err(damaged(
                "the metadata section is damaged (checksum mismatch)".into(),
            ));
        }
        let blocks = header.entry_count.div_ceil(BLOCK_ENTRIES as u64);
        let table = Self::slice(&source, header.blocks_offset, blocks.saturating_mul(8))
            .map_err(damaged)?
            .ok_or_else(|| damaged("block table out of range".into()))?;
        if checksum(&table) != header.blocks_checksum {
            return Err(damaged("the block checksum table is damaged".into()));
        }
        let (files, topics) = decode_meta(
            meta,
            header.meta_offset,
            header.file_count,
            header.topic_count,
        )
        .map_err(|e| damaged(e.to_string()))?;
        for t in &topics {
            if t.first
                .checked_add(t.count)
                .is_none_or(|e| e > header.entry_count)
            {
                return Err(damaged(format!(
                    "topic {} points outside the entries",
                    t.topic
                )));
            }
        }
        let index = Index {
            path: path.to_path_buf(),
            verified: Mutex::new(vec![false; usize::try_from(blocks).unwrap_or(0)]),
            source,
            header,
            files,
            topics,
        };
        index.check_files()?;
        Ok(index)
    }

    /// `len` bytes at `offset` of the index file, read with one `pread`: `None` when they lie
    /// outside the file as opened, an error (what went wrong) when the file no longer holds
    /// them (it shrank or was replaced while open).
    fn slice(source: &Source, offset: u64, len: u64) -> Result<Option<Cow<'_, [u8]>>, String> {
        match offset.checked_add(len) {
            Some(end) if end <= source.len() => {}
            _ => return Ok(None),
        }
        source
            .read_exact_at(offset, len)
            .map(Some)
            .map_err(|c| format!("changed on disk while it was read: {c}"))
    }

    /// The bag files, where they are now (the recorded path, or the one relative to the index).
    pub fn resolved_paths(&self) -> Vec<PathBuf> {
        let dir = self
            .path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        self.files
            .iter()
            .map(|f| {
                let abs = PathBuf::from(&f.path);
                let rel = dir.join(&f.relative);
                if !abs.exists() && rel.exists() {
                    rel
                } else {
                    abs
                }
            })
            .collect()
    }

    fn check_files(&self) -> Result<(), IndexError> {
        for (f, p) in self.files.iter().zip(self.resolved_paths()) {
            let stale = |what: String| IndexError::Stale {
                index: self.path.clone(),
                bag: p.display().to_string(),
                what,
            };
            match stat(&p) {
                Err(e) => return Err(stale(format!("cannot be read ({e})"))),
                Ok((size, _)) if size != f.size => {
                    return Err(stale(format!("changed size ({} → {size} bytes)", f.size)));
                }
                Ok((_, mtime)) if mtime != f.mtime_ns => return Err(stale("was modified".into())),
                Ok(_) => {}
            }
        }
        Ok(())
    }

    /// The index file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The bag files as indexed.
    pub fn files(&self) -> &[IndexedFile] {
        &self.files
    }

    /// The topic groups (topic, type, md5sum), sorted.
    pub fn topics(&self) -> &[IndexedTopic] {
        &self.topics
    }

    /// Messages indexed.
    pub fn entry_count(&self) -> u64 {
        self.header.entry_count
    }

    /// Earliest message time.
    pub fn start_time(&self) -> Option<RosTime> {
        self.topics
            .iter()
            .filter(|t| t.count > 0)
            .map(|t| RosTime::from_nanos(t.start))
            .min()
    }

    /// Latest message time.
    pub fn end_time(&self) -> Option<RosTime> {
        self.topics
            .iter()
            .filter(|t| t.count > 0)
            .map(|t| RosTime::from_nanos(t.end))
            .max()
    }

    /// Entry `i` (not checked against its block checksum).
    fn entry_unchecked(&self, i: u64) -> Option<RawEntry> {
        let at = self.header.entries_offset + i * ENTRY_LEN as u64;
        RawEntry::decode(&Self::slice(&self.source, at, ENTRY_LEN as u64).ok()??)
    }

    /// Entry `i`, verifying its block's checksum the first time the block is used.
    pub fn entry(&self, i: u64) -> Result<RawEntry, IndexError> {
        let damaged = |what: String| IndexError::Damaged {
            path: self.path.clone(),
            what,
        };
        let block = i / BLOCK_ENTRIES as u64;
        let b = usize::try_from(block).unwrap_or(usize::MAX);
        let done = self
            .verified
            .lock()
            .is_ok_and(|v| v.get(b).copied().unwrap_or(false));
        if !done {
            let first = block * BLOCK_ENTRIES as u64;
            let n = (self.header.entry_count - first).min(BLOCK_ENTRIES as u64);
            let bytes = Self::slice(
                &self.source,
                self.header.entries_offset + first * ENTRY_LEN as u64,
                n * ENTRY_LEN as u64,
            )
            .map_err(damaged)?
            .ok_or_else(|| damaged(format!("entry block {block} out of range")))?;
            let expected = Self::slice(&self.source, self.header.blocks_offset + block * 8, 8)
                .map_err(damaged)?
                .and_then(|b| crate::format::cursor::le_u64(&b));
            if expected != Some(checksum(&bytes)) {
                return Err(damaged(format!(
                    "entry block {block} is damaged (checksum mismatch)"
                )));
            }
            if let Ok(mut v) = self.verified.lock() {
                if let Some(slot) = v.get_mut(b) {
                    *slot = true;
                }
            }
        }
        self.entry_unchecked(i)
            .ok_or_else(|| damaged(format!("entry {i} out of range")))
    }

    /// The first entry of topic group `t` at or after `time` (binary search): its index.
    pub fn locate(&self, t: &IndexedTopic, time: RosTime) -> u64 {
        let target = time.as_nanos();
        let (mut lo, mut hi) = (t.first, t.first + t.count);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.entry_unchecked(mid) {
                Some(e) if e.time < target => lo = mid + 1,
                _ => hi = mid,
            }
        }
        lo
    }

    /// Opens the indexed bags as a catalog (bag `i` of the catalog is file `i` of the index).
    pub fn catalog(&self) -> Result<Catalog, IndexError> {
        let mut bags = Vec::with_capacity(self.files.len());
        for p in self.resolved_paths() {
            bags.push(Bag::open_with(&p, OpenOptions::default())?);
        }
        Ok(Catalog::new(bags))
    }

    /// Reads the message entry `e` points to from `catalog` (opened by [`Index::catalog`]:
    /// bag `i` is file `i`).
    pub fn read(&self, catalog: &Catalog, e: &RawEntry) -> Result<CatalogMessage, IndexError> {
        let damaged = |what: String| IndexError::Damaged {
            path: self.path.clone(),
            what,
        };
        let file = usize::try_from(e.file).unwrap_or(usize::MAX);
        let bag = catalog.bag(file).ok_or_else(|| {
            damaged(format!(
                "an entry names bag {} of {}",
                e.file,
                self.files.len()
            ))
        })?;
        let conn = bag.conn_by_file_id(e.conn).ok_or_else(|| {
            damaged(format!(
                "an entry names connection {} that {} does not have",
                e.conn,
                bag.path().display()
            ))
        })?;
        let entry = crate::bag::IndexEntry {
            time: RosTime::from_nanos(e.time),
            conn,
            chunk: e.chunk,
            offset: e.offset,
        };
        Ok(CatalogMessage {
            bag: file,
            message: bag.read(&entry)?,
        })
    }

    /// The entries of the selected topics (all when `topics` is empty) within `[start, end]`,
    /// in receive-time order (ties: file, connection, chunk, offset — the catalog's order).
    pub fn query(&self, topics: &[String], start: RosTime, end: RosTime) -> IndexMessages<'_> {
        let groups: Vec<&IndexedTopic> = self
            .topics
            .iter()
            .filter(|t| {
                topics.is_empty() || topics.iter().any(|w| super::topic_matches(w, &t.topic))
            })
            .collect();
        IndexMessages::new(self, &groups, start, end)
    }
}
