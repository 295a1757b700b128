//! The genmsg md5sum of a message type.
//!
//! genmsg hashes a text built from the definition without comments or blank lines: first the
//! constants as `type name=value` (value as written), then each field as `type name`, where a
//! builtin keeps its type text (array suffix included) and a message-typed field's type is
//! replaced by that type's md5sum (array suffix dropped); lines joined with `\n`.

use std::fmt::Write as _;

use md5::{Digest, Md5};

use super::types::{Elem, MsgType};

/// The md5sum of an empty text: the md5sum of every type without fields or constants.
pub const EMPTY_MD5: &str = "d41d8cd98f00b204e9800998ecf8427e";

/// The text genmsg hashes for `ty` (its nested types' md5sums must be computed already).
pub(crate) fn md5_text(ty: &MsgType) -> String {
    let mut lines: Vec<String> = ty.constants.iter().map(|c| c.md5_line.clone()).collect();
    for field in &ty.fields {
        lines.push(match &field.ty.elem {
            Elem::Prim(_) => format!("{} {}", field.type_text, field.name),
            Elem::Msg(sub) => format!("{} {}", sub.md5sum, field.name),
        });
    }
    lines.join("\n").trim().to_string()
}

/// Lower-case hex md5 of `bytes`.
pub(crate) fn hex_md5(bytes: &[u8]) -> String {
    let digest = Md5::digest(bytes);
    let mut out = String::with_capacity(32);
    for b in &digest {
        // Writing to a String cannot fail.
        let _ = write!(out, "{b:02x}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_text_hash() {
        assert_eq!(hex_md5(b""), EMPTY_MD5);
    }
}
