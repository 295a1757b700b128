//! bagscope: read, inspect, verify and convert ROS1 bag files of every version.
//!
//! Layers, the most basic first; each imports only from the layers listed before it
//! (`time, stats, ros → format, msg → bag → catalog, rockin → play → tui → cli`, checked by
//! `tests/integration/layering.rs`), and [`printable`] from anywhere:
//!
//! * [`time`] — ROS time and duration values; [`stats`] — the median rosbag uses; [`ros`] — a
//!   native ROS1 node (XML-RPC, master/slave APIs, TCPROS), independent of bags.
//! * [`format`](mod@format) — bytes → records (pure); [`msg`] — message definitions → decoded values
//!   (pure, independent of bags).
//! * [`bag`] — an open bag: index, recovery, time-ordered iteration.
//! * [`catalog`] — many bags as one merged timeline; [`rockin`] — RoCKIn YAML ↔ bag conversion.
//! * [`play`] — playing a catalog's messages into a ROS graph on their original schedule.
//! * [`tui`] — the terminal explorer.
//! * [`cli`] — the command-line subcommands.
//!
//! [`printable`] — text made safe for a terminal — is a leaf: it imports nothing from the crate.

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
