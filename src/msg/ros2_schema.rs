//! ROS 2 definitions → a [`Schema`] read from CDR: [`Schema::for_ros2`].
//!
//! The definition is a `ros2msg` text (main type, then each dependency after a line of 80 `=`
//! and `MSG: pkg/Type` or `MSG: pkg/msg/Type`) or a `ros2idl` text, which
//! [`to_msg_sections`](super::idl::to_msg_sections) turns into `ros2msg` sections first. Types
//! the definition does not hold come from the [`Registry`]'s user definitions (`--msg-path`
//! ROS 2 `share/PKG/msg` trees) or the ROS 2 builtins (`builtin_interfaces/msg/Time`,
//! `Duration`, `std_msgs/msg/Header`, `std_msgs/msg/Empty`); never from the bundled ROS1 set.

use std::collections::HashMap;
use std::sync::Arc;

use super::error::MsgError;
use super::idl;
use super::parse;
use super::registry::Registry;
use super::ros2_parse::ros2_type_name;
use super::schema::{Schema, checked_name};
use super::wire::{SchemaEncoding, Wire};

impl Schema {
    /// Compiles a ROS 2 definition (`ros2msg` or `ros2idl`, as an MCAP schema or a rosbag2
    /// `message_definitions` row holds it) of `datatype` (`pkg/msg/Type`; `pkg/Type` is
    /// accepted and becomes `pkg/msg/Type`) into a schema read from CDR ([`Wire::Cdr`]).
    ///
    /// An empty definition (a rosbag2 `.db3` without `message_definitions`) takes the type
    /// from `registry`, and a definition lacking a nested type takes that type from it: the
    /// user's ROS 2 definitions (`--msg-path`), found by `pkg/Type` or `pkg/msg/Type`, or a
    /// ROS 2 builtin. A `ros1msg` text is read in the ROS 2 dialect too (what a CDR payload
    /// means is ROS 2's). A definition that exists but declares nothing (comments only) is a
    /// type without fields: one dummy byte in CDR.
    ///
    /// A `.srv` text (request, `---`, response), which rosbag2 stores as the definition of a
    /// service event topic's `pkg/srv/Name_Event` type, compiles into that event message
    /// (`service_msgs/msg/ServiceEventInfo info`, `Name_Request[<=1] request`,
    /// `Name_Response[<=1] response`), or into the request or response type it names.
    pub fn for_ros2(
        datatype: &str,
        definition: &str,
        encoding: SchemaEncoding,
        registry: &Registry,
    ) -> Result<Arc<Schema>, MsgError> {
        let name = ros2_type_name(checked_name(datatype)?);
        if definition.trim().is_empty() {
            let text = registry
                .ros2_text(&name)
                .ok_or_else(|| MsgError::EmptyDefinition {
                    datatype: name.clone(),
                })?;
            let lookup = |n: &str| registry.ros2_text(n).map(|t| (t, 1));
            return Schema::compile_as(Wire::Cdr, &name, text, 1, &lookup);
        }
        match encoding {
            SchemaEncoding::Ros2Idl => {
                let sections = idl::to_msg_sections(&name, definition)?;
                let Some((main, deps)) = sections.split_first() else {
                    return Err(MsgError::EmptyDefinition { datatype: name });
                };
                let table: HashMap<String, &str> = deps
                    .iter()
                    .map(|s| (ros2_type_name(&s.name), s.text.as_str()))
                    .collect();
                let lookup = |n: &str| {
                    table
                        .get(n)
                        .map(|t| (*t, 1))
                        .or_else(|| registry.ros2_text(n).map(|t| (t, 1)))
                };
                Schema::compile_as(Wire::Cdr, &name, &main.text, 1, &lookup)
            }
            SchemaEncoding::Ros2Msg | SchemaEncoding::Ros1Msg => {
                let sections = parse::split_sections(&name, definition)?;
                let Some((main, deps)) = sections.split_first() else {
                    return Err(MsgError::EmptyDefinition { datatype: name });
                };
                // The first section of a name wins, as genpy's splitting does.
                let mut table: HashMap<String, (&str, usize)> = HashMap::new();
                for s in deps {
                    if let Some(n) = &s.name {
                        table
                            .entry(ros2_type_name(n))
                            .or_insert((s.text, s.first_line));
                    }
                }
                let event_text: String;
                let (main_text, main_line) = match split_service(main.text) {
                    None => (main.text, 1),
                    Some((request, response, response_line)) => {
                        let base = service_base(&name);
                        table.insert(format!("{base}_Request"), (request, 1));
                        table.insert(format!("{base}_Response"), (response, response_line));
                        if name.ends_with("_Response") {
                            (response, response_line)
                        } else if name.ends_with("_Request") {
                            (request, 1)
                        } else {
                            event_text = format!(
                                "service_msgs/msg/ServiceEventInfo info\n\
                                 {base}_Request[<=1] request\n{base}_Response[<=1] response\n"
                            );
                            (event_text.as_str(), 1)
                        }
                    }
                };
                let lookup = |n: &str| {
                    table
                        .get(n)
                        .copied()
                        .or_else(|| registry.ros2_text(n).map(|t| (t, 1)))
                };
                Schema::compile_as(Wire::Cdr, &name, main_text, main_line, &lookup)
            }
        }
    }
}

/// A `.srv` text (request, a `---` line, response) as rosbag2 stores it for a service event
/// topic: the request text, the response text and the line the response starts on.
fn split_service(text: &str) -> Option<(&str, &str, usize)> {
    let mut at = 0usize;
    for (i, line) in text.split('\n').enumerate() {
        if line.trim() == "---" {
            let request = text.get(..at).unwrap_or_default();
            let response = text.get(at + line.len() + 1..).unwrap_or_default();
            return Some((request, response, i + 2));
        }
        at += line.len() + 1;
    }
    None
}

/// `pkg/srv/Name` of `pkg/srv/Name_Event` (or `_Request`, `_Response`).
fn service_base(name: &str) -> &str {
    ["_Event", "_Request", "_Response"]
        .iter()
        .find_map(|suffix| name.strip_suffix(suffix))
        .unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msg::{ArrayKind, Elem};

    fn sep() -> String {
        "=".repeat(80)
    }

    fn ros2(datatype: &str, def: &str, reg: &Registry) -> Result<Arc<Schema>, MsgError> {
        Schema::for_ros2(datatype, def, SchemaEncoding::Ros2Msg, reg)
    }

    #[test]
    fn sections_in_both_spellings_and_builtins() {
        let def = format!(
            "std_msgs/Header header\nPoint[<=4] pts\nstring<=8 name\n\n{0}\nMSG: std_msgs/Header\n\
             builtin_interfaces/Time stamp\nstring frame_id\n{0}\nMSG: pkg/msg/Point\n\
             float64 x\nfloat64 y\n",
            sep()
        );
        let s = ros2("pkg/msg/Thing", &def, &Registry::empty()).unwrap();
        assert_eq!(s.wire(), Wire::Cdr);
        assert_eq!(s.datatype(), "pkg/msg/Thing");
        assert_eq!(s.md5sum(), "");
        let f = s.root().fields();
        let Elem::Msg(header) = f[0].ty().elem() else {
            panic!()
        };
        assert_eq!(header.name(), "std_msgs/msg/Header");
        // builtin_interfaces/Time is not in the definition: a known builtin.
        let Elem::Msg(time) = header.fields()[0].ty().elem() else {
            panic!()
        };
        assert_eq!(time.name(), "builtin_interfaces/msg/Time");
        assert_eq!(time.fields()[1].name(), "nanosec");
        assert_eq!(f[1].ty().array(), ArrayKind::Variable);
        assert_eq!(f[1].ty().sequence_bound(), Some(4));
        assert_eq!(f[1].type_text(), "pkg/Point[<=4]");
        assert_eq!(f[2].ty().string_bound(), Some(8));
        // `pkg/Thing` names the same type.
        let short = ros2("pkg/Thing", &def, &Registry::empty()).unwrap();
        assert_eq!(short.datatype(), "pkg/msg/Thing");
    }

    #[test]
    fn header_alone_is_the_ros2_header() {
        let s = ros2("a/msg/B", "Header h\n", &Registry::bundled()).unwrap();
        let Elem::Msg(h) = s.root().fields()[0].ty().elem() else {
            panic!()
        };
        let names: Vec<_> = h.fields().iter().map(crate::msg::Field::name).collect();
        assert_eq!(names, ["stamp", "frame_id"]);
    }

    #[test]
    fn registry_fills_empty_definitions_and_missing_sections() {
        let mut reg = Registry::bundled();
        // Bundled ROS1 definitions are never used for ROS 2 types: a type only ROS1 has is
        // not found, and one both have comes from the bundled ROS 2 set (no `seq`).
        assert!(matches!(
            ros2("rosgraph_msgs/msg/Log", "", &reg),
            Err(MsgError::EmptyDefinition { .. })
        ));
        let image = ros2("sensor_msgs/msg/Image", "", &reg).unwrap();
        let header = match image.root().fields()[0].ty().elem() {
            crate::msg::Elem::Msg(h) => h.clone(),
            crate::msg::Elem::Prim(_) => panic!("Image's header is a message"),
        };
        let names: Vec<_> = header
            .fields()
            .iter()
            .map(crate::msg::Field::name)
            .collect();
        assert_eq!(names, ["stamp", "frame_id"]);
        reg.add_definition("my_pkg/Foo", "Bar bar\nint8 x\n")
            .unwrap();
        reg.add_definition("my_pkg/msg/Bar", "uint16 y\n").unwrap();
        let s = ros2("my_pkg/msg/Foo", "  \n", &reg).unwrap();
        assert_eq!(s.root().fields().len(), 2);
        let partial = ros2("other/msg/T", "my_pkg/Bar b\n", &reg).unwrap();
        assert_eq!(partial.root().fields()[0].type_text(), "my_pkg/Bar");
        let missing = ros2("other/msg/T", "my_pkg/Nope b\n", &reg).unwrap_err();
        assert!(
            matches!(&missing, MsgError::UnresolvedType { missing, .. } if missing == "my_pkg/msg/Nope"),
            "{missing}"
        );
        let empty = ros2("std_msgs/msg/Empty", "", &Registry::empty()).unwrap();
        assert!(empty.root().fields().is_empty());
        let comments = ros2("x/msg/Nothing", "# only a comment\n", &Registry::empty()).unwrap();
        assert!(comments.root().fields().is_empty());
    }

    #[test]
    fn msg_path_share_trees_by_either_spelling() {
        let dir = tempfile::tempdir().unwrap();
        let share = dir.path().join("install/share/my_pkg/msg");
        std::fs::create_dir_all(&share).unwrap();
        std::fs::write(
            share.join("Foo.msg"),
            "Header header
Bar[<=2] bars
",
        )
        .unwrap();
        std::fs::write(
            share.join("Bar.msg"),
            "wstring w # wide
",
        )
        .unwrap();
        let mut reg = Registry::empty();
        assert_eq!(reg.add_msg_path(dir.path()).unwrap(), 2);
        assert!(reg.contains("my_pkg/msg/Foo") && reg.contains("my_pkg/Foo"));
        assert_eq!(reg.sources("my_pkg/msg/Bar").len(), 1);
        for name in ["my_pkg/msg/Foo", "my_pkg/Foo"] {
            let s = ros2(name, "", &reg).unwrap();
            assert_eq!(s.datatype(), "my_pkg/msg/Foo");
            assert_eq!(s.root().fields()[1].ty().sequence_bound(), Some(2));
        }
        reg.add_definition("x/msg/Y", "int8 z\n").unwrap();
        assert_eq!(reg.texts("x/Y"), ["int8 z\n"]);
    }

    #[test]
    fn service_texts_compile_into_event_messages() {
        use crate::msg::{decode, json};
        let srv = "int64 a\nint64 b\n---\nint64 sum\n";
        let ev = ros2(
            "example_interfaces/srv/AddTwoInts_Event",
            srv,
            &Registry::empty(),
        )
        .unwrap();
        let names: Vec<_> = ev
            .root()
            .fields()
            .iter()
            .map(crate::msg::Field::name)
            .collect();
        assert_eq!(names, ["info", "request", "response"]);
        let mut p = vec![0, 1, 0, 0, 2, 0, 0, 0]; // event_type, padding
        p.extend(5i32.to_le_bytes());
        p.extend(6u32.to_le_bytes());
        p.extend(1..=16u8); // client_gid
        p.extend([0; 4]); // padding to 8
        p.extend(9i64.to_le_bytes());
        p.extend(1u32.to_le_bytes());
        p.extend([0; 4]);
        p.extend(2i64.to_le_bytes());
        p.extend(3i64.to_le_bytes());
        p.extend(0u32.to_le_bytes()); // no response
        let d = decode(&ev, &p).unwrap();
        assert_eq!(
            json::value_to_string(&d.value()),
            r#"{"info":{"event_type":2,"stamp":{"sec":5,"nanosec":6},"client_gid":"AQIDBAUGBwgJCgsMDQ4PEA==","sequence_number":9},"request":[{"a":2,"b":3}],"response":[]}"#
        );
        let resp = ros2(
            "example_interfaces/srv/AddTwoInts_Response",
            srv,
            &Registry::empty(),
        )
        .unwrap();
        assert_eq!(resp.root().fields()[0].name(), "sum");
        let bad = ros2(
            "p/srv/S_Event",
            "int64 a\n---\nint64 x y z\nwhat\n",
            &Registry::empty(),
        )
        .unwrap_err();
        assert!(matches!(bad, MsgError::Syntax { line: 4, .. }), "{bad}");
    }

    #[test]
    fn recursion_is_an_error() {
        let def = format!("B b\n{}\nMSG: p/B\np/msg/A a\n", sep());
        assert!(matches!(
            ros2("p/msg/A", &def, &Registry::empty()),
            Err(MsgError::Recursive { .. })
        ));
    }
}
