//! The bagserver: random access into many bags through a ROS service, in the spirit of ROS's
//! `bagserver` package. A [`Bagserver`] holds a persistent index
//! ([`crate::catalog::index`]), advertises every indexed topic under a namespace and provides
//! the service `NS/play_interval` ([`srv`]: `bagscope_msgs/PlayInterval`); each request
//! publishes the indexed messages of an interval through an [`Outlet`](super::Outlet) and the
//! [`Player`](super::Player). See `docs/bagserver.md`.

mod error;
mod server;
pub mod srv;
mod turns;

pub use error::BagserverError;
pub use server::{Bagserver, MIN_RATE, PREEMPT_FIELD, ServeOptions};
pub use srv::{PlayIntervalRequest, PlayIntervalResponse, WireError};
