//! Where panes go for a terminal size. Used by drawing and by input handling (viewport sizes,
//! mouse hit-testing), so both always agree.

use ratatui::layout::Rect;

use super::action::Pane;

/// Below this size only the focused pane is shown (with a tab line).
pub const COMPACT_WIDTH: u16 = 70;
/// See [`COMPACT_WIDTH`].
pub const COMPACT_HEIGHT: u16 = 16;

/// Pane rectangles (zero-sized when hidden).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    /// Topic list.
    pub topics: Rect,
    /// Histogram.
    pub histogram: Rect,
    /// Message list.
    pub messages: Rect,
    /// Inspector.
    pub inspector: Rect,
    /// The plot under the timeline (zero-sized when nothing is plotted or compact).
    pub plot: Rect,
    /// The tab line of the compact layout.
    pub tabs: Rect,
    /// Status bar.
    pub status: Rect,
    /// Only the focused pane is shown.
    pub compact: bool,
}

/// Computes the layout of `area` with `focus` (which matters in the compact layout);
/// `plot`: something is plotted, so the plot pane takes rows between the timeline and the
/// inspector.
pub fn layout(area: Rect, focus: Pane, plot: bool) -> Layout {
    let status = Rect::new(
        area.x,
        area.y + area.height.saturating_sub(1),
        area.width,
        area.height.min(1),
    );
    let body = Rect::new(area.x, area.y, area.width, area.height.saturating_sub(1));
    if area.width < COMPACT_WIDTH || area.height < COMPACT_HEIGHT {
        let tabs = Rect::new(body.x, body.y, body.width, body.height.min(1));
        let main = Rect::new(
            body.x,
            body.y + tabs.height,
            body.width,
            body.height.saturating_sub(tabs.height),
        );
        let mut l = Layout {
            tabs,
            status,
            compact: true,
            ..Layout::default()
        };
        *l.rect_mut(focus) = main;
        return l;
    }
    let share = |v: u16, pct: u32| u16::try_from(u32::from(v) * pct / 100).unwrap_or(v);
    // Wide terminals give the topic table room for full names and types.
    let left_w = if body.width >= 150 {
        share(body.width, 46).min(96)
    } else {
        share(body.width, 40).clamp(28, 64)
    };
    let right_w = body.width - left_w;
    let topics_h = share(body.height, 56);
    let hist_h = share(body.height, 30).clamp(6, 14);
    let plot_h = if plot {
        share(body.height, 40)
            .clamp(7, 20)
            .min(body.height.saturating_sub(hist_h + 4))
    } else {
        0
    };
    Layout {
        topics: Rect::new(body.x, body.y, left_w, topics_h),
        messages: Rect::new(body.x, body.y + topics_h, left_w, body.height - topics_h),
        histogram: Rect::new(body.x + left_w, body.y, right_w, hist_h),
        plot: Rect::new(body.x + left_w, body.y + hist_h, right_w, plot_h),
        inspector: Rect::new(
            body.x + left_w,
            body.y + hist_h + plot_h,
            right_w,
            body.height - hist_h - plot_h,
        ),
        tabs: Rect::default(),
        status,
        compact: false,
    }
}

impl Layout {
    /// The rectangle of a pane.
    pub fn rect(&self, pane: Pane) -> Rect {
        match pane {
            Pane::Topics => self.topics,
            Pane::Histogram => self.histogram,
            Pane::Messages => self.messages,
            Pane::Inspector => self.inspector,
            Pane::Plot => self.plot,
        }
    }

    fn rect_mut(&mut self, pane: Pane) -> &mut Rect {
        match pane {
            Pane::Topics => &mut self.topics,
            Pane::Histogram => &mut self.histogram,
            Pane::Messages => &mut self.messages,
            Pane::Inspector => &mut self.inspector,
            Pane::Plot => &mut self.plot,
        }
    }

    /// The visible pane at a screen position.
    pub fn pane_at(&self, x: u16, y: u16) -> Option<Pane> {
        Pane::ORDER.into_iter().find(|p| {
            let r = self.rect(*p);
            r.width > 0 && x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height
        })
    }

    /// Rows of the list viewport of `pane` (none for the timeline).
    pub fn rows(&self, pane: Pane) -> usize {
        match pane {
            Pane::Topics => self.topics_rows(),
            Pane::Messages => self.messages_rows(),
            Pane::Inspector => self.inspector_rows(),
            Pane::Histogram | Pane::Plot => 0,
        }
    }

    /// Rows of the topic table (inside the border, below the header).
    pub fn topics_rows(&self) -> usize {
        self.topics.height.saturating_sub(3).max(1) as usize
    }

    /// Rows of the message list.
    pub fn messages_rows(&self) -> usize {
        self.messages.height.saturating_sub(3).max(1) as usize
    }

    /// Rows of the inspector.
    pub fn inspector_rows(&self) -> usize {
        self.inspector.height.saturating_sub(2).max(1) as usize
    }

    /// Columns of the histogram (one bin each); a sensible width even when hidden.
    pub fn histogram_width(&self) -> usize {
        match self.histogram.width {
            0 => 60,
            w => w.saturating_sub(2).max(1) as usize,
        }
    }
}

/// The area inside a block's border.
pub fn inner(area: Rect) -> Rect {
    Rect::new(
        area.x.saturating_add(1),
        area.y.saturating_add(1),
        area.width.saturating_sub(2),
        area.height.saturating_sub(2),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panes_tile_the_screen_or_collapse() {
        let l = layout(Rect::new(0, 0, 80, 24), Pane::Topics, false);
        assert!(!l.compact);
        let area: u32 = Pane::ORDER.iter().map(|p| l.rect(*p).area()).sum();
        assert_eq!(area, 80 * 23);
        assert_eq!(l.pane_at(0, 0), Some(Pane::Topics));
        assert_eq!(l.pane_at(79, 22), Some(Pane::Inspector));
        assert_eq!(l.pane_at(0, 23), None);
        let c = layout(Rect::new(0, 0, 60, 20), Pane::Messages, false);
        assert!(c.compact);
        assert_eq!(c.messages, Rect::new(0, 1, 60, 18));
        assert_eq!(c.topics, Rect::default());
        let big = layout(Rect::new(0, 0, 400, 120), Pane::Topics, false);
        assert_eq!(big.topics.width, 96);
        assert_eq!(big.histogram.height, 14);
    }
}
