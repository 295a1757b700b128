//! One-line previews of messages for a list: a log message as its level and text
//! (`WARN Battery low…`), any other message as its first scalar fields by leaf name
//! (`x=0.69 y=0.0 z=0.0`), the `Header` left out (every message has one). Bounded: at most
//! [`MAX_FIELDS`] fields and about [`MAX_CHARS`] characters; the caller fits it to its width
//! and escapes it.

use super::summary::{SummaryOptions, summarize};
use crate::msg::{MessageRef, ValueRef};

/// Most fields in a preview.
pub const MAX_FIELDS: usize = 12;
/// About the most characters in a preview.
pub const MAX_CHARS: usize = 240;

/// The preview of a message.
pub fn preview(msg: MessageRef<'_>) -> String {
    if matches!(msg.ty().name(), "rosgraph_msgs/Log" | "roslib/Log") {
        if let Some(p) = log_preview(msg) {
            return p;
        }
    }
    let mut out = String::new();
    let mut fields = 0;
    walk(msg, &mut out, &mut fields, 0);
    out
}

fn log_preview(msg: MessageRef<'_>) -> Option<String> {
    let level = match msg.get("level")? {
        ValueRef::I8(v) => i64::from(v),
        ValueRef::U8(v) => i64::from(v),
        _ => return None,
    };
    let name = match level {
        i64::MIN..=1 => "DEBUG",
        2..=3 => "INFO",
        4..=7 => "WARN",
        8..=15 => "ERROR",
        _ => "FATAL",
    };
    let ValueRef::String(text) = msg.get("msg")? else {
        return None;
    };
    let text = String::from_utf8_lossy(text.get(..text.len().min(MAX_CHARS * 4))?);
    Some(format!("{name} {}", text.replace('\n', " ")))
}

/// Appends `name=value` for the scalar leaves of `msg`, depth first, until the limits.
fn walk(msg: MessageRef<'_>, out: &mut String, fields: &mut usize, depth: usize) {
    let opts = SummaryOptions {
        max_array_items: 3,
        max_string_chars: 40,
        max_depth: 0,
    };
    for (name, value) in msg.iter() {
        if *fields >= MAX_FIELDS || out.len() >= MAX_CHARS {
            return;
        }
        match &value {
            ValueRef::Message(m) => {
                if m.ty().name() == "std_msgs/Header" || depth >= 8 {
                    continue;
                }
                walk(*m, out, fields, depth + 1);
            }
            ValueRef::Array(a) if a.is_empty() => {}
            ValueRef::Array(a) => {
                // The first element of an array of messages stands for it.
                if let Some(ValueRef::Message(m)) = a.iter().next() {
                    push(out, &format!("{name}[{}]", a.len()), None);
                    *fields += 1;
                    walk(m, out, fields, depth + 1);
                } else {
                    push(out, name, Some(summarize(&value, &opts)));
                    *fields += 1;
                }
            }
            _ => {
                push(out, name, Some(summarize(&value, &opts)));
                *fields += 1;
            }
        }
    }
}

fn push(out: &mut String, name: &str, value: Option<String>) {
    if !out.is_empty() {
        out.push(' ');
    }
    out.push_str(name);
    if let Some(v) = value {
        out.push('=');
        out.push_str(&v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msg::{Registry, Schema, decode};

    fn schema(name: &str) -> std::sync::Arc<Schema> {
        Schema::from_registry(name, None, &Registry::bundled()).unwrap()
    }

    #[test]
    fn scalars_by_leaf_name_header_left_out() {
        let s = schema("geometry_msgs/Vector3Stamped");
        let mut bytes = vec![0u8; 4 + 8];
        bytes.extend_from_slice(&3u32.to_le_bytes());
        bytes.extend_from_slice(b"map");
        for v in [0.69f64, 0.0, -1.5] {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        let d = decode(&s, &bytes).unwrap();
        assert_eq!(preview(d.root()), "x=0.69 y=0.0 z=-1.5");
    }

    #[test]
    fn logs_as_level_and_text() {
        let s = schema("rosgraph_msgs/Log");
        let mut bytes = vec![0u8; 4 + 8 + 4]; // seq, stamp, empty frame_id
        bytes.push(4); // WARN
        for text in ["/n", "Battery\nlow", "f.cpp", "main"] {
            bytes.extend_from_slice(&u32::try_from(text.len()).unwrap().to_le_bytes());
            bytes.extend_from_slice(text.as_bytes());
        }
        bytes.extend_from_slice(&[0; 8]); // line, topics
        let d = decode(&s, &bytes).unwrap();
        assert_eq!(preview(d.root()), "WARN Battery low");
    }
}
