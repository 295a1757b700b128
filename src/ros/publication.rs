//! A topic this node publishes: the TCPROS handshake with each subscriber, fan-out of each
//! message to every subscriber's queue, and the latched message for late subscribers.

use std::io::Write;
use std::net::TcpStream;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::header::{self, Header};
use super::link::{Frame, Link, LinkStats, QueueLimits};
use super::seats::Seats;
use super::stall::StallBudget;

/// What a topic carries, as announced in the connection header.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TopicInfo {
    /// Message type, e.g. `std_msgs/String`.
    pub datatype: String,
    /// md5sum of the type.
    pub md5sum: String,
    /// Full message definition (`gendeps --cat` text).
    pub message_definition: String,
    /// Whether the last message is kept and sent to each new subscriber.
    pub latching: bool,
}

/// A message could not be published.
#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    /// The payload does not fit the `u32` length of a TCPROS frame.
    #[error("message of {0} bytes is too large for TCPROS")]
    TooLarge(usize),
    /// The publication was closed (unadvertised or the node shut down).
    #[error("{0} is no longer advertised")]
    Closed(String),
}

/// Counters of a publication.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublicationStats {
    /// The topic.
    pub topic: String,
    /// Messages published.
    pub messages: u64,
    /// Payload bytes published.
    pub bytes: u64,
    /// Each subscriber connection (including ones closed since the last publish).
    pub subscribers: Vec<LinkStats>,
}

struct State {
    links: Vec<Arc<Link>>,
    latched: Option<Frame>,
    closed: bool,
}

struct Inner {
    topic: String,
    info: TopicInfo,
    callerid: String,
    limits: QueueLimits,
    ids: Arc<AtomicU32>,
    seats: Arc<Seats>,
    state: Mutex<State>,
    joined: Condvar,
    messages: AtomicU64,
    bytes: AtomicU64,
}

/// A publication handle; clones share the topic.
#[derive(Clone)]
pub struct Publication {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Publication {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Publication")
            .field("topic", &self.inner.topic)
            .field("datatype", &self.inner.info.datatype)
            .finish_non_exhaustive()
    }
}

impl Publication {
    /// A publication of `topic` by node `callerid`; connection ids come from `ids`, each
    /// subscriber takes one of the node's `seats`.
    pub(crate) fn new(
        topic: &str,
        info: TopicInfo,
        callerid: &str,
        limits: QueueLimits,
        ids: Arc<AtomicU32>,
        seats: Arc<Seats>,
    ) -> Self {
        Publication {
            inner: Arc::new(Inner {
                topic: topic.to_string(),
                info,
                callerid: callerid.to_string(),
                limits,
                ids,
                seats,
                state: Mutex::new(State {
                    links: Vec::new(),
                    latched: None,
                    closed: false,
                }),
                joined: Condvar::new(),
                messages: AtomicU64::new(0),
                bytes: AtomicU64::new(0),
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.inner
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The topic name.
    pub fn topic(&self) -> &str {
        &self.inner.topic
    }

    /// The type information announced to subscribers.
    pub fn info(&self) -> &TopicInfo {
        &self.inner.info
    }

    /// Sends `payload` (a serialized message) to every subscriber's queue; never blocks on
    /// a subscriber. Latched topics keep it for subscribers that connect later.
    pub fn publish(&self, payload: &[u8]) -> Result<(), PublishError> {
        let frame: Frame = header::frame(payload)
            .ok_or(PublishError::TooLarge(payload.len()))?
            .into();
        let mut st = self.lock();
        if st.closed {
            return Err(PublishError::Closed(self.inner.topic.clone()));
        }
        st.links.retain(|l| !l.is_closed());
        for l in &st.links {
            l.push(Arc::clone(&frame));
        }
        if self.inner.info.latching {
            st.latched = Some(frame);
        }
        drop(st);
        self.inner.messages.fetch_add(1, Ordering::Relaxed);
        self.inner
            .bytes
            .fetch_add(payload.len() as u64, Ordering::Relaxed);
        Ok(())
    }

    /// Waits until every subscriber's queue can take a message of `len` payload bytes without
    /// dropping an older one, within `budget`, shared by every subscriber (and by every
    /// publication of the same run): publishing after it loses nothing. A subscriber that
    /// takes nothing for the budget's stall is marked slow and not waited for again (it loses
    /// its oldest messages instead), so subscribers that do not read cost the others that
    /// stall once, together, not one each. True when every queue has room.
    pub fn wait_for_room(&self, len: usize, budget: &StallBudget) -> bool {
        let links: Vec<Arc<Link>> = self.lock().links.clone();
        let framed = len.saturating_add(4);
        let mut all = true;
        for l in &links {
            all &= l.wait_for_room(framed, budget);
        }
        all
    }

    /// Subscribers currently connected.
    pub fn subscriber_count(&self) -> usize {
        self.lock().links.iter().filter(|l| !l.is_closed()).count()
    }

    /// Waits until at least `count` subscribers are connected, at most `timeout`. True when
    /// they are.
    pub fn wait_for_subscribers(&self, count: usize, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut st = self.lock();
        loop {
            if st.links.iter().filter(|l| !l.is_closed()).count() >= count {
                return true;
            }
            let now = Instant::now();
            if now >= deadline || st.closed {
                return false;
            }
            st = self
                .inner
                .joined
                .wait_timeout(st, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Waits until every subscriber's queue has been written out, at most `timeout`. True
    /// when everything was written.
    pub fn flush(&self, timeout: Duration) -> bool {
        self.flush_within(timeout, None)
    }

    /// [`Publication::flush`] within `budget` (see [`StallBudget`]): a subscriber that takes
    /// nothing for its stall is marked slow and no longer waited for, and nobody is waited
    /// for once it is spent.
    pub fn flush_within(&self, timeout: Duration, budget: Option<&StallBudget>) -> bool {
        let deadline = Instant::now() + timeout;
        let links: Vec<Arc<Link>> = self.lock().links.clone();
        let mut all = true;
        for l in &links {
            all &= l.flush(deadline, budget);
        }
        all
    }

    /// Counters of the publication and of each subscriber.
    pub fn stats(&self) -> PublicationStats {
        let links: Vec<Arc<Link>> = self.lock().links.clone();
        PublicationStats {
            topic: self.inner.topic.clone(),
            messages: self.inner.messages.load(Ordering::Relaxed),
            bytes: self.inner.bytes.load(Ordering::Relaxed),
            subscribers: links.iter().map(|l| l.stats()).collect(),
        }
    }

    /// Closes every subscriber connection; later publishes fail.
    pub(crate) fn close(&self) {
        let links = {
            let mut st = self.lock();
            st.closed = true;
            st.latched = None;
            std::mem::take(&mut st.links)
        };
        self.inner.joined.notify_all();
        for l in links {
            l.close();
        }
    }

    /// The header we answer subscribers with.
    pub fn reply_header(&self) -> Header {
        let i = &self.inner.info;
        Header::new()
            .with("callerid", &self.inner.callerid)
            .with("latching", if i.latching { "1" } else { "0" })
            .with("md5sum", &i.md5sum)
            .with("message_definition", &i.message_definition)
            .with("topic", &self.inner.topic)
            .with("type", &i.datatype)
    }

    /// Completes a subscriber's handshake on `stream` (its header already read): checks
    /// it, takes one of the node's seats for it, answers with ours and starts sending.
    /// `Err` is the reason to send back in an `error` header.
    pub(crate) fn accept(&self, stream: Arc<TcpStream>, header: &Header) -> Result<(), String> {
        check_subscriber(&self.inner.topic, &self.inner.info, header)?;
        let callerid = header.get("callerid").unwrap_or_default();
        // Connections closed since the last message go now (their seats went at once).
        self.lock().links.retain(|l| !l.is_closed());
        let peer = stream
            .peer_addr()
            .map_err(|e| format!("the connection failed: {e}"))?;
        let seat = self.inner.seats.take(peer.ip(), &self.inner.topic)?;
        let _ = stream.set_nodelay(true);
        let mut w: &TcpStream = &stream;
        w.write_all(&self.reply_header().encode())
            .map_err(|e| format!("writing the connection header: {e}"))?;
        let id = self.inner.ids.fetch_add(1, Ordering::Relaxed);
        let link = Link::start(stream, id, callerid, self.inner.limits, Some(seat))
            .map_err(|e| format!("starting the connection: {e}"))?;
        let mut st = self.lock();
        if st.closed {
            drop(st);
            link.close();
            return Ok(());
        }
        if let Some(latched) = &st.latched {
            link.push(Arc::clone(latched));
        }
        st.links.push(link);
        drop(st);
        self.inner.joined.notify_all();
        Ok(())
    }
}

/// Checks a subscriber's connection header against what we publish: `topic`, `md5sum` and
/// `callerid` are required; the md5sum must be ours or `*`; a `type` other than ours or `*`
/// is refused.
pub fn check_subscriber(topic: &str, info: &TopicInfo, header: &Header) -> Result<(), String> {
    for required in ["topic", "md5sum", "callerid"] {
        if header.get(required).is_none() {
            return Err(format!("Missing required '{required}' field"));
        }
    }
    let wanted_topic = header.get("topic").unwrap_or_default();
    if wanted_topic != topic {
        return Err(format!("not a publisher of [{wanted_topic}]"));
    }
    let md5 = header.get("md5sum").unwrap_or_default();
    let ty = header.get("type").filter(|t| *t != "*");
    if let Some(t) = ty.filter(|t| *t != info.datatype) {
        return Err(format!(
            "topic types do not match: [{t}] vs. [{}]",
            info.datatype
        ));
    }
    if md5 != "*" && info.md5sum != "*" && md5 != info.md5sum {
        let callerid = header.get("callerid").unwrap_or_default();
        return Err(format!(
            "Client [{callerid}] wants topic [{topic}] to have datatype/md5sum [{}/{md5}], but our version has [{}/{}] Dropping connection.",
            ty.unwrap_or(&info.datatype),
            info.datatype,
            info.md5sum
        ));
    }
    Ok(())
}
