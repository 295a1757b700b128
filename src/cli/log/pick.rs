//! Which log messages `bagscope log` prints by level and node, and the nodes it met (to name
//! them when a `--node` matched none).

use std::collections::BTreeMap;

use crate::catalog::log::LogLevel;
use crate::catalog::log_record::{LogKind, LogRecord};
use crate::cli::term::print_warning;

/// The level and node conditions.
#[derive(Clone, Debug, Default)]
pub struct Pick {
    /// At least this level.
    pub level: LogLevel,
    /// Only these nodes (none: every node), as given.
    pub nodes: Vec<String>,
}

/// True when node `name` (of a message of `kind`) is `given`: exactly, or with a leading
/// `/` missing from `given`. A ROS 2 logger name has no leading `/` and dots between
/// namespace and node (`ns.talker` for the node `/ns/talker`), so for ROS 2 `given` may also
/// be written as the node's name: `/talker`, `/ns/talker` or `ns/talker`.
fn same_node(given: &str, name: &[u8], kind: LogKind) -> bool {
    let bytes = given.as_bytes();
    if name == bytes || (!bytes.starts_with(b"/") && name.strip_prefix(b"/") == Some(bytes)) {
        return true;
    }
    kind == LogKind::Ros2 && {
        let dotted = given.trim_start_matches('/').replace('/', ".");
        !dotted.is_empty() && name == dotted.as_bytes()
    }
}

impl Pick {
    /// True when `record` is printed.
    pub fn keeps(&self, record: &LogRecord<'_>) -> bool {
        LogLevel::of(record) >= self.level
            && (self.nodes.is_empty()
                || self
                    .nodes
                    .iter()
                    .any(|n| same_node(n, record.name, record.kind)))
    }

    /// Whether the nodes met must be kept (to name them when a `--node` matched none).
    pub fn wants_nodes(&self) -> bool {
        !self.nodes.is_empty()
    }

    /// Warns, on stderr, of each `--node` that no message read came from, naming the nodes
    /// that log (`seen`); `where_given`: the messages were those `--where` kept.
    pub fn warn_unseen(&self, seen: &Seen, where_given: bool) {
        let missing: Vec<&str> = self
            .nodes
            .iter()
            .filter(|n| !seen.0.iter().any(|(s, kind)| same_node(n, s, *kind)))
            .map(String::as_str)
            .collect();
        if missing.is_empty() {
            return;
        }
        let names: Vec<String> = seen
            .0
            .keys()
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .collect();
        let those = if where_given {
            "of the messages --where keeps, the nodes that log are"
        } else {
            "the nodes that log are"
        };
        print_warning(format_args!(
            "--node {}: no log message from {}; {those}: {}",
            missing.join(", "),
            if missing.len() == 1 {
                "this node"
            } else {
                "these nodes"
            },
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        ));
    }
}

/// The node names met, sorted, with the kind of log message they came in.
#[derive(Clone, Debug, Default)]
pub struct Seen(BTreeMap<Box<[u8]>, LogKind>);

impl Seen {
    /// Notes node `name` of a message of `kind` (no allocation when it is known).
    pub fn note(&mut self, name: &[u8], kind: LogKind) {
        if !self.0.contains_key(name) {
            self.0.insert(name.into(), kind);
        }
    }

    /// Adds the nodes of `other`.
    pub fn add(&mut self, other: Seen) {
        self.0.extend(other.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_by_level_and_exact_node() {
        let pick = Pick {
            level: LogLevel::Warn,
            nodes: vec!["planner".into(), "/driver".into()],
        };
        let r = |level, name: &'static [u8]| LogRecord {
            level,
            name,
            ..LogRecord::default()
        };
        assert!(pick.keeps(&r(4, b"/planner")));
        assert!(pick.keeps(&r(16, b"/driver")));
        assert!(!pick.keeps(&r(2, b"/planner")), "below WARN");
        assert!(!pick.keeps(&r(8, b"/planner2")), "names are exact");
        assert!(!pick.keeps(&r(8, b"driver")), "a given leading / is kept");
        assert!(Pick::default().keeps(&r(0, b"")));
        // ROS 2: levels 10 … 50, logger names without a leading `/`.
        let ros2 = |level, name: &'static [u8]| LogRecord {
            kind: LogKind::Ros2,
            level,
            name,
            ..LogRecord::default()
        };
        assert!(pick.keeps(&ros2(30, b"planner")));
        assert!(
            pick.keeps(&ros2(50, b"driver")),
            "/driver is the node driver"
        );
        assert!(!pick.keeps(&ros2(20, b"planner")), "INFO is below WARN");
        assert!(!pick.keeps(&ros2(8, b"planner")), "8 is DEBUG in ROS 2");
        let ns = Pick {
            level: LogLevel::Debug,
            nodes: vec!["/ns/talker".into()],
        };
        assert!(ns.keeps(&ros2(20, b"ns.talker")));
        assert!(!ns.keeps(&ros2(20, b"talker")));
        assert!(!ns.keeps(&r(2, b"ns.talker")), "not for ROS1 names");
    }
}
