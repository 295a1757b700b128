//! The plot pane's state changes: series added (computed in the background by
//! [`plotter`](crate::tui::jobs::plotter), their pieces appended as they arrive), removed (their
//! thread cancelled), the y mode toggled. The layout gives the plot rows only while
//! something is plotted.

use super::App;
use crate::catalog::series::{self, SeriesError, SeriesRequest};
use crate::tui::jobs::plotter::{self, PlotNews};
use crate::tui::model::plot::PlotSeries;

impl App {
    /// Plots `series` as `label` (replacing a series of that label); `progress` is the
    /// percent done while it is still being computed. False when no more series fit.
    pub fn add_plot(&mut self, label: &str, series: PlotSeries, progress: Option<u8>) -> bool {
        let added = self.views.plot.plots.add(label, series, progress);
        self.relayout();
        added
    }

    /// Stops plotting `label` (and computing it); true when it was plotted.
    pub fn remove_plot(&mut self, label: &str) -> bool {
        self.views.plot.jobs.remove(label);
        self.views.plot.growth.forget(label);
        let removed = self.views.plot.plots.remove(label);
        self.relayout();
        removed
    }

    /// Where series threads report (the event loop's channel).
    pub fn set_plot_notify(&mut self, notify: crate::tui::jobs::notify::Notify<PlotNews>) {
        self.views.plot.notify = Some(notify);
    }

    /// Switches the plot between one shared y scale and one per series.
    pub fn toggle_plot_scale(&mut self) {
        if self.views.plot.plots.is_empty() {
            self.flash("nothing is plotted: P on a field in the inspector", false);
            return;
        }
        self.views.plot.plots.toggle_mode();
    }

    /// `x`: the plot in XY mode (two fields of one topic against each other) or back in
    /// time mode; when the series do not fit, the status bar says what XY needs.
    pub fn toggle_plot_xy(&mut self) {
        if let Err(why) = self.views.plot.plots.toggle_xy() {
            self.flash(why, true);
        }
    }

    /// Checks `/topic/field` or `/topic: EXPRESSION` against the bags (topic, field path or
    /// expression, a number) without reading messages; gives the request and its label.
    pub fn plot_request(&self, spec: &str) -> Result<(SeriesRequest, String), SeriesError> {
        let request = SeriesRequest::parse(&self.catalog, spec)?;
        series::validate(&self.catalog, &request, &self.settings.registry)?;
        let label = request.label();
        Ok((request, label))
    }

    /// Plots `/topic/field`, computed in the background (shown as it fills in); plotting it
    /// again replaces it. Errors (no such topic or field) are returned, not shown.
    pub fn plot_field(&mut self, spec: &str) -> Result<String, SeriesError> {
        let (request, label) = self.plot_request(spec)?;
        let topic = request.topic.clone();
        if self.views.plot.plots.position(&label).is_none()
            && self.views.plot.plots.entries.len() >= crate::tui::model::plots::MAX_SERIES
        {
            self.flash(
                format!(
                    "at most {} series: remove one first (P on it)",
                    crate::tui::model::plots::MAX_SERIES
                ),
                true,
            );
            return Ok(label);
        }
        let Some(notify) = self.views.plot.notify.clone() else {
            self.flash("plotting needs the event loop", true);
            return Ok(label);
        };
        self.views.plot.next_id += 1;
        let id = self.views.plot.next_id;
        self.views.plot.growth.track(&label, &request, id);
        match plotter::start(
            self.catalog.clone(),
            request,
            self.settings.registry.clone(),
            (id, label.clone()),
            notify,
        ) {
            Ok(job) => {
                self.views.plot.jobs.insert(label.clone(), job);
                self.add_plot(&label, PlotSeries::default(), Some(0));
                self.views.plot.plots.set_topic(&label, topic);
            }
            Err(e) => self.flash(format!("cannot start a thread to plot: {e}"), true),
        }
        Ok(label)
    }

    /// `P`: the inspector's selected field plotted, or no longer plotted.
    pub fn plot_selected_field(&mut self) {
        let Some(topic) = self
            .views
            .inspector
            .tree
            .data
            .as_ref()
            .map(|d| d.topic.clone())
        else {
            self.flash("P plots a field of the inspected message: select one", true);
            return;
        };
        let Some(row) = self.views.inspector.tree.selected_row() else {
            self.flash("P plots a field of the inspected message: select one", true);
            return;
        };
        if row.more.is_some() || row.path.is_empty() {
            self.flash("P plots a number, bool, time or duration field", true);
            return;
        }
        let spec = format!("{}/{}", topic.trim_end_matches('/'), row.path);
        self.toggle_plot(&spec);
    }

    /// `--plot`: plots each `/topic/field`; each one that cannot be plotted is an error of its
    /// own with why (the field paths that exist, for a wrong one): the status bar shows the
    /// last and counts the others until `Esc`, `!` lists them all.
    pub fn plot_all(&mut self, specs: &[String]) {
        let errors: Vec<String> = specs
            .iter()
            .filter_map(|s| self.plot_field(s).err().map(|e| format!("--plot {s}: {e}")))
            .collect();
        for e in errors {
            self.flash(e, true);
        }
    }

    /// `P`: plots `/topic/field` or, when it is plotted, removes it.
    pub fn toggle_plot(&mut self, spec: &str) {
        match self.plot_request(spec) {
            Ok((_, label)) if self.views.plot.plots.position(&label).is_some() => {
                self.remove_plot(&label);
                self.flash(format!("removed {label} from the plot"), false);
            }
            Ok(_) => {
                if let Err(e) = self.plot_field(spec) {
                    self.flash(e.to_string(), true);
                }
            }
            Err(e) => self.flash(e.to_string(), true),
        }
    }

    /// A piece of a series computed in the background: appended to the cached column.
    pub(crate) fn plot_news(&mut self, news: PlotNews) -> bool {
        if self.views.plot.jobs.get(&news.label).map(|j| j.id) != Some(news.id) {
            return false;
        }
        let extending = self.views.plot.growth.is_extension(&news.label, news.id);
        match news.update {
            Err(e) => {
                self.remove_plot(&news.label);
                self.flash(e.to_string(), true);
            }
            Ok(u) => {
                let Some(i) = self.views.plot.plots.position(&news.label) else {
                    return false;
                };
                if let Some(e) = self.views.plot.plots.entries.get_mut(i) {
                    if !u.piece.is_empty() {
                        std::sync::Arc::make_mut(&mut e.series).extend(u.piece);
                    }
                    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                    let pct = (u.fraction.clamp(0.0, 1.0) * 100.0).floor() as u8;
                    e.progress = (!u.done && !extending).then_some(pct.min(99));
                }
                if u.done {
                    self.views.plot.jobs.remove(&news.label);
                    self.plot_job_done(&news.label, news.id, u.through);
                    let lost = u.stats.lost();
                    if lost > 0 {
                        self.flash(
                            format!(
                                "{}: {lost} messages could not be read or decoded{}",
                                news.label,
                                u.stats
                                    .problems
                                    .first()
                                    .map(|p| format!(" ({p})"))
                                    .unwrap_or_default()
                            ),
                            true,
                        );
                    }
                }
            }
        }
        true
    }

    /// Recomputes the layout (the plot pane appears or goes) and fits the lists into it.
    fn relayout(&mut self) {
        let before = self.layout;
        self.layout =
            crate::tui::layout::layout(self.area, self.focus, !self.views.plot.plots.is_empty());
        if self.layout != before {
            self.fit_viewports();
        }
    }
}
