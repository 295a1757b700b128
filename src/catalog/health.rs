//! The health report: per topic rate, gaps, out-of-order receive times, type conflicts; per
//! chunk compression; how each file was read and what recovery found; what each MCAP file
//! holds besides messages (profile, writer, attachments, metadata records: [`McapFacts`],
//! bounded). Computed from index data only (no chunk is decompressed), on the background
//! worker.

use std::collections::HashMap;

use crate::bag::{ChunkLayout, ConnId};
use crate::catalog::Catalog;
use crate::format::Compression;
use crate::stats::median;
use crate::time::RosTime;

/// A gap is a period longer than this many median periods...
pub const GAP_FACTOR: f64 = 4.0;
/// ...and at least this long (seconds), so jitter on fast topics is not reported.
pub const GAP_MIN_SECONDS: f64 = 0.05;
/// Gaps kept per topic (the largest).
const GAPS_KEPT: usize = 10;

/// A stretch without messages.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gap {
    /// Last message before the gap.
    pub from: RosTime,
    /// First message after it.
    pub to: RosTime,
}

impl Gap {
    /// Length in seconds.
    pub fn seconds(&self) -> f64 {
        self.to.nanos_since(self.from) as f64 / 1e9
    }
}

/// Health of one topic.
#[derive(Clone, Debug, PartialEq)]
pub struct TopicHealth {
    /// Topic.
    pub topic: String,
    /// Messages.
    pub count: u64,
    /// First and last receive time.
    pub first: Option<RosTime>,
    /// See `first`.
    pub last: Option<RosTime>,
    /// Median period (s).
    pub median_period: Option<f64>,
    /// The largest gaps (longer than `GAP_FACTOR` median periods), largest first.
    pub gaps: Vec<Gap>,
    /// Number of gaps found in all.
    pub gap_count: usize,
    /// Messages stored after a message of the same connection in the same bag with a later
    /// receive time: counted per bag, in file order, as each bag was recorded (bags opened
    /// together interleave in time; that is not disorder).
    pub out_of_order: u64,
    /// Approximate bytes of its message records.
    pub bytes: u64,
    /// Distinct `type [md5sum]` of its connections when there are several.
    pub conflicts: Vec<String>,
}

impl TopicHealth {
    /// Median rate (Hz).
    pub fn rate(&self) -> Option<f64> {
        self.median_period.filter(|p| *p > 0.0).map(|p| 1.0 / p)
    }

    /// Bandwidth (bytes of its message records per second between its first and last receive
    /// time), when it has a time span.
    pub fn bandwidth(&self) -> Option<f64> {
        let span = self.last?.nanos_since(self.first?) as f64 / 1e9;
        (span > 0.0).then_some(self.bytes as f64 / span)
    }

    /// The largest gap.
    pub fn max_gap(&self) -> Option<Gap> {
        self.gaps.first().copied()
    }
}

/// Compression of one chunk: 32 bytes (a report of a million chunks holds a million), the
/// sizes of a chunk record being 32-bit numbers in the format.
#[derive(Clone, Debug, PartialEq)]
pub struct ChunkHealth {
    /// Bag index.
    pub bag: u32,
    /// Chunk index.
    pub chunk: u32,
    /// File offset.
    pub pos: u64,
    /// Method.
    pub compression: Compression,
    /// Compressed bytes.
    pub compressed: u32,
    /// Uncompressed bytes.
    pub uncompressed: u32,
    /// Messages.
    pub messages: u32,
}

impl ChunkHealth {
    /// Compressed / uncompressed.
    pub fn ratio(&self) -> f64 {
        if self.uncompressed == 0 {
            1.0
        } else {
            f64::from(self.compressed) / f64::from(self.uncompressed)
        }
    }
}

/// The whole report.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HealthReport {
    /// Per topic, sorted by name.
    pub topics: Vec<TopicHealth>,
    /// Per chunk, in file order per bag.
    pub chunks: Vec<ChunkHealth>,
    /// Per bag: how it was read and what was lost, one line each.
    pub notes: Vec<String>,
    /// Per MCAP file: its profile, writer, attachments and metadata records.
    pub mcap: Vec<McapFacts>,
}

/// Attachments, and metadata records, listed per file (the others are counted).
pub const ITEMS_KEPT: usize = 20;
/// Key/value pairs listed per metadata record (the others are counted).
pub const PAIRS_KEPT: usize = 20;
/// Characters kept of a name, media type, key or value (longer ones end with `…`).
pub const TEXT_KEPT: usize = 200;

/// What an MCAP file holds besides messages, as the health view lists it. The texts are the
/// file's, cut to [`TEXT_KEPT`] characters but not escaped: escape them before showing them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct McapFacts {
    /// Bag index.
    pub bag: u32,
    /// The header's profile (`ros1`, `ros2`, or empty).
    pub profile: String,
    /// The header's library (the writer).
    pub library: String,
    /// The first [`ITEMS_KEPT`] attachments, in file order.
    pub attachments: Vec<AttachmentFacts>,
    /// Attachments in all.
    pub attachment_count: usize,
    /// The first [`ITEMS_KEPT`] metadata records, in file order.
    pub metadata: Vec<MetadataFacts>,
    /// Metadata records in all.
    pub metadata_count: usize,
}

/// One attachment (its data is not read).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttachmentFacts {
    /// Its name.
    pub name: String,
    /// Its media type.
    pub media_type: String,
    /// Bytes of data.
    pub size: u64,
    /// Log time (`None` when the file says 0).
    pub log_time: Option<RosTime>,
}

/// One metadata record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetadataFacts {
    /// Its name.
    pub name: String,
    /// The first [`PAIRS_KEPT`] keys and values, by key.
    pub pairs: Vec<(String, String)>,
    /// Pairs in all.
    pub pair_count: usize,
}

impl McapFacts {
    /// The facts of `bag`, the catalog's bag `index` (`None` when it is not an MCAP file).
    pub fn of(bag: &crate::bag::Bag, index: usize) -> Option<McapFacts> {
        let m = bag.mcap()?;
        Some(McapFacts {
            bag: u32::try_from(index).unwrap_or(u32::MAX),
            profile: cut(&m.profile),
            library: cut(&m.library),
            attachments: m
                .attachments
                .iter()
                .take(ITEMS_KEPT)
                .map(|a| AttachmentFacts {
                    name: cut(&a.name),
                    media_type: cut(&a.media_type),
                    size: a.size,
                    log_time: (a.log_time > 0).then(|| RosTime::from_nanos(a.log_time)),
                })
                .collect(),
            attachment_count: m.attachments.len(),
            metadata: m
                .metadata
                .iter()
                .take(ITEMS_KEPT)
                .map(|r| MetadataFacts {
                    name: cut(&r.name),
                    pairs: r
                        .entries
                        .iter()
                        .take(PAIRS_KEPT)
                        .map(|(k, v)| (cut(k), cut(v)))
                        .collect(),
                    pair_count: r.entries.len(),
                })
                .collect(),
            metadata_count: m.metadata.len(),
        })
    }
}

/// How `bag` (named `name`) was read and what was lost, one line each.
fn read_notes(notes: &mut Vec<String>, name: &str, bag: &crate::bag::Bag, sqlite: bool) {
    let Some(r) = bag.recovery() else {
        notes.push(if sqlite {
            format!("{name}: read from its SQLite database")
        } else if bag.mcap().is_some() {
            format!("{name}: read from its summary section")
        } else {
            format!("{name}: read from its index")
        });
        return;
    };
    // A partial result of a scan still running: what it found so far.
    let so_far = match r.scanned {
        Some((done, total)) => format!(
            " so far (scan still running, {} of {} bytes)",
            done.min(total),
            total
        ),
        None => String::new(),
    };
    // An MCAP file read by a scan with nothing lost (a writer that leaves the summary out):
    // not a recovery.
    if bag.mcap().is_some() && r.losses.is_empty() && r.unfinished.is_none() {
        let why = r.reason.trim_end_matches("; the file was scanned");
        let lost = if r.scanned.is_some() {
            "nothing lost"
        } else {
            "nothing was lost"
        };
        notes.push(format!("{name}: read by a scan: {why} ({lost}{so_far})"));
        return;
    }
    notes.push(format!("{name}: {}", r.reason));
    if r.complete_chunks + r.partial_chunks > 0 {
        notes.push(format!(
            "{name}: recovered {} from {} complete and {} partial chunks{so_far}",
            crate::wording::count(bag.message_count(), "message"),
            r.complete_chunks,
            r.partial_chunks
        ));
    }
    let when = if r.scanned.is_some() {
        " (found so far)"
    } else {
        ""
    };
    for l in &r.losses {
        notes.push(format!("{name}: lost{when} {l}"));
    }
}

/// Whether `path` names a ROS 2 SQLite storage file (`.db3`, `.db3.zstd`): bagscope reads it
/// through an MCAP it makes of it, whose profile, writer and summary are bagscope's, not the
/// file's.
fn is_sqlite_storage(path: &std::path::Path) -> bool {
    let name = path.as_os_str().as_encoded_bytes();
    name.ends_with(b".db3") || name.ends_with(b".db3.zstd")
}

/// `text` cut to [`TEXT_KEPT`] characters, ending with `…` when cut.
fn cut(text: &str) -> String {
    match text.char_indices().nth(TEXT_KEPT) {
        None => text.to_string(),
        Some((end, _)) => format!("{}…", text.get(..end).unwrap_or_default()),
    }
}

/// What the scan gathers about one topic.
struct Acc {
    times: Vec<RosTime>,
    out_of_order: u64,
    bytes: u64,
    kinds: Vec<String>,
}

impl Acc {
    /// The topic's health from what was gathered.
    fn into_health(mut self, topic: String) -> TopicHealth {
        self.times.sort_unstable();
        let mut periods: Vec<f64> = self
            .times
            .windows(2)
            .filter_map(|w| Some(w.get(1)?.nanos_since(*w.first()?) as f64 / 1e9))
            .collect();
        let median_period = median(&mut periods.clone());
        let mut gaps: Vec<Gap> = Vec::new();
        if let Some(m) = median_period {
            let threshold = (m * GAP_FACTOR).max(GAP_MIN_SECONDS);
            for w in self.times.windows(2) {
                if let (Some(&from), Some(&to)) = (w.first(), w.get(1)) {
                    if to.nanos_since(from) as f64 / 1e9 > threshold {
                        gaps.push(Gap { from, to });
                    }
                }
            }
        }
        periods.clear();
        let gap_count = gaps.len();
        gaps.sort_by(|x, y| y.seconds().total_cmp(&x.seconds()));
        gaps.truncate(GAPS_KEPT);
        TopicHealth {
            count: self.times.len() as u64,
            first: self.times.first().copied(),
            last: self.times.last().copied(),
            median_period,
            gaps,
            gap_count,
            out_of_order: self.out_of_order,
            bytes: self.bytes,
            conflicts: if self.kinds.len() > 1 {
                self.kinds
            } else {
                Vec::new()
            },
            topic,
        }
    }
}

/// Computes the report; `progress` is called with the fraction of chunks done.
pub fn compute(catalog: &Catalog, progress: &mut dyn FnMut(f64)) -> HealthReport {
    let total_chunks: usize = catalog
        .bags()
        .iter()
        .map(|b| b.chunks().len())
        .sum::<usize>()
        .max(1);
    let mut done = 0usize;
    let mut acc: HashMap<String, Acc> = HashMap::new();
    let mut report = HealthReport::default();
    for (bi, bag) in catalog.bags().iter().enumerate() {
        // A SQLite storage file's chunks are those of the MCAP bagscope made of it.
        let sqlite = is_sqlite_storage(bag.path());
        let topic_of: HashMap<ConnId, &str> = bag
            .connections()
            .iter()
            .map(|c| (c.id, c.topic.as_str()))
            .collect();
        // Lists sized once from the index's counts (a list grown by doubling leaves freed
        // blocks the allocator keeps: tens of MB at a million messages).
        report.chunks.reserve(bag.chunks().len().min(total_chunks));
        for c in bag.connections() {
            let a = acc.entry(c.topic.clone()).or_insert_with(|| Acc {
                times: Vec::new(),
                out_of_order: 0,
                bytes: 0,
                kinds: Vec::new(),
            });
            // At most what the chunk list could hold (a damaged index may claim more).
            let claimed = usize::try_from(c.message_count).unwrap_or(usize::MAX);
            a.times.reserve(claimed.min(1 << 22));
            let kind = format!("{} [{}]", c.datatype, c.md5sum);
            if !a.kinds.contains(&kind) {
                a.kinds.push(kind);
            }
        }
        // The latest receive time stored so far per connection of this bag.
        let mut last_in_file: HashMap<ConnId, RosTime> = HashMap::new();
        // Chunks in file order, so "out of order" means: stored after a later message.
        let mut order: Vec<_> = bag.chunks().iter().collect();
        order.sort_by_key(|c| c.pos);
        // The lists of a bag of many chunks are read for this pass and not kept (72 MB at a
        // million chunks).
        let mut pass = bag.entries_pass();
        for chunk in order {
            let mut entries = pass.entries(chunk.index).to_vec();
            entries.sort_by_key(|e| e.offset);
            // Read with the entries (which need it), in batches of nearby chunks.
            let head = bag.head(chunk.index).ok();
            let end_of_data = if chunk.layout == ChunkLayout::V2 {
                head.map_or(0, |h| h.uncompressed_size)
            } else {
                bag.size()
            };
            for (i, e) in entries.iter().enumerate() {
                let next = entries.get(i + 1).map_or(end_of_data, |n| n.offset);
                let Some(topic) = topic_of.get(&e.conn) else {
                    continue;
                };
                let Some(a) = acc.get_mut(*topic) else {
                    continue;
                };
                a.bytes += next.saturating_sub(e.offset);
                let last = last_in_file.entry(e.conn).or_insert(e.time);
                if e.time < *last {
                    a.out_of_order += 1;
                }
                *last = (*last).max(e.time);
                a.times.push(e.time);
            }
            // A chunk whose header is bad is in the bag's warnings, not in the statistics.
            if let Some(head) = head.filter(|_| chunk.is_record() && !sqlite) {
                // A chunk record's sizes are 32-bit numbers; its messages fit as well.
                let narrow = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
                report.chunks.push(ChunkHealth {
                    bag: u32::try_from(bi).unwrap_or(u32::MAX),
                    chunk: chunk.index,
                    pos: chunk.pos,
                    compression: head.compression,
                    compressed: narrow(head.compressed_size),
                    uncompressed: narrow(head.uncompressed_size),
                    messages: narrow(chunk.message_count()),
                });
            }
            done += 1;
            progress(done as f64 / total_chunks as f64);
        }
        // Bags are numbered as in the explorer (`#1`, `#2`, …).
        let name = format!("#{} {}", bi + 1, bag.path().display());
        if !sqlite {
            report.mcap.extend(McapFacts::of(bag, bi));
        }
        read_notes(&mut report.notes, &name, bag, sqlite);
        for w in bag.warnings() {
            report.notes.push(format!("{name}: warning: {w}"));
        }
    }
    let mut topics: Vec<TopicHealth> = acc
        .into_iter()
        .map(|(topic, a)| a.into_health(topic))
        .collect();
    topics.sort_by(|a, b| a.topic.cmp(&b.topic));
    report.topics = topics;
    report
}

#[cfg(test)]
mod tests {
    #[test]
    fn long_texts_are_cut_at_a_character() {
        let long = "é".repeat(super::TEXT_KEPT + 5);
        let c = super::cut(&long);
        assert_eq!(c.chars().count(), super::TEXT_KEPT + 1);
        assert!(c.ends_with('…'));
        assert_eq!(super::cut("short"), "short");
    }

    #[test]
    fn a_chunk_row_is_compact() {
        // A report of a million chunks holds a million rows.
        assert!(std::mem::size_of::<super::ChunkHealth>() <= 32);
    }
}
