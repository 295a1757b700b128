//! The `info` summary computed once per bag, and its `rosbag info`-style text.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::bag::{Bag, ChunkLayout, TopicSummary};
use crate::format::Compression;
use crate::stats::median;
use crate::time::RosTime;

use crate::cli::rosbag_fmt::{duration_str, human_frequency, human_size, time_to_str};

/// Everything `info` prints, computed once.
pub(super) struct Summary {
    pub(super) topics: Vec<TopicSummary>,
    /// `rosbag info`'s start/end: first chunk's start and last chunk's end (old layouts:
    /// first and last message).
    pub(super) info_range: Option<(RosTime, RosTime)>,
    /// The true first and last message times.
    pub(super) range: Option<(RosTime, RosTime)>,
    /// Median rate per topic (same order as `topics`), when computed.
    pub(super) freqs: Vec<Option<f64>>,
    /// True for the short form (no messages and no connections).
    pub(super) empty: bool,
}

impl Summary {
    /// The summary of `bag`, with median rates when `freq`.
    pub(super) fn new(bag: &Bag, freq: bool) -> Self {
        let topics = bag.topics();
        let records = || bag.chunks().iter().filter(|c| c.is_record());
        let range = bag.start_time().zip(bag.end_time());
        let any_record = records().next().is_some();
        let info_range = if !any_record {
            range
        } else if bag.is_indexed() {
            records()
                .next()
                .zip(records().next_back())
                .map(|(a, b)| (a.start, b.end))
        } else {
            let filled = || records().filter(|c| c.message_count() > 0);
            filled()
                .next()
                .zip(filled().next_back())
                .map(|(a, b)| (a.start, b.end))
        };
        // rosbag reads the whole index of old layouts, so it always shows rates there.
        let old_layout = bag.chunks().iter().all(|c| c.layout != ChunkLayout::V2);
        let freqs = if freq || (old_layout && !bag.chunks().is_empty()) {
            median_rates(bag, &topics)
        } else {
            vec![None; topics.len()]
        };
        let empty = bag.connections().is_empty() && !any_record;
        Summary {
            topics,
            info_range,
            range,
            freqs,
            empty,
        }
    }

    /// The version as `rosbag info` prints it.
    pub(super) fn version_text(bag: &Bag) -> String {
        let v = bag.version().as_str().to_string();
        if v == "1.2" && !bag.is_indexed() {
            format!("{v} (unindexed)")
        } else {
            v
        }
    }

    /// One entry per type: the first connection's md5sum, as `rosbag info` shows.
    pub(super) fn types(bag: &Bag) -> Vec<(String, String)> {
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for c in bag.connections() {
            if seen.insert(c.datatype.clone()) {
                out.push((c.datatype.clone(), c.md5sum.clone()));
            }
        }
        out.sort();
        out
    }

    /// The `rosbag info` text, with `shown` as the path.
    pub(super) fn text(&self, bag: &Bag, shown: &str) -> String {
        let mut rows: Vec<(&str, String)> = vec![
            ("path", shown.to_string()),
            ("version", Self::version_text(bag)),
        ];
        if self.empty {
            rows.push(("size", human_size(bag.size() as f64)));
        } else {
            let (start, end) = self
                .info_range
                .map_or((0.0, 0.0), |(s, e)| (s.as_secs_f64(), e.as_secs_f64()));
            let duration = end - start;
            rows.push(("duration", duration_str(duration)));
            rows.push(("start", format!("{} ({start:.2})", time_to_str(start))));
            rows.push(("end", format!("{} ({end:.2})", time_to_str(end))));
            rows.push(("size", human_size(bag.size() as f64)));
            rows.push(("messages", bag.message_count().to_string()));
            compression_rows(bag, duration, &mut rows);
            let types = Self::types(bag);
            let type_width = types
                .iter()
                .map(|(t, _)| t.chars().count())
                .max()
                .unwrap_or(0);
            for (i, (t, md5)) in types.iter().enumerate() {
                rows.push((
                    if i == 0 { "types" } else { "" },
                    format!("{t:<type_width$} [{md5}]"),
                ));
            }
            let topic_width = self
                .topics
                .iter()
                .map(|t| t.topic.chars().count())
                .max()
                .unwrap_or(0);
            let count_width = self
                .topics
                .iter()
                .map(|t| t.message_count.to_string().len())
                .max()
                .unwrap_or(0);
            let freq_width = self
                .freqs
                .iter()
                .flatten()
                .map(|f| human_frequency(*f).len())
                .max()
                .unwrap_or(0);
            for (i, (t, f)) in self.topics.iter().zip(&self.freqs).enumerate() {
                let mut s = format!(
                    "{:<topic_width$}   {:>count_width$} {}",
                    t.topic,
                    t.message_count,
                    if t.message_count > 1 { "msgs" } else { "msg " }
                );
                match f {
                    Some(f) => {
                        let _ = write!(s, " @ {:>freq_width$}", human_frequency(*f));
                    }
                    None => {
                        let _ = write!(s, "   {:>freq_width$}", "");
                    }
                }
                let _ = write!(s, " : {:<type_width$}", t.datatype);
                if t.connections.len() > 1 {
                    let _ = write!(s, " ({} connections)", t.connections.len());
                }
                rows.push((if i == 0 { "topics" } else { "" }, s));
            }
        }
        let width = rows.iter().map(|(f, _)| f.len()).max().unwrap_or(0) + 1;
        let mut out = format_rows(&rows, width).trim_end().to_string();
        // Our additions come after rosbag's block, which stays byte for byte as rosbag prints it.
        let mut extra = Vec::new();
        self.extra_rows(bag, &mut extra);
        if !extra.is_empty() {
            out.push('\n');
            out.push_str(format_rows(&extra, width).trim_end());
        }
        out
    }

    /// What `rosbag info` cannot say: true message range, recovery, warnings, and an MCAP
    /// file's profile, attachments and metadata.
    fn extra_rows(&self, bag: &Bag, rows: &mut Vec<(&'static str, String)>) {
        mcap_rows(bag, rows);
        if let (Some((s, e)), Some((is, ie))) = (self.range, self.info_range) {
            if s != is || e != ie {
                rows.push((
                    "first",
                    format!("{} ({s}) first message", time_to_str(s.as_secs_f64())),
                ));
                rows.push((
                    "last",
                    format!("{} ({e}) last message", time_to_str(e.as_secs_f64())),
                ));
            }
        }
        // An MCAP file read by a scan with nothing lost (a writer that leaves the summary
        // out): said as it is, not as a recovery.
        let clean_scan = bag
            .recovery()
            .filter(|r| bag.mcap().is_some() && r.losses.is_empty() && r.unfinished.is_none());
        if let Some(r) = clean_scan {
            let why = r.reason.trim_end_matches("; the file was scanned");
            rows.push(("read", format!("by a scan: {why} (nothing was lost)")));
        } else if let Some(r) = bag.recovery() {
            rows.push(("index", format!("none: {}", r.reason)));
            if r.complete_chunks + r.partial_chunks > 0 {
                rows.push((
                    "read",
                    format!(
                        "{} from {} complete and {} partial chunks",
                        crate::wording::count(bag.message_count(), "message"),
                        r.complete_chunks,
                        r.partial_chunks
                    ),
                ));
            }
            for (i, l) in r.losses.iter().enumerate() {
                rows.push((if i == 0 { "lost" } else { "" }, l.to_string()));
            }
            // Not a loss: the end of a recording still being written.
            if let Some(u) = &r.unfinished {
                rows.push(("unfinished", u.to_string()));
            }
        }
        let conflicts = self.topics.iter().filter(|t| t.conflicting_types).map(|t| {
            format!(
                "topic {} has connections of different types or md5sums",
                t.topic
            )
        });
        for (i, w) in bag
            .warnings()
            .iter()
            .map(ToString::to_string)
            .chain(conflicts)
            .enumerate()
        {
            rows.push((if i == 0 { "warning" } else { "" }, w));
        }
    }
}

/// Lays out `label: value` rows with the labels padded to `width`.
pub(super) fn format_rows(rows: &[(&str, String)], width: usize) -> String {
    let mut out = String::new();
    for (field, value) in rows {
        let label = if field.is_empty() {
            String::new()
        } else {
            format!("{field}:")
        };
        let _ = writeln!(out, "{label:<width$} {value}");
    }
    out
}

/// The `compression`, `uncompressed` and `compressed` rows.
fn compression_rows(bag: &Bag, duration: f64, rows: &mut Vec<(&'static str, String)>) {
    let mut stats = bag.compression_stats();
    if stats.is_empty() {
        rows.push(("compression", "none".to_string()));
        return;
    }
    // Every chunk record, also one whose header is bad (left out of the statistics, and
    // named in the warnings).
    let total_chunks = bag.chunks().iter().filter(|c| c.is_record()).count();
    // Most chunks first; ties by name, descending (rosbag sorts (count, name) and reverses).
    stats.sort_by(|a, b| (b.chunks, b.compression.name()).cmp(&(a.chunks, a.compression.name())));
    let parts: Vec<String> = stats
        .iter()
        .map(|c| {
            if c.compression == Compression::None {
                format!("{} [{}/{} chunks]", c.compression, c.chunks, total_chunks)
            } else {
                let fraction = 100.0 * c.compressed as f64 / c.uncompressed as f64;
                format!(
                    "{} [{}/{} chunks; {fraction:.2}%]",
                    c.compression, c.chunks, total_chunks
                )
            }
        })
        .collect();
    rows.push(("compression", parts.join(", ")));
    if stats.iter().all(|c| c.compression == Compression::None) {
        return;
    }
    let unc: u64 = stats.iter().map(|c| c.uncompressed).sum();
    let comp: u64 = stats.iter().map(|c| c.compressed).sum();
    let (unc_s, comp_s) = (human_size(unc as f64), human_size(comp as f64));
    let w = unc_s.len().max(comp_s.len());
    if duration > 0.0 {
        let (unc_r, comp_r) = (
            human_size(unc as f64 / duration),
            human_size(comp as f64 / duration),
        );
        let rw = unc_r.len().max(comp_r.len());
        rows.push(("uncompressed", format!("{unc_s:>w$} @ {unc_r:>rw$}/s")));
        rows.push((
            "compressed",
            format!(
                "{comp_s:>w$} @ {comp_r:>rw$}/s ({:.2}%)",
                100.0 * comp as f64 / unc as f64
            ),
        ));
    } else {
        rows.push(("uncompressed", format!("{unc_s:>w$}")));
        rows.push(("compressed", format!("{comp_s:>w$}")));
    }
}

/// The median message rate of each topic, from its receive times (as `rosbag info
/// --freq`): one pass over the bag's message lists for all topics.
fn median_rates(bag: &Bag, topics: &[TopicSummary]) -> Vec<Option<f64>> {
    let mut group_of = vec![None; bag.connections().len()];
    for (i, t) in topics.iter().enumerate() {
        for &c in &t.connections {
            if let Some(slot) = group_of.get_mut(c as usize) {
                *slot = Some(i);
            }
        }
    }
    bag.receive_times_grouped(&group_of, topics.len())
        .iter()
        .map(|times| median_rate(times))
        .collect()
}

/// The median message rate of sorted receive times.
fn median_rate(times: &[RosTime]) -> Option<f64> {
    if times.len() < 2 {
        return None;
    }
    let mut periods: Vec<f64> = times
        .windows(2)
        .map(|w| {
            w.get(1).map_or(0.0, |b| b.as_secs_f64()) - w.first().map_or(0.0, |a| a.as_secs_f64())
        })
        .collect();
    median(&mut periods).filter(|&p| p > 0.0).map(|p| 1.0 / p)
}

/// The `rosbag info`-style text for one open bag (what `bagscope info` prints for it).
pub fn text_summary(bag: &Bag, shown_path: &str, freq: bool) -> String {
    Summary::new(bag, freq).text(bag, shown_path)
}

/// An MCAP file's profile and writer, its attachments (name, media type, size) and metadata
/// records (name, keys and values), one row each.
pub(super) fn mcap_rows(bag: &Bag, rows: &mut Vec<(&'static str, String)>) {
    let Some(m) = bag.mcap() else { return };
    if !m.profile.is_empty() || !m.library.is_empty() {
        rows.push((
            "mcap",
            format!(
                "profile '{}', written by '{}'",
                crate::printable::escape(&m.profile),
                crate::printable::escape(&m.library)
            ),
        ));
    }
    for (i, a) in m.attachments.iter().enumerate() {
        rows.push((
            if i == 0 { "attachments" } else { "" },
            format!(
                "{} ({}, {})",
                crate::printable::escape(&a.name),
                crate::printable::escape(&a.media_type),
                if a.size < 1024 {
                    crate::wording::count(a.size, "byte")
                } else {
                    human_size(a.size as f64)
                }
            ),
        ));
    }
    for (i, md) in m.metadata.iter().enumerate() {
        let pairs: Vec<String> = md
            .entries
            .iter()
            .map(|(k, v)| {
                format!(
                    "{}: {}",
                    crate::printable::escape(k),
                    crate::printable::escape(v)
                )
            })
            .collect();
        rows.push((
            if i == 0 { "metadata" } else { "" },
            format!(
                "{} {{{}}}",
                crate::printable::escape(&md.name),
                pairs.join(", ")
            ),
        ));
    }
}
