//! Opening a bag: reading the version line and, for 2.0 bags, the bag header and index (or
//! scanning the file when they do not check out), then building the shared [`Bag`] value.
//!
//! The opening wing of `bag/`: the index section of a 2.0 bag read in windows
//! ([`open_v2`], [`section_window`], written in place by [`room`], finished in one pass by
//! [`finish_chunks`]), connections collected in [`table`], and the 1.2 and older layouts
//! ([`open_v12`], [`open_legacy`]). Scans of damaged or unindexed files are in
//! `bag/recover_v2/` and `bag/recovery.rs`; what an open bag reads later is in `bag/read/`.

pub(crate) mod finish_chunks;
pub(crate) mod open_legacy;
pub(crate) mod open_v12;
pub(crate) mod open_v2;
pub(crate) mod room;
pub(crate) mod section_window;
pub(crate) mod table;

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::format::{BagHeader, Version, read_head};

use crate::bag::budget::Budget;
use crate::bag::error::{BagError, BagErrorKind, path_arc};
use crate::bag::handle::OpenOptions;
use crate::bag::handle::PartialScan;
use crate::bag::handle::{Bag, Inner};
use crate::bag::opened::Opened;
use crate::bag::read::cache::ChunkCache;
use crate::bag::recover_v2;
use crate::bag::source::{Changed, Source};

impl Bag {
    /// Opens the bag at `path` with default options.
    pub fn open(path: impl AsRef<Path>) -> Result<Bag, BagError> {
        Self::open_with(path, OpenOptions::default())
    }

    /// Opens the bag at `path`.
    pub fn open_with(path: impl AsRef<Path>, options: OpenOptions) -> Result<Bag, BagError> {
        let path = path_arc(path.as_ref());
        let source = Source::open(&path).map_err(|e| BagError::new(&path, e.into()))?;
        // A rosbag2 storage file that is not an MCAP (SQLite, zstd-compressed): made into
        // an MCAP first (bag/ros2).
        let head = source.read_at(0, 16);
        if head.starts_with(b"SQLite format 3\0") || head.starts_with(&[0x28, 0xB5, 0x2F, 0xFD]) {
            return Self::open_ros2_storage(path, options);
        }
        Self::from_source(path, source, options)
    }

    /// Opens a rosbag2 storage file through [`crate::bag::ros2::prepare`] (its messages
    /// decompressed one by one when the `metadata.yaml` beside it says so).
    fn open_ros2_storage(path: Arc<Path>, options: OpenOptions) -> Result<Bag, BagError> {
        use crate::bag::ros2::{Limits, StorageContent, prepare, read_metadata};
        let meta = path.parent().map(|d| d.join("metadata.yaml"));
        let message_zstd = meta
            .filter(|m| m.is_file())
            .and_then(|m| read_metadata(&m).ok())
            .is_some_and(|m| m.compression_mode.eq_ignore_ascii_case("message"));
        let cache = options.ros2_cache.as_deref();
        let (storage, _notes) =
            prepare(&path, message_zstd, &Limits::default(), cache).map_err(BagError::from)?;
        let source = match storage.content {
            StorageContent::McapFile(p) => Source::open(&p),
            StorageContent::Converted(file) => Source::of_file(file),
        }
        .map_err(|e| BagError::new(&path, e.into()))?;
        Self::from_source(path, source, options)
    }

    /// Whether opening the bag at `path` will scan it, as far as one look at the file's start
    /// tells: a 2.0 bag whose header says it was never closed (`index_pos` 0), places its
    /// index past the end of the file, or cannot be read; an MCAP file that does not end with
    /// a footer naming a summary section. (A bag whose index turns out to be damaged is
    /// scanned too, which this does not foresee.) For the explorer, which opens the bags that
    /// need no scan first, to show the one being scanned as it goes.
    pub fn likely_needs_scan(path: impl AsRef<Path>) -> bool {
        let Ok(source) = Source::open(path.as_ref()) else {
            return false;
        };
        let first = source.read_at(0, HEAD_READ);
        let start = match crate::format::detect(&first) {
            Ok((Version::V2_0, start)) => start,
            Ok((Version::Mcap, _)) => return mcap_without_summary(&source),
            _ => return false,
        };
        read_head(&bag_header_bytes(&source, first, start), start, 0)
            .ok()
            .and_then(|h| BagHeader::from_header(&h.header, h.offset).ok())
            .is_none_or(|h| open_v2::no_index(h.index_pos, source.len()).is_some())
    }

    /// Opens a bag held in memory; `name` is used in messages.
    pub fn from_bytes(
        name: impl AsRef<Path>,
        bytes: Vec<u8>,
        options: OpenOptions,
    ) -> Result<Bag, BagError> {
        Self::from_source(path_arc(name.as_ref()), Source::owned(bytes), options)
    }

    pub(in crate::bag) fn from_source(
        path: Arc<Path>,
        source: Source,
        options: OpenOptions,
    ) -> Result<Bag, BagError> {
        let source = Arc::new(source);
        let budget = Budget::new(options.decode_budget);
        let changed = |c: Changed| {
            BagError::new(
                &path,
                BagErrorKind::ChangedOnDisk {
                    changed: c,
                    unread: 0,
                },
            )
        };
        let head = source.read_at(0, HEAD_READ);
        if source.changed() {
            return Err(changed(source.short_read()));
        }
        let (version, start) =
            crate::format::detect(&head).map_err(|e| BagError::new(&path, e.into()))?;
        let opened = match version {
            Version::V2_0 => {
                open_v2(&path, &source, (head, start), &options, &budget).map_err(|e| match e {
                    OpenError::Format(e) => BagError::new(&path, e.into()),
                    OpenError::Changed(c) => changed(c),
                    OpenError::Cancelled => BagError::new(&path, BagErrorKind::Cancelled),
                })?
            }
            Version::Mcap => open_mcap(&path, &source, &options).map_err(|e| match e {
                OpenError::Format(e) => BagError::new(&path, e.into()),
                OpenError::Changed(c) => changed(c),
                OpenError::Cancelled => BagError::new(&path, BagErrorKind::Cancelled),
            })?,
            Version::V1_2 => open_v12::open(source.whole(), start),
            Version::V1_1 | Version::V1_0 | Version::V0 => {
                open_legacy::open(source.whole(), version, start)
            }
        };
        if source.changed() {
            return Err(changed(source.short_read()));
        }
        Ok(Self::assemble(
            path, source, version, opened, options, budget,
        ))
    }

    /// The bag made of what an opener found.
    pub(in crate::bag) fn assemble(
        path: Arc<Path>,
        source: Arc<Source>,
        version: Version,
        mut opened: Opened,
        options: OpenOptions,
        budget: Arc<Budget>,
    ) -> Bag {
        let totals = match opened.totals.take() {
            Some(t) => t,
            None => crate::bag::totals::Totals::of(&opened.chunks, opened.connections.len()),
        };
        Bag::assemble_with(path, source, version, opened, totals, options, budget)
    }

    /// [`Bag::assemble`] with the totals over `opened`'s chunks known already (a followed
    /// recording keeps them from snapshot to snapshot).
    pub(in crate::bag) fn assemble_with(
        path: Arc<Path>,
        source: Arc<Source>,
        version: Version,
        opened: Opened,
        totals: crate::bag::totals::Totals,
        options: OpenOptions,
        budget: Arc<Budget>,
    ) -> Bag {
        let cache = Mutex::new(ChunkCache::new(options.cache_bytes));
        let Opened {
            connections,
            conn_map,
            chunks,
            heads,
            entries,
            warnings,
            recovery,
            totals: _,
            mcap,
        } = opened;
        let slots = crate::bag::slots::Slots::new(chunks.len());
        for (i, e) in entries.into_iter().enumerate() {
            if let Some(e) = e {
                slots.set(i, e);
            }
        }
        Bag {
            inner: Arc::new(Inner {
                path,
                source,
                version,
                connections,
                conn_map,
                chunks,
                heads,
                entries: slots,
                warnings,
                late_warnings: Mutex::new(Vec::new()),
                unfound: Mutex::new(HashMap::new()),
                recovery,
                cache,
                budget,
                options,
                totals,
                known_stats: std::sync::OnceLock::new(),
                mcap,
            }),
        }
    }
}

/// How much of the file start is read to find the version line and the bag header (the
/// official writers pad the bag header to 4096 bytes; a longer one takes a second read).
/// No more: every page read into is a fresh one to fault in.
const HEAD_READ: usize = 8 << 10;

/// The longest bag header record header read (a longer one is damage: the file is scanned).
const MAX_BAG_HEADER: usize = 16 << 20;

/// Why a 2.0 bag could not be opened.
enum OpenError {
    Format(crate::format::FormatError),
    Changed(Changed),
    Cancelled,
}

/// Opens a 2.0 bag: from its index when that checks out, else by scanning.
fn open_v2(
    path: &Arc<Path>,
    source: &Arc<Source>,
    (first, start): (std::borrow::Cow<'_, [u8]>, usize),
    options: &OpenOptions,
    budget: &Arc<Budget>,
) -> Result<Opened, OpenError> {
    let head = bag_header_bytes(source, first, start);
    let (header, after) = match read_head(&head, start, 0) {
        Ok(head) => {
            let h = BagHeader::from_header(&head.header, head.offset);
            if let Err(e) = &h {
                if matches!(e.kind, crate::format::ErrorKind::Encrypted(_)) {
                    return Err(OpenError::Format(e.clone()));
                }
            }
            (h, usize::try_from(head.end()).unwrap_or(usize::MAX))
        }
        Err(e) => (Err(e), start),
    };
    let reason = match &header {
        Ok(h) => match open_v2::open_indexed(source, h, options.threads, options.lazy_heads_from) {
            Ok(o) => return Ok(o),
            Err(_) if source.changed() => return Err(OpenError::Changed(source.short_read())),
            Err(reason) => reason,
        },
        Err(e) => format!("the bag header is unreadable ({e}); the file was scanned"),
    };
    let scan_from = if header.is_ok() { after } else { start };
    // Partial results are bags of their own over the same file, with a decode budget of
    // their own: what their readers hold never makes the scan wait.
    let partial = options.partial.as_ref().map(|sink| {
        let mut theirs = options.clone();
        theirs.progress = None;
        theirs.partial = None;
        let budget = Budget::new(options.decode_budget);
        move |mut opened: Opened, done: u64, total: u64| -> bool {
            if let Some(r) = opened.recovery.as_mut() {
                r.scanned = Some((done, total));
            }
            let bag = Bag::assemble(
                Arc::clone(path),
                Arc::clone(source),
                Version::V2_0,
                opened,
                theirs.clone(),
                Arc::clone(&budget),
            );
            (sink.0)(PartialScan { bag, done, total })
        }
    });
    let (mut opened, chunk_infos) = recover_v2::recover(
        source,
        scan_from,
        reason,
        &recover_v2::Settings {
            limit: options.max_chunk_size,
            threads: options.threads,
            budget,
            progress: options.progress.as_ref(),
            // A header naming an index position says the writer closed the bag: a cut end
            // is then damage, whatever the name.
            live: recover_v2::still_recording(path)
                && header.as_ref().is_ok_and(|h| h.index_pos == 0),
            partial: partial.as_ref().map(|p| p as &recover_v2::PartialSink<'_>),
        },
    )
    .map_err(|e| match e {
        recover_v2::Stopped::Changed(c) => OpenError::Changed(c),
        recover_v2::Stopped::Cancelled => OpenError::Cancelled,
    })?;
    // A closed bag whose index section lies past its end: cut short (an interrupted copy:
    // even when the cut falls between records and every record read is whole, the rest of
    // the recording is missing), or a damaged index_pos. What the scan found tells which.
    let len = source.len();
    if let Ok(h) = &header {
        if h.index_pos > len {
            let last = opened
                .chunks
                .iter()
                .filter(|c| c.message_count() > 0)
                .map(|c| c.end)
                .max();
            if let Some(r) = opened.recovery.as_mut() {
                r.note_index_past_end(len, h.index_pos, h.chunk_count, chunk_infos, last);
            }
        }
    }
    Ok(opened)
}

/// Opens an MCAP file: from its summary when that checks out, else by a forward scan, which
/// hands [`OpenOptions::partial`] the file as found so far as it goes (as a bag's recovery
/// scan does).
fn open_mcap(
    path: &Arc<Path>,
    source: &Arc<Source>,
    options: &OpenOptions,
) -> Result<Opened, OpenError> {
    use crate::bag::mcap::{McapInfo, scan, summary};
    let (profile, library) = summary::header(source);
    // The header's profile and library when the walk met none (a damaged header record).
    let named = |info: &mut McapInfo| {
        if info.profile.is_empty() && info.library.is_empty() {
            info.profile.clone_from(&profile);
            info.library.clone_from(&library);
        }
    };
    let (mut opened, mut info) = match summary::open(source).map_err(OpenError::Changed)? {
        Ok(s) => (s.opened, s.info),
        Err(reason) => {
            // Partial results are bags of their own over the same file, with a decode budget
            // of their own (see `open_v2`).
            let partial = options.partial.as_ref().map(|sink| {
                let mut theirs = options.clone();
                theirs.progress = None;
                theirs.partial = None;
                let budget = Budget::new(options.decode_budget);
                let named = &named;
                move |mut opened: Opened, mut info: McapInfo, done: u64, total: u64| -> bool {
                    if let Some(r) = opened.recovery.as_mut() {
                        r.scanned = Some((done, total));
                    }
                    named(&mut info);
                    opened.mcap = Some(Arc::new(info));
                    let bag = Bag::assemble(
                        Arc::clone(path),
                        Arc::clone(source),
                        Version::Mcap,
                        opened,
                        theirs.clone(),
                        Arc::clone(&budget),
                    );
                    (sink.0)(PartialScan { bag, done, total })
                }
            });
            let scanned = scan::scan(
                source,
                format!("{reason}; the file was scanned"),
                &scan::Settings {
                    limit: options.max_chunk_size,
                    progress: options.progress.as_ref(),
                    partial: partial.as_ref().map(|p| p as &scan::PartialSink<'_>),
                },
            )
            .map_err(|e| match e {
                scan::Stopped::Changed(c) => OpenError::Changed(c),
                scan::Stopped::Cancelled => OpenError::Cancelled,
            })?;
            let (mut opened, info) = scanned;
            crate::bag::mcap::live::note_being_written(source, &mut opened);
            (opened, info)
        }
    };
    named(&mut info);
    opened.mcap = Some(Arc::new(info));
    Ok(opened)
}

/// Whether the MCAP file in `source` lacks a footer naming its summary section (the bytes
/// before the closing magic: the footer's opcode, length, then the summary's start).
fn mcap_without_summary(source: &Source) -> bool {
    use crate::format::mcap::{FOOTER_LEN, MAGIC, op};
    let len = source.len();
    let Some(at) = len.checked_sub(FOOTER_LEN) else {
        return true;
    };
    let tail = source.read_at(at, usize::try_from(FOOTER_LEN).unwrap_or(0));
    let summary_start = tail
        .get(9..17)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u64::from_le_bytes);
    !tail.ends_with(MAGIC) || tail.first() != Some(&op::FOOTER) || summary_start == 0
}

/// The start of the file through the bag header record's header: `first` (the file's first
/// [`HEAD_READ`] bytes, already read), or a longer read when the header is unusually long.
fn bag_header_bytes<'a>(
    source: &'a Source,
    first: std::borrow::Cow<'a, [u8]>,
    start: usize,
) -> std::borrow::Cow<'a, [u8]> {
    let needed = first
        .get(start..start.saturating_add(4))
        .and_then(crate::format::cursor::le_u32)
        .map_or(0, |h| start.saturating_add(h as usize).saturating_add(8));
    if needed <= first.len() || first.len() < HEAD_READ || needed > MAX_BAG_HEADER {
        return first;
    }
    source.read_at(0, needed)
}
