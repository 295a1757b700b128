//! The plot pane's state changes: series added (computed in the background by
//! [`plotter`](crate::tui::jobs::plotter), their pieces appended as they arrive), removed (their
//! thread cancelled), the y mode toggled. The layout gives the plot rows only while
//! something is plotted.

use super::App;
use crate::catalog::series::{self, SeriesError, SeriesRequest};
use crate::catalog::{compile, topic_matches};
use crate::msg::path::ParsedPath;
use crate::tui::jobs::plotter::{self, PlotNews};
use crate::tui::model::plot::PlotSeries;
use crate::tui::model::plot::Precision;
use crate::tui::model::plot::names::{canonical, plain_field};

impl App {
    /// Plots `series` as `label` (replacing a series of that label); `progress` is the
    /// percent done while it is still being computed. False when no more series fit.
    pub fn add_plot(&mut self, label: &str, series: PlotSeries, progress: Option<u8>) -> bool {
        let added = self.views.plot.plots.add(label, series, progress);
        self.relayout();
        added
    }

    /// Stops plotting `label` (and computing it); true when it was plotted. The plot pane
    /// gives the focus back to the topics when it goes.
    pub fn remove_plot(&mut self, label: &str) -> bool {
        self.views.plot.jobs.remove(label);
        self.views.plot.growth.forget(label);
        let removed = self.views.plot.plots.remove(label);
        if self.focus == crate::tui::action::Pane::Plot && !self.shows_plot() {
            self.focus = crate::tui::action::Pane::Topics;
        }
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

    /// Checks `/topic/field` or `/topic: EXPRESSION` against the bags (topic, field path,
    /// plottable value) without reading messages; gives the request and its label (the spec
    /// in one text, [`canonical`]).
    pub fn plot_request(&self, spec: &str) -> Result<(SeriesRequest, String), SeriesError> {
        let request = SeriesRequest::parse(&self.catalog, spec)?;
        series::validate(&self.catalog, &request, &self.settings.registry)?;
        let label = canonical(&request.topic, spec);
        Ok((request, label))
    }

    /// How the values of `spec` print: as float32 when it names a float32 field (by the
    /// definition of the topic's first connection that can be decoded), else as `f64`
    /// (computed values are).
    fn field_precision(&self, topic: &str, spec: &str) -> Precision {
        let Some(path) = plain_field(topic, spec).and_then(|f| ParsedPath::parse(f).ok()) else {
            return Precision::F64;
        };
        let float32 = self
            .catalog
            .bags()
            .iter()
            .flat_map(|b| b.connections().iter())
            .filter(|c| topic_matches(topic, &c.topic))
            .find_map(|c| compile(c, &self.settings.registry).schema.ok())
            .and_then(|schema| path.resolve(schema.root()).ok())
            .is_some_and(|p| p.leaf_type() == "float32");
        if float32 {
            Precision::F32
        } else {
            Precision::F64
        }
    }

    /// True when the plot pane is shown: something is plotted, or the `P` prompt is open.
    pub fn shows_plot(&self) -> bool {
        !self.views.plot.plots.is_empty() || self.overlays.mode == super::Mode::PlotPrompt
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
                    "at most {} series: remove one first (x in the plot pane, 5)",
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
                let precision = self.field_precision(&topic, spec);
                self.views.plot.jobs.insert(label.clone(), job);
                self.add_plot(&label, PlotSeries::default(), Some(0));
                self.views.plot.plots.set_topic(&label, topic);
                self.views.plot.plots.set_precision(&label, precision);
            }
            Err(e) => self.flash(format!("cannot start a thread to plot: {e}"), true),
        }
        Ok(label)
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
    pub(super) fn relayout(&mut self) {
        let before = self.layout;
        self.layout = crate::tui::layout::layout(self.area, self.focus, self.shows_plot());
        if self.layout != before {
            self.fit_viewports();
        }
    }
}
