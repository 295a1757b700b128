//! `info --health`: log lines per node and level, from the log topics (`/rosout`; not
//! `/rosout_agg` when `/rosout` is there, it repeats the same lines).

use std::fmt::Write as _;

use crate::catalog::Catalog;
use crate::catalog::log::{LogLevel, LogStats, LogTopics, log_topics, read_all};
use crate::cli::json::Json;
use crate::msg::Registry;

/// The log lines of a bag counted per node and level.
pub(super) struct LogCounts {
    topics: LogTopics,
    total: usize,
    nodes: Vec<(String, [u64; 5])>,
    stats: LogStats,
}

impl LogCounts {
    /// Reads every log line of `catalog` (`None` when it has no log topic).
    pub(super) fn read(catalog: &Catalog) -> Option<LogCounts> {
        let topics = log_topics(catalog);
        if topics.topics.is_empty() {
            return None;
        }
        let (lines, stats) = read_all(catalog, &topics.topics, &Registry::bundled());
        Some(LogCounts {
            topics,
            total: lines.lines.len(),
            nodes: lines.counts_by_node(),
            stats,
        })
    }

    /// Text rows after the health report.
    pub(super) fn text(&self) -> String {
        let mut out = format!(
            "  log lines ({}): {}",
            self.topics.topics.join(", "),
            self.total
        );
        if !self.topics.left_out.is_empty() {
            let _ = write!(
                out,
                " ({} not counted: the same lines)",
                self.topics.left_out.join(", ")
            );
        }
        if self.stats.lost() > 0 {
            let _ = write!(out, ", {} unreadable", self.stats.lost());
        }
        for (node, counts) in &self.nodes {
            let levels: Vec<String> = LogLevel::ALL
                .iter()
                .zip(counts)
                .filter(|(_, n)| **n > 0)
                .map(|(l, n)| format!("{n} {}", l.name()))
                .collect();
            let name = if node.is_empty() { "(no name)" } else { node };
            let _ = write!(out, "\n    {name}: {}", levels.join(", "));
        }
        out
    }

    /// The same in JSON.
    pub(super) fn json(&self) -> Json {
        Json::obj([
            (
                "topics",
                Json::Arr(self.topics.topics.iter().map(Json::str).collect()),
            ),
            (
                "left_out",
                Json::Arr(self.topics.left_out.iter().map(Json::str).collect()),
            ),
            ("lines", Json::Int(self.total as i128)),
            ("lost", Json::Int(self.stats.lost().into())),
            (
                "nodes",
                Json::Arr(
                    self.nodes
                        .iter()
                        .map(|(node, counts)| {
                            let mut pairs = vec![("node".to_string(), Json::str(node))];
                            for (l, n) in LogLevel::ALL.iter().zip(counts) {
                                pairs.push((l.name().to_string(), Json::Int((*n).into())));
                            }
                            Json::Obj(pairs)
                        })
                        .collect(),
                ),
            ),
        ])
    }
}
