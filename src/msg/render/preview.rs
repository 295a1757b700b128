//! One-line previews of messages for a list, naming what they show:
//!
//! - a log message as its level, node and text (`WARN /planner: Battery low`);
//! - a vector or quaternion as a short label and its numbers (`pos 1.2 3.4 0`, `q 0 0 0.38
//!   0.92`, `acc 0.1 0 9.81`, `lin 0.5 0 0`), groups apart by ` · `;
//! - an IMU leading with its acceleration, then the angular velocity and orientation;
//! - a GNSS fix as `lat 48.1372215 lon 11.5754892 alt 519.2` (and `no fix` when it has none);
//! - a transform message as its first transform, `odom→base_link pos … · q …`, and how many
//!   more it holds;
//! - any other message as its first scalar fields by leaf name (`voltage=22.3 current=-1.9`).
//!
//! ROS 2 types are recognised by either spelling (`sensor_msgs/msg/Imu`); a ROS 2 log
//! (`rcl_interfaces/msg/Log`) shows its levels as ROS1's, and `builtin_interfaces/Time` and
//! `Duration` fields read as times.
//!
//! The `Header`, frame names and covariance matrices are left out (every message has the
//! first; the others fill the line without saying much). Bounded: at most [`MAX_FIELDS`]
//! fields and about [`MAX_CHARS`] characters; the caller fits it to its width and escapes it.

use super::summary::{SummaryOptions, summarize};
use crate::msg::{MessageRef, ValueRef, ros1_name, time_type};

/// Most fields in a preview.
pub const MAX_FIELDS: usize = 12;
/// About the most characters in a preview.
pub const MAX_CHARS: usize = 240;

/// The preview of a message.
pub fn preview(msg: MessageRef<'_>) -> String {
    let typed = match &*ros1_name(msg.ty().name()) {
        "rosgraph_msgs/Log" | "roslib/Log" => log_preview(msg, false),
        "rcl_interfaces/Log" => log_preview(msg, true),
        "sensor_msgs/NavSatFix" => fix_preview(msg),
        "tf2_msgs/TFMessage" | "tf/tfMessage" => tf_preview(msg),
        _ => None,
    };
    if let Some(p) = typed {
        return p;
    }
    let mut p = Preview::default();
    p.walk(msg, 0);
    p.out
}

/// `LEVEL /node: text` (a ROS 2 logger name as written: `WARN talker: text`). `ros2`: the
/// levels are numbered 10 … 50 (`rcl_interfaces/msg/Log`), not 1 … 16.
fn log_preview(msg: MessageRef<'_>, ros2: bool) -> Option<String> {
    let level = match msg.get("level")? {
        ValueRef::I8(v) => i64::from(v),
        ValueRef::U8(v) => i64::from(v),
        _ => return None,
    };
    let name = match (ros2, level) {
        (false, i64::MIN..=1) | (true, i64::MIN..=19) => "DEBUG",
        (false, 2..=3) | (true, 20..=29) => "INFO",
        (false, 4..=7) | (true, 30..=39) => "WARN",
        (false, 8..=15) | (true, 40..=49) => "ERROR",
        _ => "FATAL",
    };
    let ValueRef::String(text) = msg.get("msg")? else {
        return None;
    };
    let text = String::from_utf8_lossy(text.get(..text.len().min(MAX_CHARS * 4))?);
    let node = match msg.get("name") {
        Some(ValueRef::String(n)) if !n.is_empty() => {
            let n = String::from_utf8_lossy(n.get(..n.len().min(MAX_CHARS))?);
            format!("{n}: ")
        }
        _ => String::new(),
    };
    Some(format!("{name} {node}{}", text.replace('\n', " ")))
}

/// `lat … lon … alt …`, and `no fix` when the receiver had none.
fn fix_preview(msg: MessageRef<'_>) -> Option<String> {
    let lat = number(&msg.get("latitude")?)?;
    let lon = number(&msg.get("longitude")?)?;
    let alt = number(&msg.get("altitude")?)?;
    // NavSatStatus.status: -1 no fix, 0 fix, 1 SBAS, 2 GBAS.
    let status = match msg.get("status") {
        Some(ValueRef::Message(s)) => s.get("status").and_then(|v| number(&v)),
        _ => None,
    };
    let status = match status {
        Some(s) if s < 0.0 => " · no fix",
        Some(s) if s >= 2.0 => " · fix (GBAS)",
        Some(s) if s >= 1.0 => " · fix (SBAS)",
        _ => "",
    };
    Some(format!(
        "lat {} lon {} alt {}{status}",
        decimals(lat, 7),
        decimals(lon, 7),
        decimals(alt, 2)
    ))
}

/// The first transform as `parent→child pos … · q …`, and `(+N more)`.
fn tf_preview(msg: MessageRef<'_>) -> Option<String> {
    let ValueRef::Array(transforms) = msg.get("transforms")? else {
        return None;
    };
    let Some(ValueRef::Message(first)) = transforms.iter().next() else {
        return Some("no transforms".to_string());
    };
    let parent = match first.get("header") {
        Some(ValueRef::Message(h)) => match h.get("frame_id") {
            Some(ValueRef::String(f)) => String::from_utf8_lossy(f).into_owned(),
            _ => String::new(),
        },
        _ => String::new(),
    };
    let child = match first.get("child_frame_id") {
        Some(ValueRef::String(f)) => String::from_utf8_lossy(f).into_owned(),
        _ => String::new(),
    };
    let mut p = Preview::default();
    if let Some(ValueRef::Message(t)) = first.get("transform") {
        p.walk(t, 1);
    }
    let more = match transforms.len() {
        1 => String::new(),
        n => format!(" (+{} more)", n - 1),
    };
    Some(format!(
        "{}→{} {}{more}",
        clip(&parent),
        clip(&child),
        p.out
    ))
}

/// A frame name cut to a preview's share.
fn clip(name: &str) -> String {
    name.chars().take(40).collect()
}

/// Types shown as a label and their numbers.
const VECTORS: [&str; 4] = [
    "geometry_msgs/Point",
    "geometry_msgs/Point32",
    "geometry_msgs/Vector3",
    "geometry_msgs/Quaternion",
];

/// The label of a vector-like field: short names for the usual ones.
fn label(field: &str) -> &str {
    match field {
        "position" | "translation" => "pos",
        "orientation" | "rotation" => "q",
        "linear_acceleration" => "acc",
        "angular_velocity" => "gyro",
        "linear" => "lin",
        "angular" => "ang",
        other => other,
    }
}

/// The fields of a type to show first, in this order (the rest follow in definition order).
fn leading(ty: &str) -> &'static [&'static str] {
    match &*ros1_name(ty) {
        "sensor_msgs/Imu" => &["linear_acceleration", "angular_velocity", "orientation"],
        _ => &[],
    }
}

/// Fields left out: frame names and covariance matrices.
fn skipped(field: &str) -> bool {
    field.ends_with("frame_id") || field.ends_with("covariance")
}

/// A preview being written.
#[derive(Default)]
struct Preview {
    out: String,
    fields: usize,
    /// The last thing written was a group (a vector): the next item is set apart by ` · `.
    grouped: bool,
}

impl Preview {
    fn full(&self) -> bool {
        self.fields >= MAX_FIELDS || self.out.len() >= MAX_CHARS
    }

    /// Appends the fields of `msg`, depth first, until the limits.
    fn walk(&mut self, msg: MessageRef<'_>, depth: usize) {
        let first = leading(msg.ty().name());
        let ordered = first
            .iter()
            .filter_map(|f| msg.get(f).map(|v| (*f, v)))
            .chain(msg.iter().filter(|(n, _)| !first.contains(n)));
        for (name, value) in ordered {
            if self.full() {
                return;
            }
            self.field(name, &value, depth);
        }
    }

    fn field(&mut self, name: &str, value: &ValueRef<'_>, depth: usize) {
        let opts = SummaryOptions {
            max_array_items: 3,
            max_string_chars: 40,
            max_depth: 0,
        };
        if skipped(name) {
            return;
        }
        match value {
            ValueRef::Message(m) if VECTORS.contains(&&*ros1_name(m.ty().name())) => {
                let numbers: Vec<String> = m
                    .values()
                    .filter_map(|v| number(&v))
                    .map(|x| decimals(x, 3))
                    .collect();
                self.group(&format!("{} {}", label(name), numbers.join(" ")));
            }
            // A ROS 2 time or duration: as a ROS1 one.
            ValueRef::Message(m) if time_type(m.ty()).is_some() => {
                self.item(&format!("{name}={}", summarize(value, &opts)));
            }
            ValueRef::Message(m) => {
                if ros1_name(m.ty().name()) != "std_msgs/Header" && depth < 8 {
                    self.walk(*m, depth + 1);
                }
            }
            ValueRef::Array(a) if a.is_empty() => {}
            ValueRef::Array(a) => {
                // The first element of an array of messages stands for it.
                if let Some(ValueRef::Message(m)) = a.iter().next() {
                    self.item(&format!("{name}[{}]", a.len()));
                    self.walk(m, depth + 1);
                } else {
                    self.item(&format!("{name}={}", summarize(value, &opts)));
                }
            }
            _ => self.item(&format!("{name}={}", summarize(value, &opts))),
        }
    }

    /// A `name=value` item, after a space (or ` · ` after a group).
    fn item(&mut self, text: &str) {
        if !self.out.is_empty() {
            self.out.push_str(if self.grouped { " · " } else { " " });
        }
        self.out.push_str(text);
        self.grouped = false;
        self.fields += 1;
    }

    /// A group (`pos 1 2 3`), set apart by ` · `.
    fn group(&mut self, text: &str) {
        if !self.out.is_empty() {
            self.out.push_str(" · ");
        }
        self.out.push_str(text);
        self.grouped = true;
        self.fields += 1;
    }
}

/// A number field's value.
fn number(v: &ValueRef<'_>) -> Option<f64> {
    v.clone().to_value().as_f64()
}

/// `x` with at most `places` decimals, trailing zeros dropped (`1.2`, `0`, `-0.383`; never
/// `-0`: what rounds to zero is `0`); magnitudes from 1e9 in scientific notation.
fn decimals(x: f64, places: usize) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    if x.abs() >= 1e9 {
        return format!("{x:.2e}");
    }
    let text = format!("{x:.places$}");
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        &text
    };
    if text == "-0" {
        "0".to_string()
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msg::{Registry, Schema, decode};

    fn schema(name: &str) -> std::sync::Arc<Schema> {
        Schema::from_registry(name, None, &Registry::bundled()).unwrap()
    }

    /// Message bytes written field by field.
    #[derive(Default)]
    struct Bytes(Vec<u8>);

    impl Bytes {
        fn header(mut self, frame: &str) -> Self {
            self.0.extend_from_slice(&[0; 12]); // seq, stamp
            self.string(frame)
        }
        fn string(mut self, s: &str) -> Self {
            self.0
                .extend_from_slice(&u32::try_from(s.len()).unwrap().to_le_bytes());
            self.0.extend_from_slice(s.as_bytes());
            self
        }
        fn f64s(mut self, values: &[f64]) -> Self {
            for v in values {
                self.0.extend_from_slice(&v.to_le_bytes());
            }
            self
        }
        fn raw(mut self, bytes: &[u8]) -> Self {
            self.0.extend_from_slice(bytes);
            self
        }
    }

    fn preview_of(ty: &str, Bytes(bytes): Bytes) -> String {
        let s = schema(ty);
        let d = decode(&s, &bytes).unwrap();
        preview(d.root())
    }

    #[test]
    fn vectors_are_named_and_the_header_left_out() {
        let b = Bytes::default().header("map").f64s(&[0.69, 0.0, -1.5]);
        assert_eq!(
            preview_of("geometry_msgs/Vector3Stamped", b),
            "vector 0.69 0 -1.5"
        );
        let b = Bytes::default().header("map").f64s(&[
            1.2,
            3.4,
            -0.000_000_1,
            0.0,
            0.0,
            0.382_683_4,
            0.923_879_5,
        ]);
        assert_eq!(
            preview_of("geometry_msgs/PoseStamped", b),
            "pos 1.2 3.4 0 · q 0 0 0.383 0.924"
        );
        let b = Bytes::default().f64s(&[0.5, 0.0, 0.0, 0.0, 0.0, 0.3]);
        assert_eq!(
            preview_of("geometry_msgs/Twist", b),
            "lin 0.5 0 0 · ang 0 0 0.3"
        );
    }

    #[test]
    fn an_imu_leads_with_its_acceleration_and_covariances_are_left_out() {
        let cov = [0.01; 9];
        let b = Bytes::default()
            .header("imu")
            .f64s(&[0.0, 0.0, 0.0, 1.0])
            .f64s(&cov)
            .f64s(&[0.0, 0.0, 0.1])
            .f64s(&cov)
            .f64s(&[0.1, 0.0, 9.81])
            .f64s(&cov);
        assert_eq!(
            preview_of("sensor_msgs/Imu", b),
            "acc 0.1 0 9.81 · gyro 0 0 0.1 · q 0 0 0 1"
        );
    }

    #[test]
    fn odometry_shows_pose_and_twist_without_frames_or_covariances() {
        let b = Bytes::default()
            .header("odom")
            .string("base_link")
            .f64s(&[1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 1.0])
            .f64s(&[0.5; 36])
            .f64s(&[0.4, 0.0, 0.0, 0.0, 0.0, -0.2])
            .f64s(&[0.5; 36]);
        assert_eq!(
            preview_of("nav_msgs/Odometry", b),
            "pos 1 2 0 · q 0 0 0 1 · lin 0.4 0 0 · ang 0 0 -0.2"
        );
    }

    #[test]
    fn a_fix_as_latitude_longitude_altitude_and_no_fix_said() {
        let b = Bytes::default()
            .header("gps")
            .raw(&[0xff, 1, 0]) // status -1 (no fix), service 1
            .f64s(&[48.137_221_5, 11.575_489_2, 519.234])
            .f64s(&[0.0; 9])
            .raw(&[0]);
        assert_eq!(
            preview_of("sensor_msgs/NavSatFix", b),
            "lat 48.1372215 lon 11.5754892 alt 519.23 · no fix"
        );
    }

    #[test]
    fn transforms_as_the_first_one_between_its_frames() {
        let one = |b: Bytes, parent: &str, child: &str, x: f64| {
            b.header(parent)
                .string(child)
                .f64s(&[x, 2.0, 0.0, 0.0, 0.0, 0.0, 1.0])
        };
        let b = Bytes::default().raw(&2u32.to_le_bytes());
        let b = one(b, "odom", "base_link", 1.0);
        let b = one(b, "base_link", "laser", 0.2);
        assert_eq!(
            preview_of("tf2_msgs/TFMessage", b),
            "odom→base_link pos 1 2 0 · q 0 0 0 1 (+1 more)"
        );
    }

    #[test]
    fn logs_as_level_node_and_text() {
        let s = schema("rosgraph_msgs/Log");
        let mut bytes = vec![0u8; 4 + 8 + 4]; // seq, stamp, empty frame_id
        bytes.push(4); // WARN
        for text in ["/n", "Battery\nlow", "f.cpp", "main"] {
            bytes.extend_from_slice(&u32::try_from(text.len()).unwrap().to_le_bytes());
            bytes.extend_from_slice(text.as_bytes());
        }
        bytes.extend_from_slice(&[0; 8]); // line, topics
        let d = decode(&s, &bytes).unwrap();
        assert_eq!(preview(d.root()), "WARN /n: Battery low");
    }

    /// ROS 2 types (either spelling, a header without `seq`, a `builtin_interfaces/Time`
    /// stamp) preview as their ROS1 forms do.
    #[test]
    fn ros2_types_preview_as_ros1_ones() {
        use crate::msg::stamp::ros2_like;
        let ros2_header = |b: Bytes, frame: &str| b.raw(&[0; 8]).string(frame);
        let of = |ty: &str, Bytes(bytes): Bytes| {
            let s = ros2_like::schema(ty);
            preview(decode(&s, &bytes).unwrap().root())
        };
        let imu = ros2_header(Bytes::default(), "imu")
            .f64s(&[0.0, 0.0, 0.0, 1.0])
            .f64s(&[0.0; 9])
            .f64s(&[0.0, 0.0, 0.1])
            .f64s(&[0.0; 9])
            .f64s(&[0.1, 0.0, 9.81])
            .f64s(&[0.0; 9]);
        assert_eq!(
            of("sensor_msgs/msg/Imu", imu),
            "acc 0.1 0 9.81 · gyro 0 0 0.1 · q 0 0 0 1"
        );
        let fix = ros2_header(Bytes::default(), "gps")
            .raw(&[0xff, 0, 0])
            .f64s(&[48.137_221_5, 11.575_489_2, 519.23])
            .f64s(&[0.0; 9])
            .raw(&[0]);
        assert_eq!(
            of("sensor_msgs/msg/NavSatFix", fix),
            "lat 48.1372215 lon 11.5754892 alt 519.23 · no fix"
        );
        let mut log = Bytes::default().raw(&[0; 8]).raw(&[30]);
        for text in ["talker", "Battery\nlow", "f.cpp", "main"] {
            log = log.string(text);
        }
        let log = log.raw(&[0; 4]);
        let sep = "=".repeat(80);
        let s = Schema::from_definition(
            "rcl_interfaces/msg/Log",
            &format!(
                "builtin_interfaces/Time stamp\nuint8 level\nstring name\nstring msg\n\
                 string file\nstring function\nuint32 line\n\
                 {sep}\nMSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n"
            ),
        )
        .unwrap();
        assert_eq!(
            preview(decode(&s, &log.0).unwrap().root()),
            "WARN talker: Battery low"
        );
        // A time field outside a header reads as a time.
        let s = Schema::from_definition(
            "t/msg/Event",
            &format!(
                "builtin_interfaces/Time at\nfloat64 value\n\
                 {sep}\nMSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n"
            ),
        )
        .unwrap();
        let b = Bytes::default()
            .raw(&1_700_000_000i32.to_le_bytes())
            .raw(&5u32.to_le_bytes())
            .f64s(&[2.5]);
        assert_eq!(
            preview(decode(&s, &b.0).unwrap().root()),
            "at=1700000000.000000005 value=2.5"
        );
    }

    #[test]
    fn other_messages_as_scalars_by_leaf_name() {
        let f = preview_of("std_msgs/Float64", Bytes::default().f64s(&[1.5]));
        assert_eq!(f, "data=1.5");
    }
}
