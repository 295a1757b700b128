//! Decoding and rendering real payloads (`tests/fixtures/msg/samples.jsonl`, taken from the
//! shared corpus by `make_samples.py`) against what the official ROS tools made of the same
//! bytes: genpy's values (the reference dump's JSON), `rostopic echo` YAML and `rostopic echo
//! -p` CSV.

use bagscope::msg::{Decoded, MsgError, Registry, Schema, Value, decode, encode, json};

use crate::common::msg_support;
use crate::common::msg_support::{Sample, compare_with_ref, samples};

fn schema_for(sample: &Sample, registry: &Registry) -> Option<std::sync::Arc<Schema>> {
    match Schema::for_connection(
        &sample.datatype,
        &sample.definition,
        &sample.md5sum,
        registry,
    ) {
        Ok(schema) => Some(schema),
        // webviz-bag-with-empty-message-definition.bag: empty definition, md5sum of a real
        // type that is nowhere to be found. genpy decodes the 0-byte payloads as `{}`; we
        // refuse the connection with a clear message (corpus README: "decode must fail").
        Err(MsgError::EmptyDefinition { datatype }) if datatype == "led_array_msgs/Status" => None,
        Err(e) => panic!("{}: {e}", sample.label()),
    }
}

#[test]
fn decoded_values_match_genpy() {
    let registry = Registry::bundled();
    let mut checked = 0;
    for sample in samples() {
        let Some(schema) = schema_for(&sample, &registry) else {
            continue;
        };
        assert_eq!(schema.md5sum(), sample.md5sum, "{}", sample.label());
        if let Some(err) = sample.row.get("error") {
            assert!(
                decode(&schema, &sample.payload).is_err(),
                "{}: {err}",
                sample.label()
            );
            continue;
        }
        let value =
            decode(&schema, &sample.payload).unwrap_or_else(|e| panic!("{}: {e}", sample.label()));
        compare_with_ref(&value.to_value(), &sample.row["json"], "data")
            .unwrap_or_else(|e| panic!("{}: {e}", sample.label()));
        assert_eq!(
            encode(&schema, &value.to_value()).unwrap(),
            sample.payload,
            "{}",
            sample.label()
        );
        checked += 1;
    }
    assert!(checked > 200, "{checked}");
}

/// Calls `f` with every sample that decodes with its schema, and its decoded message.
fn for_each_decoded(mut f: impl FnMut(&Sample, &Decoded<'_>)) {
    let registry = Registry::bundled();
    for sample in samples() {
        let Some(schema) = schema_for(&sample, &registry) else {
            continue;
        };
        if let Ok(value) = decode(&schema, &sample.payload) {
            f(&sample, &value);
        }
    }
}

#[test]
fn json_output_reads_back_as_the_reference() {
    for_each_decoded(|sample, value| {
        let time = bagscope::time::RosTime::new(sample.time.0, sample.time.1);
        let line = json::message_to_string(&sample.topic, &sample.datatype, time, value);
        let parsed: serde_json::Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("{}: {e}\n{line}", sample.label()));
        assert_eq!(parsed["topic"], sample.topic.as_str());
        assert_eq!(parsed["type"], sample.datatype.as_str());
        assert_eq!(parsed["time"]["sec"], sample.time.0);
        assert_eq!(parsed["time"]["nsec"], sample.time.1);
        msg_support::check_json_output(&value.to_value(), &parsed["data"], "data");
        // Keys in definition order (serde_json sorts them, so look at the text).
        let mut pos = 0;
        for (name, _) in value.root().iter() {
            let key = format!("\"{name}\":");
            let at = line[pos..]
                .find(&key)
                .unwrap_or_else(|| panic!("{name} in order"));
            pos += at + key.len();
        }
    });
}

/// True when a time or duration somewhere in `value` has `nsec` outside `[0, 1e9)`: genpy
/// normalises those before printing, we print the raw fields (documented difference).
fn has_unnormalised_time(value: &Value<'_>) -> bool {
    match value {
        Value::Time(t) => t.nsec >= 1_000_000_000,
        Value::Duration(d) => !(0..1_000_000_000).contains(&d.nsec),
        Value::Array(items) => items.iter().any(has_unnormalised_time),
        Value::PrimArray(items) => items.iter().any(|v| has_unnormalised_time(&v)),
        Value::Message(m) => m.values().iter().any(has_unnormalised_time),
        _ => false,
    }
}

#[test]
fn yaml_matches_rostopic_echo() {
    let mut checked = 0;
    for_each_decoded(|sample, value| {
        if has_unnormalised_time(&value.to_value()) {
            return;
        }
        let ours = bagscope::msg::yaml::message_to_string(value);
        assert_eq!(
            ours,
            sample.row["yaml"].as_str().unwrap(),
            "{}",
            sample.label()
        );
        checked += 1;
    });
    assert!(checked > 200, "{checked}");
}

#[test]
fn csv_matches_rostopic_echo_p() {
    use bagscope::msg::csv::CsvLayout;
    let mut checked = 0;
    for_each_decoded(|sample, value| {
        let layout = CsvLayout::new(value);
        assert_eq!(
            layout.header(),
            sample.row["csv_header"].as_str().unwrap(),
            "{}",
            sample.label()
        );
        // rostopic writes cells unquoted: compare our cells joined the same way.
        let time = bagscope::time::RosTime::new(sample.time.0, sample.time.1);
        let (cells, fit) = layout.cells(value);
        assert!(fit.is_exact());
        let raw = format!("{},{}", time.as_nanos(), cells.join(","));
        assert_eq!(
            raw,
            sample.row["csv_row"].as_str().unwrap(),
            "{}",
            sample.label()
        );
        let (row, _) = layout.row(time, value);
        if !cells.iter().any(|c| c.contains([',', '"', '\n', '\r'])) {
            assert_eq!(row, raw);
        }
        checked += 1;
    });
    assert!(checked > 200, "{checked}");
}
