//! The explorer's state without a terminal: what each pane shows — the topic list and its
//! filter, the time axis, the histogram and lanes, the message list, the inspector's tree and
//! the fields that differ from a marked message, the plots (envelopes, axes, XY pictures), the
//! health and log views, the content search, the text overlay, the picture preview, a running
//! scan's progress, playback — as plain data, with the computations behind it. The views
//! (`tui/view/`) own and draw it; no ratatui widget or buffer is used here, so most files
//! carry unit tests that need no terminal. Two exceptions to plain data: the picture preview
//! holds pictures already encoded for the terminal's graphics protocol (`tui::term::graphics`), and
//! the topic filter scores names on every core and, from 20 000 topics, on a thread of its own
//! ([`topic_filter`]).

pub mod diff;
pub mod error_ticks;
pub mod health;
pub mod health_mcap;
pub mod histogram;
pub mod inspector;
pub mod lanes;
pub mod log;
pub mod log_nodes;
pub mod messages;
pub mod picture;
pub mod play;
pub mod plot;
pub mod plots;
pub mod publish_plan;
pub mod scan;
pub mod scroll;
pub mod search;
pub mod session_log;
pub mod text_view;
pub mod thumbs;
pub mod timefmt;
pub mod timeline;
pub mod topic_filter;
#[cfg(test)]
mod topic_filter_tests;
pub mod topic_row;
pub mod topics;
