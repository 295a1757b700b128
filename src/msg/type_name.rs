//! ROS 2 and ROS1 spellings of one message type: `sensor_msgs/msg/Image` is
//! `sensor_msgs/Image`. Code that recognises well-known types (pictures, logs, previews)
//! compares [`ros1_name`]s so that both spellings are recognised.

use std::borrow::Cow;

/// The type name without a ROS 2 `/msg/` (or `/srv/`, `/action/`) middle part:
/// `sensor_msgs/msg/Image` → `sensor_msgs/Image`; a ROS1 name is returned as it is.
pub fn ros1_name(datatype: &str) -> Cow<'_, str> {
    let mut parts = datatype.splitn(3, '/');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(pkg), Some("msg" | "srv" | "action"), Some(name)) if !name.contains('/') => {
            Cow::Owned(format!("{pkg}/{name}"))
        }
        _ => Cow::Borrowed(datatype),
    }
}

#[cfg(test)]
mod tests {
    use super::ros1_name;

    #[test]
    fn ros2_names_lose_their_middle_part() {
        assert_eq!(ros1_name("sensor_msgs/msg/Image"), "sensor_msgs/Image");
        assert_eq!(ros1_name("sensor_msgs/Image"), "sensor_msgs/Image");
        assert_eq!(ros1_name("rcl_interfaces/msg/Log"), "rcl_interfaces/Log");
        assert_eq!(ros1_name("a/b/c/d"), "a/b/c/d");
        assert_eq!(ros1_name("Header"), "Header");
    }
}
