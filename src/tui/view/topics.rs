//! The topic pane: name (filter matches highlighted), type, count, rate, size.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::block::block;
use super::ctx::DrawCtx;
use super::handle::{Ctx, Effect, Handled, page};
use super::overlays::Mode;
use crate::catalog::window_bytes::WindowBytes;
use crate::tui::action::Action;
use crate::tui::action::Pane;
use crate::tui::layout::inner;
use crate::tui::model::topics::TopicList;
use crate::tui::text::{bytes, common_prefix, fit, fit_middle, pad, pad_left, width};
use crate::tui::theme::Theme;

/// The topic pane's state: the filtered, sorted list and the bandwidth over the window.
pub struct TopicsView {
    /// Topic list.
    pub list: TopicList,
    /// Bytes per topic over the visible window while zoomed (the topic list's bandwidth).
    pub bytes: Option<WindowBytes>,
}

impl TopicsView {
    /// Movement keys while the topic list has the focus.
    pub fn handle(&mut self, action: Action, ctx: &mut Ctx) -> Handled {
        let h = ctx.rows;
        let list = &mut self.list;
        let before = list.selected_row().map(|r| r.topic.clone());
        match action {
            Action::Up => list.move_by(-1, h),
            Action::Down => list.move_by(1, h),
            Action::PageUp => list.move_by(-page(h), h),
            Action::PageDown => list.move_by(page(h), h),
            Action::Top => list.jump(false, h),
            Action::Bottom => list.jump(true, h),
            Action::Enter | Action::Right => return ctx.then(Effect::Focus(Pane::Messages)),
            Action::Left | Action::BigLeft | Action::BigRight => {
                return ctx.then(Effect::ToTimeline(action));
            }
            _ => return Handled::No,
        }
        if list.selected_row().map(|r| r.topic.clone()) != before {
            ctx.effects.push(Effect::TopicChanged);
        }
        Handled::Yes
    }
}

/// Draws the topic pane.
pub fn draw(frame: &mut Frame<'_>, v: &TopicsView, ctx: &DrawCtx<'_>, area: Rect) {
    let theme = ctx.theme;
    if area.width == 0 || area.height == 0 {
        return;
    }
    let list = &v.list;
    frame.render_widget(
        block(
            ctx.focus == Pane::Topics,
            theme,
            fit(&title(v, ctx), area.width.saturating_sub(2) as usize),
        ),
        area,
    );
    let inner = inner(area);
    let w = inner.width as usize;
    let cols = columns(w, list.widest());
    let mut lines = Vec::with_capacity(inner.height as usize);
    let view = v.bytes.as_ref().map(|v| v.exact);
    lines.push(Line::styled(header(cols, view), theme.header()));
    let rows = inner.height.saturating_sub(1) as usize;
    if list.visible().is_empty() {
        if list.filter().is_empty() {
            for l in why_empty(ctx) {
                for part in crate::tui::text::wrap(&l, w, 2) {
                    lines.push(Line::styled(part, theme.warning()));
                }
            }
        } else {
            lines.push(Line::styled(
                fit("no topic matches the filter (Esc clears it)", w),
                theme.dim(),
            ));
        }
    }
    for i in (list.offset()..list.visible().len()).take(rows) {
        if let Some(line) = row_line(v, ctx, theme, i, cols) {
            lines.push(line);
        }
    }
    if ctx.mode == Mode::Filter {
        // The prompt takes the last line.
        let prompt = format!("/{}█", ctx.prompt);
        while lines.len() + 1 < inner.height as usize {
            lines.push(Line::raw(""));
        }
        lines.truncate(inner.height.saturating_sub(1) as usize);
        lines.push(Line::styled(fit(&prompt, w), theme.matched()));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The pane's title. With a filter, the filter comes first (it must stay visible in a narrow
/// pane).
fn title(v: &TopicsView, ctx: &DrawCtx<'_>) -> String {
    let list = &v.list;
    // Sorted by bandwidth while zoomed: over the visible window (said where no column shows it).
    let sort = match (list.sort(), &v.bytes) {
        (crate::tui::model::topic_row::SortKey::Bandwidth, Some(_)) => "B/s (view)",
        (sort, _) => sort.name(),
    };
    let mut title = if !list.filter().is_empty() && ctx.mode != Mode::Filter {
        format!(
            " filter \"{}\" · {}/{} · {} ",
            list.filter(),
            list.visible().len(),
            list.rows().len(),
            sort
        )
    } else {
        format!(
            " Topics {}/{} · {} ",
            list.visible().len(),
            list.rows().len(),
            sort
        )
    };
    if list.is_filtering() {
        // The rows are still the previous filter's.
        title.insert_str(1, "filtering… · ");
    }
    title
}

/// The column headings; `view`: the bandwidth is over the zoomed window (exact or not).
fn header(cols: Columns, view: Option<bool>) -> String {
    let mut header = pad("topic", cols.name);
    if cols.datatype > 0 {
        header.push_str(&pad("type", cols.datatype));
    }
    header.push_str(&pad_left("msgs", cols.count));
    header.push_str(&pad_left("Hz", cols.rate));
    if cols.size > 0 {
        header.push_str(&pad_left("size", cols.size));
    }
    if cols.bandwidth > 0 {
        let label = match view {
            None => "bytes/s",
            Some(true) => "B/s (view)",
            Some(false) => "B/s (est.)",
        };
        header.push_str(&pad_left(label, cols.bandwidth));
    }
    header
}

/// Visible row `i` as a line (`None` past the end).
fn row_line(
    v: &TopicsView,
    ctx: &DrawCtx<'_>,
    theme: Theme,
    i: usize,
    cols: Columns,
) -> Option<Line<'static>> {
    let list = &v.list;
    let row = list.rows().get(list.visible().get(i)?.row)?;
    let total_bags = ctx.catalog.bags().len();
    let base = if i == list.selected() {
        theme.selected(ctx.focus == Pane::Topics)
    } else {
        Style::new()
    };
    let mut spans = Vec::new();
    let marker = if row.conflicting { "!" } else { "" };
    // With several bags, say which ones hold a topic when not all do.
    let bags = if total_bags > 1 && row.bags.len() < total_bags {
        let list: Vec<String> = row.bags.iter().map(|b| (b + 1).to_string()).collect();
        format!(" #{}", list.join(","))
    } else {
        String::new()
    };
    let name_room = cols.name.saturating_sub(1 + marker.len() + width(&bags));
    // Where the name differs from its neighbours stays visible when it is shortened.
    let neighbour = |j: Option<usize>| {
        j.and_then(|j| list.visible().get(j))
            .and_then(|n| list.rows().get(n.row))
            .map_or(0, |n| common_prefix(&n.topic, &row.topic))
    };
    let keep = neighbour(i.checked_sub(1)).max(neighbour(Some(i + 1)));
    let (shown, map) = fit_middle(&row.topic, name_room, Some(keep));
    let matched = list.matched(&row.topic);
    for (c, orig) in shown.chars().zip(map) {
        let is_match = orig.is_some_and(|o| matched.contains(&o));
        let style = if is_match {
            base.patch(theme.matched())
        } else {
            base
        };
        spans.push(Span::styled(c.to_string(), style));
    }
    if !marker.is_empty() {
        spans.push(Span::styled(marker, base.patch(theme.warning())));
    }
    if !bags.is_empty() {
        spans.push(Span::styled(bags.clone(), base.patch(theme.dim())));
    }
    let used = width(&shown) + marker.len() + width(&bags);
    spans.push(Span::styled(
        " ".repeat(cols.name.saturating_sub(used)),
        base,
    ));
    if cols.datatype > 0 {
        spans.push(Span::styled(
            pad(
                &fit(&row.datatype, cols.datatype.saturating_sub(1)),
                cols.datatype,
            ),
            base.patch(theme.dim()),
        ));
    }
    spans.push(Span::styled(
        pad_left(&row.count.to_string(), cols.count),
        base,
    ));
    let rate = row.rate.map_or("–".to_string(), |r| {
        if r >= 100.0 {
            format!("{r:.0}")
        } else {
            format!("{r:.1}")
        }
    });
    spans.push(Span::styled(pad_left(&rate, cols.rate), base));
    if cols.size > 0 {
        spans.push(Span::styled(
            pad_left(&row.bytes.map_or("…".to_string(), bytes), cols.size),
            base,
        ));
    }
    if cols.bandwidth > 0 {
        spans.push(Span::styled(
            pad_left(&bandwidth_cell(v, row), cols.bandwidth),
            base,
        ));
    }
    Some(Line::from(spans))
}

/// Column widths of the topic table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Columns {
    name: usize,
    datatype: usize,
    count: usize,
    rate: usize,
    size: usize,
    bandwidth: usize,
}

/// A row's bandwidth cell: over the zoomed window (`~` before an estimate) or the whole bag.
fn bandwidth_cell(v: &TopicsView, row: &crate::tui::model::topic_row::TopicRow) -> String {
    match (&v.bytes, row.view_bandwidth) {
        (Some(v), Some(b)) if !v.exact => format!("~{}", bandwidth(b)),
        (Some(_), Some(b)) => bandwidth(b),
        _ => row.bandwidth.map_or("…".to_string(), bandwidth),
    }
}

/// Bytes per second as in the size column (`3.7 KiB`), without the `/s` the header says.
fn bandwidth(b: f64) -> String {
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    bytes(b.round().max(0.0) as u64)
}

/// Splits `w` cells between the columns: counts and rates always; sizes from 60 cells; types
/// from 50, as wide as the widest type when there is room beside the names (`widest`: the
/// widest name and type, in characters); bandwidth when full names and types still fit beside
/// it. Numeric columns keep a leading space.
fn columns(w: usize, widest: (usize, usize)) -> Columns {
    let count = 7;
    let rate = if w >= 40 { 7 } else { 6 };
    let size = if w >= 60 { 11 } else { 0 };
    let full = widest.0 + 2 + widest.1 + 1;
    let bandwidth = if size > 0 && w >= count + rate + size + BANDWIDTH_W + full {
        BANDWIDTH_W
    } else {
        0
    };
    let rest = w.saturating_sub(count + rate + size + bandwidth);
    let datatype = if w >= 50 {
        let (name_max, type_max) = (widest.0 + 2, widest.1 + 1);
        if name_max + type_max <= rest {
            // Both fit: the names get the extra room.
            type_max
        } else {
            // Names first, but types keep two fifths.
            type_max.min(rest.saturating_sub(name_max).max(rest * 2 / 5))
        }
    } else {
        0
    };
    Columns {
        name: rest.saturating_sub(datatype),
        datatype,
        count,
        rate,
        size,
        bandwidth,
    }
}

/// Width of the bandwidth column.
const BANDWIDTH_W: usize = 11;

/// Why a catalog shows no topic: per bag, that it holds no message, or what its recovery
/// scan lost (the health view, `!`, lists every loss).
fn why_empty(ctx: &DrawCtx<'_>) -> Vec<String> {
    let mut out = Vec::new();
    for (i, b) in ctx.catalog.bags().iter().enumerate() {
        let name = b.path().file_name().map_or_else(
            || b.path().display().to_string(),
            |n| n.to_string_lossy().to_string(),
        );
        let name = if ctx.catalog.bags().len() > 1 {
            format!("#{} {name}", i + 1)
        } else {
            name
        };
        match b.recovery().filter(|r| !r.is_lossless()) {
            Some(r) => {
                out.push(format!(
                    "{name}: nothing readable: {} bytes lost in {} part{}",
                    r.lost_bytes(),
                    r.losses.len(),
                    if r.losses.len() == 1 { "" } else { "s" }
                ));
                if let Some(first) = r.losses.first() {
                    out.push(format!("first: {first}"));
                }
                out.push("(! health lists every loss)".to_string());
            }
            None if b.connections().is_empty() => {
                out.push(format!("{name}: no messages (an empty bag)"));
            }
            None => out.push(format!("{name}: no messages")),
        }
    }
    out
}
