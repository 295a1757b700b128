//! The views of the explorer: each view's state and how it is drawn. A view's file holds its
//! state struct (`topics`: [`topics::TopicsView`], `timeline`, `inspector`, `plot`, `log`,
//! `find` for the content search, `overlays` for what opens over the main view), its key
//! handling where it has its own (`handle`: [`handle::Handled`] and the effects the app
//! applies), and its `draw`, which reads the state with a [`ctx::DrawCtx`] and never changes
//! it. Drawing helpers: the pane block (`block`), the timeline's shared axis (`axis`), braille,
//! braille dots and half-blocks for pictures (`braille`, `dots`, `halfblock`).

pub mod axis;
pub mod block;
pub mod braille;
pub mod confirm;
pub mod ctx;
pub mod dots;
pub mod find;
pub mod halfblock;
pub mod handle;
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
pub mod plot_legend;
pub mod plot_xy;
pub mod status;
pub mod text_view;
pub mod timeline;
pub mod topics;
