//! The health view as lines for a width: built once when the report arrives (or the width or
//! time format changes, or the view opens), so drawing and scrolling touch only the visible
//! lines, whatever the number of topics. Long lines (the session's messages, notes, gaps, the
//! column legend) are wrapped, not cut. The session's messages (errors first in mind: the
//! status bar sends the user here) come first, then the report, and last what the MCAP files
//! hold besides messages ([`super::health_mcap`]). Text from a file (topic names, types, paths,
//! what an MCAP file says) is escaped.

use crate::catalog::health::{ChunkHealth, GAP_FACTOR, GAP_MIN_SECONDS, HealthReport, TopicHealth};
use crate::time::RosTime;

use super::health_mcap::{self, Role};
use super::session_log::SessionLog;
use super::timefmt::{TimeFormat, span};
use super::topics::TopicRow;
use crate::printable::escape_line;
use crate::tui::text::{bytes, fit_middle, pad, pad_left, wrap};
use crate::wording::count;

/// How a line is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Column headings and summaries.
    Header,
    /// Something wrong (gaps, disorder, conflicts, losses).
    Bad,
    /// A plain row.
    Plain,
    /// Explanations and details.
    Dim,
}

/// Where `Enter` on a line goes: a topic, and a time on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// Topic to select.
    pub topic: String,
    /// Time to move the cursor to (`None`: keep the cursor).
    pub time: Option<RosTime>,
}

/// One line of the health view: text laid out when the lines were built, or a topic's row,
/// formatted when drawn (there may be hundreds of thousands).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// Text, at most the width it was built for.
    Text {
        /// Text.
        text: String,
        /// Style.
        kind: Kind,
        /// What `Enter` does on it.
        target: Option<Target>,
    },
    /// The row of `report.topics[i]`.
    Topic(usize),
}

/// The health view's state.
#[derive(Debug, Default)]
pub struct HealthView {
    /// The report, once computed.
    pub report: Option<HealthReport>,
    /// Scan progress (0..1).
    pub progress: f64,
    /// The lines for the current width (empty until the report arrives).
    pub lines: Vec<Line>,
    /// Width of the topic column of the rows.
    pub name_width: usize,
    /// Bag numbers (` #1,2`) of topics not in every bag, by topic index.
    pub topic_bags: Vec<String>,
    /// Selected line.
    pub selected: usize,
    /// First line shown.
    pub scroll: usize,
    /// What the explorer said in this session (listed first).
    pub session: SessionLog,
}

impl HealthView {
    /// Moves the selection by `delta` lines (clamped), keeping it in `height` rows.
    pub fn move_by(&mut self, delta: isize, height: usize) {
        let max = self.lines.len().saturating_sub(1);
        self.selected = self.selected.saturating_add_signed(delta).min(max);
        self.scroll_into_view(height);
    }

    /// Keeps the selection visible and the view inside the lines (never past their end).
    pub fn scroll_into_view(&mut self, height: usize) {
        self.selected = self.selected.min(self.lines.len().saturating_sub(1));
        self.scroll =
            super::scroll::offset_for(self.selected, self.scroll, self.lines.len(), height);
    }

    /// Where `Enter` on the selected line goes.
    pub fn target(&self) -> Option<Target> {
        match self.lines.get(self.selected)? {
            Line::Text { target, .. } => target.clone(),
            Line::Topic(i) => Some(Target {
                topic: self.report.as_ref()?.topics.get(*i)?.topic.clone(),
                time: None,
            }),
        }
    }

    /// The text and style of line `i`, for `width` cells.
    pub fn line(&self, i: usize, width: usize) -> Option<(String, Kind)> {
        match self.lines.get(i)? {
            Line::Text { text, kind, .. } => Some((text.clone(), *kind)),
            Line::Topic(ti) => {
                let t = self.report.as_ref()?.topics.get(*ti)?;
                let bags = self.topic_bags.get(*ti).map_or("", String::as_str);
                Some(topic_row(t, bags, self.name_width, width))
            }
        }
    }
}

/// The row of one topic: name (shortened in the middle, with the bags holding it), count,
/// rate, largest gap, gaps, out of order.
fn topic_row(t: &TopicHealth, bags: &str, name_w: usize, width: usize) -> (String, Kind) {
    let [c_msgs, c_rate, c_gap, c_gaps, c_ooo] = COLS;
    let max_gap = t
        .max_gap()
        .map_or("–".to_string(), |g| span(g.to.nanos_since(g.from)));
    let bad = t.gap_count > 0 || t.out_of_order > 0 || !t.conflicts.is_empty();
    let room = name_w.saturating_sub(1 + crate::tui::text::width(bags));
    let name = format!("{}{bags}", fit_middle(&escape_line(&t.topic), room, None).0);
    let row = format!(
        "{}{}{}{}{}{}",
        pad(&name, name_w),
        pad_left(&t.count.to_string(), c_msgs),
        pad_left(&t.rate().map_or("–".into(), |r| format!("{r:.2}")), c_rate),
        pad_left(&max_gap, c_gap),
        pad_left(&t.gap_count.to_string(), c_gaps),
        pad_left(&t.out_of_order.to_string(), c_ooo)
    );
    (
        crate::tui::text::fit(&row, width),
        if bad { Kind::Bad } else { Kind::Plain },
    )
}

/// The laid-out lines, the topic column's width and the bag numbers per topic.
pub struct Built {
    /// Lines.
    pub lines: Vec<Line>,
    /// Width of the topic column.
    pub name_width: usize,
    /// ` #1,2` per topic index (empty when in every bag).
    pub topic_bags: Vec<String>,
}

/// What the lines need besides the report.
pub struct Context<'a> {
    /// Width in cells.
    pub width: usize,
    /// How times are shown.
    pub time_format: TimeFormat,
    /// Start of the catalog (for offsets).
    pub start: RosTime,
    /// Bag paths, numbered `#1`, `#2`, … when there are several.
    pub bags: &'a [String],
    /// Topic rows (their connections tell which bags hold a topic).
    pub rows: &'a [TopicRow],
    /// Bags that could not be opened (`FILE: WHAT`).
    pub unopened: &'a [String],
    /// The session's messages.
    pub session: &'a SessionLog,
}

/// Widths of the numeric columns: msgs, rate, max gap, gaps, out of order.
const COLS: [usize; 5] = [9, 10, 11, 6, 13];

/// The lines of the report for `cx.width` cells.
pub fn build(report: &HealthReport, cx: &Context<'_>) -> Built {
    let w = cx.width.max(20);
    let mut out: Vec<Line> = session_lines(cx.session, w);
    push_wrapped(
        &mut out,
        w,
        &format!(
            "msgs: messages · rate: median Hz · max gap, gaps: pauses longer than {GAP_FACTOR} \
             median periods (and {GAP_MIN_SECONDS} s) · out of order: messages stored after a \
             later one of the same connection, counted per bag · Enter: go to the topic or gap"
        ),
        (Kind::Dim, 2),
    );
    if cx.bags.len() > 1 {
        for (i, b) in cx.bags.iter().enumerate() {
            let b = escape_line(b);
            push_wrapped(&mut out, w, &format!("#{} {b}", i + 1), (Kind::Dim, 4));
        }
    }
    let [c_msgs, c_rate, c_gap, c_gaps, c_ooo] = COLS;
    let fixed: usize = COLS.iter().sum();
    let widest = report
        .topics
        .iter()
        .map(|t| escape_line(&t.topic).chars().count())
        .max()
        .unwrap_or(5);
    let name_w = (widest + 1).clamp(6, w.saturating_sub(fixed).max(6));
    let header = format!(
        "{}{}{}{}{}{}",
        pad("topic", name_w),
        pad_left("msgs", c_msgs),
        pad_left("rate Hz", c_rate),
        pad_left("max gap", c_gap),
        pad_left("gaps", c_gaps),
        pad_left("out of order", c_ooo)
    );
    out.push(Line::Text {
        text: crate::tui::text::fit(&header, w),
        kind: Kind::Header,
        target: None,
    });
    let topic_bags = topic_lines(&mut out, report, cx, w);
    out.push(blank());
    if !report.chunks.is_empty() {
        chunk_lines(&mut out, report, w);
        out.push(blank());
    }
    for n in cx.unopened {
        let n = escape_line(n);
        push_wrapped(&mut out, w, &format!("not opened: {n}"), (Kind::Bad, 4));
    }
    for n in &report.notes {
        let bad = n.contains("lost") || n.contains("warning") || n.contains("recovered");
        let kind = if bad { Kind::Bad } else { Kind::Plain };
        push_wrapped(&mut out, w, &escape_line(n), (kind, 4));
    }
    let facts = health_mcap::lines(report, cx.bags, (cx.time_format, cx.start));
    if !facts.is_empty() {
        out.push(blank());
    }
    for (text, role, indent) in facts {
        let kind = match role {
            Role::File => Kind::Header,
            Role::Item => Kind::Plain,
            Role::Detail => Kind::Dim,
        };
        push_wrapped(&mut out, w, &text, (kind, indent));
    }
    Built {
        lines: out,
        name_width: name_w,
        topic_bags,
    }
}

/// The session's messages for `width` cells (none when nothing was said), oldest first,
/// each wrapped, then a blank line.
pub fn session_lines(session: &SessionLog, width: usize) -> Vec<Line> {
    let w = width.max(20);
    let mut out = Vec::new();
    if session.is_empty() {
        return out;
    }
    let errors = match session.errors() {
        0 => String::new(),
        n => format!(", {}", count(n as u64, "error")),
    };
    let dropped = match session.dropped() {
        0 => String::new(),
        n => format!(" ({n} older ones not kept)"),
    };
    let heading = format!(
        "This session: {}{errors}{dropped}",
        count(session.entries().len() as u64, "message")
    );
    push_wrapped(&mut out, w, &heading, (Kind::Header, 2));
    for e in session.entries() {
        let mark = if e.error { "✗" } else { "·" };
        let times = if e.repeats > 1 {
            format!(" (×{})", e.repeats)
        } else {
            String::new()
        };
        let kind = if e.error { Kind::Bad } else { Kind::Dim };
        push_wrapped(&mut out, w, &format!("{mark} {}{times}", e.text), (kind, 2));
    }
    out.push(blank());
    out
}

/// `text` wrapped to `w` cells as lines of `kind`, continuation lines indented by `indent`.
fn push_wrapped(out: &mut Vec<Line>, w: usize, text: &str, (kind, indent): (Kind, usize)) {
    for t in wrap(text, w, indent) {
        out.push(Line::Text {
            text: t,
            kind,
            target: None,
        });
    }
}

/// A line per topic, then its first gaps and its type conflicts. Returns the bags holding
/// each topic (` #1,2`; none with a single bag).
fn topic_lines(
    out: &mut Vec<Line>,
    report: &HealthReport,
    cx: &Context<'_>,
    w: usize,
) -> Vec<String> {
    let several = cx.bags.len() > 1;
    let bags_of = |topic: &str| -> String {
        // `rows` are in name order (sorting the list reorders only what it shows).
        cx.rows
            .binary_search_by(|r| r.topic.as_str().cmp(topic))
            .ok()
            .and_then(|i| cx.rows.get(i))
            .filter(|r| r.bags.len() < cx.bags.len())
            .map(|r| {
                let list: Vec<String> = r.bags.iter().map(|b| (b + 1).to_string()).collect();
                format!(" #{}", list.join(","))
            })
            .unwrap_or_default()
    };
    let mut topic_bags = Vec::with_capacity(if several { report.topics.len() } else { 0 });
    for (ti, t) in report.topics.iter().enumerate() {
        if several {
            topic_bags.push(bags_of(&t.topic));
        }
        out.push(Line::Topic(ti));
        for g in t.gaps.iter().take(3) {
            let text = format!(
                "    gap of {} from {} to {}",
                span(g.to.nanos_since(g.from)),
                cx.time_format.short(g.from, cx.start),
                cx.time_format.short(g.to, cx.start)
            );
            for line in wrap(&text, w, 6) {
                out.push(Line::Text {
                    text: line,
                    kind: Kind::Dim,
                    target: Some(Target {
                        topic: t.topic.clone(),
                        time: Some(g.from),
                    }),
                });
            }
        }
        for c in &t.conflicts {
            let c = escape_line(c);
            push_wrapped(out, w, &format!("    type conflict: {c}"), (Kind::Bad, 6));
        }
    }
    topic_bags
}

/// The chunks' compression: totals, ratios, and the three least compressed chunks.
fn chunk_lines(out: &mut Vec<Line>, report: &HealthReport, w: usize) {
    let mut ratios: Vec<f64> = report.chunks.iter().map(ChunkHealth::ratio).collect();
    let med = crate::stats::median(&mut ratios).unwrap_or(1.0);
    let min = ratios.first().copied().unwrap_or(1.0);
    let max = ratios.last().copied().unwrap_or(1.0);
    let comp: u64 = report.chunks.iter().map(|c| u64::from(c.compressed)).sum();
    let unc: u64 = report
        .chunks
        .iter()
        .map(|c| u64::from(c.uncompressed))
        .sum();
    push_wrapped(
        out,
        w,
        &format!(
            "{} · {} → {} · ratio per chunk: min {:.0}%, median {:.0}%, max {:.0}%",
            crate::wording::count(report.chunks.len() as u64, "chunk"),
            bytes(unc),
            bytes(comp),
            min * 100.0,
            med * 100.0,
            max * 100.0
        ),
        (Kind::Header, 2),
    );
    let mut worst: Vec<_> = report
        .chunks
        .iter()
        .filter(|c| c.compression != crate::format::Compression::None)
        .collect();
    // The three least compressed: a partial selection, not a sort of every chunk.
    let k = worst.len().min(3);
    if k > 0 && k < worst.len() {
        worst.select_nth_unstable_by(k - 1, |a, b| b.ratio().total_cmp(&a.ratio()));
    }
    worst.truncate(k);
    worst.sort_by(|a, b| b.ratio().total_cmp(&a.ratio()));
    for c in worst {
        push_wrapped(
            out,
            w,
            &format!(
                "    least compressed: chunk {} of bag #{} at byte {}: {:.0}% ({})",
                c.chunk,
                c.bag + 1,
                c.pos,
                c.ratio() * 100.0,
                crate::wording::count(u64::from(c.messages), "message")
            ),
            (Kind::Dim, 6),
        );
    }
}

fn blank() -> Line {
    Line::Text {
        text: String::new(),
        kind: Kind::Plain,
        target: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::health::{Gap, TopicHealth};

    fn report() -> HealthReport {
        let t = |s| RosTime::new(s, 0);
        HealthReport {
            topics: (0..50)
                .map(|i| TopicHealth {
                    topic: format!("/topic_{i:02}"),
                    count: 10,
                    first: Some(t(0)),
                    last: Some(t(9)),
                    median_period: Some(1.0),
                    gaps: if i == 3 {
                        vec![Gap {
                            from: t(2),
                            to: t(8),
                        }]
                    } else {
                        vec![]
                    },
                    gap_count: usize::from(i == 3),
                    out_of_order: 0,
                    bytes: 100,
                    conflicts: vec![],
                })
                .collect(),
            chunks: vec![],
            notes: vec![
                "#1 /a/very/long/path/to/some/recording.bag: lost 4096 bytes at byte 123456: \
                 the chunk is cut short"
                    .into(),
            ],
            mcap: vec![],
        }
    }

    #[test]
    fn wraps_notes_targets_gaps_and_never_scrolls_past_the_end() {
        let r = report();
        let cx = Context {
            width: 40,
            time_format: TimeFormat::Offset,
            start: RosTime::new(0, 0),
            bags: &[],
            rows: &[],
            unopened: &[],
            session: &SessionLog::default(),
        };
        let built = build(&r, &cx);
        let mut v = HealthView {
            report: Some(r),
            lines: built.lines,
            name_width: built.name_width,
            topic_bags: built.topic_bags,
            ..HealthView::default()
        };
        let texts: Vec<(String, Kind)> =
            (0..v.lines.len()).map(|i| v.line(i, 40).unwrap()).collect();
        assert!(texts.iter().all(|(t, _)| crate::tui::text::width(t) <= 40));
        let note: Vec<_> = texts
            .iter()
            .filter(|(t, k)| *k == Kind::Bad && !t.starts_with('/'))
            .collect();
        assert!(note.len() >= 3, "the note is wrapped: {note:?}");
        assert!(
            note.iter().any(|(t, _)| t.contains("cut short")),
            "nothing is cut off: {note:?}"
        );
        v.selected = texts
            .iter()
            .position(|(t, _)| t.contains("gap of"))
            .expect("a gap line");
        assert_eq!(
            v.target(),
            Some(Target {
                topic: "/topic_03".into(),
                time: Some(RosTime::new(2, 0)),
            })
        );
        v.selected -= 1;
        assert_eq!(v.target().unwrap().time, None, "the topic row: no time");
        v.move_by(isize::MAX / 2, 10);
        assert_eq!(v.selected, v.lines.len() - 1);
        assert_eq!(v.scroll, v.lines.len() - 10, "the last page is full");
        v.move_by(-3, 10);
        assert_eq!(v.scroll, v.lines.len() - 10);
    }
}
