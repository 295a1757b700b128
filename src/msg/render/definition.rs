//! A message type's definition as `rosmsg show` prints it: each type's constants
//! (`byte DEBUG=1`), then its fields (`type name`, types spelled as genmsg resolves them), the
//! fields of nested message types under theirs, indented two spaces per level.

use std::fmt::Write as _;

use crate::msg::{Elem, MsgType};

/// Deepest nesting written out (deeper types are named only); schemas are acyclic and far
/// shallower in practice.
const MAX_DEPTH: usize = 32;

/// The definition of `ty` expanded as `rosmsg show TYPE` prints it (one line per constant or
/// field, ending in a newline; `rosmsg` prints one more empty line after it).
pub fn show(ty: &MsgType) -> String {
    let mut out = String::new();
    write_type(&mut out, ty, 0);
    out
}

fn write_type(out: &mut String, ty: &MsgType, depth: usize) {
    let indent = "  ".repeat(depth);
    for c in ty.constants() {
        let _ = writeln!(
            out,
            "{indent}{} {}={}",
            c.ty().name(),
            c.name(),
            c.value_text()
        );
    }
    for f in ty.fields() {
        let _ = writeln!(out, "{indent}{} {}", f.type_text(), f.name());
        if let Elem::Msg(sub) = f.ty().elem() {
            if depth < MAX_DEPTH {
                write_type(out, sub, depth + 1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msg::{Registry, Schema};

    fn shown(name: &str) -> String {
        let schema = Schema::from_registry(name, None, &Registry::bundled()).unwrap();
        show(schema.root())
    }

    #[test]
    fn constants_first_then_fields_nested_types_indented() {
        let text = shown("rosgraph_msgs/Log");
        let expected = "byte DEBUG=1\nbyte INFO=2\nbyte WARN=4\nbyte ERROR=8\nbyte FATAL=16\n\
std_msgs/Header header\n  uint32 seq\n  time stamp\n  string frame_id\nbyte level\n\
string name\nstring msg\nstring file\nstring function\nuint32 line\nstring[] topics\n";
        assert_eq!(text, expected);
        let text = shown("sensor_msgs/NavSatFix");
        assert!(
            text.contains("sensor_msgs/NavSatStatus status\n  int8 STATUS_NO_FIX=-1\n"),
            "{text}"
        );
        assert!(text.ends_with("uint8 position_covariance_type\n"), "{text}");
    }
}
