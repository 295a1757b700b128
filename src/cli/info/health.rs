//! `info --health`: the health report after the summary, as text rows or JSON.

use std::fmt::Write as _;

use crate::cli::json::Json;
use crate::stats::median;
use crate::time::RosTime;

/// The health report as text rows after the `info` block.
pub(super) fn health_text(h: &crate::catalog::health::HealthReport) -> String {
    let mut out = String::from("health:");
    for t in &h.topics {
        let _ = write!(
            out,
            "\n  {}: {}",
            t.topic,
            crate::wording::count(t.count, "msg")
        );
        if let Some(r) = t.rate() {
            let _ = write!(out, ", {r:.2} Hz median");
        }
        if let Some(bw) = t.bandwidth() {
            let _ = write!(out, ", {}", crate::cli::rosbag_fmt::human_bandwidth(bw));
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
pub(super) fn health_json(h: &crate::catalog::health::HealthReport) -> Json {
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
                            ("bytes", Json::Int(t.bytes.into())),
                            ("bandwidth", t.bandwidth().map_or(Json::Null, Json::Num)),
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
