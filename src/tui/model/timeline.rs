//! The time axis: the catalog's range, the visible window (zoom) and the cursor.

use crate::time::RosTime;

/// Smallest visible window (1 ms), so zooming always stops somewhere meaningful.
const MIN_WINDOW: i128 = 1_000_000;

/// Time range, zoom window and cursor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timeline {
    start: RosTime,
    end: RosTime,
    view: (RosTime, RosTime),
    cursor: RosTime,
}

impl Timeline {
    /// A timeline over `[start, end]`, fully zoomed out, cursor at the start.
    pub fn new(start: RosTime, end: RosTime) -> Self {
        let end = end.max(start);
        let mut t = Timeline {
            start,
            end,
            view: (start, end),
            cursor: start,
        };
        t.view = t.clamp_window(start, end);
        t
    }

    /// The whole range.
    pub fn bounds(&self) -> (RosTime, RosTime) {
        (self.start, self.end)
    }

    /// The visible window.
    pub fn view(&self) -> (RosTime, RosTime) {
        self.view
    }

    /// The cursor.
    pub fn cursor(&self) -> RosTime {
        self.cursor
    }

    /// True when zoomed in.
    pub fn is_zoomed(&self) -> bool {
        self.view != self.clamp_window(self.start, self.end)
    }

    fn span(&self) -> i128 {
        self.view.1.nanos_since(self.view.0).max(1)
    }

    /// Keeps a window of at least `MIN_WINDOW`, inside the bounds where possible.
    fn clamp_window(&self, a: RosTime, b: RosTime) -> (RosTime, RosTime) {
        let total = self.end.nanos_since(self.start);
        let want = b.nanos_since(a).max(MIN_WINDOW);
        if want >= total {
            if total >= MIN_WINDOW {
                return (self.start, self.end);
            }
            // A (nearly) zero-length range: a minimal window around it.
            let mid = self.start.saturating_add_nanos(total / 2);
            return (
                mid.saturating_add_nanos(-MIN_WINDOW / 2),
                mid.saturating_add_nanos(MIN_WINDOW / 2),
            );
        }
        let mut a = a.max(self.start);
        let mut b = a.saturating_add_nanos(want);
        if b > self.end {
            b = self.end;
            a = b.saturating_add_nanos(-want);
        }
        (a, b)
    }

    /// Widens the range to `[start, end]` (a followed recording grew), keeping the zoom:
    /// zoomed out stays zoomed out, a zoomed window that showed the end slides to the new
    /// end, any other window stays put. The cursor stays where it was (within the range).
    pub fn extend(&mut self, start: RosTime, end: RosTime) {
        let zoomed = self.is_zoomed();
        let at_end = self.view.1 >= self.end;
        let span = self.span();
        self.start = start;
        self.end = end.max(start);
        self.view = if !zoomed {
            self.clamp_window(self.start, self.end)
        } else if at_end {
            self.clamp_window(self.end.saturating_add_nanos(-span), self.end)
        } else {
            self.clamp_window(self.view.0, self.view.1)
        };
        self.cursor = self.cursor.clamp(self.start, self.end);
    }

    /// Moves the cursor to `t` (clamped to the range), scrolling the window to show it.
    pub fn set_cursor(&mut self, t: RosTime) {
        self.cursor = t.clamp(self.start, self.end);
        if self.cursor < self.view.0 || self.cursor > self.view.1 {
            let span = self.span();
            let a = self.cursor.saturating_add_nanos(-span / 2);
            self.view = self.clamp_window(a, a.saturating_add_nanos(span));
        }
    }

    /// Moves the cursor by `bins` bins of a `width`-bin histogram.
    pub fn step(&mut self, bins: i64, width: usize) {
        let per_bin = self.span() / i128::from(u32::try_from(width.max(1)).unwrap_or(u32::MAX));
        self.set_cursor(
            self.cursor
                .saturating_add_nanos(per_bin.max(1) * i128::from(bins)),
        );
    }

    /// Halves the window around the cursor.
    pub fn zoom_in(&mut self) {
        self.zoom(0.5);
    }

    /// Doubles the window around the cursor.
    pub fn zoom_out(&mut self) {
        self.zoom(2.0);
    }

    /// Shows the whole range again.
    pub fn reset_zoom(&mut self) {
        self.view = self.clamp_window(self.start, self.end);
    }

    fn zoom(&mut self, factor: f64) {
        let span = self.span();
        #[allow(clippy::cast_possible_truncation)]
        let new = ((span as f64) * factor) as i128;
        // Keep the cursor at the same relative position in the window.
        let rel = self.cursor.nanos_since(self.view.0) as f64 / span as f64;
        #[allow(clippy::cast_possible_truncation)]
        let a = self
            .cursor
            .saturating_add_nanos(-((new as f64 * rel) as i128));
        self.view = self.clamp_window(a, a.saturating_add_nanos(new));
    }

    /// The bin (of `width`) holding `t`, if visible.
    pub fn bin_of(&self, t: RosTime, width: usize) -> Option<usize> {
        if t < self.view.0 || t > self.view.1 || width == 0 {
            return None;
        }
        let rel = t.nanos_since(self.view.0) as f64 / self.span() as f64;
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Some(((rel * width as f64) as usize).min(width - 1))
    }

    /// The start time of bin `i` of `width`.
    pub fn time_of_bin(&self, i: usize, width: usize) -> RosTime {
        let per = self.span() as f64 / width.max(1) as f64;
        #[allow(clippy::cast_possible_truncation)]
        self.view.0.saturating_add_nanos((per * i as f64) as i128)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extending_keeps_the_zoom_and_slides_a_window_at_the_end() {
        let t = |s: u32| RosTime::new(s, 0);
        let mut whole = Timeline::new(t(0), t(100));
        whole.extend(t(0), t(200));
        assert_eq!(whole.view(), (t(0), t(200)));
        assert!(!whole.is_zoomed());
        let mut tail = Timeline::new(t(0), t(100));
        tail.set_cursor(t(100));
        tail.zoom_in();
        let span = tail.view().1.nanos_since(tail.view().0);
        assert_eq!(tail.view().1, t(100));
        tail.extend(t(0), t(200));
        assert_eq!(tail.view().1, t(200), "the window at the end slides");
        assert_eq!(tail.view().1.nanos_since(tail.view().0), span);
        let mut early = Timeline::new(t(0), t(100));
        early.zoom_in();
        let view = early.view();
        assert!(view.1 < t(100));
        early.extend(t(0), t(200));
        assert_eq!(early.view(), view, "a window away from the end stays put");
    }

    fn t(s: u32) -> RosTime {
        RosTime::new(s, 0)
    }

    #[test]
    fn moves_zooms_and_clamps() {
        let mut tl = Timeline::new(t(100), t(200));
        assert_eq!(tl.view(), (t(100), t(200)));
        tl.step(10, 100);
        assert_eq!(tl.cursor(), t(110));
        tl.zoom_in();
        assert!(tl.is_zoomed());
        let (a, b) = tl.view();
        assert_eq!(b.nanos_since(a), 50_000_000_000);
        assert!(a <= tl.cursor() && tl.cursor() <= b);
        assert!(a >= t(100));
        tl.set_cursor(t(199));
        let (a, b) = tl.view();
        assert!(a <= t(199) && t(199) <= b && b <= t(200));
        tl.zoom_out();
        tl.zoom_out();
        assert_eq!(tl.view(), (t(100), t(200)));
        tl.set_cursor(t(500));
        assert_eq!(tl.cursor(), t(200));
        assert_eq!(tl.bin_of(t(200), 10), Some(9));
        assert_eq!(tl.bin_of(t(100), 10), Some(0));
        assert_eq!(tl.time_of_bin(5, 10), t(150));
    }

    #[test]
    fn a_zero_length_range_still_has_a_window() {
        let tl = Timeline::new(t(5), t(5));
        let (a, b) = tl.view();
        assert!(a <= t(5) && t(5) <= b);
        assert!(b.nanos_since(a) >= MIN_WINDOW);
        assert!(tl.bin_of(t(5), 10).is_some());
    }
}
