//! `bagscope info`: the `rosbag info` summary (same rows, order and number formats), its YAML
//! form, and JSON; plus what `rosbag info` lacks: bags it cannot open (unindexed, truncated,
//! old versions), the true first/last message times, and what recovery found or lost.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;

use crate::bag::{Bag, ChunkLayout, TopicSummary};
use crate::format::Compression;
use crate::time::RosTime;

use super::json::Json;
use super::rosbag_fmt::{duration_str, human_frequency, human_size, time_to_str};
use super::term::{Stdout, outln};
use super::{Outcome, open_bag};
use crate::stats::median;

/// Arguments of `bagscope info` (independent flags, hence the bools).
#[derive(Args, Debug)]
#[allow(clippy::struct_excessive_bools)]
pub struct InfoArgs {
    /// Print YAML (the `rosbag info --yaml` keys).
    #[arg(long, short = 'y', conflicts_with = "json")]
    pub yaml: bool,
    /// Print JSON (one object per bag; an array for several bags).
    #[arg(long)]
    pub json: bool,
    /// Also compute each topic's median message rate (reads the index data of every chunk,
    /// never the chunks themselves).
    #[arg(long)]
    pub freq: bool,
    /// Also report each topic's health: median rate, gaps longer than a few periods,
    /// out-of-order receive times, type conflicts, chunk compression (from index data only).
    #[arg(long)]
    pub health: bool,
    /// Bag files.
    #[arg(required = true, value_name = "BAG")]
    pub bags: Vec<PathBuf>,
}

/// Runs `bagscope info`.
pub fn run(args: &InfoArgs) -> Outcome {
    let mut outcome = Outcome::Ok;
    let mut texts = Vec::new();
    let mut jsons = Vec::new();
    for path in &args.bags {
        let bag = match open_bag(path) {
            Ok(b) => b,
            Err(o) => {
                outcome = outcome.max(o);
                continue;
            }
        };
        if bag.recovery().is_some_and(|r| !r.is_lossless()) {
            outcome = outcome.max(Outcome::Problems);
        }
        let shown = path.display().to_string();
        let summary = Summary::new(&bag, args.freq);
        let health = args.health.then(|| {
            crate::catalog::health::compute(
                &crate::catalog::Catalog::new(vec![bag.clone()]),
                &mut |_| {},
            )
        });
        if args.json {
            let mut j = summary.json(&bag, &shown);
            if let (Json::Obj(pairs), Some(h)) = (&mut j, &health) {
                pairs.push(("health".into(), health_json(h)));
            }
            jsons.push(j);
        } else if args.yaml {
            texts.push(summary.yaml(&bag, &shown));
        } else {
            let mut t = summary.text(&bag, &shown);
            if let Some(h) = &health {
                t.push('\n');
                t.push_str(&health_text(h));
            }
            texts.push(t);
        }
    }
    if args.json {
        let out = match jsons.len() {
            1 => jsons.pop().unwrap_or(Json::Null),
            _ => Json::Arr(jsons),
        };
        if !matches!(out, Json::Arr(ref v) if v.is_empty()) || args.bags.len() > 1 {
            let mut stdout = Stdout::data();
            outln!(stdout, "{}", out.to_compact());
            return stdout.finish(outcome);
        }
        outcome
    } else {
        // The YAML form is data; the rosbag-style text is a summary, always escaped.
        let mut stdout = if args.yaml {
            Stdout::data()
        } else {
            Stdout::human()
        };
        outln!(stdout, "{}", texts.join("\n---\n"));
        stdout.finish(outcome)
    }
}

/// The `rosbag info`-style text for one open bag (what `bagscope info` prints for it).
pub fn text_summary(bag: &Bag, shown_path: &str, freq: bool) -> String {
    Summary::new(bag, freq).text(bag, shown_path)
}

/// Everything `info` prints, computed once.
struct Summary {
    topics: Vec<TopicSummary>,
    /// `rosbag info`'s start/end: first chunk's start and last chunk's end (old layouts:
    /// first and last message).
    info_range: Option<(RosTime, RosTime)>,
    /// The true first and last message times.
    range: Option<(RosTime, RosTime)>,
    /// Median rate per topic (same order as `topics`), when computed.
    freqs: Vec<Option<f64>>,
    /// True for the short form (no messages and no connections).
    empty: bool,
}

impl Summary {
    fn new(bag: &Bag, freq: bool) -> Self {
        let topics = bag.topics();
        let records: Vec<_> = bag.chunks().iter().filter(|c| c.is_record()).collect();
        let range = bag.start_time().zip(bag.end_time());
        let info_range = if records.is_empty() {
            range
        } else if bag.is_indexed() {
            records
                .first()
                .zip(records.last())
                .map(|(a, b)| (a.start, b.end))
        } else {
            let filled: Vec<_> = records.iter().filter(|c| c.message_count() > 0).collect();
            filled
                .first()
                .zip(filled.last())
                .map(|(a, b)| (a.start, b.end))
        };
        // rosbag reads the whole index of old layouts, so it always shows rates there.
        let old_layout = bag.chunks().iter().all(|c| c.layout != ChunkLayout::V2);
        let freqs = if freq || (old_layout && !bag.chunks().is_empty()) {
            topics.iter().map(|t| median_rate(bag, t)).collect()
        } else {
            vec![None; topics.len()]
        };
        let empty = bag.connections().is_empty() && records.is_empty();
        Summary {
            topics,
            info_range,
            range,
            freqs,
            empty,
        }
    }

    fn version_text(bag: &Bag) -> String {
        let v = bag.version().as_str().to_string();
        if v == "1.2" && !bag.is_indexed() {
            format!("{v} (unindexed)")
        } else {
            v
        }
    }

    /// One entry per type: the first connection's md5sum, as `rosbag info` shows.
    fn types(bag: &Bag) -> Vec<(String, String)> {
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

    fn text(&self, bag: &Bag, shown: &str) -> String {
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

    /// What `rosbag info` cannot say: true message range, recovery, warnings.
    fn extra_rows(&self, bag: &Bag, rows: &mut Vec<(&'static str, String)>) {
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
        if let Some(r) = bag.recovery() {
            rows.push(("index", format!("none: {}", r.reason)));
            if r.complete_chunks + r.partial_chunks > 0 {
                rows.push((
                    "read",
                    format!(
                        "{} messages from {} complete and {} partial chunks",
                        bag.message_count(),
                        r.complete_chunks,
                        r.partial_chunks
                    ),
                ));
            }
            for (i, l) in r.losses.iter().enumerate() {
                rows.push((if i == 0 { "lost" } else { "" }, l.to_string()));
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

    fn yaml(&self, bag: &Bag, shown: &str) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "path: {shown}");
        let _ = writeln!(s, "version: {}", Self::version_text(bag));
        if self.empty {
            let _ = writeln!(s, "size: {}", bag.size());
            let _ = writeln!(s, "indexed: False");
            return s;
        }
        let (start, end) = self
            .info_range
            .map_or((0.0, 0.0), |(a, b)| (a.as_secs_f64(), b.as_secs_f64()));
        let _ = writeln!(s, "duration: {:.6}", end - start);
        let _ = writeln!(s, "start: {start:.6}");
        let _ = writeln!(s, "end: {end:.6}");
        let _ = writeln!(s, "size: {}", bag.size());
        let _ = writeln!(s, "messages: {}", bag.message_count());
        let _ = writeln!(
            s,
            "indexed: {}",
            if bag.is_indexed() { "True" } else { "False" }
        );
        let stats = bag.compression_stats();
        match stats.iter().max_by_key(|c| (c.chunks, c.compression)) {
            None => {
                let _ = writeln!(s, "compression: none");
            }
            Some(main) => {
                let _ = writeln!(s, "compression: {}", main.compression);
                if stats.iter().any(|c| c.compression != Compression::None) {
                    let _ = writeln!(
                        s,
                        "uncompressed: {}",
                        stats.iter().map(|c| c.uncompressed).sum::<u64>()
                    );
                    let _ = writeln!(
                        s,
                        "compressed: {}",
                        stats.iter().map(|c| c.compressed).sum::<u64>()
                    );
                }
            }
        }
        let _ = writeln!(s, "types:");
        for (t, md5) in Self::types(bag) {
            let _ = writeln!(s, "    - type: {t}\n      md5: {md5}");
        }
        let _ = writeln!(s, "topics:");
        for (t, f) in self.topics.iter().zip(&self.freqs) {
            let _ = writeln!(
                s,
                "    - topic: {}\n      type: {}\n      messages: {}",
                t.topic, t.datatype, t.message_count
            );
            if t.connections.len() > 1 {
                let _ = writeln!(s, "      connections: {}", t.connections.len());
            }
            if let Some(f) = f {
                let _ = writeln!(s, "      frequency: {f:.4}");
            }
        }
        s
    }

    fn json(&self, bag: &Bag, shown: &str) -> Json {
        let time = |t: Option<RosTime>| {
            t.map_or(Json::Null, |t| {
                Json::obj([
                    ("sec", Json::Int(t.sec.into())),
                    ("nsec", Json::Int(t.nsec.into())),
                ])
            })
        };
        let (start, end) = (self.range.map(|r| r.0), self.range.map(|r| r.1));
        let duration = self.range.map_or(Json::Null, |(s, e)| {
            Json::Num(e.nanos_since(s) as f64 / 1e9)
        });
        let compression = Json::Obj(
            bag.compression_stats()
                .iter()
                .map(|c| (c.compression.to_string(), Json::Int(c.chunks.into())))
                .collect(),
        );
        let mut types: Vec<(String, String)> = bag
            .connections()
            .iter()
            .map(|c| (c.datatype.clone(), c.md5sum.clone()))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        types.sort();
        let topics = self
            .topics
            .iter()
            .zip(&self.freqs)
            .map(|(t, f)| {
                let first = t.connections.first().and_then(|&c| bag.connection(c));
                Json::obj([
                    ("topic", Json::str(&t.topic)),
                    ("type", Json::str(&t.datatype)),
                    (
                        "md5sum",
                        Json::str(first.map(|c| c.md5sum.clone()).unwrap_or_default()),
                    ),
                    ("messages", Json::Int(t.message_count.into())),
                    ("connections", Json::Int(t.connections.len() as i128)),
                    ("frequency", f.map_or(Json::Null, Json::Num)),
                    ("conflicting_types", Json::Bool(t.conflicting_types)),
                ])
            })
            .collect();
        let mut pairs = vec![
            ("path", Json::str(shown)),
            ("version", Json::str(bag.version().as_str())),
            ("size", Json::Int(bag.size().into())),
            ("indexed", Json::Bool(bag.is_indexed())),
            ("start", time(start)),
            ("end", time(end)),
            ("duration", duration),
            ("messages", Json::Int(bag.message_count().into())),
            (
                "chunks",
                Json::Int(bag.chunks().iter().filter(|c| c.is_record()).count() as i128),
            ),
            ("compression", compression),
            (
                "types",
                Json::Arr(
                    types
                        .into_iter()
                        .map(|(t, m)| Json::obj([("type", Json::Str(t)), ("md5sum", Json::Str(m))]))
                        .collect(),
                ),
            ),
            ("topics", Json::Arr(topics)),
            ("info_start", time(self.info_range.map(|r| r.0))),
            ("info_end", time(self.info_range.map(|r| r.1))),
        ];
        if let Some(r) = bag.recovery() {
            pairs.push((
                "recovery",
                Json::obj([
                    ("reason", Json::str(&r.reason)),
                    ("complete_chunks", Json::Int(r.complete_chunks.into())),
                    ("partial_chunks", Json::Int(r.partial_chunks.into())),
                    (
                        "losses",
                        Json::Arr(
                            r.losses
                                .iter()
                                .map(|l| {
                                    Json::obj([
                                        ("offset", Json::Int(l.offset.into())),
                                        ("bytes", Json::Int(l.bytes.into())),
                                        (
                                            "messages",
                                            l.messages.map_or(Json::Null, |m| Json::Int(m.into())),
                                        ),
                                        ("reason", Json::str(&l.reason)),
                                    ])
                                })
                                .collect(),
                        ),
                    ),
                ]),
            ));
        }
        pairs.push((
            "warnings",
            Json::Arr(
                bag.warnings()
                    .iter()
                    .map(|w| {
                        Json::obj([
                            (
                                "offset",
                                w.offset.map_or(Json::Null, |o| Json::Int(o.into())),
                            ),
                            ("message", Json::str(&w.message)),
                        ])
                    })
                    .collect(),
            ),
        ));
        Json::obj(pairs)
    }
}

/// The health report as text rows after the `info` block.
fn health_text(h: &crate::catalog::health::HealthReport) -> String {
    let mut out = String::from("health:");
    for t in &h.topics {
        let _ = write!(out, "\n  {}: {} msgs", t.topic, t.count);
        if let Some(r) = t.rate() {
            let _ = write!(out, ", {r:.2} Hz median");
        }
        if let Some(g) = t.max_gap() {
            let _ = write!(
                out,
                ", {} gap(s) over {} periods (longest {:.3} s after {})",
                t.gap_count,
                crate::catalog::health::GAP_FACTOR,
                g.seconds(),
                g.from
            );
        }
        if t.out_of_order > 0 {
            let _ = write!(out, ", {} received out of order", t.out_of_order);
        }
        for c in &t.conflicts {
            let _ = write!(out, "\n    type conflict: {c}");
        }
    }
    if !h.chunks.is_empty() {
        let mut ratios: Vec<f64> = h
            .chunks
            .iter()
            .map(crate::catalog::health::ChunkHealth::ratio)
            .collect();
        let med = median(&mut ratios).unwrap_or(1.0);
        let _ = write!(
            out,
            "\n  chunks: {}, compressed/uncompressed per chunk: min {:.1}%, median {:.1}%, max {:.1}%",
            h.chunks.len(),
            ratios.first().copied().unwrap_or(1.0) * 100.0,
            med * 100.0,
            ratios.last().copied().unwrap_or(1.0) * 100.0
        );
    }
    out
}

/// The health report in JSON.
fn health_json(h: &crate::catalog::health::HealthReport) -> Json {
    let time = |t: RosTime| {
        Json::obj([
            ("sec", Json::Int(t.sec.into())),
            ("nsec", Json::Int(t.nsec.into())),
        ])
    };
    Json::obj([
        (
            "topics",
            Json::Arr(
                h.topics
                    .iter()
                    .map(|t| {
                        Json::obj([
                            ("topic", Json::str(&t.topic)),
                            ("messages", Json::Int(t.count.into())),
                            (
                                "median_period",
                                t.median_period.map_or(Json::Null, Json::Num),
                            ),
                            ("gap_count", Json::Int(t.gap_count as i128)),
                            (
                                "gaps",
                                Json::Arr(
                                    t.gaps
                                        .iter()
                                        .map(|g| {
                                            Json::obj([
                                                ("from", time(g.from)),
                                                ("to", time(g.to)),
                                                ("seconds", Json::Num(g.seconds())),
                                            ])
                                        })
                                        .collect(),
                                ),
                            ),
                            ("out_of_order", Json::Int(t.out_of_order.into())),
                            (
                                "conflicts",
                                Json::Arr(t.conflicts.iter().map(Json::str).collect()),
                            ),
                        ])
                    })
                    .collect(),
            ),
        ),
        (
            "chunks",
            Json::Arr(
                h.chunks
                    .iter()
                    .map(|c| {
                        Json::obj([
                            ("offset", Json::Int(c.pos.into())),
                            ("compression", Json::str(c.compression.name())),
                            ("compressed", Json::Int(c.compressed.into())),
                            ("uncompressed", Json::Int(c.uncompressed.into())),
                            ("messages", Json::Int(c.messages.into())),
                        ])
                    })
                    .collect(),
            ),
        ),
    ])
}

/// Lays out `label: value` rows with the labels padded to `width`.
fn format_rows(rows: &[(&str, String)], width: usize) -> String {
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
    let total_chunks: u64 = stats.iter().map(|c| c.chunks).sum();
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

/// The median message rate of a topic, from its receive times (as `rosbag info --freq`).
fn median_rate(bag: &Bag, topic: &TopicSummary) -> Option<f64> {
    let times = bag.receive_times(&topic.connections);
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
