//! A minimal JSON value for the command line's structured outputs (`info --json`, summaries).
//! Decoded messages have their own streaming writer in `msg`.

use std::fmt::Write;

/// A JSON value; objects keep their key order.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An exact integer.
    Int(i128),
    /// A number; non-finite values become `null`.
    Num(f64),
    /// A string.
    Str(String),
    /// An array.
    Arr(Vec<Json>),
    /// An object with ordered keys.
    Obj(Vec<(String, Json)>),
}

impl Json {
    /// An object from `(key, value)` pairs.
    pub fn obj<K: Into<String>>(pairs: impl IntoIterator<Item = (K, Json)>) -> Json {
        Json::Obj(pairs.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }

    /// A string value.
    pub fn str(s: impl Into<String>) -> Json {
        Json::Str(s.into())
    }

    /// Serialises compactly.
    pub fn to_compact(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    /// Appends the compact text to `out`.
    pub fn write(&self, out: &mut String) {
        match self {
            Json::Num(f) if f.is_finite() => {
                let _ = write!(out, "{f}");
            }
            Json::Null | Json::Num(_) => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Json::Str(s) => write_string(out, s),
            Json::Arr(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.write(out);
                }
                out.push(']');
            }
            Json::Obj(pairs) => {
                out.push('{');
                for (i, (k, v)) in pairs.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_string(out, k);
                    out.push(':');
                    v.write(out);
                }
                out.push('}');
            }
        }
    }
}

/// Appends `s` as a JSON string literal ([`crate::msg::json::write_str`]).
pub fn write_string(out: &mut String, s: &str) {
    let _ = crate::msg::json::write_str(out, s);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_compact_json() {
        let v = Json::obj([
            ("a", Json::Int(u64::MAX.into())),
            (
                "b",
                Json::Arr(vec![
                    Json::Null,
                    Json::Bool(true),
                    Json::Num(1.5),
                    Json::Num(f64::NAN),
                ]),
            ),
            ("c", Json::str("q\"\\\n\u{1}é")),
        ]);
        assert_eq!(
            v.to_compact(),
            r#"{"a":18446744073709551615,"b":[null,true,1.5,null],"c":"q\"\\\n\u0001é"}"#
        );
    }
}
