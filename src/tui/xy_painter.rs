//! XY mode's picture made in the background: one thread that makes the
//! [`XyRaster`] of the newest request (an older request not yet started is replaced, so
//! zooming through ten views makes at most two pictures) and reports it through a
//! [`Notify`]. Dropping the [`XyPainter`] stops the thread.

use std::sync::{Arc, Condvar, Mutex, PoisonError};

use super::model::plot::PlotSeries;
use super::model::plot::xy_raster::{self, XyKey, XyRaster};
use super::notify::Notify;

/// A picture to make: the two series (shared with the app, not copied) and what for.
#[derive(Debug)]
struct Request {
    x: Arc<PlotSeries>,
    y: Arc<PlotSeries>,
    key: XyKey,
}

/// The newest request not yet taken, and whether the painter was dropped.
#[derive(Debug, Default)]
struct Slot {
    next: Option<Request>,
    closed: bool,
}

#[derive(Debug, Default)]
struct Shared {
    slot: Mutex<Slot>,
    wake: Condvar,
}

/// The handle of the painting thread.
#[derive(Debug)]
pub struct XyPainter {
    shared: Arc<Shared>,
}

impl XyPainter {
    /// Starts the thread; pictures go to `notify`.
    pub fn start(notify: Notify<Arc<XyRaster>>) -> std::io::Result<XyPainter> {
        let shared = Arc::new(Shared::default());
        let theirs = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("xy-painter".into())
            .spawn(move || paint(&theirs, &notify))?;
        Ok(XyPainter { shared })
    }

    /// Asks for the picture of `x` against `y` for `key`, replacing a request not yet
    /// started.
    pub fn request(&self, x: Arc<PlotSeries>, y: Arc<PlotSeries>, key: XyKey) {
        let mut slot = self
            .shared
            .slot
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        slot.next = Some(Request { x, y, key });
        self.shared.wake.notify_one();
    }
}

impl Drop for XyPainter {
    fn drop(&mut self) {
        let mut slot = self
            .shared
            .slot
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        slot.closed = true;
        slot.next = None;
        self.shared.wake.notify_one();
    }
}

/// The thread: takes the newest request, makes its picture, reports it; until dropped or
/// nobody listens.
fn paint(shared: &Shared, notify: &Notify<Arc<XyRaster>>) {
    loop {
        let request = {
            let mut slot = shared.slot.lock().unwrap_or_else(PoisonError::into_inner);
            loop {
                if slot.closed {
                    return;
                }
                if let Some(r) = slot.next.take() {
                    break r;
                }
                slot = shared
                    .wake
                    .wait(slot)
                    .unwrap_or_else(PoisonError::into_inner);
            }
        };
        let raster = xy_raster::raster(&request.x, &request.y, request.key);
        if !notify.send(Arc::new(raster)) {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::series::Column;
    use std::time::Duration;

    #[test]
    fn paints_the_newest_request() {
        let (tx, rx) = std::sync::mpsc::channel();
        let painter = XyPainter::start(Notify::from(tx)).unwrap();
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
            painter.request(Arc::clone(&s), Arc::clone(&s), key(w));
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
        drop(painter);
        // Dropped: the thread ends and nothing more arrives.
        assert!(rx.recv_timeout(Duration::from_secs(10)).is_err());
    }
}
