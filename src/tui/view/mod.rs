//! The views of the explorer and how each is drawn: one file per pane, overlay or drawing
//! helper. Drawing reads the state and never changes it.

pub mod axis;
pub mod block;
pub mod braille;
pub mod confirm;
pub mod ctx;
pub mod dots;
pub mod find;
pub mod halfblock;
pub mod health;
pub mod help;
pub mod histogram;
pub mod inspector;
pub mod lanes;
pub mod log;
pub mod messages;
pub mod opening;
pub mod overlays;
pub mod picture;
pub mod plot;
pub mod plot_xy;
pub mod status;
pub mod text_view;
pub mod timeline;
pub mod topics;
