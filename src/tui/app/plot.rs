//! The plot pane's state changes: series added, replaced or removed, the y mode toggled. The
//! layout gives the plot rows only while something is plotted.

use super::App;
use crate::tui::model::plot::PlotSeries;

impl App {
    /// Plots `series` as `label` (replacing a series of that label); `progress` is the
    /// percent done while it is still being computed. False when no more series fit.
    pub fn add_plot(&mut self, label: &str, series: PlotSeries, progress: Option<u8>) -> bool {
        let added = self.plots.add(label, series, progress);
        self.relayout();
        added
    }

    /// Stops plotting `label`; true when it was plotted.
    pub fn remove_plot(&mut self, label: &str) -> bool {
        let removed = self.plots.remove(label);
        self.relayout();
        removed
    }

    /// Switches the plot between one shared y scale and one per series.
    pub fn toggle_plot_scale(&mut self) {
        self.plots.toggle_mode();
    }

    /// Recomputes the layout (the plot pane appears or goes) and fits the lists into it.
    fn relayout(&mut self) {
        let before = self.layout;
        self.layout = crate::tui::layout::layout(self.area, self.focus, !self.plots.is_empty());
        if self.layout != before {
            self.fit_viewports();
        }
    }
}
