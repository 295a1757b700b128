//! The picture preview on the worker: reads and decodes the message (as the inspector does),
//! then draws it scaled to the pane (`picture::decode`). Like every interactive request, only
//! the newest one queued is served, so stepping through large frames never builds a backlog.

use super::decode::Decoder;
use crate::catalog::{Catalog, MsgRef};
use crate::picture::{Fit, Picture};

/// Draws `msg` scaled to `fit`, or says why it cannot be drawn.
pub fn draw(
    catalog: &Catalog,
    decoder: &mut Decoder,
    msg: MsgRef,
    fit: Fit,
) -> Result<Picture, String> {
    let ins = decoder.inspect(catalog, msg);
    let value = ins.value?;
    crate::picture::decode(&ins.datatype, value.root(), fit).map_err(|e| e.to_string())
}
