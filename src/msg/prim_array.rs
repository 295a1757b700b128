//! Arrays of fixed-size builtin values other than bytes (`float64[9]`, `int32[]`, `time[]`…),
//! kept as their little-endian wire bytes, borrowed from the payload like byte arrays: a
//! covariance or a 720-beam scan decodes without allocating, and elements are read on access.

use std::borrow::Cow;

use super::decoded::ValueRef;
use super::primitive::Primitive;
use super::value::Value;
use crate::time::{RosDuration, RosTime};

/// An array of a fixed-size builtin type, as wire bytes plus the element type.
#[derive(Debug, Clone)]
pub struct PrimArray<'a> {
    elem: Primitive,
    bytes: Cow<'a, [u8]>,
}

impl<'a> PrimArray<'a> {
    /// An array of `elem` over its wire bytes; `None` when `elem` is not fixed-size or the
    /// bytes are not a whole number of elements.
    pub fn from_wire(elem: Primitive, bytes: Cow<'a, [u8]>) -> Option<Self> {
        let size = elem.fixed_size()?;
        (bytes.len() % size == 0).then_some(PrimArray { elem, bytes })
    }

    /// An owned array of `elem` holding `values`; `None` when a value is not of that type.
    pub fn from_values<'v>(
        elem: Primitive,
        values: impl IntoIterator<Item = Value<'v>>,
    ) -> Option<PrimArray<'static>> {
        elem.fixed_size()?;
        let mut bytes = Vec::new();
        for v in values {
            write_scalar(elem, &v, &mut bytes)?;
        }
        Some(PrimArray {
            elem,
            bytes: Cow::Owned(bytes),
        })
    }

    /// The element type.
    pub fn elem(&self) -> Primitive {
        self.elem
    }

    /// The wire bytes (little-endian elements, no count).
    pub fn wire_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.bytes.len() / self.elem.fixed_size().unwrap_or(1).max(1)
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Element `i` as a scalar [`Value`].
    pub fn get(&self, i: usize) -> Option<Value<'static>> {
        let size = self.elem.fixed_size()?;
        let at = i.checked_mul(size)?;
        let c = self.bytes.get(at..at.checked_add(size)?)?;
        read_scalar(self.elem, c)
    }

    /// The elements as scalar [`Value`]s.
    pub fn iter(&self) -> impl Iterator<Item = Value<'static>> + '_ {
        let size = self.elem.fixed_size().unwrap_or(1).max(1);
        self.bytes
            .chunks_exact(size)
            .filter_map(|c| read_scalar(self.elem, c))
    }

    /// The elements as [`ValueRef`] scalars.
    pub fn refs(&self) -> impl Iterator<Item = ValueRef<'static>> + '_ {
        self.iter().filter_map(|v| ValueRef::scalar(&v))
    }

    /// The elements as `f64` when the array holds numbers (64-bit integers may round).
    pub fn to_f64s(&self) -> Option<Vec<f64>> {
        self.iter().map(|v| v.as_f64()).collect()
    }

    /// Detaches the array from the payload.
    pub fn into_owned(self) -> PrimArray<'static> {
        PrimArray {
            elem: self.elem,
            bytes: Cow::Owned(self.bytes.into_owned()),
        }
    }
}

fn read_scalar(elem: Primitive, c: &[u8]) -> Option<Value<'static>> {
    macro_rules! le {
        ($t:ty) => {
            <$t>::from_le_bytes(c.try_into().ok()?)
        };
    }
    let pair = |c: &[u8]| -> Option<([u8; 4], [u8; 4])> {
        let (a, b) = c.split_first_chunk::<4>()?;
        Some((*a, *b.first_chunk::<4>()?))
    };
    Some(match elem {
        Primitive::Bool => Value::Bool(*c.first()? != 0),
        Primitive::Int8 | Primitive::Byte => Value::I8(le!(i8)),
        Primitive::UInt8 | Primitive::Char => Value::U8(le!(u8)),
        Primitive::Int16 => Value::I16(le!(i16)),
        Primitive::UInt16 => Value::U16(le!(u16)),
        Primitive::Int32 => Value::I32(le!(i32)),
        Primitive::UInt32 => Value::U32(le!(u32)),
        Primitive::Int64 => Value::I64(le!(i64)),
        Primitive::UInt64 => Value::U64(le!(u64)),
        Primitive::Float32 => Value::F32(le!(f32)),
        Primitive::Float64 => Value::F64(le!(f64)),
        Primitive::Time => {
            let (s, n) = pair(c)?;
            Value::Time(RosTime::new(u32::from_le_bytes(s), u32::from_le_bytes(n)))
        }
        Primitive::Duration => {
            let (s, n) = pair(c)?;
            Value::Duration(RosDuration {
                sec: i32::from_le_bytes(s),
                nsec: i32::from_le_bytes(n),
            })
        }
        Primitive::String => return None,
    })
}

/// Appends the wire form of a scalar of type `elem`; `None` when `v` is not one.
pub(crate) fn write_scalar(elem: Primitive, v: &Value<'_>, out: &mut Vec<u8>) -> Option<()> {
    match (elem, v) {
        (Primitive::Bool, Value::Bool(x)) => out.push(u8::from(*x)),
        (Primitive::Int8 | Primitive::Byte, Value::I8(x)) => {
            out.extend_from_slice(&x.to_le_bytes());
        }
        (Primitive::UInt8 | Primitive::Char, Value::U8(x)) => out.push(*x),
        (Primitive::Int16, Value::I16(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (Primitive::UInt16, Value::U16(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (Primitive::Int32, Value::I32(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (Primitive::UInt32, Value::U32(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (Primitive::Int64, Value::I64(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (Primitive::UInt64, Value::U64(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (Primitive::Float32, Value::F32(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (Primitive::Float64, Value::F64(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (Primitive::Time, Value::Time(t)) => {
            out.extend_from_slice(&t.sec.to_le_bytes());
            out.extend_from_slice(&t.nsec.to_le_bytes());
        }
        (Primitive::Duration, Value::Duration(d)) => {
            out.extend_from_slice(&d.sec.to_le_bytes());
            out.extend_from_slice(&d.nsec.to_le_bytes());
        }
        _ => return None,
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_round_trip() {
        let a = PrimArray::from_values(Primitive::Float64, [Value::F64(1.5), Value::F64(-0.0)])
            .unwrap();
        assert_eq!(a.len(), 2);
        assert_eq!(a.get(1), Some(Value::F64(-0.0)));
        assert_eq!(a.get(2), None);
        assert_eq!(a.wire_bytes().len(), 16);
        assert!(PrimArray::from_values(Primitive::Float64, [Value::F32(1.0)]).is_none());
        assert!(PrimArray::from_wire(Primitive::Int32, Cow::Borrowed(&[0u8; 5][..])).is_none());
        let t = PrimArray::from_wire(
            Primitive::Time,
            Cow::Borrowed(&[1, 0, 0, 0, 2, 0, 0, 0][..]),
        )
        .unwrap();
        assert_eq!(
            t.iter().collect::<Vec<_>>(),
            [Value::Time(RosTime::new(1, 2))]
        );
        assert_eq!(
            PrimArray::from_values(Primitive::Int16, [Value::I16(-2)])
                .unwrap()
                .to_f64s(),
            Some(vec![-2.0])
        );
    }
}
