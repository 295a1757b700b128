//! The inspector as a picture (`i`): a title line (size, encoding, range…), the summary of
//! a map, scan or cloud, then the picture: in the terminal's graphics protocol when it has one
//! (`tui::term::graphics`), else in half-blocks — scans and clouds in braille dots (`view::dots`). While the next frame is drawn on
//! the worker the last one stays up (marked `…`), so stepping and playing do not flicker.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};

use super::{dots, halfblock};
use crate::catalog::MsgRef;
use crate::tui::model::picture::PicturePreview;
use crate::tui::text::fit;
use crate::tui::theme::Theme;

/// Draws the picture of the selected message inside the inspector's border.
pub fn draw(
    frame: &mut Frame<'_>,
    preview: &PicturePreview,
    selected: Option<MsgRef>,
    theme: Theme,
    inner: Rect,
) {
    let w = inner.width as usize;
    let Some(shown) = &preview.shown else {
        frame.render_widget(Paragraph::new(Line::styled("drawing…", theme.dim())), inner);
        return;
    };
    let stale = selected != Some(shown.msg);
    let mark = if stale { "… " } else { "" };
    let picture = match &shown.result {
        Ok(p) => p,
        Err(e) => {
            let lines = vec![
                Line::styled(format!("{mark}cannot draw this message:"), theme.error()),
                Line::styled(crate::printable::escape_line(e), theme.error()),
                Line::styled("i: show the message tree", theme.dim()),
            ];
            // The reason is wrapped, not cut: its numbers are what the user needs.
            frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
            return;
        }
    };
    let mut lines = vec![Line::styled(
        fit(&format!("{mark}{}", picture.title), w),
        theme.header(),
    )];
    for s in &picture.summary {
        lines.push(Line::styled(fit(s, w), theme.dim()));
    }
    let head = u16::try_from(lines.len())
        .unwrap_or(u16::MAX)
        .min(inner.height);
    frame.render_widget(
        Paragraph::new(lines),
        Rect::new(inner.x, inner.y, inner.width, head),
    );
    let area = Rect::new(
        inner.x,
        inner.y + head,
        inner.width,
        inner.height.saturating_sub(head),
    );
    match &shown.graphic {
        Some(g) => g.draw(area, frame.buffer_mut()),
        None if shown.dots => dots::draw(&picture.raster, preview.depth, area, frame.buffer_mut()),
        None => halfblock::draw(&picture.raster, preview.depth, area, frame.buffer_mut()),
    }
}
