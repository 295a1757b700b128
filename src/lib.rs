//! bagscope: read, inspect, verify and convert ROS1 bag files of every version.
//!
//! Layers, the most basic first; each imports only from the layers listed before it
//! (`time, stats, ros → format, msg → bag, picture → catalog, rockin → play, sink → tui → cli`,
//! checked by `tests/integration/layering.rs`), and [`printable`] and [`wording`] from anywhere:
//!
//! * [`time`] — ROS time and duration values; [`stats`] — the median rosbag uses; [`ros`] — a
//!   native ROS1 node (XML-RPC, master/slave APIs, TCPROS), independent of bags.
//! * [`format`](mod@format) — bytes → records (pure); [`msg`] — message definitions → decoded values
//!   (pure, independent of bags).
//! * [`bag`] — an open bag: index, recovery, time-ordered iteration; [`picture`] — a decoded
//!   message → an RGB raster (camera and compressed images, occupancy grids, scans, clouds) or
//!   a PNG (pure, no UI, independent of bags).
//! * [`catalog`] — many bags as one merged timeline; [`rockin`] — RoCKIn YAML ↔ bag conversion.
//! * [`play`] — playing a catalog's messages into a ROS graph on their original schedule;
//!   [`sink`] — writing a catalog's messages into other formats (MCAP, Parquet).
//! * [`tui`] — the terminal explorer.
//! * [`cli`] — the command-line subcommands.
//!
//! [`printable`] — text made safe for a terminal — and [`wording`] — counts and signed numbers
//! as people read them (`1 message`, never `-0.0`) — are leaves: they import nothing from the
//! crate.

pub mod bag;
pub mod catalog;
pub mod cli;
pub mod format;
pub mod msg;
pub mod picture;
pub mod play;
pub mod printable;
pub mod rockin;
pub mod ros;
pub mod sink;
pub mod stats;
pub mod time;
pub mod tui;
pub mod wording;
