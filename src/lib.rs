//! bagscope: read, inspect, verify and convert ROS1 bag files of every version.
//!
//! Layers, each importing only from those above it:
//!
//! * [`time`] — ROS time and duration values; [`printable`] — text made safe for a terminal.
//! * [`format`] — bytes → records (pure).
//! * [`msg`] — message definitions → decoded values (pure, independent of bags).
//! * [`bag`] — an open bag: index, recovery, time-ordered iteration.
//! * [`catalog`] — many bags as one merged timeline.
//! * [`rockin`] — RoCKIn YAML ↔ bag conversion.
//! * [`ros`] — a native ROS1 node (XML-RPC, master/slave APIs, TCPROS), independent of bags.
//! * [`play`] — playing a catalog's messages into a ROS graph on their original schedule.
//! * [`cli`] — the command-line subcommands.

pub mod bag;
pub mod catalog;
pub mod cli;
pub mod format;
pub mod msg;
pub mod play;
pub mod printable;
pub mod rockin;
pub mod ros;
pub mod stats;
pub mod time;
pub mod tui;
