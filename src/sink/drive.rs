//! The driver: the selected messages of a catalog, in receive-time order, into a sink.

use crate::bag::Unread;
use crate::bag::rewrite::Progress;
use crate::catalog::{Catalog, Selection};

use super::{Finished, MessageSink, SinkError, SinkMessage};

/// Which messages a sink gets beyond the selection (topics, time range): `true` keeps the
/// message. This is the hook for the content filter (`--where EXPR`): the command passes a
/// predicate that decodes the message and evaluates the expression; without one every
/// selected message is written.
pub type Predicate<'p> = dyn FnMut(&SinkMessage<'_>) -> bool + 'p;

/// What a run of [`drive`] did.
#[derive(Debug, Default)]
pub struct Driven {
    /// Messages handed to the sink.
    pub written: u64,
    /// Messages the predicate left out.
    pub left_out: u64,
    /// Messages that could not be read (damaged chunks), by error.
    pub unread: Unread,
    /// What the sink wrote and left out.
    pub finished: Finished,
}

/// Writes the messages of `catalog` that `selection` and `keep` accept into `sink`, in
/// receive-time order, calling `progress` after each; completes the sink at the end. On an
/// error the sink is dropped unfinished, which removes its temporary files.
pub fn drive(
    catalog: &Catalog,
    selection: &Selection,
    mut sink: Box<dyn MessageSink + '_>,
    keep: Option<&mut Predicate<'_>>,
    progress: &mut dyn FnMut(Progress),
) -> Result<Driven, SinkError> {
    let mut keep = keep;
    let mut driven = Driven::default();
    for item in catalog.messages(selection) {
        let m = match item {
            Ok(m) => m,
            Err(e) => {
                driven.unread.note(e);
                continue;
            }
        };
        let Some(bag) = catalog.bag(m.bag) else {
            continue;
        };
        let Some(conn) = bag.connection(m.message.entry.conn) else {
            continue;
        };
        let message = SinkMessage {
            bag: m.bag,
            bag_path: bag.path(),
            bag_start: bag.start_time(),
            conn,
            time: m.message.entry.time,
            data: &m.message.data,
            mcap: bag.mcap(),
        };
        if let Some(keep) = keep.as_deref_mut() {
            if !keep(&message) {
                driven.left_out += 1;
                continue;
            }
        }
        sink.write(&message)?;
        driven.written += 1;
        progress(Progress {
            time: message.time,
            messages: driven.written,
        });
    }
    driven.finished = sink.finish()?;
    Ok(driven)
}
