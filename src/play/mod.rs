//! Playing bags into a live ROS1 graph through the native node ([`crate::ros`]).
//!
//! * [`Outlet`] — bag connections → publications, relocated under a namespace; the
//!   publishing API shared by `bagscope play`, the explorer and the bagserver.
//! * [`Player`] — the schedule: original timing scaled by a rate, pause/step/stop through a
//!   [`Control`] channel, `--loop`, `/clock` ([`ClockPublisher`]).
//! * [`play`] — one run of a player as `bagscope play` and the explorer's `p` do it: the
//!   player on the calling thread, its status sampled for a [`Watcher`] on another.
//! * [`Status`] — shared with whoever draws the `rosbag play`-style status line.
//! * [`Session`] — a node started and a selection advertised (and, at the end, everything
//!   unregistered): the setup `bagscope play` and the explorer's `p` share.
//! * [`bagserver`] — interval requests over a ROS service, answered from a persistent index
//!   (`bagscope serve`, `bagscope call`).

pub mod bagserver;
mod clock;
mod outlet;
mod player;
mod run;
mod schedule;
mod session;
mod status;

pub use clock::{CLOCK_TOPIC, ClockPublisher};
pub use outlet::{Outlet, STALL_ALLOWANCE};
pub use player::{Control, PlayOptions, Played, Player, Report};
pub use run::{Watcher, play, stop_on_shutdown_request};
pub use schedule::{Schedule, Wake, wait_until};
pub use session::{Session, StartError, namespace};
pub use status::{PlayState, Status, StatusSnapshot};
