//! XY mode's picture kept between frames: after each change of state the app works out
//! what the picture must be made for ([`XyKey`]: the two series, the visible range, the
//! pane's size) and, when that changed, asks the [`XyPainter`] thread for it; the pane draws
//! the newest picture it has (saying when a newer one is on its way) and only looks up the
//! point at the cursor per frame. Without an event loop (a headless app) the picture is made
//! inline.

use std::sync::Arc;

use super::App;
use crate::tui::jobs::job::Job;
use crate::tui::jobs::notify::Notify;
use crate::tui::jobs::xy_painter::{self, XyRequest};
use crate::tui::layout::inner;
use crate::tui::model::plot::time_ns;
use crate::tui::model::plot::xy_raster::{self, XyKey, XyRaster};

impl App {
    /// Where XY pictures made in the background are reported (the event loop's channel).
    pub fn set_xy_notify(&mut self, notify: Notify<Arc<XyRaster>>) {
        self.views.plot.xy.notify = Some(notify);
    }

    /// What XY mode's picture must be made for now; `None` when the plot is not in XY mode.
    pub fn xy_wanted(&self) -> Option<XyKey> {
        if !self.views.plot.plots.xy {
            return None;
        }
        let (v0, v1) = self.views.timeline.timeline.view();
        let area = inner(self.layout.plot);
        self.views.plot.plots.xy_key(
            (time_ns(v0), time_ns(v1)),
            (area.width as usize, area.height as usize),
        )
    }

    /// The newest XY picture (possibly made for an earlier view or size: compare its key
    /// with [`App::xy_wanted`]).
    pub fn xy_raster(&self) -> Option<&XyRaster> {
        self.views.plot.xy.shown.as_deref()
    }

    /// True while the picture shown is not the one the current view needs.
    pub fn xy_pending(&self) -> bool {
        self.xy_wanted().as_ref() != self.views.plot.xy.shown.as_ref().map(|r| &r.key)
    }

    /// Asks for the picture the current state needs, when it is neither shown nor asked
    /// for (called after every change of state).
    pub(crate) fn sync_xy(&mut self) {
        let Some(key) = self.xy_wanted() else {
            self.views.plot.xy.asked = None;
            return;
        };
        if self.views.plot.xy.asked.as_ref() == Some(&key)
            || self.views.plot.xy.shown.as_ref().map(|r| &r.key) == Some(&key)
        {
            return;
        }
        let Some((x, y)) = self
            .views
            .plot
            .plots
            .xy_pair()
            .map(|(a, b)| (Arc::clone(&a.series), Arc::clone(&b.series)))
        else {
            return;
        };
        // A thread that ended (its work panicked) is started again rather than asked in vain.
        if !self
            .views
            .plot
            .xy
            .painter
            .as_ref()
            .is_some_and(Job::is_running)
        {
            if let Some(notify) = self.views.plot.xy.notify.clone() {
                match xy_painter::start(notify) {
                    Ok(p) => self.views.plot.xy.painter = Some(p),
                    Err(e) => self.flash(format!("cannot start a thread to draw XY: {e}"), true),
                }
            }
        }
        match &self.views.plot.xy.painter {
            Some(p) => p.request(XyRequest {
                x,
                y,
                key: key.clone(),
            }),
            None => {
                self.views.plot.xy.shown = Some(Arc::new(xy_raster::raster(&x, &y, key.clone())));
            }
        }
        self.views.plot.xy.asked = Some(key);
    }

    /// A picture made in the background: shown from the next frame. Always redraws (the
    /// newest picture is better than the one shown even when the view moved on since).
    pub(crate) fn xy_news(&mut self, raster: Arc<XyRaster>) -> bool {
        self.views.plot.xy.shown = Some(raster);
        true
    }
}
