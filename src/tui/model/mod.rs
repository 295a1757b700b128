//! UI-agnostic models: plain structs with unit tests, no terminal types. Panes render them.

pub mod health;
pub mod histogram;
pub mod inspector;
pub mod messages;
pub mod picture;
pub mod plot;
pub mod plots;
pub mod scroll;
pub mod timefmt;
pub mod timeline;
pub mod topic_filter;
pub mod topic_row;
pub mod topics;
