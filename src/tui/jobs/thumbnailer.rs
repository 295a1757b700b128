//! The lanes' camera thumbnails made in the background: a newest-wins [`Job`] that, for each
//! slot of the newest request, finds the message nearest the slot's middle with the catalog's
//! lookup by time (index data of the chunks around it only: never a scan of the topic), reads
//! and decodes it downscaled to the slot ([`picture::decode`](crate::picture::decode)), and
//! reports each slot as it is done. Decoded frames are kept in a [`ThumbCache`] (bounded in
//! bytes) on the thread, so panning back costs lookups only. A newer request stops the one
//! being served at its next slot (the generation it carries is no longer the current one).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::job::Job;
use super::notify::Notify;
use crate::catalog::{BagConn, Catalog, MsgRef, Schemas};
use crate::msg::Registry;
use crate::picture::Fit;
use crate::time::RosTime;
use crate::tui::model::thumbs::{Shown, Thumb, ThumbCache};

/// The slots of one lane to fill.
#[derive(Clone, Debug, PartialEq)]
pub struct LaneAsk {
    /// The lane's topic.
    pub topic: String,
    /// Its connections.
    pub connections: Vec<BagConn>,
    /// The size frames are downscaled to.
    pub fit: Fit,
    /// The slots asked for: index on the lane and times `from..to`.
    pub slots: Vec<(usize, (RosTime, RosTime))>,
}

/// Frames for the lanes on screen.
#[derive(Debug)]
pub struct ThumbRequest {
    /// Which request (a newer one stops this one).
    pub generation: u64,
    /// The catalog as it was when asked.
    pub catalog: Catalog,
    /// The lanes.
    pub lanes: Vec<LaneAsk>,
}

/// What the thumbnail thread reports.
#[derive(Debug)]
pub enum ThumbNews {
    /// A slot is done.
    Slot {
        /// The request's generation.
        generation: u64,
        /// The lane's topic.
        topic: String,
        /// The slot's index on the lane.
        slot: usize,
        /// What it shows.
        shown: Shown,
    },
    /// The request is done (or was given up for a newer one).
    Done {
        /// The request's generation.
        generation: u64,
    },
}

/// The thumbnail thread's handle; dropping it stops the thread.
pub type Thumbnailer = Job<ThumbNews, ThumbRequest>;

/// Starts the thumbnail thread: `current` is the newest generation asked for (the thread
/// stops serving an older one at its next slot); each slot and the end of each request go to
/// `notify`.
pub fn start(
    registry: Registry,
    current: Arc<AtomicU64>,
    notify: Notify<ThumbNews>,
) -> std::io::Result<Thumbnailer> {
    let mut frames = Frames::new(registry);
    let out = notify.clone();
    Job::latest(
        "thumbnails",
        move |r: ThumbRequest| {
            frames.serve(
                &r,
                || current.load(Ordering::Relaxed) != r.generation,
                |news| out.send(news),
            );
            ThumbNews::Done {
                generation: r.generation,
            }
        },
        notify,
    )
}

/// Finds, decodes and keeps frames: the work of the thumbnail thread (also done inline when
/// the app runs without background threads).
#[derive(Debug)]
pub struct Frames {
    cache: ThumbCache,
    schemas: Schemas,
}

impl Frames {
    /// No frame yet; definitions from `registry` where bags carry none.
    pub fn new(registry: Registry) -> Frames {
        Frames::with_cache(registry, ThumbCache::default())
    }

    /// [`Frames::new`] with a given cache (its budget).
    pub fn with_cache(registry: Registry, cache: ThumbCache) -> Frames {
        Frames {
            cache,
            schemas: Schemas::new(registry),
        }
    }

    /// The cache of decoded frames.
    pub fn cache(&self) -> &ThumbCache {
        &self.cache
    }

    /// Serves `request` slot by slot, handing each to `send` (which returns false when
    /// nobody listens); stops early once `stale` says a newer request came.
    pub fn serve(
        &mut self,
        request: &ThumbRequest,
        stale: impl Fn() -> bool,
        mut send: impl FnMut(ThumbNews) -> bool,
    ) {
        for lane in &request.lanes {
            for &(slot, span) in &lane.slots {
                if stale() {
                    return;
                }
                let shown = self.shown(&request.catalog, lane, span);
                let news = ThumbNews::Slot {
                    generation: request.generation,
                    topic: lane.topic.clone(),
                    slot,
                    shown,
                };
                if !send(news) {
                    return;
                }
            }
        }
    }

    /// What a slot over `span` of `lane` shows: the frame nearest its middle, when one lies
    /// inside it.
    pub fn shown(&mut self, catalog: &Catalog, lane: &LaneAsk, span: (RosTime, RosTime)) -> Shown {
        let Some(msg) = nearest(catalog, &lane.connections, span) else {
            return Shown::Empty;
        };
        let thumb = if let Some(t) = self.cache.get(msg, lane.fit) {
            t
        } else {
            let t = self.draw(catalog, msg, lane.fit);
            self.cache.put(msg, lane.fit, t.clone());
            t
        };
        match thumb {
            Ok(raster) => Shown::Frame {
                time: msg.entry.time,
                raster,
            },
            Err(why) => Shown::Failed(why),
        }
    }

    /// Reads `msg` and draws it downscaled to `fit`.
    fn draw(&mut self, catalog: &Catalog, msg: MsgRef, fit: Fit) -> Thumb {
        let bag = catalog.bag(msg.bag).ok_or("the bag is gone")?;
        let conn = bag.connection(msg.entry.conn).ok_or("no such connection")?;
        let schema = self
            .schemas
            .get(msg.bag, conn)
            .schema
            .clone()
            .map_err(|e| e.to_string())?;
        let message = bag.read(&msg.entry).map_err(|e| e.to_string())?;
        let decoded = crate::msg::decode(&schema, &message.data).map_err(|e| e.to_string())?;
        let picture = crate::picture::decode(&conn.datatype, decoded.root(), fit)
            .map_err(|e| e.to_string())?;
        Ok(Arc::new(picture.raster))
    }
}

/// The message of `connections` nearest the middle of `span` and inside it (the catalog's
/// message window around that time, one message each side).
pub fn nearest(
    catalog: &Catalog,
    connections: &[BagConn],
    span: (RosTime, RosTime),
) -> Option<MsgRef> {
    let center = span.0.saturating_add_nanos(span.1.nanos_since(span.0) / 2);
    let window = catalog.window(connections, center, 1, 1);
    window
        .entries
        .into_iter()
        .filter(|m| m.entry.time >= span.0 && m.entry.time < span.1)
        .min_by_key(|m| m.entry.time.nanos_since(center).abs())
}
