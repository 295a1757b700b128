//! XY mode's picture made in the background: a newest-wins [`Job`] that makes the
//! [`XyRaster`] of the newest request and reports it through a [`Notify`].

use std::sync::Arc;

use super::super::model::plot::PlotSeries;
use super::super::model::plot::xy_raster::{self, XyKey, XyRaster};
use super::job::Job;
use super::notify::Notify;

/// A picture to make: the two series (shared with the app, not copied) and what for.
#[derive(Debug)]
pub struct XyRequest {
    /// The x series.
    pub x: Arc<PlotSeries>,
    /// The y series.
    pub y: Arc<PlotSeries>,
    /// What the picture is for.
    pub key: XyKey,
}

/// The painting thread's handle; dropping it stops the thread.
pub type XyPainter = Job<Arc<XyRaster>, XyRequest>;

/// Starts the painting thread; pictures go to `notify`.
pub fn start(notify: Notify<Arc<XyRaster>>) -> std::io::Result<XyPainter> {
    Job::latest(
        "xy-painter",
        |r: XyRequest| Arc::new(xy_raster::raster(&r.x, &r.y, r.key)),
        notify,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::series::Column;
    use std::time::Duration;

    #[test]
    fn paints_the_newest_request() {
        let (tx, rx) = std::sync::mpsc::channel();
        let painter = start(Notify::from(tx)).unwrap();
        let s = Arc::new(PlotSeries::new(Column {
            times: vec![0, 1, 2],
            values: vec![0.0, 1.0, 4.0],
        }));
        let key = |w| XyKey {
            x: ("x".into(), 3),
            y: ("y".into(), 3),
            range: (0, 2),
            inner: (w, 10),
        };
        for w in [20, 30, 40] {
            painter.request(XyRequest {
                x: Arc::clone(&s),
                y: Arc::clone(&s),
                key: key(w),
            });
        }
        // The last request is always painted (the earlier ones may be skipped).
        let mut last = None;
        while let Ok(r) = rx.recv_timeout(Duration::from_secs(10)) {
            let done = r.key == key(40);
            last = Some(r);
            if done {
                break;
            }
        }
        let last = last.unwrap();
        assert_eq!(last.key, key(40));
        assert_eq!(last.points, 3);
    }
}
