//! Styles. With `NO_COLOR` set (to anything but the empty string) only modifiers are used
//! (bold, reverse, underline), so everything stays readable on monochrome terminals.

use ratatui::style::{Color, Modifier, Style};

/// The styles of the explorer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Theme {
    /// Colours allowed.
    pub color: bool,
}

impl Theme {
    /// Colours unless `NO_COLOR` is set and non-empty.
    pub fn from_env() -> Self {
        Theme {
            color: std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        }
    }

    /// A theme without colours (snapshots).
    pub fn mono() -> Self {
        Theme { color: false }
    }

    fn pick(self, colored: Style, plain: Style) -> Style {
        if self.color { colored } else { plain }
    }

    /// Pane border.
    pub fn border(self, focused: bool) -> Style {
        if focused {
            self.pick(
                Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
                Style::new().add_modifier(Modifier::BOLD),
            )
        } else {
            self.pick(Style::new().fg(Color::DarkGray), Style::new())
        }
    }

    /// Table headers.
    pub fn header(self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }

    /// The selected row.
    pub fn selected(self, focused: bool) -> Style {
        if focused {
            Style::new().add_modifier(Modifier::REVERSED)
        } else {
            self.pick(
                Style::new().bg(Color::DarkGray),
                Style::new().add_modifier(Modifier::UNDERLINED),
            )
        }
    }

    /// Characters matching the filter.
    pub fn matched(self) -> Style {
        self.pick(
            Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
            Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
        )
    }

    /// Secondary text.
    pub fn dim(self) -> Style {
        self.pick(
            Style::new().fg(Color::DarkGray),
            Style::new().add_modifier(Modifier::DIM),
        )
    }

    /// Errors.
    pub fn error(self) -> Style {
        self.pick(
            Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
            Style::new().add_modifier(Modifier::BOLD),
        )
    }

    /// Warnings.
    pub fn warning(self) -> Style {
        self.pick(
            Style::new().fg(Color::Yellow),
            Style::new().add_modifier(Modifier::BOLD),
        )
    }

    /// Histogram bars.
    pub fn bars(self) -> Style {
        self.pick(Style::new().fg(Color::Cyan), Style::new())
    }

    /// Histogram columns inside the marked interval.
    pub fn marked(self) -> Style {
        self.pick(
            Style::new().fg(Color::Yellow),
            Style::new().add_modifier(Modifier::UNDERLINED),
        )
    }

    /// The time cursor.
    pub fn cursor(self) -> Style {
        self.pick(
            Style::new().fg(Color::Magenta).add_modifier(Modifier::BOLD),
            Style::new().add_modifier(Modifier::REVERSED),
        )
    }

    /// Field names in the inspector.
    pub fn key(self) -> Style {
        self.pick(
            Style::new().fg(Color::Blue),
            Style::new().add_modifier(Modifier::BOLD),
        )
    }

    /// Constant names beside values.
    pub fn constant(self) -> Style {
        self.pick(
            Style::new().fg(Color::Green),
            Style::new().add_modifier(Modifier::ITALIC),
        )
    }

    /// The status bar.
    pub fn status(self) -> Style {
        self.pick(
            Style::new().bg(Color::DarkGray).fg(Color::White),
            Style::new().add_modifier(Modifier::REVERSED),
        )
    }

    /// Plot series `i` (colours repeat after eight; without colour every series is plain
    /// and told apart by its [`SERIES_GLYPHS`] marker).
    pub fn series(self, i: usize) -> Style {
        const COLORS: [Color; 8] = [
            Color::LightYellow,
            Color::LightGreen,
            Color::LightRed,
            Color::LightBlue,
            Color::LightMagenta,
            Color::LightCyan,
            Color::White,
            Color::Yellow,
        ];
        let c = COLORS
            .get(i % COLORS.len())
            .copied()
            .unwrap_or(Color::White);
        self.pick(Style::new().fg(c), Style::new())
    }
}

/// The marker of each plot series, in the legend and at the cursor (repeat after eight).
pub const SERIES_GLYPHS: [char; 8] = ['●', '■', '▲', '◆', '✚', '○', '□', '△'];
