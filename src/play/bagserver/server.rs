//! The bagserver proper: the index, the publications under the namespace, the service, and
//! one request played at a time.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, sync_channel};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::{Duration, Instant};

use crate::bag::{BagError, BagErrorKind};
use crate::catalog::index::{Index, IndexError};
use crate::catalog::{Catalog, Selection, topic_matches};
use crate::ros::{Cancel, Node, Publication, QueueLimits, ServiceCall, StallBudget, names};
use crate::time::RosTime;

use super::super::{Control, Outlet, PlayOptions, Player, Report, STALL_ALLOWANCE, Status};
use super::error::BagserverError;
use super::srv::{PlayIntervalRequest, PlayIntervalResponse, SERVICE_NAME, play_interval_info};
use super::turns::{Stopped, Turns};

/// The slowest rate a request may ask for: below it an interval of a second would take more
/// than a minute and a half to publish, and the line of requests behind it would wait.
pub const MIN_RATE: f64 = 0.01;

/// The connection header field a client sets (`preempt=1`) to stop the request being
/// published and go first. Backwards compatible: other clients do not send it, and the
/// service's type and md5sum are unchanged.
pub const PREEMPT_FIELD: &str = "preempt";

/// Messages read ahead of the publisher.
const READ_AHEAD: usize = 1024;

/// Subscribers that lost messages of one topic named one line each; beyond, one line says
/// how many.
const DROP_LINES: usize = 3;

/// How the bagserver runs.
#[derive(Clone, Debug, PartialEq)]
pub struct ServeOptions {
    /// Every topic (and the service) goes under this namespace.
    pub namespace: String,
    /// The speed of requests that ask for 0: a factor of the recorded timing, or
    /// `f64::INFINITY` for as fast as the subscribers' connections take the messages (a
    /// subscriber's own queue may then overflow: `rosbag record` keeps up with the recorded
    /// timing, not always with a burst).
    pub rate: f64,
    /// Stretches of bag time longer than this without messages (between bags recorded hours
    /// apart) are skipped instead of waited through.
    pub skip_empty: Option<Duration>,
    /// Each subscriber's queue. Publishing waits for room rather than dropping messages.
    pub limits: QueueLimits,
    /// How long a request first waits for the subscribers the master knows of to connect.
    pub subscriber_wait: Duration,
    /// How long the published messages may take to be written out before the answer.
    pub flush_timeout: Duration,
    /// Requests that may wait behind the one being published; more are refused as busy.
    pub max_waiting: usize,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            namespace: "/".into(),
            rate: 1.0,
            skip_empty: Some(Duration::from_secs(10)),
            limits: QueueLimits::default(),
            subscriber_wait: Duration::from_secs(3),
            flush_timeout: Duration::from_secs(10),
            max_waiting: 4,
        }
    }
}

type Log = Box<dyn Fn(&str) + Send + Sync>;

/// A running bagserver. Requests are served on the node's connection threads, one at a time
/// (later ones wait in line for the current one to finish, a bounded number of them).
pub struct Bagserver {
    index: Index,
    catalog: Catalog,
    node: Arc<Node>,
    options: ServeOptions,
    service: String,
    topics: Vec<String>,
    /// Held for the whole of a request: requests are played one after the other.
    outlet: Mutex<Outlet>,
    /// The line of requests; stops the one being played.
    turns: Arc<Turns>,
    /// Messages dropped for each subscriber connection (topic, id), as last logged.
    dropped: Mutex<HashMap<(String, u32), u64>>,
    stopping: AtomicBool,
    log: Log,
}

impl std::fmt::Debug for Bagserver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bagserver")
            .field("index", &self.index)
            .field("service", &self.service)
            .finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// An index error as the player reports read errors.
fn as_bag_error(index: &Path, e: IndexError) -> BagError {
    match e {
        IndexError::Bag(b) => b,
        IndexError::Damaged { what, .. } => {
            BagError::new(&Arc::from(index), BagErrorKind::Unreadable(what))
        }
        other => BagError::new(
            &Arc::from(index),
            BagErrorKind::Unreadable(other.to_string()),
        ),
    }
}

fn count(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Bagserver {
    /// Advertises every topic of `index` under the namespace (latched where the bags
    /// recorded them latched) and provides `NS/play_interval` through `node`. `catalog` holds
    /// the indexed bags, opened by [`Index::catalog`] (before the node started, so that the
    /// node's connection caps leave their file descriptors alone). `log` receives a line for
    /// every request served and for topics that cannot be published.
    pub fn start(
        node: &Arc<Node>,
        index: Index,
        catalog: Catalog,
        options: &ServeOptions,
        log: impl Fn(&str) + Send + Sync + 'static,
    ) -> Result<Arc<Bagserver>, BagserverError> {
        let namespace = names::resolve("/", &options.namespace);
        let service = names::relocate(&namespace, SERVICE_NAME);
        let mut outlet = Outlet::new(Arc::clone(node), &namespace, options.limits);
        let mut topics: Vec<String> = index.topics().iter().map(|t| t.topic.clone()).collect();
        topics.dedup();
        if !topics.is_empty() {
            let selection = Selection {
                topics: topics.clone(),
                ..Selection::default()
            };
            outlet.advertise_selection(&catalog, &selection)?;
        }
        for w in outlet.take_warnings() {
            log(&format!("warning: {w}"));
        }
        let server = Arc::new(Bagserver {
            index,
            catalog,
            node: Arc::clone(node),
            options: ServeOptions {
                namespace,
                ..options.clone()
            },
            service,
            topics,
            outlet: Mutex::new(outlet),
            turns: Arc::new(Turns::new(options.max_waiting)),
            dropped: Mutex::new(HashMap::new()),
            stopping: AtomicBool::new(false),
            log: Box::new(log),
        });
        let weak: Weak<Bagserver> = Arc::downgrade(&server);
        node.advertise_service(
            &server.service,
            play_interval_info(),
            Arc::new(move |call: &ServiceCall<'_>| {
                let server = weak
                    .upgrade()
                    .ok_or_else(|| "the bagserver is shutting down".to_string())?;
                let request =
                    PlayIntervalRequest::decode(call.request).map_err(|e| e.to_string())?;
                let preempt = matches!(call.header.get(PREEMPT_FIELD), Some("1" | "true" | "True"));
                server
                    .serve_call(&request, preempt, call.cancel)
                    .map(|r| r.encode())
            }),
        )?;
        Ok(server)
    }

    /// The service's global name, `NS/play_interval`.
    pub fn service_name(&self) -> &str {
        &self.service
    }

    /// The namespace everything is published under.
    pub fn namespace(&self) -> &str {
        &self.options.namespace
    }

    /// The index served.
    pub fn index(&self) -> &Index {
        &self.index
    }

    /// The output topics advertised, sorted.
    pub fn output_topics(&self) -> Vec<String> {
        lock(&self.outlet)
            .publications()
            .iter()
            .map(|p| p.topic().to_string())
            .collect()
    }

    /// Refuses further requests and stops the one being played; returns once it has ended.
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        self.turns.shut_down();
        drop(lock(&self.outlet));
    }

    /// The interval a request names, resolved and checked.
    fn interval(&self, req: &PlayIntervalRequest) -> Result<(RosTime, RosTime), String> {
        let (start, end) = if req.relative {
            let origin = self.index.start_time().unwrap_or_default();
            (
                origin.saturating_add_nanos(i128::from(req.start.as_nanos())),
                origin.saturating_add_nanos(i128::from(req.end.as_nanos())),
            )
        } else {
            (req.start, req.end)
        };
        if start > end {
            return Err(format!(
                "the interval is empty: start {start} is after end {end}"
            ));
        }
        Ok((start, end))
    }

    /// The speed a request asks for, checked.
    fn rate(&self, rate: f64) -> Result<f64, String> {
        if rate == 0.0 {
            Ok(self.options.rate)
        } else if rate >= MIN_RATE {
            Ok(rate)
        } else if rate > 0.0 {
            Err(format!(
                "rate {rate}: too slow (at least {MIN_RATE}, +inf for as fast as possible, or \
                 0 for the server's default)"
            ))
        } else {
            Err(format!(
                "rate {rate}: expected a factor of at least {MIN_RATE}, +inf (as fast as \
                 possible) or 0 (the server's default)"
            ))
        }
    }

    fn check_topics(&self, topics: &[String]) -> Result<(), String> {
        for t in topics {
            if !self.topics.iter().any(|k| topic_matches(t, k)) {
                return Err(format!(
                    "the index holds no topic '{t}' (it has {})",
                    self.topics.join(", ")
                ));
            }
        }
        Ok(())
    }

    /// Serves one request: publishes every indexed message of the interval on the topics
    /// asked for (all when none are), in receive-time order, and answers once they are
    /// written out to the subscribers (or [`ServeOptions::flush_timeout`] has passed). `Err`
    /// is the reason a bad request (or a stopped server) is refused with.
    pub fn serve(&self, req: &PlayIntervalRequest) -> Result<PlayIntervalResponse, String> {
        self.serve_call(req, false, &Cancel::default())
    }

    /// [`Bagserver::serve`] for a client: checked first (rate, interval, topics, at least
    /// one message), then in line behind at most [`ServeOptions::max_waiting`] others
    /// (refused as busy beyond). `preempt` stops the request being published and goes
    /// first; `cancel` (the client leaving) takes the request out of line or stops it.
    pub fn serve_call(
        &self,
        req: &PlayIntervalRequest,
        preempt: bool,
        cancel: &Cancel,
    ) -> Result<PlayIntervalResponse, String> {
        let refused = |why: String| {
            (self.log)(&format!("refused a request: {why}"));
            why
        };
        if self.stopping.load(Ordering::SeqCst) {
            return Err(refused("the bagserver is shutting down".into()));
        }
        let (start, end) = self.interval(req).map_err(refused)?;
        let rate = self.rate(req.rate).map_err(refused)?;
        self.check_topics(&req.topics).map_err(refused)?;
        if self.index.query(&req.topics, start, end).next().is_none() {
            return Err(refused(format!(
                "no message in [{start}, {end}] on {}",
                if req.topics.is_empty() {
                    "any topic".to_string()
                } else {
                    req.topics.join(" ")
                }
            )));
        }

        let id = self
            .turns
            .join(preempt)
            .map_err(|why| refused(why.to_string()))?;
        {
            let turns = Arc::clone(&self.turns);
            cancel.on_cancel(move || turns.stop(id, Stopped::ClientGone));
        }
        let (tx, control) = mpsc::channel();
        if let Err(why) = self.turns.wait(id, tx) {
            return Err(refused(format!("not published: {why}")));
        }
        let result = self.publish(req, start, end, rate, &control);
        let stopped = self.turns.done(id);
        self.log_drops();
        let (report, response, what) = result.map_err(refused)?;
        (self.log)(&format!("{what}: {}", response.message));
        if report.stopped {
            let why = stopped.unwrap_or(Stopped::Shutdown);
            (self.log)(&format!("{what}: stopped: {why}"));
            return Err(format!(
                "stopped ({why}) after {} message(s)",
                report.published
            ));
        }
        Ok(response)
    }

    /// Logs the messages subscribers lost since the last time (slow subscribers): one line
    /// per subscriber, or per topic beyond [`DROP_LINES`] of them (a crowd does not flood
    /// the log).
    fn log_drops(&self) {
        let stats: Vec<_> = lock(&self.outlet)
            .publications()
            .iter()
            .map(Publication::stats)
            .collect();
        let mut seen = lock(&self.dropped);
        // Connections gone are forgotten (the map stays as small as the subscribers).
        let live: HashSet<(&str, u32)> = stats
            .iter()
            .flat_map(|p| {
                p.subscribers
                    .iter()
                    .filter(|l| l.connected)
                    .map(|l| (p.topic.as_str(), l.id))
            })
            .collect();
        seen.retain(|(topic, id), _| live.contains(&(topic.as_str(), *id)));
        for p in &stats {
            let mut lost: Vec<(&str, u64)> = Vec::new();
            for l in &p.subscribers {
                let key = (p.topic.clone(), l.id);
                let before = seen.insert(key, l.dropped).unwrap_or(0);
                if l.dropped > before {
                    lost.push((&l.callerid, l.dropped - before));
                }
            }
            let why = "a slow subscriber; the others were not held up";
            if lost.len() <= DROP_LINES {
                for (callerid, n) in lost {
                    (self.log)(&format!(
                        "warning: {callerid} lost {n} message(s) of {}: its queue was full ({why})",
                        p.topic
                    ));
                }
            } else if let Some((callerid, n)) = lost.first() {
                let others: u64 = lost.iter().skip(1).map(|(_, n)| n).sum();
                (self.log)(&format!(
                    "warning: {callerid} lost {n} message(s) of {}, and {} other subscriber(s) \
                     {others} more: their queues were full (slow subscribers; the others were \
                     not held up)",
                    p.topic,
                    lost.len() - 1
                ));
            }
        }
    }

    /// Publishes the interval; the report, the answer and a description of the request.
    fn publish(
        &self,
        req: &PlayIntervalRequest,
        start: RosTime,
        end: RosTime,
        rate: f64,
        control: &mpsc::Receiver<Control>,
    ) -> Result<(Report, PlayIntervalResponse, String), String> {
        let mut outlet = lock(&self.outlet);
        let what = format!(
            "[{start}, {end}] {} at {}",
            if req.topics.is_empty() {
                "every topic".to_string()
            } else {
                req.topics.join(" ")
            },
            if rate.is_finite() {
                format!("rate {rate}")
            } else {
                "full speed".into()
            }
        );
        (self.log)(&format!("publishing {what}"));
        // One budget for the request: subscribers that do not keep up hold it up
        // STALL_ALLOWANCE in all, however many they are.
        let budget = Arc::new(StallBudget::new(STALL_ALLOWANCE, STALL_ALLOWANCE));
        outlet.set_lossless(Some(Arc::clone(&budget)));
        if let Err(e) = outlet.expect_registered_subscribers() {
            (self.log)(&format!("warning: asking the master for subscribers: {e}"));
        }
        let started = Instant::now();
        let (mut first, mut last) = (None, None);
        let report = std::thread::scope(|scope| {
            let (items, received) = sync_channel(READ_AHEAD);
            let (index, catalog, topics) = (&self.index, &self.catalog, &req.topics);
            let reader = std::thread::Builder::new()
                .name("serve-read".into())
                .spawn_scoped(scope, move || {
                    for e in index.query(topics, start, end) {
                        let item = e
                            .and_then(|e| index.read(catalog, &e))
                            .map_err(|e| as_bag_error(index.path(), e));
                        if items.send(item).is_err() {
                            break;
                        }
                    }
                });
            if let Err(e) = reader {
                return Err(format!("cannot start reading the bags: {e}"));
            }
            let mut player = Player {
                outlet: &mut outlet,
                clock: None,
                options: PlayOptions {
                    rate,
                    delay: Duration::ZERO,
                    subscriber_wait: self.options.subscriber_wait,
                    skip_empty: self.options.skip_empty,
                    ..PlayOptions::default()
                },
                status: Arc::new(Status::default()),
            };
            Ok(player.run_stream(
                &self.catalog,
                Some(end),
                received.into_iter(),
                control,
                &mut |p| {
                    first.get_or_insert(p.time);
                    last = Some(p.time);
                },
            ))
        });
        let report = report?;
        // Stopped: no waiting for the subscribers (the client is gone or the node closing).
        let flushed = !report.stopped
            && self
                .node
                .flush_within(self.options.flush_timeout, Some(&budget));
        outlet.set_lossless(None);
        drop(outlet);
        let response = Self::response(&report, first, last, flushed, started.elapsed());
        Ok((report, response, what))
    }

    fn response(
        report: &Report,
        first: Option<RosTime>,
        last: Option<RosTime>,
        flushed: bool,
        took: Duration,
    ) -> PlayIntervalResponse {
        let failed =
            report.skipped + (report.read_errors.len() + report.publish_errors.len()) as u64;
        let mut message = format!(
            "published {} message(s) in {:.3} s",
            report.published,
            took.as_secs_f64()
        );
        if let (Some(a), Some(b)) = (first, last) {
            let _ = write!(message, " ({a} to {b})");
        }
        if failed > 0 {
            let _ = write!(message, "; {failed} failed");
            let first_problem = report
                .read_errors
                .first()
                .map(ToString::to_string)
                .or_else(|| report.publish_errors.first().cloned());
            if let Some(p) = first_problem {
                let _ = write!(message, ": {p}");
            } else if report.skipped > 0 {
                message.push_str(": their topic is published with another type");
            }
        }
        if !flushed && !report.stopped {
            message.push_str("; some subscribers had not received everything yet");
        }
        PlayIntervalResponse {
            published: count(report.published),
            failed: count(failed),
            first: first.unwrap_or_default(),
            last: last.unwrap_or_default(),
            message,
        }
    }
}
