//! What a plot series asks for ([`SeriesRequest`]): a topic and what to compute per message,
//! a field path (`/imu/linear_acceleration/z`) or an expression after a colon
//! (`/odom: norm(twist.twist.linear)`), parsed against a catalog's topics; where an extraction
//! resumes ([`Resume`]); and why a series cannot be extracted ([`SeriesError`]). Extraction
//! itself is in `series.rs`.

use crate::msg::expr::{Expr, ExprError};
use crate::msg::path::{Leaf, ParsedPath, PathError, split_topic};
use crate::time::RosTime;

use super::Catalog;

/// What to extract: a topic and what to compute per message, from the start or from where an
/// earlier extraction ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeriesRequest {
    /// The topic, as the bags name it.
    pub topic: String,
    /// What is computed per message: a field path or an expression.
    pub path: SeriesValue,
    /// Only the points after those a column already holds (`None`: all of them).
    pub from: Option<Resume>,
}

/// What a series computes per message: a field path (`linear_acceleration/z`,
/// `pose.position.x`) or an expression (`norm(twist.twist.linear)`, `rate(header.seq)`).
#[derive(Debug, Clone)]
pub struct SeriesValue {
    /// As written after the topic.
    text: String,
    /// The field path, when it is one.
    plain: Option<ParsedPath>,
    /// The expression (a field path is one too), or why it does not parse.
    expr: Result<Expr, Box<ExprError>>,
}

impl PartialEq for SeriesValue {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text && self.plain.is_some() == other.plain.is_some()
    }
}

impl Eq for SeriesValue {}

impl SeriesValue {
    /// A field path (`pose/position/x`, `pose.position.x`) or else an expression.
    pub fn parse(text: &str) -> Result<SeriesValue, SeriesError> {
        let text = text.trim();
        if let Ok(path) = ParsedPath::parse(text) {
            // The same path in the expression language: dots between fields.
            let dotted = text.trim_start_matches(['/', '.']).replace('/', ".");
            return Ok(SeriesValue {
                text: text.to_string(),
                plain: Some(path),
                expr: Expr::parse(&dotted).map_err(Box::new),
            });
        }
        let expr = Expr::parse(text).map_err(|e| SeriesError::Expr {
            topic: String::new(),
            error: Box::new(e),
        })?;
        Ok(SeriesValue {
            text: text.to_string(),
            plain: None,
            expr: Ok(expr),
        })
    }

    /// The text as written after the topic.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// True for a plain field path (no computation).
    pub fn is_path(&self) -> bool {
        self.plain.is_some()
    }

    /// The field path, when it is one.
    pub fn path(&self) -> Option<&ParsedPath> {
        self.plain.as_ref()
    }

    /// The expression (a field path is one too), or why it does not parse.
    pub fn expr(&self) -> Result<&Expr, &ExprError> {
        self.expr.as_ref().map_err(AsRef::as_ref)
    }
}

impl SeriesRequest {
    /// The series' name for legends: `/topic/field/path` for a field path, `/topic: EXPR`
    /// for an expression (as the request is written).
    pub fn label(&self) -> String {
        if self.path.is_path() {
            format!(
                "{}/{}",
                self.topic.trim_end_matches('/'),
                self.path.text().trim_start_matches('/')
            )
        } else {
            format!("{}: {}", self.topic, self.path.text())
        }
    }
}

/// Where an extraction resumes, for a column that grows with a followed recording: only
/// messages received at or after `time` are read, and the first `skip` points at exactly
/// `time` are left out (the column has them already).
///
/// Exact when the bag's messages are written in non-decreasing receive time, as recorders
/// do; a message written later with an earlier time than `time` is not seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resume {
    /// The time of the column's last point.
    pub time: RosTime,
    /// How many of its points are at exactly that time.
    pub skip: usize,
}

impl Resume {
    /// Where to resume after a column whose (ascending) times are `times` (`None` when it
    /// is empty: read everything).
    pub fn after(times: &[i64]) -> Option<Resume> {
        let &last = times.last()?;
        let skip = times.len() - times.partition_point(|&t| t < last);
        Some(Resume {
            time: RosTime::from_nanos(u64::try_from(last).unwrap_or(0)),
            skip,
        })
    }
}

/// Why a series cannot be extracted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SeriesError {
    /// No topic of the bags starts the `/topic/field` text.
    #[error("no topic of the bag(s) matches '{0}'")]
    NoTopic(String),
    /// The field path is wrong for the topic's type.
    #[error("{topic}: {error}")]
    Path {
        /// The topic.
        topic: String,
        /// What is wrong.
        error: PathError,
    },
    /// The expression does not parse, or does not compute a number for the topic's type.
    #[error("{topic}: {error}")]
    Expr {
        /// The topic (empty while the expression is parsed before the topic is known).
        topic: String,
        /// What is wrong, with its column.
        error: Box<ExprError>,
    },
    /// The path names something that is not a number, bool, time or duration.
    #[error("{topic}: '{path}' is not a number, bool, time or duration (it is {leaf:?})")]
    NotPlottable {
        /// The topic.
        topic: String,
        /// The path text.
        path: String,
        /// What it names.
        leaf: Leaf,
    },
    /// None of the topic's connections has a usable message definition.
    #[error("{topic}: no connection of this topic can be decoded: {why}")]
    NoSchema {
        /// The topic.
        topic: String,
        /// Why (the first connection's reason).
        why: String,
    },
}

impl SeriesRequest {
    /// Splits `/topic/field/path` against the catalog's topics (longest topic wins), or
    /// `/topic: EXPRESSION` at the colon (a field path there is the same as after a `/`), and
    /// parses what follows the topic.
    pub fn parse(catalog: &Catalog, spec: &str) -> Result<SeriesRequest, SeriesError> {
        let mut topics: Vec<&str> = catalog
            .bags()
            .iter()
            .flat_map(|b| b.connections().iter().map(|c| c.topic.as_str()))
            .collect();
        topics.sort_unstable();
        topics.dedup();
        // `/topic: expression` names the topic whole; `/topic/field/path` is split at the
        // longest topic that starts it.
        let split = match spec.split_once(':') {
            Some((t, e)) => {
                let t = t.trim();
                topics
                    .iter()
                    .find(|&&c| c.trim_start_matches('/') == t.trim_start_matches('/'))
                    .map(|&c| (c, e.trim()))
            }
            None => split_topic(spec, &topics),
        };
        let (topic, field) = split.ok_or_else(|| SeriesError::NoTopic(spec.to_string()))?;
        let path = if spec.contains(':') {
            SeriesValue::parse(field).map_err(|e| match e {
                SeriesError::Expr { error, .. } => SeriesError::Expr {
                    topic: topic.to_string(),
                    error,
                },
                e => e,
            })?
        } else {
            let plain = ParsedPath::parse(field).map_err(|error| SeriesError::Path {
                topic: topic.to_string(),
                error,
            })?;
            let dotted = field.trim_start_matches(['/', '.']).replace('/', ".");
            SeriesValue {
                text: field.to_string(),
                plain: Some(plain),
                expr: Expr::parse(&dotted).map_err(Box::new),
            }
        };
        Ok(SeriesRequest {
            topic: topic.to_string(),
            path,
            from: None,
        })
    }
}
