//! Every message of every bag with a reference dump (the shared corpus when present, and our
//! own `tests/fixtures` bags), decoded with the connection's definition (or the bundled ones
//! for bags that carry none) and compared value by value with what the official reader
//! decoded: floats by value (float32 references widened exactly), times as total nanoseconds,
//! byte arrays as base64. Our JSON text must read back as the same values. Messages the
//! official reader could not decode (`{"$error": …}`) must be decode errors here too.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use bagscope::bag::{Bag, Query};
use bagscope::msg::{MsgError, Registry, Schema, decode, json, validate};

use crate::common;
use crate::common::msg_support;
use crate::common::{Reference, bags_with_refs, nanos};

/// One message of ours: receive time, topic, payload size, decoded-or-not.
struct Ours {
    time: i128,
    topic: String,
    size: usize,
    datatype: String,
    payload: Vec<u8>,
    schema: Result<Arc<Schema>, String>,
}

fn our_messages(bag: &Bag, registry: &Registry) -> Vec<Ours> {
    let mut schemas = HashMap::new();
    for c in bag.connections() {
        let schema =
            Schema::for_connection(&c.datatype, &c.message_definition, &c.md5sum, registry);
        if let Ok(s) = &schema {
            assert_eq!(
                s.md5sum(),
                c.md5sum,
                "{}: md5sum of {}",
                c.topic,
                c.datatype
            );
        }
        schemas.insert(c.id, schema.map_err(|e: MsgError| e.to_string()));
    }
    bag.messages(&Query::all())
        .filter_map(Result::ok)
        .map(|m| {
            let c = bag.connection(m.entry.conn).unwrap();
            Ours {
                time: i128::from(m.entry.time.as_nanos()),
                topic: c.topic.clone(),
                size: m.data.len(),
                datatype: c.datatype.clone(),
                payload: m.data.to_vec(),
                schema: schemas[&m.entry.conn].clone(),
            }
        })
        .collect()
}

/// Checks one of our messages against its reference line; returns false when it was a
/// decode failure the reference agrees with.
fn check(name: &str, ours: &Ours, reference: &serde_json::Value) {
    let label = format!("{name} {} @{}", ours.topic, ours.time);
    let data = &reference["data"];
    let schema = match &ours.schema {
        Ok(s) => s,
        Err(e) => {
            // The one connection the corpus README says must fail: an empty definition whose
            // md5sum is not that of an empty type (genpy makes an empty class and prints {}).
            assert_eq!(ours.datatype, "led_array_msgs/Status", "{label}: {e}");
            assert!(e.contains("empty"), "{label}: {e}");
            return;
        }
    };
    if let Some(err) = data.get("$error") {
        assert!(
            decode(schema, &ours.payload).is_err(),
            "{label}: reference failed with {err}"
        );
        assert!(validate(schema, &ours.payload).is_err(), "{label}");
        return;
    }
    let decoded = decode(schema, &ours.payload).unwrap_or_else(|e| panic!("{label}: {e}"));
    let value = decoded.to_value();
    assert_eq!(validate(schema, &ours.payload), Ok(()), "{label}");
    msg_support::compare_with_ref(&value, data, "data").unwrap_or_else(|e| panic!("{label}: {e}"));
    let text = json::value_to_string(&decoded.value());
    let parsed: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{label}: {e}: {text}"));
    msg_support::check_json_output(&value, &parsed, "data");
}

fn run(bag_path: &Path, ref_path: &Path, registry: &Registry) -> usize {
    let name = bag_path.file_name().unwrap().to_string_lossy().to_string();
    let r = Reference::load(ref_path);
    if r.is_error() {
        return 0;
    }
    let Ok(bag) = Bag::open(bag_path) else {
        panic!("{name}: cannot open");
    };
    let ours = our_messages(&bag, registry);
    let reindexed = r.header["reindexed"] == true;
    let key = |m: &serde_json::Value| {
        (
            nanos(&m["time"]).unwrap(),
            m["topic"].as_str().unwrap().to_string(),
            usize::try_from(m["size"].as_u64().unwrap()).unwrap(),
        )
    };
    if reindexed {
        // We may recover more than the official reader's reindexed copy: match in order.
        let mut it = ours.iter();
        for m in &r.messages {
            let k = key(m);
            let o = it
                .find(|o| (o.time, o.topic.clone(), o.size) == k)
                .unwrap_or_else(|| panic!("{name}: {k:?} not found"));
            check(&name, o, m);
        }
    } else {
        assert_eq!(ours.len(), r.messages.len(), "{name}: message count");
        for (o, m) in ours.iter().zip(&r.messages) {
            assert_eq!((o.time, o.topic.clone(), o.size), key(m), "{name}");
            check(&name, o, m);
        }
    }
    r.messages.len()
}

#[test]
fn fixture_bags_decode_like_the_official_reader() {
    let registry = Registry::bundled();
    let mut total = 0;
    for (bag, r) in bags_with_refs(&common::fixtures_dir()) {
        total += run(&bag, &r, &registry);
    }
    assert!(total > 100, "{total}");
}

#[test]
fn corpus_bags_decode_like_the_official_reader() {
    let Some(dir) = msg_support::corpus_dir() else {
        return;
    };
    let registry = Registry::bundled();
    let mut total = 0;
    for (bag, r) in bags_with_refs(&dir) {
        eprintln!("checking {}", bag.display());
        total += run(&bag, &r, &registry);
    }
    assert!(total > 10_000, "{total}");
}
