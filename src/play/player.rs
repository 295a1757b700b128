//! The playback loop: messages of a selection published on their original schedule (scaled
//! by the rate), with pause, step, stop, `--loop` and `/clock`.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, sync_channel};
use std::time::{Duration, Instant};

use crate::bag::{BagError, Connection};
use crate::catalog::{Catalog, CatalogMessage, Selection};
use crate::time::RosTime;

use super::clock::ClockPublisher;
use super::outlet::Outlet;
use super::schedule::{Schedule, Wake, wait_until};
use super::status::{PlayState, Status};

/// Messages read ahead of the schedule by the reader thread.
const READ_AHEAD: usize = 1024;

/// How to play.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayOptions {
    /// Speed factor (2.0: twice as fast). Must be positive.
    pub rate: f64,
    /// Start again at the end, until stopped.
    pub looping: bool,
    /// Publish `/clock` at this frequency (and at every message) when set.
    pub clock_hz: Option<f64>,
    /// Wait this long after advertising before the first message (`rosbag play -d`).
    pub delay: Duration,
    /// Then wait at most this long for the subscribers the master reported when the topics
    /// were advertised to connect.
    pub subscriber_wait: Duration,
    /// Begin paused.
    pub start_paused: bool,
    /// The last stretch before each message spent yielding instead of sleeping.
    pub spin: Duration,
    /// Skip stretches of bag time longer than this without messages: the message after one
    /// is due right after the one before (`rosbag play --skip-empty`).
    pub skip_empty: Option<Duration>,
}

impl Default for PlayOptions {
    fn default() -> Self {
        PlayOptions {
            rate: 1.0,
            looping: false,
            clock_hz: None,
            delay: Duration::from_millis(200),
            subscriber_wait: Duration::from_secs(3),
            start_paused: false,
            spin: Duration::from_millis(1),
            skip_empty: None,
        }
    }
}

/// What the user (or a signal) asks of a running player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// Pause, or resume when paused.
    TogglePause,
    /// While paused: publish the next message now and stay paused.
    Step,
    /// Stop playing.
    Stop,
}

/// One message sent: when it was due and when it was handed to the subscribers' queues.
#[derive(Clone, Copy, Debug)]
pub struct Played {
    /// Position in the playback (0-based, across loops).
    pub index: u64,
    /// Its bag time.
    pub time: RosTime,
    /// When the schedule wanted it.
    pub due: Instant,
    /// When it was queued for every subscriber.
    pub sent: Instant,
}

/// How playback ended.
#[derive(Debug, Default)]
pub struct Report {
    /// Messages published.
    pub published: u64,
    /// Messages not published (their topic is held by another type or was not advertised).
    pub skipped: u64,
    /// Messages that could not be read.
    pub read_errors: Vec<BagError>,
    /// Messages that could not be published.
    pub publish_errors: Vec<String>,
    /// Stopped before the end.
    pub stopped: bool,
    /// Complete passes over the selection.
    pub loops: u64,
}

enum Next {
    Publish,
    Stop,
}

struct Pause {
    paused: bool,
    since: Instant,
}

/// Plays selections through an [`Outlet`].
pub struct Player<'a> {
    /// Where messages go.
    pub outlet: &'a mut Outlet,
    /// `/clock`, when published.
    pub clock: Option<ClockPublisher>,
    /// How to play.
    pub options: PlayOptions,
    /// Shared with the status line.
    pub status: Arc<Status>,
}

/// Reads the selection on a thread, ahead of the schedule.
fn read_ahead(
    catalog: &Catalog,
    selection: &Selection,
) -> Receiver<Result<CatalogMessage, BagError>> {
    let (tx, rx) = sync_channel(READ_AHEAD);
    let catalog = catalog.clone();
    let selection = selection.clone();
    let spawned = std::thread::Builder::new()
        .name("play-read".into())
        .spawn(move || {
            for item in catalog.messages(&selection) {
                if tx.send(item).is_err() {
                    break;
                }
            }
        });
    // Without a thread the channel is closed at once: nothing is played.
    drop(spawned);
    rx
}

impl Player<'_> {
    fn clock_period(&self) -> Option<Duration> {
        self.options
            .clock_hz
            .filter(|hz| hz.is_finite() && *hz > 0.0)
            .map(|hz| Duration::from_secs_f64(1.0 / hz))
    }

    /// Plays `selection` of `catalog`; `on_played` sees every message sent. Returns when
    /// done (never with `looping`, unless the selection is empty) or stopped.
    pub fn run(
        &mut self,
        catalog: &Catalog,
        selection: &Selection,
        control: &Receiver<Control>,
        on_played: &mut dyn FnMut(&Played),
    ) -> Report {
        let last = match (catalog.end_time(), selection.end) {
            (Some(c), Some(e)) => Some(c.min(e)),
            (c, _) => c,
        };
        let looping = self.options.looping;
        self.play(
            catalog,
            last,
            || read_ahead(catalog, selection),
            looping,
            control,
            on_played,
        )
    }

    /// Plays `messages` of `catalog` once, in the order given (receive-time order, e.g. an
    /// index query read ahead on another thread); `last` is the end of the interval, for the
    /// status line. `looping` is ignored: a stream cannot start again.
    pub fn run_stream(
        &mut self,
        catalog: &Catalog,
        last: Option<RosTime>,
        messages: impl Iterator<Item = Result<CatalogMessage, BagError>>,
        control: &Receiver<Control>,
        on_played: &mut dyn FnMut(&Played),
    ) -> Report {
        let mut once = Some(messages);
        self.play(
            catalog,
            last,
            || once.take().into_iter().flatten(),
            false,
            control,
            on_played,
        )
    }

    /// The playback loop: one pass over what `source` gives, again while `looping`.
    fn play<I>(
        &mut self,
        catalog: &Catalog,
        last: Option<RosTime>,
        mut source: impl FnMut() -> I,
        looping: bool,
        control: &Receiver<Control>,
        on_played: &mut dyn FnMut(&Played),
    ) -> Report
    where
        I: IntoIterator<Item = Result<CatalogMessage, BagError>>,
    {
        let mut report = Report::default();
        self.status.update(|s| {
            s.state = PlayState::Waiting;
            s.last = last;
        });
        if !self.wait_to_start(control) {
            report.stopped = true;
            self.status.update(|s| s.state = PlayState::Stopped);
            return report;
        }
        let mut pause = Pause {
            paused: self.options.start_paused,
            since: Instant::now(),
        };
        let mut index = 0u64;
        loop {
            let mut schedule: Option<Schedule> = None;
            let mut previous: Option<RosTime> = None;
            let mut any = false;
            for item in source() {
                let cm = match item {
                    Ok(m) => m,
                    Err(e) => {
                        report.read_errors.push(e);
                        continue;
                    }
                };
                let t = cm.message.entry.time;
                let Some(conn) = catalog
                    .bag(cm.bag)
                    .and_then(|b| b.connection(cm.message.entry.conn))
                else {
                    continue;
                };
                any = true;
                let rate = self.options.rate;
                let origin = if pause.paused {
                    pause.since
                } else {
                    Instant::now()
                };
                let sched = schedule.get_or_insert_with(|| Schedule::new(origin, t, rate));
                if let (Some(p), Some(skip)) = (previous, self.options.skip_empty) {
                    if t.nanos_since(p) > i128::try_from(skip.as_nanos()).unwrap_or(i128::MAX) {
                        let due = sched.due(p);
                        sched.rebase(t, due);
                    }
                }
                previous = Some(t);
                self.status.update(|s| {
                    s.first.get_or_insert(t);
                    s.next = Some(t);
                });
                if let Next::Stop = self.wait_for(t, sched, &mut pause, control) {
                    report.stopped = true;
                    let now = sched.bag_time(Instant::now()).min(t);
                    self.status.update(|s| {
                        if s.state == PlayState::Running {
                            s.frozen = Some(now);
                        }
                        s.state = PlayState::Stopped;
                    });
                    return report;
                }
                let due = sched.due(t);
                self.send(conn, t, &cm.message.data, &mut report);
                let sent = Instant::now();
                on_played(&Played {
                    index,
                    time: t,
                    due,
                    sent,
                });
                index += 1;
                let paused = pause.paused;
                self.status.update(|s| {
                    s.published = report.published;
                    if paused {
                        s.frozen = Some(t);
                    }
                });
            }
            report.loops += 1;
            self.status.update(|s| s.loops = report.loops);
            if !looping || !any {
                break;
            }
        }
        self.status.update(|s| {
            s.state = PlayState::Done;
            s.frozen = s.next;
        });
        report
    }

    fn send(&mut self, conn: &Connection, t: RosTime, payload: &[u8], report: &mut Report) {
        if let Some(clock) = &self.clock {
            clock.publish(t);
        }
        match self.outlet.publish(conn, payload) {
            Ok(true) => report.published += 1,
            Ok(false) => report.skipped += 1,
            Err(e) => report.publish_errors.push(e.to_string()),
        }
    }

    /// `--delay`, then the known subscribers. False when stopped meanwhile.
    fn wait_to_start(&mut self, control: &Receiver<Control>) -> bool {
        let until = Instant::now() + self.options.delay;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            match control.recv_timeout(left) {
                Ok(Control::Stop) => return false,
                Ok(Control::TogglePause) => self.options.start_paused ^= true,
                Ok(Control::Step) | Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => std::thread::sleep(left),
            }
        }
        // The clock's subscribers too: a recorder of /clock gets the first tick.
        let deadline = Instant::now() + self.options.subscriber_wait;
        self.outlet
            .wait_for_known_subscribers(self.options.subscriber_wait);
        if let Some(clock) = &self.clock {
            clock.wait_for_known_subscribers(deadline.saturating_duration_since(Instant::now()));
        }
        !matches!(control.try_recv(), Ok(Control::Stop))
    }

    /// Waits until bag time `t` is due, handling pause, step, stop and clock ticks.
    fn wait_for(
        &mut self,
        t: RosTime,
        sched: &mut Schedule,
        pause: &mut Pause,
        control: &Receiver<Control>,
    ) -> Next {
        let period = self.clock_period();
        let mut next_tick = Instant::now();
        loop {
            if pause.paused {
                let frozen = sched.bag_time(pause.since).min(t);
                let snapshot = *sched;
                self.status.update(|s| {
                    s.state = PlayState::Paused;
                    s.frozen = Some(frozen);
                    s.schedule = Some(snapshot);
                });
                let command = match period {
                    Some(p) => match control.recv_timeout(p) {
                        Ok(c) => Some(c),
                        Err(RecvTimeoutError::Timeout) => {
                            if let Some(clock) = &self.clock {
                                clock.publish(frozen);
                            }
                            None
                        }
                        Err(RecvTimeoutError::Disconnected) => Some(Control::TogglePause),
                    },
                    None => Some(control.recv().unwrap_or(Control::TogglePause)),
                };
                match command {
                    Some(Control::TogglePause) => {
                        pause.paused = false;
                        sched.delay(pause.since.elapsed());
                    }
                    Some(Control::Step) => {
                        let now = Instant::now();
                        sched.rebase(t, now);
                        pause.since = now;
                        return Next::Publish;
                    }
                    Some(Control::Stop) => return Next::Stop,
                    None => {}
                }
                continue;
            }
            let snapshot = *sched;
            self.status.update(|s| {
                s.state = PlayState::Running;
                s.schedule = Some(snapshot);
                s.frozen = None;
            });
            let due = sched.due(t);
            let wake = match period {
                Some(_) => due.min(next_tick),
                None => due,
            };
            match wait_until(wake, control, self.options.spin) {
                Wake::Due => {
                    let now = Instant::now();
                    if now >= due {
                        return Next::Publish;
                    }
                    if let (Some(clock), Some(p)) = (&self.clock, period) {
                        clock.publish(sched.bag_time(now).min(t));
                        next_tick = now + p;
                    }
                }
                Wake::Control(Control::TogglePause) => {
                    pause.paused = true;
                    pause.since = Instant::now();
                }
                Wake::Control(Control::Step) => {}
                Wake::Control(Control::Stop) => return Next::Stop,
            }
        }
    }
}
