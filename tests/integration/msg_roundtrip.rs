//! Property test over generated definitions and values (seeded, reproducible):
//! `decode(encode(v)) == v` bit for bit, `encode(decode(b)) == b`, every strict prefix of an
//! encoding fails to decode, an extra byte is reported as trailing, random corruption never
//! panics, and `validate` reports exactly what `decode` reports.

// Test-data generator: random bits are cut to every width on purpose, and indexing into
// generated data cannot go out of range.

use std::borrow::Cow;
use std::sync::Arc;

use bagscope::msg::{
    ArrayKind, DecodeErrorKind, Elem, Message, MsgType, PrimArray, Primitive, Schema, Value,
    decode, encode, validate,
};
use bagscope::time::{RosDuration, RosTime};

/// xorshift64*: small, seeded, good enough for test data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

const PRIMS: [&str; 16] = [
    "bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32",
    "float64", "string", "time", "duration", "byte", "char",
];

/// A random definition: `gen/T0` uses `gen/T1..` (each type only uses later ones, so there
/// are no cycles), sometimes `Header`, with constants sprinkled in.
fn gen_definition(rng: &mut Rng) -> String {
    let types = 1 + rng.below(4) as usize;
    let use_header = rng.chance(30);
    let mut texts = Vec::new();
    for t in 0..types {
        let mut text = String::new();
        if t == 0 && use_header {
            text.push_str("Header header\n");
        }
        for f in 0..rng.below(7) + u64::from(t == 0) {
            if rng.chance(10) {
                text.push_str("# a comment line\n");
            }
            if rng.chance(10) {
                match rng.below(3) {
                    0 => text.push_str(&format!("int32 C{f}=-{}\n", rng.below(1000))),
                    1 => text.push_str(&format!("string S{f}=a # b = c\n")),
                    _ => text.push_str(&format!("float64 K{f}=2.5e-3 # k\n")),
                }
            }
            let base = if t + 1 < types && rng.chance(35) {
                let sub = t + 1 + rng.below((types - t - 1) as u64) as usize;
                if rng.chance(50) {
                    format!("T{sub}")
                } else {
                    format!("gen/T{sub}")
                }
            } else {
                (*rng.pick(&PRIMS)).to_string()
            };
            let suffix = match rng.below(4) {
                0 => "[]".to_string(),
                1 => format!("[{}]", rng.below(4)),
                _ => String::new(),
            };
            text.push_str(&format!("{base}{suffix} f{f}  # trailing comment\n"));
        }
        texts.push(text);
    }
    let mut def = texts[0].clone();
    for (t, text) in texts.iter().enumerate().skip(1) {
        def.push_str(&format!("{}\nMSG: gen/T{t}\n{text}", "=".repeat(80)));
    }
    if use_header {
        def.push_str(&format!(
            "{}\nMSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n",
            "=".repeat(80)
        ));
    }
    def
}

fn gen_bytes(rng: &mut Rng, max: u64) -> Vec<u8> {
    let len = rng.below(max + 1) as usize;
    (0..len).map(|_| rng.next() as u8).collect()
}

fn gen_prim(rng: &mut Rng, p: Primitive) -> Value<'static> {
    let bits = rng.next();
    match p {
        Primitive::Bool => Value::Bool(bits & 1 == 1),
        Primitive::Int8 | Primitive::Byte => Value::I8(bits as i8),
        Primitive::UInt8 | Primitive::Char => Value::U8(bits as u8),
        Primitive::Int16 => Value::I16(bits as i16),
        Primitive::UInt16 => Value::U16(bits as u16),
        Primitive::Int32 => Value::I32(bits as i32),
        Primitive::UInt32 => Value::U32(bits as u32),
        Primitive::Int64 => Value::I64(bits as i64),
        Primitive::UInt64 => Value::U64(bits),
        // Raw bits: NaNs with payloads, infinities, -0.0 and denormals all occur.
        Primitive::Float32 => Value::F32(f32::from_bits(bits as u32)),
        Primitive::Float64 => Value::F64(f64::from_bits(bits)),
        Primitive::String => Value::String(Cow::Owned(gen_bytes(rng, 12))),
        Primitive::Time => Value::Time(RosTime::new(bits as u32, (bits >> 32) as u32)),
        Primitive::Duration => Value::Duration(RosDuration {
            sec: bits as i32,
            nsec: (bits >> 32) as i32,
        }),
    }
}

fn gen_message(rng: &mut Rng, ty: &Arc<MsgType>) -> Value<'static> {
    let mut fields = Vec::new();
    for field in ty.fields() {
        let t = field.ty();
        let count = match t.array() {
            ArrayKind::Single => None,
            ArrayKind::Fixed(n) => Some(n),
            ArrayKind::Variable => Some(rng.below(5) as usize),
        };
        let one = |rng: &mut Rng| match t.elem() {
            Elem::Prim(p) => gen_prim(rng, *p),
            Elem::Msg(sub) => gen_message(rng, sub),
        };
        fields.push(match count {
            None => one(rng),
            Some(n) if t.is_bytes() => {
                Value::Bytes(Cow::Owned((0..n).map(|_| rng.next() as u8).collect()))
            }
            Some(n) => match t.elem() {
                // Fixed-size builtins decode unboxed; strings and messages as value arrays.
                Elem::Prim(p) if p.fixed_size().is_some() => {
                    Value::PrimArray(PrimArray::from_values(*p, (0..n).map(|_| one(rng))).unwrap())
                }
                _ => Value::Array((0..n).map(|_| one(rng)).collect()),
            },
        });
    }
    Value::Message(Message::new(Arc::clone(ty), fields))
}

#[test]
fn decode_inverts_encode_over_generated_definitions() {
    let mut rng = Rng(0x5eed_2024_0bad_cafe);
    let mut messages = 0;
    for case in 0..400 {
        let def = gen_definition(&mut rng);
        let schema = Schema::from_definition("gen/T0", &def)
            .unwrap_or_else(|e| panic!("case {case}: {e}\n{def}"));
        for _ in 0..5 {
            let value = gen_message(&mut rng, schema.root());
            let bytes = encode(&schema, &value).unwrap();
            let decoded =
                decode(&schema, &bytes).unwrap_or_else(|e| panic!("case {case}: {e}\n{def}"));
            let back = decoded.to_value();
            assert!(
                back.bitwise_eq(&value),
                "case {case}\n{def}\n{value:?}\n{back:?}"
            );
            assert_eq!(encode(&schema, &back).unwrap(), bytes, "case {case}");
            let owned = back.to_owned_value();
            assert!(owned.bitwise_eq(&value));
            // Detached from the payload, the flat form still reads back the same.
            let detached = decoded.clone().into_owned();
            assert!(detached.to_value().bitwise_eq(&value), "case {case}");

            assert_eq!(validate(&schema, &bytes), Ok(()), "case {case}");
            for cut in 0..bytes.len() {
                let err = decode(&schema, &bytes[..cut]).err();
                assert!(err.is_some(), "case {case}: prefix {cut}");
                assert_eq!(
                    validate(&schema, &bytes[..cut]).err(),
                    err,
                    "case {case}: {cut}"
                );
            }
            let mut longer = bytes.clone();
            longer.push(0);
            let e = decode(&schema, &longer).unwrap_err();
            assert_eq!(
                e.kind(),
                &DecodeErrorKind::TrailingBytes { count: 1 },
                "case {case}"
            );

            // Corrupt a few bytes: decoding may succeed or fail, but must not panic.
            if !bytes.is_empty() {
                let mut bad = bytes.clone();
                for _ in 0..3 {
                    let i = rng.below(bad.len() as u64) as usize;
                    bad[i] = rng.next() as u8;
                }
                assert_eq!(
                    decode(&schema, &bad).err(),
                    validate(&schema, &bad).err(),
                    "case {case}"
                );
            }
            messages += 1;
        }
    }
    assert_eq!(messages, 2000);
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng(42);
    for _ in 0..200 {
        let def = gen_definition(&mut rng);
        let schema = Schema::from_definition("gen/T0", &def).unwrap();
        for _ in 0..20 {
            let bytes = gen_bytes(&mut rng, 64);
            assert_eq!(
                decode(&schema, &bytes).err(),
                validate(&schema, &bytes).err()
            );
        }
    }
}
