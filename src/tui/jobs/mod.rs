//! Every background thread of the explorer, and how they report. The threads know only their
//! own news type and hand it to a [`Notify`](notify::Notify), which the event loop wraps into
//! its events (`term::event`); a running piece of work is a [`Job`](job::Job): it has an id,
//! runs on a named thread, stops when its handle is dropped and, where only the newest
//! request matters, skips the requests it was too slow for.
//!
//! - [`job`]: the one job type, and [`detach`](job::detach) for threads nobody waits for;
//!   [`notify`]: where news go; [`gate`]: work that waits for the explorer's first frame.
//! - [`worker`]: message windows, sizes, decoding, YAML, pictures, exports and the health scan
//!   (two long-lived threads fed by channels, the newest request of each kind winning; the
//!   health scan a detached one).
//! - [`opening`]: opening the bags (and the chunks by time after a scan); [`bag_dirs`]: the
//!   ROS 2 bag directories among them (their storage files, what their metadata contradicts).
//! - [`live`]: following a growing recording (and its health refreshes).
//! - [`publish`]: `p`, publishing into a ROS graph (its handle asks the player to stop, which
//!   then flushes and unregisters before its last report).
//! - [`plotter`]: plot series; [`xy_painter`]: XY mode's picture (the topics' bandwidth over
//!   the visible window is a newest-wins [`Job`](job::Job) of `app/view_bandwidth.rs`).
//! - [`searcher`]: the content search; [`logger`]: the log lines; [`topic_filter`]: the topic
//!   filter over very many rows, scored in parts ([`parallel`]).
//! - [`thumbnailer`]: the lanes' camera thumbnails (newest-wins, cached); [`error_ticks`]: the
//!   lanes' ERROR/FATAL ticks; [`lanes`]: what the app holds of both.
//! - [`signals`]: SIGINT, SIGTERM and SIGHUP as events.

pub mod bag_dirs;
pub mod error_ticks;
pub mod gate;
pub mod job;
pub mod lanes;
pub mod live;
pub mod logger;
pub mod notify;
pub mod opening;
pub mod parallel;
pub mod plotter;
pub mod publish;
pub mod searcher;
pub mod signals;
pub mod thumbnailer;
pub mod topic_filter;
pub mod worker;
pub mod xy_painter;
