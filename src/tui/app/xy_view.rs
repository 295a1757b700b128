//! XY mode's picture kept between frames: after each change of state the app works out
//! what the picture must be made for ([`XyKey`]: the two series, the visible range, the
//! pane's size) and, when that changed, asks the [`XyPainter`] thread for it; the pane draws
//! the newest picture it has (saying when a newer one is on its way) and only looks up the
//! point at the cursor per frame. Without an event loop (a headless app) the picture is made
//! inline.

use std::sync::Arc;

use super::App;
use crate::tui::model::plot::time_ns;
use crate::tui::model::plot::xy_raster::{self, XyKey, XyRaster};
use crate::tui::notify::Notify;
use crate::tui::layout::inner;
use crate::tui::xy_painter::{self, XyPainter, XyRequest};

/// The app's XY picture state.
#[derive(Debug, Default)]
pub struct XyView {
    /// Where pictures made in the background are reported (set by the event loop).
    notify: Option<Notify<Arc<XyRaster>>>,
    /// The painting thread, started on the first request.
    painter: Option<XyPainter>,
    /// The newest picture received.
    shown: Option<Arc<XyRaster>>,
    /// What was asked for last.
    asked: Option<XyKey>,
}

impl App {
    /// Where XY pictures made in the background are reported (the event loop's channel).
    pub fn set_xy_notify(&mut self, notify: Notify<Arc<XyRaster>>) {
        self.xy_view.notify = Some(notify);
    }

    /// What XY mode's picture must be made for now; `None` when the plot is not in XY mode.
    pub fn xy_wanted(&self) -> Option<XyKey> {
        if !self.plots.xy {
            return None;
        }
        let (v0, v1) = self.timeline.view();
        let area = inner(self.layout.plot);
        self.plots.xy_key(
            (time_ns(v0), time_ns(v1)),
            (area.width as usize, area.height as usize),
        )
    }

    /// The newest XY picture (possibly made for an earlier view or size: compare its key
    /// with [`App::xy_wanted`]).
    pub fn xy_raster(&self) -> Option<&XyRaster> {
        self.xy_view.shown.as_deref()
    }

    /// True while the picture shown is not the one the current view needs.
    pub fn xy_pending(&self) -> bool {
        self.xy_wanted().as_ref() != self.xy_view.shown.as_ref().map(|r| &r.key)
    }

    /// Asks for the picture the current state needs, when it is neither shown nor asked
    /// for (called after every change of state).
    pub(crate) fn sync_xy(&mut self) {
        let Some(key) = self.xy_wanted() else {
            self.xy_view.asked = None;
            return;
        };
        if self.xy_view.asked.as_ref() == Some(&key)
            || self.xy_view.shown.as_ref().map(|r| &r.key) == Some(&key)
        {
            return;
        }
        let Some((x, y)) = self
            .plots
            .xy_pair()
            .map(|(a, b)| (Arc::clone(&a.series), Arc::clone(&b.series)))
        else {
            return;
        };
        if self.xy_view.painter.is_none() {
            if let Some(notify) = self.xy_view.notify.clone() {
                match xy_painter::start(notify) {
                    Ok(p) => self.xy_view.painter = Some(p),
                    Err(e) => self.flash(format!("cannot start a thread to draw XY: {e}"), true),
                }
            }
        }
        match &self.xy_view.painter {
            Some(p) => p.request(XyRequest {
                x,
                y,
                key: key.clone(),
            }),
            None => self.xy_view.shown = Some(Arc::new(xy_raster::raster(&x, &y, key.clone()))),
        }
        self.xy_view.asked = Some(key);
    }

    /// A picture made in the background: shown from the next frame. Always redraws (the
    /// newest picture is better than the one shown even when the view moved on since).
    pub(crate) fn xy_news(&mut self, raster: Arc<XyRaster>) -> bool {
        self.xy_view.shown = Some(raster);
        true
    }
}
