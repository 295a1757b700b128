//! bagscope: read, inspect, verify and convert ROS1 bag files of every version.
//!
//! Layers, each importing only from those above it:
//!
//! * [`time`] — ROS time and duration values.
//! * [`format`] — bytes → records (pure).
//! * [`msg`] — message definitions → decoded values (pure, independent of bags).
//! * [`bag`] — an open bag: index, recovery, time-ordered iteration.
//! * [`catalog`] — many bags as one merged timeline.
//! * [`rockin`] — RoCKIn YAML ↔ bag conversion.
//! * [`cli`] — the command-line subcommands.

pub mod bag;
pub mod catalog;
pub mod cli;
pub mod format;
pub mod msg;
pub mod rockin;
pub mod stats;
pub mod time;
pub mod tui;
