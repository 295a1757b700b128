//! `E`: the marked interval written to a new bag, on the export thread. Exports queue apart
//! from the interactive requests, so writing a large interval never delays decoding the
//! message the user looks at; the newest export request wins.

use std::sync::mpsc::Receiver;

use crate::catalog::Catalog;
use crate::time::RosTime;

use super::super::notify::Notify;
use super::Reply;
use super::pending::RequestId;

/// Write every message of an interval to a new bag.
#[derive(Clone, Debug)]
pub struct ExportRequest {
    /// Request id.
    pub id: RequestId,
    /// The interval.
    pub start: RosTime,
    /// See `start`.
    pub end: RosTime,
    /// The topics to write (all when empty).
    pub topics: Vec<String>,
    /// The bag to write.
    pub path: std::path::PathBuf,
}

/// The export thread: serves the newest queued request with `exporter` ([`write`], or a
/// stand-in in tests), one at a time, until the channel closes (the app is gone) or nobody
/// listens any more.
pub(super) fn export_loop(
    catalog: &Catalog,
    rx: &Receiver<ExportRequest>,
    notify: &Notify<Reply>,
    exporter: impl Fn(&Catalog, ExportRequest) -> Reply,
) {
    while let Ok(mut request) = rx.recv() {
        while let Ok(newer) = rx.try_recv() {
            request = newer;
        }
        if !notify.send(exporter(catalog, request)) {
            return;
        }
    }
}

/// Writes the interval; the reply says what was written (or why not).
pub fn write(catalog: &Catalog, request: ExportRequest) -> Reply {
    let ExportRequest {
        id,
        start,
        end,
        topics,
        path,
    } = request;
    let selection = crate::catalog::Selection {
        topics,
        start: Some(start),
        end: Some(end),
        parallel: true,
    };
    // Messages that could not be read, counted as `verify` counts them.
    let lost = std::cell::Cell::new(0u64);
    let messages = catalog.messages(&selection).map(|m| {
        m.map(|m| (m.bag, m.message)).map_err(|e| {
            lost.set(lost.get() + e.lost_messages());
            e.to_string()
        })
    });
    let options = crate::bag::writer::WriterOptions {
        compression: crate::format::Compression::Lz4,
        ..crate::bag::writer::WriterOptions::default()
    };
    let result = crate::catalog::export::write_bag(catalog, messages, &path, options, &[])
        .map(|done| {
            let skipped = if done.skipped.is_empty() {
                String::new()
            } else {
                format!(
                    " ({} skipped)",
                    crate::wording::count_of(
                        lost.get(),
                        "unreadable message",
                        "unreadable messages"
                    )
                )
            };
            format!(
                "wrote {}: {}{skipped}",
                path.display(),
                crate::wording::count(done.summary.messages, "message")
            )
        })
        .map_err(|e| e.to_string());
    Reply::Exported { id, result }
}
