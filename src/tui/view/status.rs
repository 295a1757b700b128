//! The status bar: file(s), version, size, time at the cursor, the ROS publishing state,
//! warnings and messages (an error with the count of the others not yet dismissed); or the
//! prompt for the directory `E` writes to.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::ctx::DrawCtx;
use crate::time::RosTime;
use crate::tui::jobs::publish::Publishing;
use crate::tui::text::{bytes, fit, width};
use crate::tui::view::overlays::Mode;

/// A short message in the status bar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flash {
    /// Text.
    pub text: String,
    /// Shown as an error.
    pub error: bool,
    /// Errors before this one not yet dismissed (`!` lists them all).
    pub more: usize,
}

/// Cells of the file name and cursor time kept beside the ROS state.
const MIN_LEFT: usize = 12;
/// The message or help beside the ROS state is shown when this many cells are left for it
/// (or it fits).
const MIN_RIGHT: usize = 10;

/// What the status bar shows besides the bags and the context.
pub struct StatusParts<'a> {
    /// The message of the moment.
    pub flash: Option<&'a Flash>,
    /// The session's note (e.g. that this is the bundled demo bag).
    pub note: Option<&'a str>,
    /// A followed recording's mark (`● live`, …).
    pub follow: Option<String>,
    /// A running recovery scan's mark.
    pub scan: Option<String>,
    /// Bags that could not be opened.
    pub unopened: usize,
    /// The latest ROS publishing run.
    pub publishing: Option<&'a Publishing>,
    /// The time cursor.
    pub cursor: RosTime,
    /// The content search's count at the cursor (`3/42`).
    pub search: Option<String>,
}

/// Draws the status bar.
pub fn draw(frame: &mut Frame<'_>, parts: &StatusParts<'_>, ctx: &DrawCtx<'_>, area: Rect) {
    let theme = ctx.theme;
    if area.width == 0 || area.height == 0 {
        return;
    }
    let w = area.width as usize;
    // `E` asks where to write: the prompt takes the bar, then why it asks.
    if ctx.mode == Mode::ExportDir {
        let why = parts
            .flash
            .map(|f| format!("  ({})", f.text))
            .unwrap_or_default();
        let typed = crate::printable::escape_line(ctx.prompt);
        let line = fit(&format!(" E writes to: {typed}█{why}"), w);
        frame.render_widget(
            Paragraph::new(Line::styled(line, theme.matched())).style(theme.status()),
            area,
        );
        return;
    }
    let bags = ctx.catalog.bags();
    let files = match bags {
        [one] => {
            let name = one.path().file_name().map_or_else(
                || one.path().display().to_string(),
                |n| n.to_string_lossy().to_string(),
            );
            format!("{name} · {} · {}", file_kind(one), bytes(one.size()))
        }
        // Several bags: the legend of `#1`, `#2`, … (the health view lists full paths).
        many => {
            let names: Vec<String> = many
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    let name = b.path().file_name().map_or_else(
                        || b.path().display().to_string(),
                        |n| n.to_string_lossy().to_string(),
                    );
                    format!("#{} {name}", i + 1)
                })
                .collect();
            format!(
                "{} · {}",
                names.join(" "),
                bytes(many.iter().map(crate::bag::Bag::size).sum())
            )
        }
    };
    let files = match parts.note {
        Some(n) => format!("{n} · {files}"),
        None => files,
    };
    // A followed recording: `● live` first, so that it stays when the bar is narrow.
    let files = match &parts.follow {
        Some(m) => format!("{m} · {files}"),
        None => files,
    };
    // A bag shown while its recovery scan runs: how far it is, first (the counts are partial).
    let files = match &parts.scan {
        Some(m) => format!("{m} · {files}"),
        None => files,
    };
    let cursor = format!("@ {}", ctx.time_format.format(parts.cursor, ctx.start));
    // Every loss of a recovery scan and every warning of every bag, and bags not opened.
    let losses: usize = bags
        .iter()
        .filter_map(|b| b.recovery())
        .map(|r| r.losses.len())
        .sum();
    let warnings: usize = bags.iter().map(|b| b.warnings().len()).sum::<usize>() + parts.unopened;
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let problems = match (losses, warnings) {
        (0, 0) => String::new(),
        (0, w) => format!("⚠ {w} warning{}", plural(w)),
        (l, 0) => format!("⚠ damaged: {l} part{} lost", plural(l)),
        (l, w) => format!(
            "⚠ damaged: {l} part{} lost, {w} warning{}",
            plural(l),
            plural(w)
        ),
    };
    let warnings = losses + warnings;
    let right = match (parts.flash, warnings) {
        // Earlier errors not dismissed: counted after the latest, which is cut first.
        (Some(f), _) if f.more > 0 => {
            let more = format!(" · +{} more, ! lists", f.more);
            let room = w.saturating_sub(MIN_LEFT + 3 + width(&more));
            format!("{}{more}", fit(&f.text, room.max(MIN_RIGHT)))
        }
        (Some(f), _) => f.text.clone(),
        (None, 0) => "? help".to_string(),
        (None, _) => format!("{problems} · ! health"),
    };
    let right_style = match parts.flash {
        Some(f) if f.error => theme.error(),
        None if warnings > 0 => theme.warning(),
        _ => theme.status(),
    };
    // While publishing into ROS (or after), its state comes first on the right and may take
    // most of the bar: the file name and cursor time give way, and the `? help` hint goes.
    let (ros, right) = match parts.publishing {
        // A message may take most of the bar: it is what the user just asked about.
        None if parts.flash.is_some() => {
            (String::new(), fit(&right, w.saturating_sub(MIN_LEFT + 3)))
        }
        None => (String::new(), fit(&right, w / 2)),
        Some(p) => {
            let room = w.saturating_sub(MIN_LEFT);
            let ros = fit(&p.status_text(), room);
            let rest = room.saturating_sub(width(&ros) + 3);
            let hint_only = parts.flash.is_none() && warnings == 0;
            let right = if !hint_only && rest >= width(&right).min(MIN_RIGHT) {
                format!(" · {}", fit(&right, rest))
            } else {
                String::new()
            };
            (ros, right)
        }
    };
    let ros_style = match parts.publishing {
        Some(p) if p.is_error() => theme.error(),
        Some(p) if p.is_warning() => theme.warning(),
        _ => theme.status(),
    };
    // A space between the file and cursor part and the ROS state.
    let gap = usize::from(!ros.is_empty());
    // The search's count (`f: 3/42`) before the ROS state and the message.
    let search = parts
        .search
        .as_ref()
        .map(|s| format!("{s}  "))
        .unwrap_or_default();
    let search = fit(
        &search,
        w.saturating_sub(width(&ros) + width(&right) + MIN_LEFT),
    );
    let left_room = w.saturating_sub(width(&ros) + gap + width(&right) + width(&search) + 1);
    let mut left = fit(&format!(" {files}  {cursor}"), left_room);
    if width(&left) < left_room + gap {
        left.push_str(&" ".repeat(left_room + gap - width(&left)));
    }
    let line = Line::from(vec![
        Span::styled(left, theme.status()),
        Span::styled(search, theme.status()),
        Span::styled(ros, ros_style.patch(theme.status())),
        Span::styled(format!("{right} "), right_style.patch(theme.status())),
    ]);
    frame.render_widget(Paragraph::new(line).style(theme.status()), area);
}

/// What a single file is and how it was read: `v2.0`, `v2.0 recovered`, `MCAP`, `MCAP scanned`
/// (read by a scan with nothing lost: not recovered), `db3` (a ROS 2 SQLite file).
fn file_kind(one: &crate::bag::Bag) -> String {
    let p = one.path();
    let is =
        |e: Option<&std::ffi::OsStr>, what: &str| e.is_some_and(|e| e.eq_ignore_ascii_case(what));
    let stem_ext = p
        .file_stem()
        .map(std::path::Path::new)
        .and_then(std::path::Path::extension);
    let db3 = is(p.extension(), "db3") || (is(p.extension(), "zstd") && is(stem_ext, "db3"));
    let version = match one.version().to_string().as_str() {
        _ if db3 => "db3".to_string(),
        "mcap" => "MCAP".to_string(),
        v => format!("v{v}"),
    };
    let how = match one.recovery() {
        None => "",
        Some(r) if one.mcap().is_some() && r.losses.is_empty() => " scanned",
        Some(_) => " recovered",
    };
    format!("{version}{how}")
}
