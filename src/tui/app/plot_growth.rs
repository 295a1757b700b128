//! Plots that grow with a followed recording. Each time a snapshot of the recording is
//! swapped into the catalog, every plotted series whose extraction has finished is extended:
//! a new extraction over the new catalog reads only the chunks that end at or after where
//! the series stopped (a [`Resume`]), and its points are appended to the cached series (the
//! levels updated for the new points only, see [`PlotSeries::extend`]). A series still being
//! computed is extended when its extraction ends, if a snapshot arrived meanwhile, so data
//! written during a long extraction is not missed. XY mode draws the same series.
//!
//! [`PlotSeries::extend`]: crate::tui::model::plot::PlotSeries::extend

use super::App;
use crate::catalog::series::Resume;
use crate::time::RosTime;
use crate::tui::jobs::plotter;

/// Where an extension of a series resumes: after its last point, or after `through` (what
/// the last extraction covered) when that is later (the messages in between had no value
/// at the path), with nothing to skip there.
fn resume_point(last: Option<Resume>, through: Option<RosTime>) -> Option<Resume> {
    match (last, through) {
        (Some(r), Some(t)) if t > r.time => Some(Resume { time: t, skip: 0 }),
        (None, Some(t)) => Some(Resume { time: t, skip: 0 }),
        (r, _) => r,
    }
}

impl App {
    /// After a snapshot swap: extends every plotted series whose extraction has ended.
    pub(super) fn grow_plots(&mut self) {
        self.views.plot.growth.generation += 1;
        let idle: Vec<String> = self
            .views
            .plot
            .plots
            .entries
            .iter()
            .map(|e| e.label.clone())
            .filter(|l| !self.views.plot.jobs.contains_key(l))
            .collect();
        for label in idle {
            self.extend_plot(&label);
        }
    }

    /// Job `job` of `label` has ended having read the topic `through` that time: extends the
    /// series again when a snapshot was swapped in meanwhile.
    pub(super) fn plot_job_done(&mut self, label: &str, job: u64, through: Option<RosTime>) {
        let generation = self.views.plot.growth.generation;
        let Some(g) = self.views.plot.growth.series.get_mut(label) else {
            return;
        };
        if g.job != job {
            return;
        }
        g.through = g.through.max(through);
        if g.started != generation {
            self.extend_plot(label);
        }
    }

    /// Starts reading what was appended to `label`'s topic since its series was read.
    fn extend_plot(&mut self, label: &str) {
        let Some(notify) = self.views.plot.notify.clone() else {
            return;
        };
        let last = self
            .views
            .plot
            .plots
            .position(label)
            .and_then(|i| self.views.plot.plots.entries.get(i))
            .and_then(|e| e.series.resume());
        let Some(g) = self.views.plot.growth.series.get(label) else {
            return;
        };
        let mut request = g.request.clone();
        request.from = resume_point(last, g.through);
        self.views.plot.next_id += 1;
        let id = self.views.plot.next_id;
        let started = plotter::start(
            self.catalog.clone(),
            request,
            self.settings.registry.clone(),
            (id, label.to_string()),
            notify,
        );
        match started {
            Ok(job) => {
                self.views.plot.jobs.insert(label.to_string(), job);
                let generation = self.views.plot.growth.generation;
                if let Some(g) = self.views.plot.growth.series.get_mut(label) {
                    g.job = id;
                    g.started = generation;
                    g.extending = true;
                }
            }
            Err(e) => self.flash(format!("cannot start a thread to plot: {e}"), true),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resumes_after_the_later_of_the_last_point_and_what_was_read() {
        let t = |s| RosTime::new(s, 0);
        let at = |s, skip| Some(Resume { time: t(s), skip });
        assert_eq!(
            resume_point(None, None),
            None,
            "nothing read: from the start"
        );
        assert_eq!(resume_point(at(5, 2), None), at(5, 2));
        assert_eq!(resume_point(at(5, 2), Some(t(5))), at(5, 2));
        assert_eq!(resume_point(at(5, 2), Some(t(9))), at(9, 0));
        assert_eq!(resume_point(None, Some(t(9))), at(9, 0));
    }
}
