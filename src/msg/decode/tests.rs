//! Unit tests of the decoder and the validator.

use super::*;
use crate::msg::{Elem, PrimArray, Value, ValueRef};
use std::borrow::Cow;
use std::sync::Arc;

fn schema(ty: &str, def: &str) -> Arc<Schema> {
    Schema::from_definition(ty, def).unwrap()
}

#[test]
fn decodes_primitives_strings_and_borrowed_bytes() {
    let sch = schema(
        "t/T",
        "bool b\nint16 i\nstring s\nuint8[] data\nchar[2] c\nfloat32[2] f\ntime t\nduration d\n",
    );
    let mut p = vec![
        1u8, 0xfe, 0xff, 2, 0, 0, 0, b'h', b'i', 3, 0, 0, 0, 7, 8, 9, b'a', b'b',
    ];
    p.extend(1.5f32.to_le_bytes());
    p.extend((-0.0f32).to_le_bytes());
    p.extend([1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]);
    p.extend([0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0]);
    let decoded = decode(&sch, &p).unwrap();
    let v = decoded.to_value();
    let m = v.as_message().unwrap();
    assert_eq!(m.get("b"), Some(&Value::Bool(true)));
    assert_eq!(m.get("i"), Some(&Value::I16(-2)));
    assert_eq!(
        m.get("s").and_then(Value::as_str_lossy).as_deref(),
        Some("hi")
    );
    match m.get("data") {
        Some(Value::Bytes(Cow::Borrowed(b))) => {
            assert_eq!(*b, &[7, 8, 9]);
            assert!(std::ptr::eq(b.as_ptr(), p[13..].as_ptr()));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        m.get("f"),
        Some(&Value::PrimArray(
            PrimArray::from_values(Primitive::Float32, [Value::F32(1.5), Value::F32(-0.0)])
                .unwrap()
        ))
    );
    assert_eq!(m.get("t"), Some(&Value::Time(RosTime::new(1, u32::MAX))));
    assert_eq!(
        m.get("d"),
        Some(&Value::Duration(RosDuration { sec: -1, nsec: 2 }))
    );
}

#[test]
fn errors_name_path_and_offset() {
    let sep = "=".repeat(80);
    let s = schema(
        "t/T",
        &format!("Item[] items\n{sep}\nMSG: t/Item\nstring name\nfloat64 x\n"),
    );
    // Two items; the second one's x is cut short.
    let mut p = vec![2, 0, 0, 0, 6, 0, 0, 0, b'a', b'b', b'c', b'd', b'e', b'f'];
    p.extend(1.0f64.to_le_bytes());
    p.extend([0, 0, 0, 0, 1, 2, 3]);
    let e = decode(&s, &p).unwrap_err();
    assert_eq!(e.path().to_string(), "items[1].x");
    assert_eq!(e.offset(), 26);
    assert_eq!(
        e.to_string(),
        "items[1].x at payload byte 26: needs 8 bytes but only 3 remain"
    );
    // A corrupt count is refused before allocating.
    let e = decode(&s, &[0xff, 0xff, 0xff, 0x7f, 0, 0]).unwrap_err();
    assert!(matches!(
        e.kind(),
        DecodeErrorKind::ArrayTooLong {
            count: 0x7fff_ffff,
            ..
        }
    ));
    assert_eq!(e.path().to_string(), "items");
    // A string longer than the payload.
    let e = decode(&s, &[1, 0, 0, 0, 200, 0, 0, 0, b'a', 0, 0, 0, 0, 0, 0, 0]).unwrap_err();
    assert_eq!(e.path().to_string(), "items[0].name");
    assert_eq!(e.offset(), 4);
    // Trailing bytes.
    let e = decode(&s, &[0, 0, 0, 0, 9]).unwrap_err();
    assert_eq!(e.kind(), &DecodeErrorKind::TrailingBytes { count: 1 });
    assert!(e.path().is_root());
}

/// A fixed-size type (`V`, 28 bytes) used single and in an array, and one payload of it.
fn fixed_size_case() -> (Arc<Schema>, Vec<u8>) {
    let sep = "=".repeat(80);
    let s = schema(
        "t/T",
        &format!(
            "V a\nV[2] b\nuint8 c\n{sep}\nMSG: t/V\nfloat64 x\nint16 y\ntime t\nchar[2] s\nint32[2] i\n"
        ),
    );
    assert_eq!(s.root().fixed_size(), Some(3 * 28 + 1));
    let mut p = Vec::new();
    for k in 0..3u8 {
        p.extend(f64::from(k).to_le_bytes());
        p.extend((-i16::from(k)).to_le_bytes());
        p.extend([k, 0, 0, 0, 1, 0, 0, 0, b'a', b'b']);
        p.extend(7i32.to_le_bytes());
        p.extend((-7i32).to_le_bytes());
    }
    p.push(9);
    (s, p)
}

#[test]
fn fixed_size_messages_decode() {
    let (s, p) = fixed_size_case();
    let decoded = decode(&s, &p).unwrap();
    let v = decoded.to_value();
    let items = match v.get("b") {
        Some(Value::Array(array)) => array,
        other => panic!("{other:?}"),
    };
    assert_eq!(items.len(), 2);
    assert_eq!(items[1].get("x"), Some(&Value::F64(2.0)));
    assert_eq!(items[1].get("y"), Some(&Value::I16(-2)));
    assert_eq!(items[1].get("t"), Some(&Value::Time(RosTime::new(2, 1))));
    assert!(matches!(items[1].get("s"), Some(Value::Bytes(c)) if c.as_ref() == b"ab"));
    assert!(matches!(items[1].get("i"), Some(Value::PrimArray(a)) if a.len() == 2));
    assert_eq!(v.get("c"), Some(&Value::U8(9)));
}

#[test]
fn fixed_size_messages_fail_like_the_general_walk() {
    let (s, p) = fixed_size_case();
    // Cut anywhere: the error names the field and offset as the field walk does.
    for cut in 0..p.len() {
        let e = decode(&s, &p[..cut]).unwrap_err();
        assert_eq!(Err(e), validate(&s, &p[..cut]), "{cut}");
    }
    let e = decode(&s, &p[..p.len() - 6]).unwrap_err();
    assert_eq!(e.path().to_string(), "b");
    assert_eq!(e.offset(), 28);
    assert!(matches!(
        e.kind(),
        DecodeErrorKind::ArrayTooLong { count: 2, .. }
    ));
    let e = decode(&s, &p[..19]).unwrap_err();
    assert_eq!(e.path().to_string(), "a.s");
    assert_eq!(e.offset(), 18);
    let e = decode(&s, &p[..5]).unwrap_err();
    assert_eq!(e.path().to_string(), "a.x");
    assert_eq!(e.offset(), 0);
}

#[test]
fn zero_size_elements_are_capped() {
    let sep = "=".repeat(80);
    let s = schema("t/T", &format!("E[] e\n{sep}\nMSG: t/E\n"));
    let decoded = decode(&s, &[3, 0, 0, 0]).unwrap();
    let v = decoded.to_value();
    assert!(matches!(v.get("e"), Some(Value::Array(a)) if a.len() == 3));
    assert!(decode(&s, &[0xff, 0xff, 0xff, 0xff]).is_err());
}

#[test]
fn nested_arrays_of_empty_messages_are_bounded() {
    let sep = "=".repeat(80);
    let s = schema(
        "t/T",
        &format!("E[65536] a\n{sep}\nMSG: t/E\nF[65536] f\n{sep}\nMSG: t/F\n"),
    );
    // Valid on the wire (no bytes at all), but 2^32 values: refused, quickly.
    assert_eq!(validate(&s, &[]), Ok(()));
    let e = decode(&s, &[]).unwrap_err();
    assert_eq!(
        e.kind(),
        &DecodeErrorKind::TooManyValues {
            limit: values_allowed(0) as u64,
            bytes: 0
        }
    );
    // One level is fine, and a declared length is the definition's (not capped like a
    // count read from the payload): decode and validate agree on it.
    let one = schema("t/T", &format!("F[65537] f\n{sep}\nMSG: t/F\n"));
    assert!(decode(&one, &[]).is_ok());
    let inner = schema(
        "t/T",
        &format!("E[1] a\n{sep}\nMSG: t/E\nF[65537] f\n{sep}\nMSG: t/F\n"),
    );
    assert_eq!(validate(&inner, &[]), Ok(()));
    assert!(decode(&inner, &[]).is_ok());
}

#[test]
fn a_string_too_long_quotes_its_declared_length() {
    let s = schema("t/T", "string s\n");
    // Declares 100 bytes; 3 follow the length field.
    let p = [100u8, 0, 0, 0, b'a', b'b', b'c'];
    for e in [decode(&s, &p).unwrap_err(), validate(&s, &p).unwrap_err()] {
        assert_eq!(
            e.kind(),
            &DecodeErrorKind::Truncated {
                needed: 100,
                available: 3
            }
        );
        assert_eq!(
            e.to_string(),
            "s at payload byte 0: needs 100 bytes but only 3 remain"
        );
    }
}

#[test]
fn huge_fixed_arrays_are_refused() {
    let s = schema("t/T", "float64[4000000000] x\n");
    assert!(matches!(
        decode(&s, &[0; 16]).unwrap_err().kind(),
        DecodeErrorKind::ArrayTooLong { .. }
    ));
}

// Decoded messages and values, walked after a decode.

/// Walks every kind of node through the views, and again once detached.
#[test]
fn views_walk_nested_messages_and_arrays() {
    let sep = "=".repeat(80);
    let schema = Schema::from_definition(
        "t/T",
        &format!(
            "P[] ps\nstring[] names\nfloat32[2] f\nuint8[] raw\nP one\nbool b\n\
             {sep}\nMSG: t/P\nfloat64 x\nstring s\n"
        ),
    )
    .unwrap();
    let mut p = vec![2, 0, 0, 0];
    for (x, s) in [(1.5f64, "a"), (-2.0, "bc")] {
        p.extend(x.to_le_bytes());
        p.extend(u32::try_from(s.len()).unwrap().to_le_bytes());
        p.extend(s.as_bytes());
    }
    p.extend([2, 0, 0, 0, 1, 0, 0, 0, b'n', 0, 0, 0, 0]);
    p.extend(0.5f32.to_le_bytes());
    p.extend(4f32.to_le_bytes());
    p.extend([3, 0, 0, 0, 7, 8, 9]);
    p.extend(9f64.to_le_bytes());
    p.extend([0, 0, 0, 0, 1]);
    let decoded = decode(&schema, &p).unwrap();
    let check = |d: &Decoded<'_>| {
        let root = d.root();
        assert_eq!(root.ty().name(), "t/T");
        let names: Vec<&str> = root.iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["ps", "names", "f", "raw", "one", "b"]);
        let Some(ValueRef::Array(ps)) = root.get("ps") else {
            panic!("ps");
        };
        assert_eq!(ps.len(), 2);
        let xs: Vec<(f64, Vec<u8>)> = ps
            .iter()
            .map(|v| match v {
                ValueRef::Message(m) => match (m.get("x"), m.get("s")) {
                    (Some(ValueRef::F64(x)), Some(ValueRef::String(s))) => (x, s.to_vec()),
                    other => panic!("{other:?}"),
                },
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(xs, [(1.5, b"a".to_vec()), (-2.0, b"bc".to_vec())]);
        let Some(ValueRef::Array(names)) = root.get("names") else {
            panic!("names");
        };
        let names: Vec<_> = names.iter().collect();
        assert!(matches!(
            names.as_slice(),
            [ValueRef::String(b"n"), ValueRef::String(b"")]
        ));
        assert!(matches!(root.get("f"), Some(ValueRef::PrimArray(a)) if a.len() == 2));
        assert!(matches!(root.get("raw"), Some(ValueRef::Bytes([7, 8, 9]))));
        let Some(ValueRef::Message(one)) = root.get("one") else {
            panic!("one");
        };
        assert!(matches!(one.get("x"), Some(ValueRef::F64(x)) if x.to_bits() == 9f64.to_bits()));
        assert!(matches!(one.get("s"), Some(ValueRef::String(b""))));
        assert!(matches!(root.get("b"), Some(ValueRef::Bool(true))));
        assert!(root.get("nothing").is_none());
    };
    check(&decoded);
    let owned = decoded.clone().into_owned();
    drop(p);
    check(&owned);
    assert!(owned.to_value().bitwise_eq(&owned.clone().to_value()));
}

#[test]
fn the_node_guess_follows_the_largest_message() {
    let schema = Schema::from_definition("t/T", "string[] names\n").unwrap();
    assert_eq!(schema.node_guess(), 1);
    let mut p = vec![5, 0, 0, 0];
    for _ in 0..5 {
        p.extend([0, 0, 0, 0]);
    }
    decode(&schema, &p).unwrap();
    assert_eq!(schema.node_guess(), 6);
    decode(&schema, &[0, 0, 0, 0]).unwrap();
    assert_eq!(schema.node_guess(), 6);
}

#[test]
fn into_owned_shares_the_schemas_types() {
    let sep = "=".repeat(80);
    let def = format!("Inner a\nInner[] b\n{sep}\nMSG: t/Inner\nstring s\n");
    let schema = Schema::from_definition("t/T", &def).unwrap();
    let owned = {
        let payload = vec![1, 0, 0, 0, b'x', 1, 0, 0, 0, 0, 0, 0, 0];
        decode(&schema, &payload).unwrap().to_value().into_owned()
    };
    let Some(Elem::Msg(inner)) = schema.root().fields().first().map(|f| f.ty().elem()) else {
        panic!("no inner type");
    };
    let a = owned.get("a").and_then(Value::as_message).unwrap();
    assert!(std::ptr::eq(a.ty(), Arc::as_ptr(inner)));
    assert_eq!(
        a.get("s").and_then(Value::as_str_lossy).as_deref(),
        Some("x")
    );
    let Some(Value::Array(b)) = owned.get("b") else {
        panic!("b");
    };
    assert!(std::ptr::eq(
        b[0].as_message().unwrap().ty(),
        Arc::as_ptr(inner)
    ));
}
