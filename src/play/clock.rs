//! `/clock` (`rosgraph_msgs/Clock`): the bag time, for nodes running on simulated time.

use crate::msg::{Registry, Schema};
use crate::ros::{Node, Publication, QueueLimits, RosError, TopicInfo};
use crate::time::RosTime;

/// The topic the clock is published on (global, whatever the playback namespace).
pub const CLOCK_TOPIC: &str = "/clock";

/// Publishes bag times on `/clock`.
pub struct ClockPublisher {
    publication: Publication,
    /// Subscribers the master listed when `/clock` was advertised.
    expected: usize,
}

impl ClockPublisher {
    /// Advertises `/clock` on `node`, typed from the bundled `rosgraph_msgs/Clock`.
    pub fn advertise(node: &Node) -> Result<Self, RosError> {
        let registry = Registry::bundled();
        let schema =
            Schema::from_registry("rosgraph_msgs/Clock", None, &registry).map_err(|e| {
                RosError::BadAnswer {
                    method: "advertise".into(),
                    uri: CLOCK_TOPIC.into(),
                    what: format!("no rosgraph_msgs/Clock definition: {e}"),
                }
            })?;
        let info = TopicInfo {
            datatype: "rosgraph_msgs/Clock".into(),
            md5sum: schema.md5sum().to_string(),
            message_definition: schema.full_text(),
            latching: false,
        };
        let advertised = node.advertise(CLOCK_TOPIC, info, QueueLimits::default())?;
        Ok(ClockPublisher {
            publication: advertised.publication,
            expected: advertised.subscribers.len(),
        })
    }

    /// Publishes `t`.
    pub fn publish(&self, t: RosTime) {
        let t = t.normalized();
        let mut payload = [0u8; 8];
        payload[..4].copy_from_slice(&t.sec.to_le_bytes());
        payload[4..].copy_from_slice(&t.nsec.to_le_bytes());
        let _ = self.publication.publish(&payload);
    }

    /// Waits until the subscribers the master listed when `/clock` was advertised have
    /// connected, at most `timeout`. True when all have.
    pub fn wait_for_known_subscribers(&self, timeout: std::time::Duration) -> bool {
        self.publication
            .wait_for_subscribers(self.expected, timeout)
    }

    /// The publication.
    pub fn publication(&self) -> &Publication {
        &self.publication
    }
}
