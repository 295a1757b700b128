//! Times as ROS 2 spells them: `builtin_interfaces/Time` and `builtin_interfaces/Duration` are
//! messages `{int32 sec, uint32 nanosec}` where ROS1 has the `time` and `duration`
//! primitives. Code that reads a time from a message (a log line's stamp, a field plotted or
//! compared) takes either form through [`time_value`] and [`TimeMessage`].

use super::{ArrayKind, Elem, MessageRef, MsgType, Primitive, ValueRef, ros1_name};
use crate::time::RosTime;

/// Which of the two ROS 2 time types a message is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeKind {
    /// `builtin_interfaces/Time`: a point in time.
    Time,
    /// `builtin_interfaces/Duration`: a span.
    Duration,
}

/// A `builtin_interfaces/Time` or `Duration` message read as its two fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeMessage {
    /// Time or duration.
    pub kind: TimeKind,
    /// `sec` (may be negative).
    pub sec: i32,
    /// `nanosec` (normally below 1e9, not guaranteed by the file).
    pub nanosec: u32,
}

/// The kind of time a message type name is (`builtin_interfaces/msg/Time` or
/// `builtin_interfaces/Time`), if it is one.
pub fn time_kind(type_name: &str) -> Option<TimeKind> {
    match &*ros1_name(type_name) {
        "builtin_interfaces/Time" => Some(TimeKind::Time),
        "builtin_interfaces/Duration" => Some(TimeKind::Duration),
        _ => None,
    }
}

/// The kind of time a message type is: a `builtin_interfaces/Time` or `Duration` of exactly
/// the fields `int32 sec` and `uint32 nanosec` (another shape under that name is no time).
pub fn time_type(ty: &MsgType) -> Option<TimeKind> {
    let kind = time_kind(ty.name())?;
    let single = |name: &str, p: Primitive| {
        ty.field(name).is_some_and(|(_, f)| {
            f.ty().array() == ArrayKind::Single && matches!(f.ty().elem(), Elem::Prim(q) if *q == p)
        })
    };
    (ty.fields().len() == 2
        && single("sec", Primitive::Int32)
        && single("nanosec", Primitive::UInt32))
    .then_some(kind)
}

impl TimeMessage {
    /// `m` as a time, when it is a `builtin_interfaces/Time` or `Duration` with the fields
    /// `int32 sec` and `uint32 nanosec` (another shape under that name is no time).
    pub fn of(m: &MessageRef<'_>) -> Option<TimeMessage> {
        let kind = time_type(m.ty())?;
        match (m.get("sec")?, m.get("nanosec")?) {
            (ValueRef::I32(sec), ValueRef::U32(nanosec)) => {
                Some(TimeMessage { kind, sec, nanosec })
            }
            _ => None,
        }
    }

    /// Seconds as a float: `sec + nanosec · 1e-9` (as `rclpy`'s `Time.nanoseconds / 1e9`
    /// gives for well-formed values, and as a ROS1 `time` is plotted).
    pub fn as_secs_f64(self) -> f64 {
        f64::from(self.sec) + f64::from(self.nanosec) / 1e9
    }

    /// Total nanoseconds (never overflows).
    pub fn as_nanos(self) -> i64 {
        i64::from(self.sec) * 1_000_000_000 + i64::from(self.nanosec)
    }

    /// The time as a [`RosTime`]; `None` before 1970 (a negative `sec`), which a ROS1 time
    /// cannot hold.
    pub fn to_ros_time(self) -> Option<RosTime> {
        Some(RosTime::new(u32::try_from(self.sec).ok()?, self.nanosec))
    }
}

/// The time `v` holds: a ROS1 `time` or a ROS 2 `builtin_interfaces/Time` message (not
/// before 1970); `None` for anything else.
pub fn time_value(v: &ValueRef<'_>) -> Option<RosTime> {
    match v {
        ValueRef::Time(t) => Some(*t),
        ValueRef::Message(m) => TimeMessage::of(m)
            .filter(|t| t.kind == TimeKind::Time)?
            .to_ros_time(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msg::{Schema, decode};

    fn stamped(sec: i32, nanosec: u32) -> Vec<u8> {
        let mut p = sec.to_le_bytes().to_vec();
        p.extend(nanosec.to_le_bytes());
        p
    }

    #[test]
    fn ros2_time_messages_read_as_times() {
        let sep = "=".repeat(80);
        let s = Schema::from_definition(
            "t/T",
            &format!(
                "builtin_interfaces/Time stamp\nbuiltin_interfaces/Duration span\nP other\n\
                 {sep}\nMSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n\
                 {sep}\nMSG: builtin_interfaces/Duration\nint32 sec\nuint32 nanosec\n\
                 {sep}\nMSG: t/P\nint32 sec\nuint32 nanosec\n"
            ),
        )
        .unwrap();
        let mut p = stamped(1_700_000_000, 250_000_000);
        p.extend(stamped(-2, 500_000_000));
        p.extend(stamped(3, 4));
        let d = decode(&s, &p).unwrap();
        let m = d.root();
        let stamp = m.get("stamp").unwrap();
        assert_eq!(
            time_value(&stamp),
            Some(RosTime::new(1_700_000_000, 250_000_000))
        );
        let ValueRef::Message(span) = m.get("span").unwrap() else {
            panic!()
        };
        let span = TimeMessage::of(&span).unwrap();
        assert_eq!(span.kind, TimeKind::Duration);
        assert!((span.as_secs_f64() + 1.5).abs() < 1e-12);
        assert_eq!(span.as_nanos(), -1_500_000_000);
        assert_eq!(span.to_ros_time(), None);
        assert_eq!(time_value(&m.get("span").unwrap()), None, "a duration");
        assert_eq!(time_value(&m.get("other").unwrap()), None, "not by name");
        assert_eq!(
            time_kind("builtin_interfaces/msg/Time"),
            Some(TimeKind::Time)
        );
        assert_eq!(time_kind("std_msgs/Time"), None);
        let bad = Schema::from_definition(
            "t/U",
            &format!("builtin_interfaces/Time t\n{sep}\nMSG: builtin_interfaces/Time\nint64 sec\nuint32 nanosec\n"),
        )
        .unwrap();
        let d = decode(&bad, &[0; 12]).unwrap();
        assert_eq!(
            time_value(&d.root().get("t").unwrap()),
            None,
            "not that shape"
        );
    }
}

/// ROS 2-shaped test schemas before the CDR decoder: ROS 2 types decode to the values of a
/// ROS1-wire definition with the same fields, so the bundled ROS1 definitions with ROS 2's
/// `std_msgs/Header` (no `seq`, a `builtin_interfaces/Time` stamp) and time types stand for
/// them.
#[cfg(test)]
pub(crate) mod ros2_like {
    use std::sync::Arc;

    use crate::msg::{Registry, Schema, ros1_name};

    /// The bundled definitions with ROS 2's header and time types.
    pub(crate) fn registry() -> Registry {
        let mut reg = Registry::bundled();
        for (name, text) in [
            (
                "std_msgs/Header",
                "builtin_interfaces/Time stamp\nstring frame_id\n",
            ),
            ("builtin_interfaces/Time", "int32 sec\nuint32 nanosec\n"),
            ("builtin_interfaces/Duration", "int32 sec\nuint32 nanosec\n"),
        ] {
            reg.add_definition(name, text).unwrap();
        }
        reg
    }

    /// The schema of `datatype` (a ROS 2 name, `sensor_msgs/msg/Imu`) from the bundled ROS1
    /// definition of its ROS1 name, with ROS 2's header and times.
    pub(crate) fn schema(datatype: &str) -> Arc<Schema> {
        let mut reg = registry();
        let text = reg.texts(&ros1_name(datatype)).first().unwrap().to_string();
        let text: String = text
            .lines()
            .map(|l| {
                let l = match l.strip_prefix("time ") {
                    Some(rest) => format!("builtin_interfaces/Time {rest}"),
                    None => l.to_string(),
                };
                match l.strip_prefix("duration ") {
                    Some(rest) => format!("builtin_interfaces/Duration {rest}\n"),
                    None => l + "\n",
                }
            })
            .collect();
        reg.add_definition(datatype, &text).unwrap();
        Schema::from_registry(datatype, None, &reg).unwrap()
    }
}
