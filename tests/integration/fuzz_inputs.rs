//! Inputs kept from fuzzing (`tests/fixtures/fuzz/`: small inputs that reached new code paths,
//! and any input that ever crashed) are replayed through what the fuzz targets do: open,
//! summarise, iterate every message, random access. None may panic or hang. The same for the
//! inputs kept from the `ros_peer` (XML-RPC, TCPROS headers, service requests),
//! `rockin_yaml` and `decode_message` targets.

use bagscope::bag::{Bag, OpenOptions, Query};
use bagscope::msg::Registry;
use bagscope::play::bagserver::{PlayIntervalRequest, PlayIntervalResponse};
use bagscope::rockin::{Limits, MessageReader};
use bagscope::ros::xmlrpc::{parse_call, parse_response};
use bagscope::ros::{Header, read_frame};

use crate::common;

/// The kept inputs of one target: `tests/fixtures/<dir>/*`.
fn kept(dir: &str) -> Vec<Vec<u8>> {
    let dir = common::fixtures_dir().join(dir);
    let mut v: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| std::fs::read(e.path()).unwrap())
        .collect();
    v.sort();
    assert!(!v.is_empty(), "{} is empty", dir.display());
    v
}

#[test]
fn kept_ros_peer_inputs_are_handled() {
    for data in kept("fuzz-ros") {
        let _ = parse_call(&data);
        let _ = parse_response(&data);
        let _ = Header::decode(&data);
        let _ = Header::read_from(&mut &data[..], 1 << 16);
        let _ = read_frame(&mut &data[..], 1 << 16);
        let _ = PlayIntervalRequest::decode(&data);
        let _ = PlayIntervalResponse::decode(&data);
    }
}

#[test]
fn kept_rockin_inputs_are_handled() {
    let registry = Registry::bundled();
    let limits = Limits {
        max_line: 1 << 16,
        max_scalar: 1 << 16,
        max_depth: 64,
    };
    for data in kept("fuzz-rockin") {
        let mut reader = MessageReader::new(&data[..], &registry, limits);
        for _ in 0..10_000 {
            match reader.next_message() {
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => break,
            }
        }
    }
}

#[test]
fn kept_fuzz_inputs_are_handled() {
    let dir = common::fixtures_dir().join("fuzz");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        common::skip("tests/fixtures/fuzz is not present");
        return;
    };
    let mut n = 0;
    for e in rd.flatten() {
        let bytes = std::fs::read(e.path()).unwrap();
        // Chunk record headers read while opening, and after (lazily).
        for lazy_heads_from in [usize::MAX, 0] {
            let options = OpenOptions {
                max_chunk_size: 8 << 20,
                cache_bytes: 8 << 20,
                threads: 1,
                decode_budget: 16 << 20,
                progress: None,
                partial: None,
                lazy_heads_from,
                ros2_cache: None,
            };
            if let Ok(bag) = Bag::from_bytes(e.path(), bytes.clone(), options) {
                let _ = bag.chunks().first().map(|c| bag.head(c.index));
                let _ = (bag.topics(), bag.compression_stats(), bag.warnings());
                let _ = bag.messages(&Query::all()).take(20_000).count();
                for c in 0..bag.chunks().len().min(64) {
                    for entry in bag.chunk_entries(c as u32).iter().rev().take(16) {
                        let _ = bag.read(entry);
                    }
                }
            }
        }
        n += 1;
    }
    assert!(n > 0);
}

/// The `decode_message` target's inputs: first byte < 0x80 picks a bundled type (the rest is
/// the payload), otherwise the rest is `definition NUL payload`. What decodes must validate,
/// encode to bytes that decode to the same value, and render; what does not must not validate.
#[test]
fn kept_decode_inputs_are_handled() {
    use bagscope::msg::{DecodeErrorKind, Schema, csv, decode, encode, json, validate, yaml};
    let registry = Registry::bundled();
    let types = [
        "sensor_msgs/Imu",
        "tf2_msgs/TFMessage",
        "sensor_msgs/PointCloud2",
        "sensor_msgs/JointState",
        "visualization_msgs/MarkerArray",
        "diagnostic_msgs/DiagnosticArray",
        "sensor_msgs/LaserScan",
        "std_msgs/Empty",
    ];
    let bundled: Vec<_> = types
        .iter()
        .map(|t| Schema::from_registry(t, None, &registry).unwrap())
        .collect();
    let mut decoded_some = 0;
    for data in kept("fuzz-decode") {
        let Some((&pick, rest)) = data.split_first() else {
            continue;
        };
        let (schema, payload) = if pick < 0x80 {
            (bundled[usize::from(pick) % bundled.len()].clone(), rest)
        } else {
            let Some(nul) = rest.iter().position(|&b| b == 0) else {
                continue;
            };
            let Ok(text) = std::str::from_utf8(&rest[..nul]) else {
                continue;
            };
            let Ok(schema) = Schema::from_definition("fuzz/T", text) else {
                continue;
            };
            (schema, &rest[nul + 1..])
        };
        let decoded = match decode(&schema, payload) {
            Ok(decoded) => decoded,
            Err(e) if matches!(e.kind(), DecodeErrorKind::TooManyValues { .. }) => {
                assert_eq!(validate(&schema, payload), Ok(()));
                continue;
            }
            Err(_) => {
                assert!(validate(&schema, payload).is_err());
                continue;
            }
        };
        assert_eq!(validate(&schema, payload), Ok(()));
        let value = decoded.to_value();
        let again = encode(&schema, &value).unwrap();
        assert_eq!(again.len(), payload.len());
        assert!(
            decode(&schema, &again)
                .unwrap()
                .to_value()
                .bitwise_eq(&value)
        );
        let mut text = String::new();
        json::write_value(&mut text, &decoded.value()).unwrap();
        yaml::write_message(&mut text, &decoded).unwrap();
        let _ = csv::CsvLayout::new(&decoded).row(bagscope::time::RosTime::new(0, 0), &decoded);
        assert!(decoded.clone().into_owned().to_value().bitwise_eq(&value));
        decoded_some += 1;
    }
    assert!(decoded_some > 0);
}
