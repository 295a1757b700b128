//! The RoCKIn topic → message type table (RoCKIn YAML Data File Specification, section 1)
//! and the topics of each benchmark (section 4).

/// Every topic of the specification and its message type, sorted by topic.
pub const TOPIC_TYPES: [(&str, &str); 21] = [
    ("audio", "audio_common_msgs/AudioData"),
    ("command", "std_msgs/String"),
    ("condition_after", "std_msgs/String"),
    ("condition_rcv", "std_msgs/String"),
    ("container", "std_msgs/String"),
    ("image", "sensor_msgs/Image"),
    ("info", "std_msgs/String"),
    ("initial_plan", "std_msgs/String"),
    ("new_plan", "std_msgs/String"),
    ("notification", "std_msgs/String"),
    ("object", "std_msgs/String"),
    ("object_pose", "geometry_msgs/Pose"),
    ("path", "nav_msgs/Path"),
    ("plan", "std_msgs/String"),
    ("pointcloud", "sensor_msgs/PointCloud2"),
    ("pose", "geometry_msgs/Pose"),
    ("pose2d", "geometry_msgs/Pose2D"),
    ("position", "geometry_msgs/Pose"),
    ("transcriptions", "std_msgs/String"),
    ("tray", "std_msgs/String"),
    ("visitor", "std_msgs/String"),
];

/// The benchmarks of the specification (section 4) and the topics each records.
pub const BENCHMARKS: [(&str, &[&str]); 12] = [
    (
        "@Home Task Benchmark 1",
        &["audio", "command", "pose2d", "pose", "image", "pointcloud"],
    ),
    (
        "@Home Task Benchmark 2",
        &[
            "command",
            "pose2d",
            "pose",
            "visitor",
            "audio",
            "notification",
        ],
    ),
    ("@Home Task Benchmark 3", &["pose2d", "pose"]),
    (
        "@Work Task Benchmark 1",
        &["tray", "container", "image", "path"],
    ),
    (
        "@Work Task Benchmark 2",
        &[
            "path",
            "condition_rcv",
            "command",
            "condition_after",
            "image",
        ],
    ),
    (
        "@Work Task Benchmark 3",
        &[
            "initial_plan",
            "path",
            "notification",
            "new_plan",
            "pose2d",
            "pose",
        ],
    ),
    (
        "@Home Functional Benchmark 1",
        &["object", "object_pose", "image", "pointcloud"],
    ),
    (
        "@Home Functional Benchmark 2",
        &["notification", "position"],
    ),
    (
        "@Home Functional Benchmark 3",
        &["audio", "transcriptions", "command", "info"],
    ),
    (
        "@Work Functional Benchmark 1",
        &["object", "object_pose", "image", "pointcloud"],
    ),
    (
        "@Work Functional Benchmark 2",
        &["object", "notification", "image", "pointcloud"],
    ),
    ("@Work Functional Benchmark 3", &["plan"]),
];

/// The message type of a RoCKIn topic. A leading `/` is ignored (`/pose2d` is `pose2d`).
pub fn topic_type(topic: &str) -> Option<&'static str> {
    let bare = topic.strip_prefix('/').unwrap_or(topic);
    TOPIC_TYPES
        .binary_search_by(|(t, _)| (*t).cmp(bare))
        .ok()
        .and_then(|i| TOPIC_TYPES.get(i))
        .map(|(_, ty)| *ty)
}

/// The topics of the table, comma-separated (for messages).
pub(crate) fn known_topics() -> String {
    TOPIC_TYPES
        .iter()
        .map(|(t, _)| *t)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_and_covers_the_benchmarks() {
        assert!(TOPIC_TYPES.windows(2).all(|w| w[0].0 < w[1].0));
        for (name, topics) in BENCHMARKS {
            for t in topics {
                assert!(topic_type(t).is_some(), "{name}: {t}");
            }
        }
        assert_eq!(topic_type("/pose2d"), Some("geometry_msgs/Pose2D"));
        assert_eq!(topic_type("audio"), Some("audio_common_msgs/AudioData"));
        assert_eq!(topic_type("scan"), None);
    }

    #[test]
    fn every_type_is_bundled() {
        let reg = crate::msg::Registry::bundled();
        for (_, ty) in TOPIC_TYPES {
            crate::msg::Schema::from_registry(ty, None, &reg).unwrap();
        }
    }
}
