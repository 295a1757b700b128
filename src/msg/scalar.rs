//! The thirteen fixed-size builtin values (`bool` … `duration`) that [`Value`](super::Value),
//! [`ValueRef`](super::ValueRef) and the decoder's nodes all hold: their one variant list
//! ([`with_scalars!`]), and their one little-endian reader and writer.

use super::primitive::Primitive;
use crate::time::{RosDuration, RosTime};

/// Declares an enum whose first variants are the fixed-size builtins, in this order: `Bool`,
/// `I8` (`int8`/`byte`), `U8` (`uint8`/`char`), `I16`, `U16`, `I32`, `U32`, `I64`, `U64`,
/// `F32`, `F64`, `Time`, `Duration`; then the variants written in the invocation. With
/// `convert`, it also gets `From<Scalar>` and an `as_scalar` accessor.
macro_rules! with_scalars {
    ($(#[$attr:meta])* $vis:vis enum $name:ident $(<$lt:lifetime>)? { $($rest:tt)* }) => {
        $(#[$attr])*
        $vis enum $name $(<$lt>)? {
            /// `bool`.
            Bool(bool),
            /// `int8` or `byte`.
            I8(i8),
            /// `uint8` or `char`.
            U8(u8),
            /// `int16`.
            I16(i16),
            /// `uint16`.
            U16(u16),
            /// `int32`.
            I32(i32),
            /// `uint32`.
            U32(u32),
            /// `int64`.
            I64(i64),
            /// `uint64`.
            U64(u64),
            /// `float32`.
            F32(f32),
            /// `float64`.
            F64(f64),
            /// `time`, with the fields exactly as on the wire.
            Time(RosTime),
            /// `duration`, with the fields exactly as on the wire.
            Duration(RosDuration),
            $($rest)*
        }
    };
    (convert $(#[$attr:meta])* $vis:vis enum $name:ident $(<$lt:lifetime>)? { $($rest:tt)* }) => {
        with_scalars! { $(#[$attr])* $vis enum $name $(<$lt>)? { $($rest)* } }

        impl $(<$lt>)? From<Scalar> for $name $(<$lt>)? {
            fn from(s: Scalar) -> Self {
                match s {
                    Scalar::Bool(v) => Self::Bool(v),
                    Scalar::I8(v) => Self::I8(v),
                    Scalar::U8(v) => Self::U8(v),
                    Scalar::I16(v) => Self::I16(v),
                    Scalar::U16(v) => Self::U16(v),
                    Scalar::I32(v) => Self::I32(v),
                    Scalar::U32(v) => Self::U32(v),
                    Scalar::I64(v) => Self::I64(v),
                    Scalar::U64(v) => Self::U64(v),
                    Scalar::F32(v) => Self::F32(v),
                    Scalar::F64(v) => Self::F64(v),
                    Scalar::Time(v) => Self::Time(v),
                    Scalar::Duration(v) => Self::Duration(v),
                }
            }
        }

        impl $(<$lt>)? $name $(<$lt>)? {
            /// The value as a [`Scalar`] when it is one of the fixed-size builtins.
            #[allow(dead_code, reason = "not every enum converts both ways")]
            pub(crate) fn as_scalar(&self) -> Option<Scalar> {
                Some(match *self {
                    Self::Bool(v) => Scalar::Bool(v),
                    Self::I8(v) => Scalar::I8(v),
                    Self::U8(v) => Scalar::U8(v),
                    Self::I16(v) => Scalar::I16(v),
                    Self::U16(v) => Scalar::U16(v),
                    Self::I32(v) => Scalar::I32(v),
                    Self::U32(v) => Scalar::U32(v),
                    Self::I64(v) => Scalar::I64(v),
                    Self::U64(v) => Scalar::U64(v),
                    Self::F32(v) => Scalar::F32(v),
                    Self::F64(v) => Scalar::F64(v),
                    Self::Time(v) => Scalar::Time(v),
                    Self::Duration(v) => Scalar::Duration(v),
                    _ => return None,
                })
            }
        }
    };
}
pub(crate) use with_scalars;

with_scalars! {
    /// One value of a fixed-size builtin type.
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub(crate) enum Scalar {}
}

impl Scalar {
    /// Reads a value of type `elem` from exactly its wire bytes; `None` for `string` or when
    /// `bytes` is not the type's size.
    pub(crate) fn read(elem: Primitive, bytes: &[u8]) -> Option<Scalar> {
        macro_rules! le {
            ($t:ty) => {
                <$t>::from_le_bytes(bytes.try_into().ok()?)
            };
        }
        let pair = |c: &[u8]| -> Option<([u8; 4], [u8; 4])> {
            let (a, b) = c.split_first_chunk::<4>()?;
            Some((*a, *b.first_chunk::<4>()?))
        };
        Some(match elem {
            Primitive::Bool => Scalar::Bool(le!(u8) != 0),
            Primitive::Int8 | Primitive::Byte => Scalar::I8(le!(i8)),
            Primitive::UInt8 | Primitive::Char => Scalar::U8(le!(u8)),
            Primitive::Int16 => Scalar::I16(le!(i16)),
            Primitive::UInt16 => Scalar::U16(le!(u16)),
            Primitive::Int32 => Scalar::I32(le!(i32)),
            Primitive::UInt32 => Scalar::U32(le!(u32)),
            Primitive::Int64 => Scalar::I64(le!(i64)),
            Primitive::UInt64 => Scalar::U64(le!(u64)),
            Primitive::Float32 => Scalar::F32(le!(f32)),
            Primitive::Float64 => Scalar::F64(le!(f64)),
            Primitive::Time => {
                let (s, n) = pair(bytes)?;
                Scalar::Time(RosTime::new(u32::from_le_bytes(s), u32::from_le_bytes(n)))
            }
            Primitive::Duration => {
                let (s, n) = pair(bytes)?;
                Scalar::Duration(RosDuration {
                    sec: i32::from_le_bytes(s),
                    nsec: i32::from_le_bytes(n),
                })
            }
            Primitive::String => return None,
        })
    }

    /// Appends the wire form of this value as type `elem`; `None` (nothing written) when it
    /// is not a value of that type.
    pub(crate) fn write(self, elem: Primitive, out: &mut Vec<u8>) -> Option<()> {
        match (elem, self) {
            (Primitive::Bool, Scalar::Bool(x)) => out.push(u8::from(x)),
            (Primitive::Int8 | Primitive::Byte, Scalar::I8(x)) => {
                out.extend_from_slice(&x.to_le_bytes());
            }
            (Primitive::UInt8 | Primitive::Char, Scalar::U8(x)) => out.push(x),
            (Primitive::Int16, Scalar::I16(x)) => out.extend_from_slice(&x.to_le_bytes()),
            (Primitive::UInt16, Scalar::U16(x)) => out.extend_from_slice(&x.to_le_bytes()),
            (Primitive::Int32, Scalar::I32(x)) => out.extend_from_slice(&x.to_le_bytes()),
            (Primitive::UInt32, Scalar::U32(x)) => out.extend_from_slice(&x.to_le_bytes()),
            (Primitive::Int64, Scalar::I64(x)) => out.extend_from_slice(&x.to_le_bytes()),
            (Primitive::UInt64, Scalar::U64(x)) => out.extend_from_slice(&x.to_le_bytes()),
            (Primitive::Float32, Scalar::F32(x)) => out.extend_from_slice(&x.to_le_bytes()),
            (Primitive::Float64, Scalar::F64(x)) => out.extend_from_slice(&x.to_le_bytes()),
            (Primitive::Time, Scalar::Time(t)) => {
                out.extend_from_slice(&t.sec.to_le_bytes());
                out.extend_from_slice(&t.nsec.to_le_bytes());
            }
            (Primitive::Duration, Scalar::Duration(d)) => {
                out.extend_from_slice(&d.sec.to_le_bytes());
                out.extend_from_slice(&d.nsec.to_le_bytes());
            }
            _ => return None,
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scalar_reads_back_what_it_writes() {
        let values = [
            (Primitive::Bool, Scalar::Bool(true)),
            (Primitive::Byte, Scalar::I8(-3)),
            (Primitive::Char, Scalar::U8(200)),
            (Primitive::Int16, Scalar::I16(-300)),
            (Primitive::UInt16, Scalar::U16(60_000)),
            (Primitive::Int32, Scalar::I32(-70_000)),
            (Primitive::UInt32, Scalar::U32(4_000_000_000)),
            (Primitive::Int64, Scalar::I64(i64::MIN)),
            (Primitive::UInt64, Scalar::U64(u64::MAX)),
            (Primitive::Float32, Scalar::F32(-1.5)),
            (Primitive::Float64, Scalar::F64(2.25)),
            (Primitive::Time, Scalar::Time(RosTime::new(5, 6))),
            (
                Primitive::Duration,
                Scalar::Duration(RosDuration { sec: -1, nsec: 7 }),
            ),
        ];
        for (elem, v) in values {
            let mut out = Vec::new();
            assert_eq!(v.write(elem, &mut out), Some(()), "{elem:?}");
            assert_eq!(Some(out.len()), elem.fixed_size());
            assert_eq!(Scalar::read(elem, &out), Some(v));
            // Another type writes nothing.
            assert_eq!(v.write(Primitive::String, &mut out), None);
        }
        assert_eq!(Scalar::read(Primitive::UInt32, &[1, 2, 3]), None);
        assert_eq!(Scalar::read(Primitive::String, &[0; 4]), None);
    }
}
