//! The series plotted under the timeline: which fields, their cached columns, how far their
//! extraction has got, their short legend names, the selected one (the focused pane's keys act
//! on it) and the y-scale mode. Plain state; the plot pane draws a
//! [`plot::frame`] of it for the timeline's visible range, or in XY mode the
//! [`XyRaster`](super::plot::xy_raster::XyRaster) of its two series made for [`Plots::xy_key`].

use std::sync::Arc;

use super::plot::xy_raster::XyKey;
use super::plot::{self, Frame, PlotSeries, Precision, TimeView, YMode, names};

/// At most this many series at once.
pub const MAX_SERIES: usize = 8;

/// One plotted field or computed value.
#[derive(Debug, Clone)]
pub struct PlotEntry {
    /// Its spec, which names it: `/topic/field/path` or `/topic: EXPRESSION` (see
    /// [`names::canonical`]); the legend shows a short name made of it.
    pub label: String,
    /// The cached points (filled in as the extraction goes; shared with the thread that
    /// draws XY mode, so a piece is appended with `Arc::make_mut`).
    pub series: Arc<PlotSeries>,
    /// Percent done while the column is being computed, `None` once complete.
    pub progress: Option<u8>,
    /// The topic the field belongs to, when known (XY mode needs two of one topic).
    pub topic: Option<String>,
    /// How its values print (as float32 for a float32 field).
    pub precision: Precision,
}

/// The plotted series and the y mode.
#[derive(Debug, Clone)]
pub struct Plots {
    /// The series, in the order they were added (legend order, colour order).
    pub entries: Vec<PlotEntry>,
    /// One shared y scale or one per series.
    pub mode: YMode,
    /// XY mode: the two series drawn against each other (only while they are two fields
    /// of one topic).
    pub xy: bool,
    /// The selected series (an index into `entries`; the last one added by default).
    pub selected: usize,
}

/// What is wrong with a series spec typed at the `P` prompt, shown under it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecError {
    /// 1-based column of the problem in the prompt's text.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl Default for Plots {
    fn default() -> Self {
        Plots {
            entries: Vec::new(),
            mode: YMode::Shared,
            xy: false,
            selected: 0,
        }
    }
}

impl Plots {
    /// True when nothing is plotted (the pane is hidden).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The index of the series labelled `label`.
    pub fn position(&self, label: &str) -> Option<usize> {
        self.entries.iter().position(|e| e.label == label)
    }

    /// Adds a series (or replaces the one with the same label). False when full.
    pub fn add(
        &mut self,
        label: impl Into<String>,
        series: PlotSeries,
        progress: Option<u8>,
    ) -> bool {
        let label = label.into();
        if let Some(i) = self.position(&label) {
            if let Some(e) = self.entries.get_mut(i) {
                e.series = Arc::new(series);
                e.progress = progress;
            }
            self.selected = i;
            return true;
        }
        if self.entries.len() >= MAX_SERIES {
            return false;
        }
        self.entries.push(PlotEntry {
            label,
            series: Arc::new(series),
            progress,
            topic: None,
            precision: Precision::F64,
        });
        self.selected = self.entries.len() - 1;
        self.xy &= self.xy_pair().is_some();
        true
    }

    /// Removes the series labelled `label`; true when it was plotted. The selection stays on
    /// the same series, or moves to the next one (the previous one after the last).
    pub fn remove(&mut self, label: &str) -> bool {
        let Some(i) = self.position(label) else {
            return false;
        };
        self.entries.remove(i);
        if self.selected > i || self.selected >= self.entries.len() {
            self.selected = self.selected.saturating_sub(1);
        }
        self.xy &= self.xy_pair().is_some();
        true
    }

    /// The selected series, when something is plotted.
    pub fn selected_entry(&self) -> Option<&PlotEntry> {
        self.entries.get(self.selected)
    }

    /// Moves the selection by `delta` series (stopping at the first and last).
    pub fn select_by(&mut self, delta: isize) {
        let last = self.entries.len().saturating_sub(1);
        self.selected = self.selected.saturating_add_signed(delta).min(last);
    }

    /// The legend names: each series' spec as short as keeps it apart from the others.
    pub fn names(&self) -> Vec<String> {
        let labels: Vec<(&str, Option<&str>)> = self
            .entries
            .iter()
            .map(|e| (e.label.as_str(), e.topic.as_deref()))
            .collect();
        names::short_names(&labels)
    }

    /// Switches between one shared y scale and one per series.
    pub fn toggle_mode(&mut self) {
        self.mode = match self.mode {
            YMode::Shared => YMode::Normalised,
            YMode::Normalised => YMode::Shared,
        };
    }

    /// The overall progress of the extractions still running (lowest percent).
    pub fn progress(&self) -> Option<u8> {
        self.entries.iter().filter_map(|e| e.progress).min()
    }

    /// Records the topic of the series labelled `label`.
    pub fn set_topic(&mut self, label: &str, topic: impl Into<String>) {
        if let Some(e) = self.entries.iter_mut().find(|e| e.label == label) {
            e.topic = Some(topic.into());
        }
    }

    /// Records how the values of the series labelled `label` print.
    pub fn set_precision(&mut self, label: &str, precision: Precision) {
        if let Some(e) = self.entries.iter_mut().find(|e| e.label == label) {
            e.precision = precision;
        }
    }

    /// The two series XY mode draws (x, y): exactly two plotted, of one topic.
    pub fn xy_pair(&self) -> Option<(&PlotEntry, &PlotEntry)> {
        match self.entries.as_slice() {
            [a, b] if a.topic.is_some() && a.topic == b.topic => Some((a, b)),
            _ => None,
        }
    }

    /// `x`: into XY mode or back to time. Into XY mode needs exactly two fields of one topic;
    /// otherwise the error says so (and XY mode stays off).
    pub fn toggle_xy(&mut self) -> Result<bool, String> {
        if self.xy {
            self.xy = false;
            return Ok(false);
        }
        if self.xy_pair().is_some() {
            self.xy = true;
            return Ok(true);
        }
        let n = self.entries.len();
        let why = if n == 2 {
            "these are of two topics".to_string()
        } else {
            format!("{n} plotted")
        };
        Err(format!("XY needs two fields of one topic: {why}"))
    }

    /// What XY mode's picture is made for: the two series, the visible range `range` and a
    /// pane inside `inner` cells; `None` when not two fields of one topic.
    pub fn xy_key(&self, range: (i64, i64), inner: (usize, usize)) -> Option<XyKey> {
        let (a, b) = self.xy_pair()?;
        Some(XyKey {
            x: (a.label.clone(), a.series.len()),
            y: (b.label.clone(), b.series.len()),
            range,
            inner,
        })
    }

    /// One frame of every series over `view`.
    pub fn frame(&self, view: &TimeView, cursor_ns: Option<i64>, max_ticks: usize) -> Frame {
        let series: Vec<&PlotSeries> = self.entries.iter().map(|e| e.series.as_ref()).collect();
        plot::frame(&series, view, cursor_ns, self.mode, max_ticks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(points: &[(i64, f64)]) -> PlotSeries {
        PlotSeries::from_points(points)
    }

    #[test]
    fn add_replace_remove_and_cap() {
        let mut p = Plots::default();
        assert!(p.is_empty());
        assert!(p.add("/a/x", series(&[(0, 1.0)]), Some(10)));
        assert!(p.add("/a/x", series(&[(0, 2.0), (1, 3.0)]), None));
        assert_eq!(p.entries.len(), 1, "same label replaces");
        assert_eq!(p.entries[0].series.values(), [2.0, 3.0]);
        for i in 1..MAX_SERIES {
            assert!(p.add(
                format!("/b/{i}"),
                series(&[]),
                Some(u8::try_from(i).unwrap())
            ));
        }
        assert!(!p.add("/too/many", series(&[]), None));
        assert_eq!(p.progress(), Some(1));
        assert_eq!(p.selected, MAX_SERIES - 1, "the last one added");
        p.select_by(-2);
        assert_eq!(
            p.selected_entry().unwrap().label,
            format!("/b/{}", MAX_SERIES - 3)
        );
        assert!(p.remove("/a/x"));
        assert!(!p.remove("/a/x"));
        assert_eq!(
            p.selected_entry().unwrap().label,
            format!("/b/{}", MAX_SERIES - 3),
            "the selection stays on its series"
        );
        assert_eq!(p.position("/b/2"), Some(1));
        p.select_by(100);
        assert_eq!(p.selected, p.entries.len() - 1);
        assert!(p.remove(&format!("/b/{}", MAX_SERIES - 1)));
        assert_eq!(
            p.selected,
            p.entries.len() - 1,
            "after the last: the previous one"
        );
        p.select_by(-100);
        assert_eq!(p.selected, 0);
    }

    #[test]
    fn names_come_from_the_specs_and_topics() {
        let mut p = Plots::default();
        p.add("/imu/data/linear_acceleration/z", series(&[]), None);
        p.add("/imu/data/angular_velocity/z", series(&[]), None);
        p.set_topic("/imu/data/linear_acceleration/z", "/imu/data");
        p.set_topic("/imu/data/angular_velocity/z", "/imu/data");
        assert_eq!(p.names(), ["linear_acceleration/z", "angular_velocity/z"]);
    }

    #[test]
    fn mode_toggles_and_frame_covers_every_series() {
        let mut p = Plots::default();
        p.add("/a", series(&[(0, 1.0), (10, 5.0)]), None);
        p.add("/b", series(&[(0, -2.0), (10, 2.0)]), None);
        let view = TimeView {
            start_ns: 0,
            end_ns: 10,
            width_px: 4,
        };
        let f = p.frame(&view, Some(5), 5);
        assert_eq!(f.legends.len(), 2);
        assert_eq!(f.legends[0].min_max, Some((1.0, 5.0)));
        assert_eq!(f.legends[1].at_cursor, Some((0, -2.0)));
        assert!(f.axis.lo <= -2.0 && f.axis.hi >= 5.0);
        p.toggle_mode();
        assert_eq!(p.mode, YMode::Normalised);
        let f = p.frame(&view, None, 5);
        assert!((f.scales[1].lo + 2.0).abs() < 1e-12);
        p.toggle_mode();
        assert_eq!(p.mode, YMode::Shared);
    }

    #[test]
    fn xy_needs_two_fields_of_one_topic() {
        let mut p = Plots::default();
        p.add("/odom/x", series(&[(0, 1.0)]), None);
        assert!(p.toggle_xy().unwrap_err().contains("1 plotted"));
        p.add("/odom/y", series(&[(0, 2.0)]), None);
        p.set_topic("/odom/x", "/odom");
        p.set_topic("/imu/y", "/imu");
        assert!(p.toggle_xy().unwrap_err().contains("two topics"));
        p.set_topic("/odom/y", "/odom");
        assert_eq!(p.toggle_xy(), Ok(true));
        let key = p.xy_key((0, 1), (40, 10)).unwrap();
        assert_eq!(key.x, ("/odom/x".to_string(), 1));
        assert_eq!((key.range, key.inner), ((0, 1), (40, 10)));
        assert_eq!(p.toggle_xy(), Ok(false));
        assert_eq!(p.toggle_xy(), Ok(true));
        // A third series leaves XY mode.
        p.add("/odom/z", series(&[]), None);
        assert!(!p.xy);
        assert!(p.xy_key((0, 1), (40, 10)).is_none());
    }
}
