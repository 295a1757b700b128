//! RoCKIn YAML ↔ bag conversion.
//!
//! The RoCKIn YAML Data File Specification (J. Reis, 2014) describes a file as one YAML list
//! of messages, each a mapping of `topic`, `secs`, `nsecs` (the receive time) and `message`
//! (the body as `rostopic echo` prints it, binary fields optionally base64, tagged
//! `!!binary` or not). Topic names map to message types through a fixed table
//! ([`TOPIC_TYPES`]).
//!
//! * [`yaml_to_bag`] streams a YAML file into a V2.0 bag: one message in memory at a time, so
//!   a file of many gigabytes converts in bounded memory. Every error names the line and
//!   column and what was expected; the bag is written to a temporary file that is removed
//!   on error.
//! * [`bag_to_yaml`] writes a bag back in the same format, so that YAML → bag → YAML keeps
//!   every value.
//! * [`MessageReader`] reads the messages of a file one by one.
//!
//! The YAML reader ([`yaml`](self) module, private) is our own, streaming, for the subset of
//! YAML these files use; see `docs/rockin.md` for what it accepts and why it is not a crate.

mod base64;
mod build;
mod emit;
mod error;
mod reader;
mod scalars;
mod to_bag;
mod to_yaml;
mod topics;
mod yaml;

pub use error::{ConvertError, InputError, InputErrorKind, Mark};
pub use reader::{Item, MessageReader};
pub use to_bag::{ToBagOptions, ToBagReport, TopicCount, yaml_reader_to_bag, yaml_to_bag};
pub use to_yaml::{ToYamlReport, bag_to_yaml};
pub use topics::{BENCHMARKS, TOPIC_TYPES, topic_type};

/// Caps on what one YAML file may make the reader hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Longest line, in bytes.
    pub max_line: usize,
    /// Longest scalar (after unquoting), in bytes.
    pub max_scalar: usize,
    /// Deepest nesting of collections.
    pub max_depth: usize,
}

impl Default for Limits {
    /// 1 GiB lines and scalars (a bag record holds at most 4 GiB), 128 levels of nesting.
    fn default() -> Self {
        Limits {
            max_line: 1 << 30,
            max_scalar: 1 << 30,
            max_depth: 128,
        }
    }
}

#[cfg(test)]
mod tests {
    /// `rockin` builds on `time`, `format`, `msg` and `bag`, never on `catalog`, `cli` or `tui`.
    #[test]
    fn imports_only_lower_layers() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/rockin");
        let mut files = vec![dir.clone()];
        let mut seen = 0;
        while let Some(p) = files.pop() {
            if p.is_dir() {
                for e in std::fs::read_dir(&p).unwrap() {
                    files.push(e.unwrap().path());
                }
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            seen += 1;
            for (i, line) in text.lines().enumerate() {
                let mut rest = line;
                while let Some(at) = rest.find("crate::") {
                    let after = &rest[at + "crate::".len()..];
                    assert!(
                        ["time", "format", "msg", "bag", "rockin", "\""]
                            .iter()
                            .any(|m| after.starts_with(m)),
                        "{}:{}: {line}",
                        p.display(),
                        i + 1
                    );
                    rest = after;
                }
            }
        }
        assert!(seen > 10);
    }
}
