//! The health view: per-topic rate and gaps, out-of-order times, type conflicts, chunk
//! compression, and how each bag was read.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::tui::app::App;
use crate::tui::model::timefmt::span;
use crate::tui::text::{bytes, fit, pad, pad_left};
use crate::tui::theme::Theme;

/// The text lines of the health view (also used by `bagscope info --health`).
pub fn lines(app: &App, width: usize) -> Vec<(String, Option<bool>)> {
    let mut out: Vec<(String, Option<bool>)> = Vec::new();
    let Some(report) = &app.health.report else {
        out.push((
            format!("reading the index… {:.0}%", app.health.progress * 100.0),
            None,
        ));
        return out;
    };
    let start = app.start();
    let name_w = report
        .topics
        .iter()
        .map(|t| t.topic.chars().count())
        .max()
        .unwrap_or(5)
        .clamp(5, width.saturating_sub(60).max(12));
    out.push((
        format!(
            "{}{}{}{}{}{}",
            pad("topic", name_w + 1),
            pad_left("msgs", 8),
            pad_left("rate Hz", 10),
            pad_left("max gap", 12),
            pad_left("gaps", 6),
            pad_left("out of order", 14)
        ),
        Some(false),
    ));
    for t in &report.topics {
        let max_gap = t
            .max_gap()
            .map_or("–".to_string(), |g| span(g.to.nanos_since(g.from)));
        let bad = t.gap_count > 0 || t.out_of_order > 0 || !t.conflicts.is_empty();
        out.push((
            format!(
                "{}{}{}{}{}{}",
                pad(&fit(&t.topic, name_w), name_w + 1),
                pad_left(&t.count.to_string(), 8),
                pad_left(&t.rate().map_or("–".into(), |r| format!("{r:.2}")), 10),
                pad_left(&max_gap, 12),
                pad_left(&t.gap_count.to_string(), 6),
                pad_left(&t.out_of_order.to_string(), 14)
            ),
            Some(bad),
        ));
        for g in t.gaps.iter().take(3) {
            out.push((
                format!(
                    "{}gap of {} from {} to {}",
                    " ".repeat(4),
                    span(g.to.nanos_since(g.from)),
                    app.time_format.short(g.from, start),
                    app.time_format.short(g.to, start)
                ),
                None,
            ));
        }
        for c in &t.conflicts {
            out.push((format!("    type conflict: {c}"), Some(true)));
        }
    }
    out.push((String::new(), None));
    if !report.chunks.is_empty() {
        let mut ratios: Vec<f64> = report
            .chunks
            .iter()
            .map(crate::catalog::health::ChunkHealth::ratio)
            .collect();
        let med = crate::stats::median(&mut ratios).unwrap_or(1.0);
        let min = ratios.first().copied().unwrap_or(1.0);
        let max = ratios.last().copied().unwrap_or(1.0);
        let comp: u64 = report.chunks.iter().map(|c| c.compressed).sum();
        let unc: u64 = report.chunks.iter().map(|c| c.uncompressed).sum();
        out.push((
            format!(
                "{} chunks · {} → {} · ratio per chunk: min {:.0}%, median {:.0}%, max {:.0}%",
                report.chunks.len(),
                bytes(unc),
                bytes(comp),
                min * 100.0,
                med * 100.0,
                max * 100.0
            ),
            Some(false),
        ));
        let mut worst: Vec<_> = report
            .chunks
            .iter()
            .filter(|c| c.compression != crate::format::Compression::None)
            .collect();
        worst.sort_by(|a, b| b.ratio().total_cmp(&a.ratio()));
        for c in worst.iter().take(3) {
            out.push((
                format!(
                    "    least compressed: chunk {} of bag #{} at byte {}: {:.0}% ({} messages)",
                    c.chunk,
                    c.bag + 1,
                    c.pos,
                    c.ratio() * 100.0,
                    c.messages
                ),
                None,
            ));
        }
        out.push((String::new(), None));
    }
    for n in &report.notes {
        let bad = n.contains("lost") || n.contains("warning") || n.contains("recovered");
        out.push((n.clone(), Some(bad)));
    }
    out
}

/// Draws the health view over `area`.
pub fn draw(frame: &mut Frame<'_>, app: &App, theme: Theme, area: Rect) {
    let w = area.width.saturating_sub(2) as usize;
    let lines: Vec<Line> = lines(app, w)
        .into_iter()
        .skip(app.health.scroll)
        .map(|(text, bad)| {
            let style = match bad {
                Some(true) => theme.warning(),
                Some(false) => theme.header(),
                None => theme.dim(),
            };
            Line::styled(fit(&text, w), style)
        })
        .collect();
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(lines).block(
            Block::default()
                .borders(Borders::ALL)
                .title(" Health · ! or Esc closes · ↑↓ scroll ")
                .border_style(theme.border(true)),
        ),
        area,
    );
}
