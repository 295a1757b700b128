//! Arrays of fixed-size builtin values other than bytes (`float64[9]`, `int32[]`, `time[]`…),
//! kept as their little-endian wire bytes, borrowed from the payload like byte arrays: a
//! covariance or a 720-beam scan decodes without allocating, and elements are read on access
//! (as [`Value`](super::Value)s by the accessors next to `Value`, as
//! [`ValueRef`](super::ValueRef)s next to `ValueRef`).

use std::borrow::Cow;

use super::primitive::Primitive;
use super::scalar::Scalar;

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

    /// An owned array of `elem` holding `values`; `None` when a value is missing or not of
    /// that type.
    pub(crate) fn from_scalars(
        elem: Primitive,
        values: impl IntoIterator<Item = Option<Scalar>>,
    ) -> Option<PrimArray<'static>> {
        elem.fixed_size()?;
        let mut bytes = Vec::new();
        for v in values {
            v?.write(elem, &mut bytes)?;
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

    /// Element `i`.
    pub(crate) fn scalar(&self, i: usize) -> Option<Scalar> {
        let size = self.elem.fixed_size()?;
        let at = i.checked_mul(size)?;
        Scalar::read(self.elem, self.bytes.get(at..at.checked_add(size)?)?)
    }

    /// The elements.
    pub(crate) fn scalars(&self) -> impl Iterator<Item = Scalar> + '_ {
        let size = self.elem.fixed_size().unwrap_or(1).max(1);
        self.bytes
            .chunks_exact(size)
            .filter_map(|c| Scalar::read(self.elem, c))
    }

    /// Detaches the array from the payload.
    pub fn into_owned(self) -> PrimArray<'static> {
        PrimArray {
            elem: self.elem,
            bytes: Cow::Owned(self.bytes.into_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msg::Value;
    use crate::time::RosTime;

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
