//! Where message definitions come from when a bag does not carry them (versions 1.1, 1.0 and
//! 0 store only type names and md5sums): a small trait, so that writing a V2.0 copy can ask the
//! [`Registry`] (bundled definitions plus `--msg-path`), a test's closure, or nothing at all.

use crate::msg::{Registry, Schema};

/// Gives the full `message_definition` text of a message type: the type's own definition,
/// then for each type it uses a line of 80 `=`, `MSG: pkg/Type`, and that definition (the
/// `gendeps --cat` form stored in connection headers).
pub trait DefinitionSource {
    /// The full definition of `datatype` whose md5sum is `md5sum`, or why there is none.
    fn full_text(&self, datatype: &str, md5sum: &str) -> Result<String, String>;
}

/// A source that knows no definitions.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoDefinitions;

impl DefinitionSource for NoDefinitions {
    fn full_text(&self, _datatype: &str, _md5sum: &str) -> Result<String, String> {
        Err("no message definitions are available to this build".into())
    }
}

/// Any `Fn(datatype, md5sum) -> Result<text, why>` is a source.
impl<F> DefinitionSource for F
where
    F: Fn(&str, &str) -> Result<String, String>,
{
    fn full_text(&self, datatype: &str, md5sum: &str) -> Result<String, String> {
        self(datatype, md5sum)
    }
}

/// The registry's definition of `datatype` with exactly `md5sum`, with every nested type.
impl DefinitionSource for Registry {
    fn full_text(&self, datatype: &str, md5sum: &str) -> Result<String, String> {
        Schema::from_registry(datatype, Some(md5sum), self)
            .map(|s| s.full_text())
            .map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_registry_gives_full_texts_by_md5sum() {
        let r = Registry::bundled();
        let text = r
            .full_text(
                "geometry_msgs/PoseStamped",
                "d3812c3cbc69362b77dc0b19b345f8f5",
            )
            .unwrap();
        assert!(text.contains("MSG: std_msgs/Header"), "{text}");
        assert!(text.contains("MSG: geometry_msgs/Quaternion"), "{text}");
        assert!(r.full_text("std_msgs/String", "0123").is_err());
        assert!(r.full_text("no_such/Type", "0123").is_err());
        assert!(NoDefinitions.full_text("std_msgs/String", "x").is_err());
        let f = |t: &str, _: &str| Ok::<_, String>(format!("# {t}"));
        assert_eq!(f.full_text("a/B", "").unwrap(), "# a/B");
    }
}
