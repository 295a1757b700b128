//! The worker's threads: a decode is answered while an export is under way, and the threads
//! end cleanly when the app goes away.

use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Duration;

use super::*;
use crate::bag::{Bag, OpenOptions};

const WAIT: Duration = Duration::from_secs(20);

fn demo() -> Catalog {
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.bag")).unwrap();
    Catalog::new(vec![
        Bag::from_bytes("demo.bag", bytes, OpenOptions::default()).unwrap(),
    ])
}

/// The first message of the first topic.
fn first_message(catalog: &Catalog) -> MsgRef {
    let topic = catalog.topics().into_iter().next().unwrap();
    let start = catalog.start_time().unwrap();
    let window = catalog.window(&topic.connections, start, 0, 1);
    *window.entries.first().unwrap()
}

fn export_request(id: u64) -> Request {
    Request::Export(ExportRequest {
        id: RequestId(id),
        start: RosTime::MIN,
        end: RosTime::MAX,
        topics: Vec::new(),
        path: std::path::PathBuf::from("never-written.bag"),
    })
}

/// An export that takes as long as the test wants: it says when it starts and finishes
/// when released.
fn slow_exporter(
    started: Sender<RequestId>,
    release: Receiver<()>,
) -> impl Fn(&Catalog, ExportRequest) -> Reply + Send + 'static {
    move |_, request| {
        let _ = started.send(request.id);
        let _ = release.recv_timeout(WAIT);
        Reply::Exported {
            id: request.id,
            result: Ok("stand-in".into()),
        }
    }
}

/// A worker whose exports wait for the test, and the test's ends of its channels.
struct Slow {
    worker: Worker,
    /// Each export says here when it starts.
    started: Receiver<RequestId>,
    /// Each send lets one export finish.
    release: Sender<()>,
    /// The worker's replies.
    replies: Receiver<Reply>,
}

impl Slow {
    fn start(catalog: Catalog) -> Slow {
        let (started_tx, started) = mpsc::channel();
        let (release, release_rx) = mpsc::channel();
        let (replies_tx, replies) = mpsc::channel();
        let worker = Worker::serving(
            catalog,
            crate::msg::Registry::bundled(),
            Notify::from(replies_tx),
            slow_exporter(started_tx, release_rx),
        );
        Slow {
            worker,
            started,
            release,
            replies,
        }
    }

    /// Queues export `id` and waits until it runs.
    fn begin_export(&self, id: u64) {
        self.worker.send(export_request(id));
        assert_eq!(self.started.recv_timeout(WAIT), Ok(RequestId(id)));
    }
}

/// Closes the channels and waits for the interactive and export threads: true when every
/// one ended without a panic.
fn shut_down(mut worker: Worker) -> bool {
    worker.tx = None;
    worker.export = None;
    std::mem::take(&mut worker.threads)
        .into_iter()
        .all(|t| t.join().is_ok())
}

#[test]
fn a_decode_is_answered_while_an_export_runs() {
    let catalog = demo();
    let msg = first_message(&catalog);
    let Slow {
        worker,
        started,
        release,
        replies,
    } = Slow::start(catalog);
    worker.send(export_request(1));
    assert_eq!(
        started.recv_timeout(WAIT),
        Ok(RequestId(1)),
        "export under way"
    );
    worker.send(Request::Decode {
        id: RequestId(2),
        msg,
    });
    match replies.recv_timeout(WAIT).unwrap() {
        Reply::Decoded { id, msg: m, result } => {
            assert_eq!(id, RequestId(2));
            assert_eq!(m, msg);
            assert!(result.value.is_ok(), "{:?}", result.value.err());
        }
        other => panic!("the decode must come first, got {other:?}"),
    }
    release.send(()).unwrap();
    match replies.recv_timeout(WAIT).unwrap() {
        Reply::Exported { id, result } => {
            assert_eq!(id, RequestId(1));
            assert_eq!(result.as_deref(), Ok("stand-in"));
        }
        other => panic!("expected the export's reply, got {other:?}"),
    }
    assert!(shut_down(worker), "threads end cleanly");
}

#[test]
fn the_newest_queued_export_wins() {
    let slow = Slow::start(demo());
    slow.begin_export(1);
    // Queued behind the running one: only the newest is done next.
    slow.worker.send(export_request(2));
    slow.worker.send(export_request(3));
    slow.release.send(()).unwrap();
    slow.release.send(()).unwrap();
    assert_eq!(slow.started.recv_timeout(WAIT), Ok(RequestId(3)));
    let ids: Vec<RequestId> = (0..2)
        .map(|_| match slow.replies.recv_timeout(WAIT).unwrap() {
            Reply::Exported { id, .. } => id,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(ids, [RequestId(1), RequestId(3)]);
    assert!(shut_down(slow.worker));
}

#[test]
fn quitting_during_an_export_ends_its_thread_without_a_panic() {
    let slow = Slow::start(demo());
    slow.begin_export(1);
    // The app goes away while the export runs: its reply has nowhere to go.
    drop(slow.replies);
    slow.release.send(()).unwrap();
    assert!(shut_down(slow.worker), "no panic on the closed channel");
}

#[test]
fn a_manual_worker_queues_exports_with_the_rest() {
    let (worker, requests) = Worker::manual();
    worker.send(export_request(7));
    assert!(matches!(
        requests.try_recv(),
        Ok(Request::Export(ExportRequest {
            id: RequestId(7),
            ..
        }))
    ));
}
