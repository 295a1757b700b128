//! The question before `p` publishes: what would be sent where — the topics with their
//! message counts in the marked interval and where each goes under the namespace, the master,
//! the rate — with the topics that command a robot flagged. `y` publishes; any other key
//! cancels.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::ctx::DrawCtx;
use crate::printable::escape_line;
use crate::tui::model::publish_plan::PublishPlan;
use crate::tui::text::{fit, pad, pad_left};
use crate::tui::theme::Theme;
use crate::wording::count;

/// Draws the question over the middle of `area` (nothing when no plan is pending).
pub fn draw(frame: &mut Frame<'_>, plan: Option<&PublishPlan>, ctx: &DrawCtx<'_>, area: Rect) {
    let theme = ctx.theme;
    let Some(plan) = plan else {
        return;
    };
    let width = area.width.saturating_sub(4).clamp(20, 100);
    let inner = usize::from(width.saturating_sub(2));
    let lines = lines(plan, ctx, theme, inner, area.height);
    let height = u16::try_from(lines.len() + 2)
        .unwrap_or(u16::MAX)
        .min(area.height);
    let rect = Rect::new(
        area.x + (area.width.saturating_sub(width)) / 2,
        area.y + (area.height.saturating_sub(height)) / 2,
        width.min(area.width),
        height,
    );
    frame.render_widget(Clear, rect);
    frame.render_widget(
        Paragraph::new(lines).block(
            Block::default()
                .borders(Borders::ALL)
                .title(fit(" Publish into the ROS graph? ", inner))
                .border_style(theme.warning()),
        ),
        rect,
    );
}

/// The text of the question, at most `height` − 2 rows of `w` cells: the topic list is cut
/// (with how many more) so the question and its keys always show.
fn lines(
    plan: &PublishPlan,
    ctx: &DrawCtx<'_>,
    theme: Theme,
    w: usize,
    height: u16,
) -> Vec<Line<'static>> {
    let start = ctx.start;
    let (a, b) = plan.interval;
    let seconds = b.nanos_since(a) as f64 / 1e9;
    let approx = if plan.exact { "" } else { "≈" };
    let scope = match plan.filtered {
        None => "every topic".to_string(),
        Some((shown, of)) => format!("{shown} of {of} topics (the filter)"),
    };
    let mut head = vec![
        Line::raw(fit(
            &format!(
                "{approx}{} on {} · {scope}",
                count(plan.messages(), "message"),
                count(plan.topics.len() as u64, "topic")
            ),
            w,
        )),
        Line::raw(fit(
            &format!(
                "from {} to {} ({seconds:.1} s) at {}×",
                ctx.time_format.format(a, start),
                ctx.time_format.format(b, start),
                plan.rate
            ),
            w,
        )),
        Line::raw(fit(
            &format!(
                "master {} · namespace {}",
                escape_line(&plan.master_uri),
                escape_line(&plan.namespace)
            ),
            w,
        )),
    ];
    let commands = plan.commands().count();
    if commands > 0 {
        head.push(Line::styled(
            fit(
                &if commands == 1 {
                    "⚠ 1 topic commands a robot (marked !): a robot listening will move".to_string()
                } else {
                    format!(
                        "⚠ {commands} topics command a robot (marked !): a robot listening will move"
                    )
                },
                w,
            ),
            theme.error(),
        ));
    }
    let tail = vec![
        Line::raw(""),
        Line::from(vec![
            Span::styled("y", theme.key()),
            Span::raw(" publish · "),
            Span::styled("any other key", theme.key()),
            Span::raw(" cancel"),
        ]),
    ];
    let room = usize::from(height.saturating_sub(2))
        .saturating_sub(head.len() + tail.len() + 1)
        .max(1);
    let mut rows: Vec<Line<'static>> = Vec::new();
    let count_w = plan
        .topics
        .iter()
        .map(|t| t.messages.to_string().len())
        .max()
        .unwrap_or(1)
        + approx.len().min(1);
    let shown = if plan.topics.len() > room {
        room.saturating_sub(1)
    } else {
        plan.topics.len()
    };
    for t in plan.topics.iter().take(shown) {
        let flag = if t.command { "! " } else { "  " };
        let count = pad_left(&format!("{approx}{}", t.messages), count_w);
        let name = if t.output == t.topic {
            escape_line(&t.topic).into_owned()
        } else {
            format!("{} → {}", escape_line(&t.topic), escape_line(&t.output))
        };
        let text = fit(&format!("{flag}{count}  {name}"), w);
        rows.push(if t.command {
            Line::styled(text, theme.error())
        } else {
            Line::raw(text)
        });
    }
    if shown < plan.topics.len() {
        rows.push(Line::styled(
            pad(&format!("  … {} more topics", plan.topics.len() - shown), w),
            theme.dim(),
        ));
    }
    let mut out = head;
    out.push(Line::raw(""));
    out.extend(rows);
    out.extend(tail);
    out
}
