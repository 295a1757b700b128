//! One row of the topic list, the sort orders, and a row as shown: the plain data the topic
//! list and its background filter both work on.

use crate::catalog::{BagConn, Catalog};

/// One topic as the list shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct TopicRow {
    /// Topic name.
    pub topic: String,
    /// Type (of the first connection).
    pub datatype: String,
    /// Messages over all bags.
    pub count: u64,
    /// Mean rate (Hz) from the time span of its chunks, refined to the median rate once the
    /// background index scan is done.
    pub rate: Option<f64>,
    /// Bytes of its messages (from the index scan), when known.
    pub bytes: Option<u64>,
    /// Bytes per second between its first and last message (from the index scan), when known.
    pub bandwidth: Option<f64>,
    /// Bytes per second over the visible window while the timeline is zoomed (`None`: zoomed
    /// out, `bandwidth` applies).
    pub view_bandwidth: Option<f64>,
    /// `(bag, connection)` pairs.
    pub connections: Vec<BagConn>,
    /// Bags holding it.
    pub bags: Vec<usize>,
    /// Connections disagree on type or md5sum.
    pub conflicting: bool,
}

/// Sort orders, cycled with `s`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SortKey {
    /// By topic name.
    #[default]
    Name,
    /// Most messages first.
    Count,
    /// Highest rate first.
    Rate,
    /// Most bytes first.
    Size,
    /// Most bytes per second first.
    Bandwidth,
}

impl SortKey {
    /// The next order.
    #[must_use]
    pub fn next(self) -> Self {
        match self {
            SortKey::Name => SortKey::Count,
            SortKey::Count => SortKey::Rate,
            SortKey::Rate => SortKey::Size,
            SortKey::Size => SortKey::Bandwidth,
            SortKey::Bandwidth => SortKey::Name,
        }
    }

    /// Name shown in the pane title.
    pub fn name(self) -> &'static str {
        match self {
            SortKey::Name => "name",
            SortKey::Count => "count",
            SortKey::Rate => "rate",
            SortKey::Size => "size",
            SortKey::Bandwidth => "bandwidth",
        }
    }
}

/// A row as currently shown: which topic. The matched characters of its name are found when
/// it is drawn (`TopicList::matched`), not for every row at each key press.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VisibleRow {
    /// Index into the rows.
    pub row: usize,
}

/// The topic rows of `catalog`: counts, and mean rates from the time spans of their chunks.
pub fn topic_rows(catalog: &Catalog) -> Vec<TopicRow> {
    let topics = catalog.topics();
    let spans = catalog.topic_spans(&topics);
    topics
        .into_iter()
        .zip(spans)
        .map(|(t, span)| {
            let span = span.map(|(lo, hi)| hi.nanos_since(lo) as f64 / 1e9);
            let rate = span
                .filter(|s| *s > 0.0 && t.message_count > 1)
                .map(|s| (t.message_count - 1) as f64 / s);
            TopicRow {
                topic: t.topic,
                datatype: t.datatype,
                count: t.message_count,
                rate,
                bytes: None,
                bandwidth: None,
                view_bandwidth: None,
                connections: t.connections,
                bags: t.bags,
                conflicting: t.conflicting_types,
            }
        })
        .collect()
}
