//! Unit tests of the CDR reader: payloads written by a small aligned writer in both byte
//! orders, against the values they must decode to.

use std::sync::Arc;

use crate::msg::{
    DecodeErrorKind, Registry, Schema, SchemaEncoding, Value, decode, json, validate,
};

fn schema(ty: &str, def: &str) -> Arc<Schema> {
    Schema::for_ros2(ty, def, SchemaEncoding::Ros2Msg, &Registry::empty()).unwrap()
}

/// A CDR writer: header, then values aligned to their size counted from its end.
struct W {
    out: Vec<u8>,
    be: bool,
}

impl W {
    fn new(be: bool) -> W {
        W {
            out: vec![0, u8::from(!be), 0, 0],
            be,
        }
    }
    fn align(&mut self, n: usize) -> &mut Self {
        while (self.out.len() - 4) % n != 0 {
            self.out.push(0xAA); // non-zero padding must be ignored
        }
        self
    }
    fn raw(&mut self, le: &[u8]) -> &mut Self {
        self.align(le.len());
        if self.be {
            self.out.extend(le.iter().rev());
        } else {
            self.out.extend(le);
        }
        self
    }
    fn u8(&mut self, v: u8) -> &mut Self {
        self.out.push(v);
        self
    }
    fn u16(&mut self, v: u16) -> &mut Self {
        self.raw(&v.to_le_bytes())
    }
    fn u32(&mut self, v: u32) -> &mut Self {
        self.raw(&v.to_le_bytes())
    }
    fn u64(&mut self, v: u64) -> &mut Self {
        self.raw(&v.to_le_bytes())
    }
    fn f64(&mut self, v: f64) -> &mut Self {
        self.raw(&v.to_le_bytes())
    }
    fn f32(&mut self, v: f32) -> &mut Self {
        self.raw(&v.to_le_bytes())
    }
    fn str(&mut self, s: &str) -> &mut Self {
        self.u32(u32::try_from(s.len() + 1).unwrap());
        self.out.extend(s.as_bytes());
        self.out.push(0);
        self
    }
    fn bytes(&self) -> Vec<u8> {
        self.out.clone()
    }
}

fn json_of(s: &Schema, payload: &[u8]) -> String {
    let d = decode(s, payload).unwrap_or_else(|e| panic!("{e}"));
    json::value_to_string(&d.value())
}

const PRIMS: &str = "bool a\nint16 b\nuint8 c\nfloat64 d\nint8 e\nint32 f\nchar g\n\
                     uint64 h\nfloat32 i\nbyte j\nint64 k\nuint16 l\nuint32 m\n";

fn prims(be: bool) -> Vec<u8> {
    let mut w = W::new(be);
    w.u8(1)
        .u16(0xfffe)
        .u8(200)
        .f64(-2.5)
        .u8(0x80)
        .u32(0x8000_0000);
    w.u8(b'z')
        .u64(u64::MAX)
        .f32(1.5)
        .u8(0xff)
        .u64(0x8000_0000_0000_0001);
    w.u16(65535).u32(7);
    w.bytes()
}

#[test]
fn every_primitive_with_alignment_after_odd_sizes_in_both_orders() {
    let s = schema("t/msg/P", PRIMS);
    let le = prims(false);
    let be = prims(true);
    assert_eq!(le.len(), be.len());
    let want = r#"{"a":true,"b":-2,"c":200,"d":-2.5,"e":-128,"f":-2147483648,"g":122,"h":18446744073709551615,"i":1.5,"j":255,"k":-9223372036854775807,"l":65535,"m":7}"#;
    assert_eq!(json_of(&s, &le), want);
    assert_eq!(json_of(&s, &be), want);
    assert!(validate(&s, &le).is_ok() && validate(&s, &be).is_ok());
    // The little-endian message borrows the payload; the big-endian one needs no copy either
    // (no arrays), but reads the same values.
    assert_eq!(decode(&s, &le).unwrap().payload(), &le[..]);
}

#[test]
fn arrays_sequences_and_strings_in_both_orders() {
    let s = schema(
        "t/msg/A",
        "uint8 tag\nfloat64[] d\nint16[2] h\nstring[] names\nbyte[] blob\nbool[3] flags\n\
         string<=5 short\nfloat64[] none\nuint8 last\n",
    );
    for be in [false, true] {
        let mut w = W::new(be);
        w.u8(9);
        w.u32(2).f64(1.25).f64(-0.5);
        w.u16(1).u16(0x8001);
        w.u32(3).str("a").str("").str("ccc");
        w.u32(3).u8(1).u8(2).u8(3);
        w.u8(1).u8(0).u8(7);
        w.str("hello");
        // An empty sequence of float64: no padding after its count.
        w.u32(0).u8(4);
        let got = json_of(&s, &w.bytes());
        assert_eq!(
            got,
            r#"{"tag":9,"d":[1.25,-0.5],"h":[1,-32767],"names":["a","","ccc"],"blob":"AQID","flags":[true,false,true],"short":"hello","none":[],"last":4}"#,
            "be={be}"
        );
    }
}

#[test]
fn nested_messages_arrays_of_them_and_empty_types() {
    let sep = "=".repeat(80);
    let s = schema(
        "t/msg/N",
        &format!(
            "Inner one\nInner[2] two\nInner[] many\nEmpty e\nEmpty[] es\nuint8 z\n\
             {sep}\nMSG: t/Inner\nuint8 a\nfloat64 b\n{sep}\nMSG: t/msg/Empty\n# nothing\n"
        ),
    );
    let mut w = W::new(false);
    for i in 0..3u8 {
        w.u8(i).f64(f64::from(i));
    }
    w.u32(1).u8(3).f64(3.0);
    w.u8(0); // Empty's dummy byte
    w.u32(2).u8(0).u8(0);
    w.u8(5);
    let got = json_of(&s, &w.bytes());
    assert_eq!(
        got,
        r#"{"one":{"a":0,"b":0.0},"two":[{"a":1,"b":1.0},{"a":2,"b":2.0}],"many":[{"a":3,"b":3.0}],"e":{},"es":[{},{}],"z":5}"#
    );
    let empty = schema("std_msgs/msg/Empty", "");
    assert_eq!(json_of(&empty, &[0, 1, 0, 0, 0]), "{}");
    assert_eq!(json_of(&empty, &[0, 1, 0, 0, 0, 0, 0, 0]), "{}");
    assert_eq!(json_of(&empty, &[0, 1, 0, 0]), "{}");
}

#[test]
fn all_f64_messages_align_once() {
    let sep = "=".repeat(80);
    let s = schema(
        "t/msg/V",
        &format!("uint8 k\nVector3 v\n{sep}\nMSG: t/Vector3\nfloat64 x\nfloat64 y\nfloat64 z\n"),
    );
    for be in [false, true] {
        let mut w = W::new(be);
        w.u8(1).f64(1.0).f64(2.0).f64(-3.0);
        assert_eq!(
            json_of(&s, &w.bytes()),
            r#"{"k":1,"v":{"x":1.0,"y":2.0,"z":-3.0}}"#
        );
    }
}

#[test]
fn big_endian_arrays_are_swapped_in_a_copy() {
    let s = schema("t/msg/B", "float32[] f\nuint32[2] u\n");
    let mut w = W::new(true);
    w.u32(2).f32(0.25).f32(-8.0).u32(1).u32(0x0102_0304);
    let payload = w.bytes();
    let d = decode(&s, &payload).unwrap();
    assert_eq!(
        json::value_to_string(&d.value()),
        r#"{"f":[0.25,-8.0],"u":[1,16909060]}"#
    );
    assert_eq!(d.payload().len(), payload.len());
    let owned = d.into_owned();
    assert_eq!(
        json::value_to_string(&owned.value()),
        r#"{"f":[0.25,-8.0],"u":[1,16909060]}"#
    );
}

#[test]
fn wide_strings_in_both_widths() {
    let s = schema("t/msg/W", "wstring w\nwstring[] ws\nuint8 end\n");
    let text: Vec<u16> = "hé€😀".encode_utf16().collect();
    for (be, width) in [(false, 2), (true, 2), (false, 4), (true, 4)] {
        let mut w = W::new(be);
        let unit = |w: &mut W, u: u16| {
            if width == 2 {
                w.u16(u);
            } else {
                w.u32(u32::from(u));
            }
        };
        w.u32(u32::try_from(text.len()).unwrap());
        for &u in &text {
            unit(&mut w, u);
        }
        w.u32(2).u32(1);
        unit(&mut w, u16::from(b'x'));
        w.u32(0);
        w.u8(7);
        let got = json_of(&s, &w.bytes());
        assert_eq!(
            got, r#"{"w":"hé€😀","ws":["x",""],"end":7}"#,
            "be={be} width={width}"
        );
        validate(&s, &w.bytes()).unwrap();
    }
}

#[test]
fn trailing_padding_and_trailing_bytes() {
    let s = schema("t/msg/T", "uint32 a\nuint8 b\n");
    let mut w = W::new(false);
    w.u32(1).u8(2);
    let exact = w.bytes();
    assert_eq!(exact.len(), 9);
    assert!(decode(&s, &exact).is_ok());
    // Padded to a 4-byte boundary (Fast-DDS), whatever the padding holds.
    let mut padded = exact.clone();
    padded.extend([0xde, 0xad, 0xbe]);
    assert!(decode(&s, &padded).is_ok());
    // Not padding: a fourth byte, or bytes that do not end on a boundary.
    let mut four = padded.clone();
    four.push(0);
    let e = decode(&s, &four).unwrap_err();
    assert_eq!(e.kind(), &DecodeErrorKind::TrailingBytes { count: 4 });
    assert_eq!(e.offset(), 9);
    let mut two = exact.clone();
    two.extend([0, 0]);
    assert!(matches!(
        validate(&s, &two).unwrap_err().kind(),
        DecodeErrorKind::TrailingBytes { count: 2 }
    ));
    // A placeholder definition that reads a prefix of a real message.
    let placeholder = schema("rcl_interfaces/msg/Log", "uint8 level\n");
    let mut log = W::new(false);
    log.u32(5).u32(6).u8(20).str("node").str("a message");
    assert!(matches!(
        decode(&placeholder, &log.bytes()).unwrap_err().kind(),
        DecodeErrorKind::TrailingBytes { .. }
    ));
}

#[test]
fn encapsulations_other_than_plain_cdr_are_named() {
    let s = schema("t/msg/T", "uint8 a\n");
    let e = decode(&s, &[0, 3, 0, 0, 1]).unwrap_err();
    assert!(e.to_string().contains("PL_CDR_LE"), "{e}");
    assert!(matches!(
        validate(&s, &[0, 7, 0, 0, 1]).unwrap_err().kind(),
        DecodeErrorKind::Encapsulation { id: 7, .. }
    ));
    assert!(matches!(
        decode(&s, &[0, 1]).unwrap_err().kind(),
        DecodeErrorKind::Truncated { needed: 4, .. }
    ));
}

#[test]
fn bounds_are_checked() {
    let s = schema("t/msg/T", "int32[<=2] a\nstring<=3 s\n");
    let mut ok = W::new(false);
    ok.u32(2).u32(1).u32(2).str("abc");
    assert!(decode(&s, &ok.bytes()).is_ok());
    let mut seq = W::new(false);
    seq.u32(3).u32(1).u32(2).u32(3).str("abc");
    let e = decode(&s, &seq.bytes()).unwrap_err();
    assert_eq!(e.kind(), &DecodeErrorKind::OverBound { count: 3, bound: 2 });
    assert_eq!(e.path().to_string(), "a");
    let mut long = W::new(false);
    long.u32(0).str("abcd");
    let e = decode(&s, &long.bytes()).unwrap_err();
    assert_eq!(e.kind(), &DecodeErrorKind::OverBound { count: 4, bound: 3 });
    assert_eq!((e.path().to_string(), e.offset()), ("s".to_string(), 8));
}

#[test]
fn strings_of_length_zero_or_without_nul() {
    let s = schema("t/msg/S", "string a\nstring b\n");
    let mut w = W::new(false);
    w.u32(0).u32(2);
    w.out.extend(b"hi");
    assert_eq!(json_of(&s, &w.bytes()), r#"{"a":"","b":"hi"}"#);
}

#[test]
fn truncated_payloads_fail_cleanly_with_paths() {
    let sep = "=".repeat(80);
    let s = schema(
        "t/msg/T",
        &format!("Item[] items\nstring tail\n{sep}\nMSG: t/Item\nstring name\nfloat64 x\n"),
    );
    let mut w = W::new(false);
    w.u32(2)
        .str("first")
        .f64(1.0)
        .str("second")
        .f64(2.0)
        .str("end");
    let full = w.bytes();
    assert!(decode(&s, &full).is_ok());
    for cut in 0..full.len() - 3 {
        let part = &full[..cut];
        let (d, v) = (decode(&s, part), validate(&s, part));
        // A cut inside the last string's NUL-less tail may still read (no NUL needed); any
        // other cut is an error, the same from both walks.
        if let Err(e) = &d {
            assert_eq!(Some(e), v.as_ref().err(), "cut at {cut}");
        }
    }
    let e = decode(&s, &full[..35]).unwrap_err();
    assert_eq!(e.path().to_string(), "items[1].name");
}

#[test]
fn hostile_counts_allocate_nothing() {
    let sep = "=".repeat(80);
    let s = schema(
        "t/msg/H",
        &format!("Item[] items\n{sep}\nMSG: t/Item\nstring name\n"),
    );
    let mut w = W::new(false);
    w.u32(u32::MAX);
    let e = decode(&s, &w.bytes()).unwrap_err();
    assert!(
        matches!(e.kind(), DecodeErrorKind::ArrayTooLong { count, .. } if *count == u64::from(u32::MAX)),
        "{e}"
    );
    let strs = schema("t/msg/S", "string[] s\nwstring w\n");
    let mut w = W::new(false);
    w.u32(1).u32(u32::MAX);
    assert!(matches!(
        decode(&strs, &w.bytes()).unwrap_err().kind(),
        DecodeErrorKind::Truncated { .. }
    ));
    let mut w = W::new(true);
    w.u32(0).u32(0x4000_0000);
    assert!(decode(&strs, &w.bytes()).is_err());
    let fixed = schema("t/msg/F", "float64[100000000] big\n");
    assert!(matches!(
        decode(&fixed, &W::new(false).bytes()).unwrap_err().kind(),
        DecodeErrorKind::ArrayTooLong { .. }
    ));
}

#[test]
fn ros2_time_is_a_message() {
    let s = schema(
        "t/msg/Stamped",
        "std_msgs/Header header\nbuiltin_interfaces/Duration d\n",
    );
    let mut w = W::new(false);
    w.u32(5).u32(6).str("map").u32(0xffff_ffff).u32(1);
    let payload = w.bytes();
    let d = decode(&s, &payload).unwrap();
    assert_eq!(
        json::value_to_string(&d.value()),
        r#"{"header":{"stamp":{"sec":5,"nanosec":6},"frame_id":"map"},"d":{"sec":-1,"nanosec":1}}"#
    );
    let v = d.to_value();
    let header = v.as_message().unwrap().get("header").unwrap();
    assert!(matches!(header, Value::Message(_)));
}

#[test]
fn renders_through_the_existing_renderers() {
    use crate::msg::{csv, yaml};
    let s = schema(
        "t/msg/R",
        "std_msgs/Header header\nwstring w\nstring<=4 b\nint32[<=3] q\nbyte[] raw\n",
    );
    let mut w = W::new(true);
    w.u32(1).u32(2).str("odom");
    w.u32(2).u16(u16::from(b'o')).u16(u16::from(b'k'));
    w.str("abcd").u32(2).u32(7).u32(u32::MAX);
    w.u32(1).u8(200);
    let payload = w.bytes();
    let d = decode(&s, &payload).unwrap();
    assert_eq!(
        yaml::message_to_string(&d),
        "header: \n  stamp: \n    sec: 1\n    nanosec: 2\n  frame_id: \"odom\"\nw: \"ok\"\n\
         b: \"abcd\"\nq: [7, -1]\nraw: [200]"
    );
    assert_eq!(
        csv::columns(&d),
        [
            "field.header.stamp.sec",
            "field.header.stamp.nanosec",
            "field.header.frame_id",
            "field.w",
            "field.b",
            "field.q0",
            "field.q1",
        ]
    );
    assert_eq!(
        json::value_to_string(&d.value()),
        r#"{"header":{"stamp":{"sec":1,"nanosec":2},"frame_id":"odom"},"w":"ok","b":"abcd","q":[7,-1],"raw":"yA=="}"#
    );
}
