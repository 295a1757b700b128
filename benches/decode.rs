//! Decode throughput: messages/s and MB/s for small (Imu, TFMessage) and big (Image,
//! PointCloud2) messages, beside Debian's genpy (what `rosbag` uses) deserializing the same
//! payloads, when `/usr/bin/python3` with genpy is present.
//!
//! `cargo bench --bench decode` (release build). Payloads are made in process with the
//! bundled definitions and the encoder: no bag file is needed. Environment: `BENCH_MS` (time
//! per measurement, default 1000), `BENCH_ONLY=Imu` (cases whose name starts so),
//! `BENCH_NO_PYTHON=1`, `BENCH_NO_JSON=1`, `BENCH_ITERS=N` (decode N times, no timing; with
//! `BENCH_BAG_TOPIC=/imu` also N read+decode passes of that topic of the bag), `BENCH_NO_BAG=1` (skip the end-to-end
//! comparison on the shared corpus' `gen-mixed_none.bag`).

// Test-data generation cuts random bits to every width on purpose.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::indexing_slicing
)]

use std::borrow::Cow;
use std::hint::black_box;
use std::io::Write as _;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bagscope::msg::{
    ArrayKind, Elem, Message, MsgType, PrimArray, Primitive, Registry, Schema, Value, decode,
    encode, json, validate,
};
use bagscope::time::{RosDuration, RosTime};

/// A value of `ty` with arrays sized by `size(field name)` and varied scalars.
fn fill(ty: &Arc<MsgType>, size: &dyn Fn(&str) -> usize, seed: &mut u64) -> Value<'static> {
    let mut fields = Vec::new();
    for f in ty.fields() {
        let n = match f.ty().array() {
            ArrayKind::Single => None,
            ArrayKind::Fixed(n) => Some(n),
            ArrayKind::Variable => Some(size(f.name())),
        };
        let one = |seed: &mut u64| match f.ty().elem() {
            Elem::Msg(sub) => fill(sub, size, seed),
            Elem::Prim(p) => {
                *seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let r = *seed >> 33;
                match p {
                    Primitive::Float64 => Value::F64(r as f64 / 1e3),
                    Primitive::Float32 => Value::F32(r as f32 / 1e3),
                    Primitive::UInt32 => Value::U32(r as u32),
                    Primitive::Int32 => Value::I32(r as i32),
                    Primitive::UInt8 | Primitive::Char => Value::U8(r as u8),
                    Primitive::Int8 | Primitive::Byte => Value::I8(r as i8),
                    Primitive::Bool => Value::Bool(r & 1 == 1),
                    Primitive::UInt16 => Value::U16(r as u16),
                    Primitive::Int16 => Value::I16(r as i16),
                    Primitive::UInt64 => Value::U64(r),
                    Primitive::Int64 => Value::I64(r as i64),
                    Primitive::String => Value::String(Cow::Owned(
                        if f.name() == "encoding" {
                            "rgb8"
                        } else {
                            "base_link"
                        }
                        .into(),
                    )),
                    Primitive::Time => {
                        Value::Time(RosTime::new(1_700_000_000, r as u32 % 1_000_000_000))
                    }
                    Primitive::Duration => Value::Duration(RosDuration { sec: 1, nsec: 0 }),
                }
            }
        };
        fields.push(match n {
            None => one(seed),
            Some(n) if f.ty().is_bytes() => {
                Value::Bytes(Cow::Owned((0..n).map(|i| (i % 251) as u8).collect()))
            }
            Some(n) => match f.ty().elem() {
                Elem::Prim(p) if p.fixed_size().is_some() => {
                    Value::PrimArray(PrimArray::from_values(*p, (0..n).map(|_| one(seed))).unwrap())
                }
                _ => Value::Array((0..n).map(|_| one(seed)).collect()),
            },
        });
    }
    Value::Message(Message::new(Arc::clone(ty), fields))
}

struct Case {
    name: &'static str,
    schema: Arc<Schema>,
    payload: Vec<u8>,
}

fn case(registry: &Registry, name: &'static str, ty: &str, size: &dyn Fn(&str) -> usize) -> Case {
    let schema = Schema::from_registry(ty, None, registry).unwrap();
    let mut seed = 42;
    let value = fill(schema.root(), size, &mut seed);
    let payload = encode(&schema, &value).unwrap();
    Case {
        name,
        schema,
        payload,
    }
}

/// Runs `f` repeatedly for about `budget`, returning calls per second.
fn rate(budget: Duration, mut f: impl FnMut()) -> f64 {
    let mut n = 0u64;
    let start = Instant::now();
    let mut batch = 1u64;
    while start.elapsed() < budget {
        for _ in 0..batch {
            f();
        }
        n += batch;
        batch = (batch * 2).min(1 << 16);
    }
    n as f64 / start.elapsed().as_secs_f64()
}

const PYTHON: &str = r"
import sys, time, genpy.dynamic
def bench(ty, full_text, path):
    cls = genpy.dynamic.generate_dynamic(ty, full_text)[ty]
    data = open(path, 'rb').read()
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < 1.0:
        for _ in range(100):
            cls().deserialize(data)
        n += 100
    return n / (time.perf_counter() - t0)
args = sys.argv[1:]
for i in range(0, len(args), 3):
    ty, text_path, data_path = args[i:i + 3]
    print(bench(ty, open(text_path).read(), data_path))
";

fn python_rates(cases: &[Case]) -> Option<Vec<f64>> {
    let dir = std::env::temp_dir().join(format!("bagscope-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let mut args = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        let text = dir.join(format!("{i}.txt"));
        let data = dir.join(format!("{i}.bin"));
        std::fs::File::create(&text)
            .ok()?
            .write_all(c.schema.full_text().as_bytes())
            .ok()?;
        std::fs::write(&data, &c.payload).ok()?;
        args.push(c.schema.datatype().to_string());
        args.push(text.display().to_string());
        args.push(data.display().to_string());
    }
    let out = Command::new("/usr/bin/python3")
        .arg("-c")
        .arg(PYTHON)
        .args(&args)
        .output()
        .ok();
    let _ = std::fs::remove_dir_all(&dir);
    let out = out?;
    if !out.status.success() {
        eprintln!("python: {}", String::from_utf8_lossy(&out.stderr));
        return None;
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.trim().parse().ok())
        .collect()
}

const PYTHON_BAG: &str = r"
import sys, time, rosbag
bag = rosbag.Bag(sys.argv[1])
for topic in sys.argv[2:]:
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < 1.0:
        for _ in bag.read_messages(topics=[topic]):
            n += 1
    print(n / (time.perf_counter() - t0))
";

type Schemas = std::collections::HashMap<bagscope::bag::ConnId, Arc<Schema>>;

/// The bag at `path`, a query for `topic` and the schemas of its connections.
fn topic_reader(
    path: &std::path::Path,
    topic: &str,
) -> (bagscope::bag::Bag, bagscope::bag::Query, Schemas) {
    let bag = bagscope::bag::Bag::open(path).unwrap();
    let conns: Vec<_> = bag
        .connections()
        .iter()
        .filter(|c| c.topic == topic)
        .collect();
    let schemas = conns
        .iter()
        .map(|c| {
            let s = Schema::from_definition(&c.datatype, &c.message_definition).unwrap();
            (c.id, s)
        })
        .collect();
    let query = bagscope::bag::Query::all().connections(conns.iter().map(|c| c.id));
    (bag, query, schemas)
}

/// Reading and decoding one topic of a real bag end to end, beside the official reader
/// (`rosbag.Bag.read_messages`, which deserializes with genpy) on the same bag.
fn bag_pipeline(budget: Duration) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/gen-mixed_none.bag");
    if bagscope::bag::Bag::open(&path).is_err() {
        println!(
            "\n(skipping the bag pipeline: {} is absent)",
            path.display()
        );
        return;
    }
    let topics = ["/imu", "/tf"];
    let python: Option<Vec<f64>> = Command::new("/usr/bin/python3")
        .arg("-c")
        .arg(PYTHON_BAG)
        .arg(&path)
        .args(topics)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .filter_map(|l| l.trim().parse().ok())
                .collect()
        });
    println!(
        "\nRead + decode one topic of `gen-mixed_none.bag` (uncompressed), whole-bag passes:\n"
    );
    println!("| topic | bagscope read+decode msg/s | rosbag read_messages msg/s | speed-up |");
    println!("|---|---|---|---|");
    for (i, topic) in topics.iter().enumerate() {
        let (bag, query, schemas) = topic_reader(&path, topic);
        let mut per_pass = 0u64;
        let passes = rate(budget, || {
            per_pass = 0;
            for m in bag.messages(&query) {
                let m = m.unwrap();
                black_box(decode(&schemas[&m.entry.conn], &m.data).unwrap());
                per_pass += 1;
            }
        });
        let ours = passes * per_pass as f64;
        let (py, ratio) = match python.as_ref().and_then(|p| p.get(i)) {
            Some(p) => (format!("{p:.0}"), format!("{:.0}x", ours / p)),
            None => ("n/a".into(), "n/a".into()),
        };
        println!("| {topic} | {ours:.0} | {py} | {ratio} |");
    }
}

fn main() {
    let registry = Registry::bundled();
    let budget = Duration::from_millis(
        std::env::var("BENCH_MS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(1000),
    );
    let cases = [
        case(&registry, "Imu", "sensor_msgs/Imu", &|_| 0),
        case(
            &registry,
            "TFMessage (3 transforms)",
            "tf2_msgs/TFMessage",
            &|_| 3,
        ),
        case(&registry, "Image 640x480 rgb8", "sensor_msgs/Image", &|f| {
            if f == "data" { 640 * 480 * 3 } else { 0 }
        }),
        case(
            &registry,
            "PointCloud2 8192 points",
            "sensor_msgs/PointCloud2",
            &|f| match f {
                "fields" => 4,
                "data" => 8192 * 16,
                _ => 0,
            },
        ),
    ];
    // BENCH_ONLY=Imu keeps the cases whose name starts with it; BENCH_NO_PYTHON=1 skips genpy.
    let only = std::env::var("BENCH_ONLY").unwrap_or_default();
    let cases: Vec<Case> = cases
        .into_iter()
        .filter(|c| c.name.starts_with(&only))
        .collect();
    // BENCH_ITERS=N: decode each payload exactly N times and stop (for instruction counts
    // under `valgrind --tool=callgrind`, steadier than wall time on a busy machine).
    if let Some(n) = std::env::var("BENCH_ITERS")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
    {
        for c in &cases {
            for _ in 0..n {
                black_box(decode(&c.schema, black_box(&c.payload)).unwrap());
            }
        }
        // BENCH_ITERS=N with BENCH_BAG_TOPIC=/imu: N whole-bag read+decode passes of the topic.
        if let Ok(topic) = std::env::var("BENCH_BAG_TOPIC") {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../shared/corpus/gen-mixed_none.bag");
            let (bag, query, schemas) = topic_reader(&path, &topic);
            for _ in 0..n {
                for m in bag.messages(&query) {
                    let m = m.unwrap();
                    black_box(decode(&schemas[&m.entry.conn], &m.data).unwrap());
                }
            }
        }
        return;
    }
    let python = if std::env::var_os("BENCH_NO_PYTHON").is_some() {
        None
    } else {
        python_rates(&cases)
    };
    println!(
        "| message | payload bytes | decode msg/s | decode MB/s | validate msg/s | decode+JSON msg/s | genpy deserialize msg/s | decode vs genpy |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (i, c) in cases.iter().enumerate() {
        let decode_rate = rate(budget, || {
            black_box(decode(&c.schema, black_box(&c.payload)).unwrap());
        });
        let validate_rate = rate(budget, || {
            validate(&c.schema, black_box(&c.payload)).unwrap();
        });
        let mut line = String::new();
        let skip_json = std::env::var_os("BENCH_NO_JSON").is_some();
        let json_rate = rate(if skip_json { Duration::ZERO } else { budget }, || {
            let v = decode(&c.schema, black_box(&c.payload)).unwrap();
            line.clear();
            json::write_value(&mut line, &v.value()).unwrap();
            black_box(&line);
        });
        let mb = decode_rate * c.payload.len() as f64 / 1e6;
        let (py, ratio) = match python.as_ref().and_then(|p| p.get(i)) {
            Some(p) => (format!("{p:.0}"), format!("{:.0}x", decode_rate / p)),
            None => ("n/a".into(), "n/a".into()),
        };
        println!(
            "| {} | {} | {decode_rate:.0} | {mb:.0} | {validate_rate:.0} | {json_rate:.0} | {py} | {ratio} |",
            c.name,
            c.payload.len()
        );
    }
    if std::env::var_os("BENCH_NO_BAG").is_none() {
        bag_pipeline(budget);
    }
}
