//! One playback run, as `bagscope play` and the explorer's `p` both do it: the [`Player`]
//! plays on the calling thread (advancing the schedule and `/clock`, publishing, obeying
//! pause/step/stop), while a scoped `play-status` thread samples its shared [`Status`] every
//! period and hands each snapshot to a watcher (a status line redrawn, progress reported to
//! the app). A shutdown request from the graph (`rosnode kill`) stops the run like a stop
//! key does.

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::time::Duration;

use crate::catalog::{Catalog, Selection};
use crate::ros::Node;

use super::player::{Control, Player, Report};
use super::status::StatusSnapshot;

/// Who watches a run: called with the player's status at once, then every `period`, until
/// the player returns.
pub struct Watcher<'w> {
    /// How often the status is sampled.
    pub period: Duration,
    /// What is done with each sample.
    pub on_status: Box<dyn FnMut(&StatusSnapshot) + Send + 'w>,
}

/// Plays `selection` of `catalog` with `player`, controlled through `control`; `watcher`,
/// when given, samples the status meanwhile on its own thread. Returns how playback ended,
/// or, should the player panic, the panic (caught, so that the caller can still unregister
/// from the master and say so; `resume_unwind` passes it on).
pub fn play(
    player: &mut Player<'_>,
    catalog: &Catalog,
    selection: &Selection,
    control: &Receiver<Control>,
    watcher: Option<Watcher<'_>>,
) -> std::thread::Result<Report> {
    let status = std::sync::Arc::clone(&player.status);
    let mut run = || {
        std::panic::catch_unwind(AssertUnwindSafe(|| {
            player.run(catalog, selection, control, &mut |_| {})
        }))
    };
    let Some(mut watcher) = watcher else {
        return run();
    };
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let sampler = std::thread::Builder::new()
            .name("play-status".into())
            .spawn_scoped(scope, || {
                while !done.load(Ordering::SeqCst) {
                    (watcher.on_status)(&status.snapshot());
                    std::thread::park_timeout(watcher.period);
                }
            });
        // However the player returns, the sampler is told to end, so the scope can close.
        let _end = EndSampler {
            done: &done,
            sampler: sampler.as_ref().ok().map(|s| s.thread().clone()),
        };
        run()
    })
}

/// Tells the sampler thread to end (when dropped).
struct EndSampler<'a> {
    done: &'a AtomicBool,
    sampler: Option<std::thread::Thread>,
}

impl Drop for EndSampler<'_> {
    fn drop(&mut self) {
        self.done.store(true, Ordering::SeqCst);
        if let Some(t) = &self.sampler {
            t.unpark();
        }
    }
}

/// A shutdown request from the graph (`rosnode kill`) sends [`Control::Stop`] on `control`.
pub fn stop_on_shutdown_request(node: &Node, control: &Sender<Control>) {
    let control = control.clone();
    node.on_shutdown_request(move |_| {
        let _ = control.send(Control::Stop);
    });
}
