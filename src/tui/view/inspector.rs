//! The inspector pane: the decoded message as an expandable tree.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::block::block;
use super::ctx::DrawCtx;
use super::handle::{Ctx, Handled, page};
use crate::catalog::MsgRef;
use crate::printable::escape_line;
use crate::tui::action::Action;
use crate::tui::action::Pane;
use crate::tui::jobs::worker::decode::Inspected;
use crate::tui::layout::inner;
use crate::tui::model::inspector::Expand;
use crate::tui::model::inspector::Inspector;
use crate::tui::model::picture::PicturePreview;
use crate::tui::text::{bytes, fit, width};

/// The inspector pane's state: the decoded message's tree, its picture preview and the message
/// marked to compare others with.
#[derive(Default)]
pub struct InspectorView {
    /// The decoded message.
    pub tree: Inspector,
    /// The picture preview in the inspector (`i`).
    pub picture: PicturePreview,
    /// The message marked with `m` to compare others with.
    pub diff_mark: Option<Inspected>,
}

impl InspectorView {
    /// Movement keys while the inspector has the focus.
    pub fn handle(&mut self, action: Action, ctx: &mut Ctx) -> Handled {
        let (h, fmt, start) = (ctx.rows, ctx.time_format, ctx.start);
        let tree = &mut self.tree;
        match action {
            Action::Up => tree.move_by(-1, h),
            Action::Down => tree.move_by(1, h),
            Action::PageUp => tree.move_by(-page(h), h),
            Action::PageDown => tree.move_by(page(h), h),
            Action::Top => tree.move_by(isize::MIN / 2, h),
            Action::Bottom => tree.move_by(isize::MAX / 2, h),
            Action::Enter => tree.toggle(fmt, start),
            Action::Right => tree.set_expanded(true, fmt, start),
            Action::Left => tree.set_expanded(false, fmt, start),
            _ => return Handled::No,
        }
        tree.scroll_into_view(h);
        Handled::Yes
    }
}

/// Draws the inspector pane.
pub fn draw(
    frame: &mut Frame<'_>,
    v: &InspectorView,
    (picture_on, selected): (bool, Option<MsgRef>),
    ctx: &DrawCtx<'_>,
    area: Rect,
) {
    let theme = ctx.theme;
    if area.width == 0 || area.height == 0 {
        return;
    }
    let ins = &v.tree;
    let title = match &ins.data {
        Some(d) => format!(
            " {} · {} · {} ",
            escape_line(&d.datatype),
            ctx.time_format.short(d.time, ctx.start),
            bytes(d.size as u64)
        ),
        None => " Inspector ".to_string(),
    };
    frame.render_widget(
        block(
            ctx.focus == Pane::Inspector,
            theme,
            fit(&title, area.width.saturating_sub(2) as usize),
        ),
        area,
    );
    let inner = inner(area);
    if picture_on {
        super::picture::draw(frame, &v.picture, selected, theme, inner);
        return;
    }
    let w = inner.width as usize;
    let mut lines: Vec<Line> = Vec::new();
    if ins.loading.is_some() && ins.data.as_ref().map(|d| d.msg) != ins.loading {
        lines.push(Line::styled("decoding…", theme.dim()));
    }
    let Some(data) = &ins.data else {
        if lines.is_empty() {
            lines.push(Line::styled("select a message", theme.dim()));
        }
        frame.render_widget(Paragraph::new(lines), inner);
        return;
    };
    for n in &data.notes {
        lines.push(Line::styled(fit(&format!("! {n}"), w), theme.warning()));
    }
    if let Err(e) = &data.value {
        {
            lines.push(Line::styled("cannot decode this message:", theme.error()));
            lines.push(Line::styled(escape_line(e).into_owned(), theme.error()));
            lines.push(Line::raw(""));
            for chunk in data.head.chunks(16).take(inner.height as usize) {
                let hex: Vec<String> = chunk.iter().map(|b| format!("{b:02x}")).collect();
                lines.push(Line::styled(hex.join(" "), theme.dim()));
            }
            frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
            return;
        }
    }
    let rows = (inner.height as usize).saturating_sub(lines.len());
    for (i, row) in ins.rows().iter().enumerate().skip(ins.offset).take(rows) {
        let selected = i == ins.selected;
        let changed = ins.changed.contains(&row.path);
        let base = if selected {
            theme.selected(ctx.focus == Pane::Inspector)
        } else if changed {
            theme.matched()
        } else {
            Style::new()
        };
        let marker = match row.expand {
            Expand::Leaf if changed => "≠ ",
            Expand::Leaf => "  ",
            Expand::Collapsed => "▸ ",
            Expand::Expanded => "▾ ",
        };
        let indent = "  ".repeat(row.depth);
        let mut spans = vec![
            Span::styled(format!("{indent}{marker}"), base),
            Span::styled(
                row.label.clone(),
                base.patch(if row.more.is_some() {
                    theme.dim()
                } else {
                    theme.key()
                }),
            ),
        ];
        let mut used = width(&indent) + 2 + width(&row.label);
        if row.more.is_none() {
            spans.push(Span::styled(": ", base));
            used += 2;
        } else {
            spans.push(Span::styled(" ", base));
            used += 1;
        }
        let room = w.saturating_sub(used);
        let ty = if row.type_name.is_empty() || row.expand == Expand::Leaf {
            String::new()
        } else {
            format!("  {}", row.type_name)
        };
        // The value first; a constant's name gets what room is left.
        let value = fit(&row.text, room);
        used += width(&value);
        let note = row
            .constant
            .as_ref()
            .map(|c| fit(&format!("  = {c}"), w.saturating_sub(used)))
            .filter(|n| width(n) > 4);
        spans.push(Span::styled(
            value,
            if row.more.is_some() {
                base.patch(theme.dim())
            } else {
                base
            },
        ));
        if let Some(n) = note {
            used += width(&n);
            spans.push(Span::styled(n, base.patch(theme.constant())));
        }
        if !ty.is_empty() && used + width(&ty) <= w {
            used += width(&ty);
            spans.push(Span::styled(ty, base.patch(theme.dim())));
        }
        if selected {
            spans.push(Span::styled(" ".repeat(w.saturating_sub(used)), base));
        }
        lines.push(Line::from(spans));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}
