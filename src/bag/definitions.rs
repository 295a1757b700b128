//! Where message definitions come from when a bag does not carry them (versions 1.1, 1.0 and
//! 0 store only type names and md5sums): a small trait, so that writing a V2.0 copy can ask a
//! definition registry, a directory of `.msg` files, or nothing at all.

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
