//! Bag connections → publications: one per output topic (the bag's topic relocated under a
//! namespace), typed and latched as the bag recorded it.
//!
//! This is the publishing API the player, the explorer and the bagserver share: give it a
//! bag [`Connection`] (topic and connection header) and a payload.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::bag::Connection;
use crate::catalog::{Catalog, Selection, topic_matches};
use crate::msg::{Registry, Schema};
use crate::ros::{
    Node, Publication, PublishError, QueueLimits, RosError, StallBudget, TopicInfo, names,
};

/// How long lossless publishing waits, in one run, for subscribers that do not keep up —
/// all of them together — and how long a subscriber may take nothing before it is marked
/// slow: never waited for again, it loses its oldest messages instead of holding up the
/// replay and the other subscribers (see [`StallBudget`]).
pub const STALL_ALLOWANCE: Duration = Duration::from_secs(1);

/// What happened to a bag topic.
enum Entry {
    /// Published here.
    Open {
        publication: Publication,
        /// Subscribers the master knew of when it was advertised.
        expected: usize,
    },
    /// Not published: another type already holds the output topic, or advertising failed.
    Skipped,
}

/// Publications for bag connections, created on first use or up front.
pub struct Outlet {
    node: Arc<Node>,
    namespace: String,
    limits: QueueLimits,
    entries: HashMap<String, Entry>,
    registry: Option<Registry>,
    warnings: Vec<String>,
    lossless: Option<Arc<StallBudget>>,
}

impl Outlet {
    /// Publishes through `node`, every topic relocated under `namespace` (`/` for none).
    pub fn new(node: Arc<Node>, namespace: &str, limits: QueueLimits) -> Self {
        Outlet {
            node,
            namespace: names::resolve("/", namespace),
            limits,
            entries: HashMap::new(),
            registry: None,
            warnings: Vec::new(),
            lossless: None,
        }
    }

    /// Lossless publishing within `budget`: each publish first waits until every
    /// subscriber's queue has room, so a subscriber that keeps up slows publishing down
    /// instead of losing messages; the waiting for those that do not keep up is charged to
    /// `budget`, one for the whole run (every topic, every subscriber). `None` (the default)
    /// never waits: a live player must keep its schedule.
    pub fn set_lossless(&mut self, budget: Option<Arc<StallBudget>>) {
        self.lossless = budget;
    }

    /// The node published through.
    pub fn node(&self) -> &Arc<Node> {
        &self.node
    }

    /// Where a bag topic is published.
    pub fn output_topic(&self, topic: &str) -> String {
        names::relocate(&self.namespace, topic)
    }

    /// What subscribers are told about a connection's type. An empty definition (bags
    /// older than 1.2) is filled from the bundled definitions when one has the md5sum.
    pub fn topic_info(&mut self, conn: &Connection) -> TopicInfo {
        let mut definition = conn.message_definition.clone();
        if definition.trim().is_empty() {
            let registry = self.registry.get_or_insert_with(Registry::bundled);
            if let Ok(schema) = Schema::from_registry(&conn.datatype, Some(&conn.md5sum), registry)
            {
                definition = schema.full_text();
            }
        }
        TopicInfo {
            datatype: conn.datatype.clone(),
            md5sum: conn.md5sum.clone(),
            message_definition: definition,
            latching: conn.is_latching(),
        }
    }

    /// Advertises every connection `selection` picks from `catalog`: one publication per
    /// output topic, latched when any of its connections latched. Errors of single topics
    /// become warnings; an error is returned only when nothing could be advertised.
    pub fn advertise_selection(
        &mut self,
        catalog: &Catalog,
        selection: &Selection,
    ) -> Result<usize, RosError> {
        let mut wanted: Vec<(String, TopicInfo)> = Vec::new();
        for bag in catalog.bags() {
            for conn in bag.connections() {
                if !selection.topics.is_empty()
                    && !selection
                        .topics
                        .iter()
                        .any(|t| topic_matches(t, &conn.topic))
                {
                    continue;
                }
                let info = self.topic_info(conn);
                match wanted.iter_mut().find(|(t, _)| *t == conn.topic) {
                    Some((_, first)) if first.md5sum == info.md5sum => {
                        first.latching |= info.latching;
                    }
                    Some(_) => {}
                    None => wanted.push((conn.topic.clone(), info)),
                }
            }
        }
        let mut last_error = None;
        let mut advertised = 0;
        for (topic, info) in wanted {
            match self.open(&topic, info) {
                Ok(()) => advertised += 1,
                Err(e) => last_error = Some(e),
            }
        }
        match last_error {
            Some(e) if advertised == 0 => Err(e),
            _ => Ok(advertised),
        }
    }

    fn open(&mut self, topic: &str, info: TopicInfo) -> Result<(), RosError> {
        let out = self.output_topic(topic);
        match self.node.advertise(&out, info, self.limits) {
            Ok(a) => {
                self.entries.insert(
                    topic.to_string(),
                    Entry::Open {
                        publication: a.publication,
                        expected: a.subscribers.len(),
                    },
                );
                Ok(())
            }
            Err(e) => {
                self.warnings.push(format!("{topic} is not published: {e}"));
                self.entries.insert(topic.to_string(), Entry::Skipped);
                Err(e)
            }
        }
    }

    /// Publishes one message of `conn`, advertising its topic first if needed. `Ok(false)`
    /// when the topic is skipped (another type holds it, or it could not be advertised).
    pub fn publish(&mut self, conn: &Connection, payload: &[u8]) -> Result<bool, PublishError> {
        if !self.entries.contains_key(&conn.topic) {
            let info = self.topic_info(conn);
            let _ = self.open(&conn.topic, info);
        }
        match self.entries.get(&conn.topic) {
            Some(Entry::Open { publication, .. }) => {
                if publication.info().md5sum != conn.md5sum {
                    let note = format!(
                        "{}: messages of type {} ({}) are skipped; the topic is published as {}",
                        conn.topic,
                        conn.datatype,
                        conn.md5sum,
                        publication.info().datatype
                    );
                    if !self.warnings.contains(&note) {
                        self.warnings.push(note);
                    }
                    return Ok(false);
                }
                if let Some(budget) = &self.lossless {
                    publication.wait_for_room(payload.len(), budget);
                }
                publication.publish(payload).map(|()| true)
            }
            _ => Ok(false),
        }
    }

    /// Asks the master who subscribes to each output topic now: those are the subscribers
    /// [`Outlet::wait_for_known_subscribers`] waits for (instead of the ones known when the
    /// topic was advertised). For an outlet that lives long, between bursts of messages.
    pub fn expect_registered_subscribers(&mut self) -> Result<(), RosError> {
        let state = self.node.master().system_state()?;
        for e in self.entries.values_mut() {
            if let Entry::Open {
                publication,
                expected,
            } = e
            {
                *expected = state.subscribers_of(publication.topic()).len();
            }
        }
        Ok(())
    }

    /// Waits until the subscribers the master reported when each topic was advertised have
    /// connected, at most `timeout` in all. True when all have.
    pub fn wait_for_known_subscribers(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        self.entries.values().all(|e| match e {
            Entry::Open {
                publication,
                expected,
            } => publication.wait_for_subscribers(
                *expected,
                deadline.saturating_duration_since(Instant::now()),
            ),
            Entry::Skipped => true,
        })
    }

    /// The publications, by output topic.
    pub fn publications(&self) -> Vec<Publication> {
        let mut v: Vec<Publication> = self
            .entries
            .values()
            .filter_map(|e| match e {
                Entry::Open { publication, .. } => Some(publication.clone()),
                Entry::Skipped => None,
            })
            .collect();
        v.sort_by(|a, b| a.topic().cmp(b.topic()));
        v
    }

    /// Warnings collected so far (topics skipped), emptied.
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }
}
