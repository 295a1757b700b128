//! UI-agnostic models: plain structs with unit tests, no terminal types. Panes render them.

pub mod diff;
pub mod health;
pub mod histogram;
pub mod inspector;
pub mod lanes;
pub mod log;
pub mod messages;
pub mod picture;
pub mod plot;
pub mod plots;
pub mod scan;
pub mod scroll;
pub mod search;
pub mod text_view;
pub mod timefmt;
pub mod timeline;
pub mod topic_filter;
pub mod topic_row;
pub mod topics;
