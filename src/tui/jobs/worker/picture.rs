//! The picture preview on the worker: reads and decodes the message (as the inspector does),
//! then draws it scaled to the pane (`picture::decode`) and, for a terminal with a graphics
//! protocol, encodes it for that protocol. Like every interactive request, only the newest one
//! queued is served, so stepping through large frames never builds a backlog.

use super::decode::Decoder;
use crate::catalog::{Catalog, MsgRef};
use crate::picture::{Fit, Picture};
use crate::tui::term::graphics::{Graphic, Graphics};

/// Draws `msg` scaled to `fit`, or says why it cannot be drawn; with `encode`, also encodes
/// the picture for that protocol in at most that many cells.
pub fn draw(
    catalog: &Catalog,
    decoder: &mut Decoder,
    msg: MsgRef,
    fit: Fit,
    encode: Option<&(Graphics, u16, u16)>,
) -> (Result<Picture, String>, Option<Graphic>) {
    let ins = decoder.inspect(catalog, msg);
    let picture = ins.value.and_then(|value| {
        crate::picture::decode(&ins.datatype, value.root(), fit).map_err(|e| e.to_string())
    });
    match (picture, encode) {
        (Ok(p), Some((graphics, cols, rows))) => match graphics.encode(&p.raster, *cols, *rows) {
            Ok(g) => (Ok(p), Some(g)),
            Err(e) => (Err(e), None),
        },
        (result, _) => (result, None),
    }
}
