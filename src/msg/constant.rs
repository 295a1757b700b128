//! Constants declared in a message definition (`uint8 FIX=0`, `string S=a # b`).

use super::primitive::Primitive;

/// A constant's parsed value.
#[derive(Debug, Clone, PartialEq)]
pub enum ConstValue {
    /// A `bool` constant.
    Bool(bool),
    /// A signed integer constant (`int8` … `int64`, `byte`).
    Int(i64),
    /// An unsigned integer constant (`uint8` … `uint64`, `char`).
    UInt(u64),
    /// A `float32`/`float64` constant.
    Float(f64),
    /// A `string` constant: the rest of the line after `=`, trimmed, `#` included.
    String(String),
}

/// A constant of a message type. Constants are not serialized.
#[derive(Debug, Clone, PartialEq)]
pub struct Constant {
    pub(crate) ty: Primitive,
    pub(crate) name: String,
    pub(crate) value_text: String,
    pub(crate) value: ConstValue,
    /// The `type name=value` line genmsg hashes (with its quirks kept).
    pub(crate) md5_line: String,
}

impl Constant {
    /// The constant's type.
    pub fn ty(&self) -> Primitive {
        self.ty
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The value as written (trimmed), e.g. `-2.5e-3`.
    pub fn value_text(&self) -> &str {
        &self.value_text
    }

    /// The parsed value.
    pub fn value(&self) -> &ConstValue {
        &self.value
    }
}

/// Converts a constant's value text as genmsg's `convert_constant_value` does.
pub(crate) fn convert(ty: Primitive, text: &str) -> Option<ConstValue> {
    let int_range = |lo: i128, hi: i128| -> Option<i128> {
        let v: i128 = text.parse().ok()?;
        (lo..=hi).contains(&v).then_some(v)
    };
    Some(match ty {
        Primitive::Float32 | Primitive::Float64 => ConstValue::Float(text.parse().ok()?),
        Primitive::String => ConstValue::String(text.to_string()),
        Primitive::Bool => ConstValue::Bool(match text {
            "True" => true,
            "False" => false,
            _ => text.parse::<i128>().ok()? != 0,
        }),
        Primitive::Int8 | Primitive::Byte => {
            ConstValue::Int(i64::try_from(int_range(-128, 127)?).ok()?)
        }
        Primitive::Int16 => ConstValue::Int(i64::try_from(int_range(-32768, 32767)?).ok()?),
        Primitive::Int32 => ConstValue::Int(
            i64::try_from(int_range(i128::from(i32::MIN), i128::from(i32::MAX))?).ok()?,
        ),
        Primitive::Int64 => ConstValue::Int(
            i64::try_from(int_range(i128::from(i64::MIN), i128::from(i64::MAX))?).ok()?,
        ),
        Primitive::UInt8 | Primitive::Char => {
            ConstValue::UInt(u64::try_from(int_range(0, 255)?).ok()?)
        }
        Primitive::UInt16 => ConstValue::UInt(u64::try_from(int_range(0, 65535)?).ok()?),
        Primitive::UInt32 => {
            ConstValue::UInt(u64::try_from(int_range(0, i128::from(u32::MAX))?).ok()?)
        }
        Primitive::UInt64 => {
            ConstValue::UInt(u64::try_from(int_range(0, i128::from(u64::MAX))?).ok()?)
        }
        Primitive::Time | Primitive::Duration => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_like_genmsg() {
        assert_eq!(
            convert(Primitive::Float64, "-2.5e-3"),
            Some(ConstValue::Float(-0.0025))
        );
        assert_eq!(
            convert(Primitive::UInt8, "255"),
            Some(ConstValue::UInt(255))
        );
        assert_eq!(convert(Primitive::UInt8, "256"), None);
        assert_eq!(convert(Primitive::Char, "-1"), None);
        assert_eq!(
            convert(Primitive::Byte, "-128"),
            Some(ConstValue::Int(-128))
        );
        assert_eq!(
            convert(Primitive::UInt64, "18446744073709551615"),
            Some(ConstValue::UInt(u64::MAX))
        );
        assert_eq!(
            convert(Primitive::Bool, "True"),
            Some(ConstValue::Bool(true))
        );
        assert_eq!(convert(Primitive::Int32, "x"), None);
    }
}
