//! What `p` would publish into the ROS graph, shown for the user to confirm before anything
//! is sent: the topics with their message counts in the marked interval, where each goes
//! under the namespace, the master, the rate, and which topics command a robot.

use crate::catalog::Catalog;
use crate::catalog::window_bytes;
use crate::ros::names;
use crate::time::RosTime;

/// One topic that would be published.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedTopic {
    /// The topic in the bags.
    pub topic: String,
    /// Where it is published (under the namespace).
    pub output: String,
    /// Its message type.
    pub type_name: String,
    /// Messages of it in the interval (an estimate when [`PublishPlan::exact`] is false).
    pub messages: u64,
    /// It commands a robot (velocities, goals, joint trajectories): flagged.
    pub command: bool,
}

/// Everything the confirmation shows.
#[derive(Clone, Debug, PartialEq)]
pub struct PublishPlan {
    /// The marked interval.
    pub interval: (RosTime, RosTime),
    /// The topics with messages in the interval: those that command a robot first, each part
    /// in name order.
    pub topics: Vec<PlannedTopic>,
    /// True when the counts are exact (else estimated from chunk infos).
    pub exact: bool,
    /// The namespace every topic goes under (`/`: the recorded names).
    pub namespace: String,
    /// The master the node registers with.
    pub master_uri: String,
    /// The speed factor.
    pub rate: f64,
    /// Topics published of those in the bags (`None`: all of them, no filter).
    pub filtered: Option<(usize, usize)>,
    /// The topics given (every topic when empty), with or without messages in the interval.
    pub selected: Vec<String>,
}

impl PublishPlan {
    /// The plan for publishing `topics` (every topic when empty) of `catalog` in `interval`.
    /// Counts come from chunk infos and the index entries already in memory: nothing is read.
    pub fn new(
        catalog: &Catalog,
        topics: &[String],
        interval: (RosTime, RosTime),
        (namespace, master_uri, rate): (&str, &str, f64),
    ) -> PublishPlan {
        let counts = window_bytes::compute(catalog, interval, window_bytes::EXACT_BUDGET);
        let namespace = names::resolve("/", namespace);
        let given: std::collections::HashSet<&str> = topics.iter().map(String::as_str).collect();
        let mut planned: Vec<PlannedTopic> = catalog
            .topics()
            .into_iter()
            .filter(|t| given.is_empty() || given.contains(t.topic.as_str()))
            .filter_map(|t| {
                let n = counts.messages.get(&t.topic).copied().unwrap_or(0.0);
                // A sum of counts and fractions of counts: finite, >= 0, far below 2^53.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let messages = n.round().max(0.0) as u64;
                (messages > 0).then(|| PlannedTopic {
                    output: names::relocate(&namespace, &t.topic),
                    command: is_command(&t.topic, &t.datatype),
                    topic: t.topic,
                    type_name: t.datatype,
                    messages,
                })
            })
            .collect();
        // The topics that command a robot first: never cut from a short list.
        planned.sort_by(|a, b| (!a.command, &a.topic).cmp(&(!b.command, &b.topic)));
        PublishPlan {
            interval,
            topics: planned,
            exact: counts.messages_exact,
            namespace,
            master_uri: master_uri.to_string(),
            rate,
            filtered: None,
            selected: topics.to_vec(),
        }
    }

    /// Messages in all.
    pub fn messages(&self) -> u64 {
        self.topics.iter().map(|t| t.messages).sum()
    }

    /// The topics that command a robot.
    pub fn commands(&self) -> impl Iterator<Item = &PlannedTopic> {
        self.topics.iter().filter(|t| t.command)
    }
}

/// True for topics that command a robot when replayed: velocity commands (`cmd_vel` anywhere
/// in the name),
/// `…/command`, action goals (`…/goal`), joint trajectories.
pub fn is_command(topic: &str, type_name: &str) -> bool {
    let last = topic.rsplit('/').next().unwrap_or(topic);
    let lower = last.to_ascii_lowercase();
    topic.to_ascii_lowercase().contains("cmd_vel")
        || lower == "command"
        || lower.ends_with("_command")
        || lower == "goal"
        || type_name.ends_with("ActionGoal")
        || type_name.contains("JointTrajectory")
        || (lower.starts_with("joint_") && lower.contains("traj"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_like_topics_are_flagged() {
        for (topic, ty) in [
            ("/cmd_vel", "geometry_msgs/Twist"),
            ("/robot/cmd_vel_mux/input", "geometry_msgs/Twist"),
            ("/arm/command", "std_msgs/Float64MultiArray"),
            ("/gripper_command", "control_msgs/GripperCommand"),
            ("/move_base/goal", "move_base_msgs/MoveBaseActionGoal"),
            ("/arm/follow", "trajectory_msgs/JointTrajectory"),
            ("/joint_trajectory", "std_msgs/String"),
        ] {
            assert!(is_command(topic, ty), "{topic} {ty}");
        }
        for (topic, ty) in [
            ("/odom", "nav_msgs/Odometry"),
            ("/joint_states", "sensor_msgs/JointState"),
            ("/rosout", "rosgraph_msgs/Log"),
            ("/goals_reached", "std_msgs/UInt32"),
        ] {
            assert!(!is_command(topic, ty), "{topic} {ty}");
        }
    }
}
