//! What steers and stops the long-running ROS commands (`play`, `serve`): signals, a shutdown
//! request from the graph (`rosnode kill`), the master lost, and, for `play` on a terminal,
//! keys read in raw mode. Each becomes a [`Control`] on one channel.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Duration;

use crate::play::{Control, stop_on_shutdown_request};
use crate::ros::Node;

/// The controls of a running command, and whether the master was lost.
pub(super) struct Stops {
    /// Where every [`Control`] arrives.
    pub rx: Receiver<Control>,
    master_lost: Arc<AtomicBool>,
}

impl Stops {
    /// Forwards SIGINT/SIGTERM/SIGHUP and `node`'s shutdown requests as [`Control::Stop`],
    /// and checks the master every `check`: after `misses` failures in a row, `on_lost` is
    /// called with what failed and the command is stopped. Also returns a sender for more
    /// controls (keys); drop it when there are none.
    pub fn watch(
        node: &Node,
        check: Duration,
        misses: u32,
        on_lost: impl FnOnce(&str) + Send + 'static,
    ) -> (Stops, Sender<Control>) {
        let (tx, rx) = mpsc::channel::<Control>();
        forward_signals(tx.clone());
        stop_on_shutdown_request(node, &tx);
        let master_lost = Arc::new(AtomicBool::new(false));
        {
            let (tx, lost) = (tx.clone(), Arc::clone(&master_lost));
            node.watch_master(check, misses, move |why| {
                on_lost(why);
                lost.store(true, Ordering::SeqCst);
                let _ = tx.send(Control::Stop);
            });
        }
        (Stops { rx, master_lost }, tx)
    }

    /// True once the master was taken as lost.
    pub fn master_lost(&self) -> bool {
        self.master_lost.load(Ordering::SeqCst)
    }

    /// Waits for [`Control::Stop`] (other controls are ignored) or for every sender to go.
    pub fn wait_for_stop(&self) {
        loop {
            match self.rx.recv() {
                Ok(Control::Stop) | Err(_) => return,
                Ok(_) => {}
            }
        }
    }
}

/// Forwards SIGINT/SIGTERM/SIGHUP as [`Control::Stop`].
fn forward_signals(tx: Sender<Control>) {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        if let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
            let _ = std::thread::Builder::new()
                .name("play-signals".into())
                .spawn(move || {
                    for _ in signals.forever() {
                        if tx.send(Control::Stop).is_err() {
                            break;
                        }
                    }
                });
        }
    }
    #[cfg(not(unix))]
    drop(tx);
}

/// Takes the terminal's keys (raw mode) for as long as it lives.
pub(super) struct RawMode;

impl RawMode {
    /// Raw mode, when the terminal allows it.
    pub fn enter() -> Option<RawMode> {
        crossterm::terminal::enable_raw_mode()
            .ok()
            .map(|()| RawMode)
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        let _ = crossterm::terminal::disable_raw_mode();
    }
}

/// Turns keys into controls: space, `s`, Ctrl-C (raw mode has no SIGINT) and `q`.
pub(super) fn forward_keys(tx: Sender<Control>) {
    use crossterm::event::{Event, KeyCode, KeyEventKind, KeyModifiers, read};
    let _ = std::thread::Builder::new()
        .name("play-keys".into())
        .spawn(move || {
            while let Ok(ev) = read() {
                let Event::Key(k) = ev else { continue };
                if k.kind == KeyEventKind::Release {
                    continue;
                }
                let c = match k.code {
                    KeyCode::Char(' ') => Control::TogglePause,
                    KeyCode::Char('s') => Control::Step,
                    KeyCode::Char('c') if k.modifiers.contains(KeyModifiers::CONTROL) => {
                        Control::Stop
                    }
                    KeyCode::Char('q') => Control::Stop,
                    _ => continue,
                };
                if tx.send(c).is_err() {
                    break;
                }
            }
        });
}
