//! Field paths on the command line: `-t /odom/pose/pose/position/x` names a topic and a field
//! in one, as `rostopic echo -b BAG /topic/field` takes them; split against the bags' topics
//! (the longest topic wins) and resolved once per connection.

use std::collections::HashMap;

use crate::bag::Connection;
use crate::catalog::{BagConn, Catalog, Schemas, topic_matches};
use crate::msg::ValueRef;
use crate::msg::path::{ParsedPath, ResolvedPath, split_topic};
use crate::time::RosTime;

/// The topics to select and the field path asked of each topic that has one.
#[derive(Debug, Default)]
pub struct FieldTopics {
    /// The `-t` values with any field path removed (plain topics).
    pub topics: Vec<String>,
    /// Field path per topic (as the bags spell the topic).
    pub paths: HashMap<String, ParsedPath>,
}

/// Splits each of `given` (`-t` values) into a topic of `catalog` and a field path. A value
/// that is a topic, or that matches no topic, is kept as it is (an unknown topic is reported
/// by the selection). `Err` with the message for a path that does not parse or a topic given
/// twice with different fields.
pub fn split_topics(given: &[String], catalog: &Catalog) -> Result<FieldTopics, String> {
    let known: Vec<String> = catalog.topics().into_iter().map(|t| t.topic).collect();
    let refs: Vec<&str> = known.iter().map(String::as_str).collect();
    let mut out = FieldTopics::default();
    for spec in given {
        if known.iter().any(|k| topic_matches(spec, k)) {
            out.topics.push(spec.clone());
            continue;
        }
        let Some((topic, field)) = split_topic(spec, &refs).filter(|(_, f)| !f.is_empty()) else {
            out.topics.push(spec.clone());
            continue;
        };
        let path = ParsedPath::parse(field).map_err(|e| format!("-t '{spec}': {e}"))?;
        if let Some(other) = out.paths.get(topic) {
            if other.text() != path.text() {
                return Err(format!(
                    "-t '{spec}': topic {topic} is already given with field '{}' (one field per topic)",
                    other.text()
                ));
            }
        }
        out.paths.insert(topic.to_string(), path);
        out.topics.push(topic.to_string());
    }
    Ok(out)
}

/// Resolves each topic's path in `fields` against every connection of that topic in every bag (types may
/// differ between connections). A connection whose schema does not compile is left out (its
/// messages are reported when they fail to decode). `Err` with the message naming the bag,
/// topic and type when a path does not fit a connection's type.
pub fn resolve(
    fields: &FieldTopics,
    catalog: &Catalog,
    schemas: &mut Schemas,
) -> Result<HashMap<BagConn, ResolvedPath>, String> {
    let paths = &fields.paths;
    let mut out = HashMap::new();
    if paths.is_empty() {
        return Ok(out);
    }
    for (bag_index, bag) in catalog.bags().iter().enumerate() {
        for conn in bag.connections() {
            let Some(path) = paths.get(&conn.topic) else {
                continue;
            };
            let Ok(schema) = &schemas.get(bag_index, conn).schema else {
                continue;
            };
            let resolved = path.resolve(schema.root()).map_err(|e| {
                format!(
                    "{}: topic {} ({}): field '{}': {e}",
                    bag.path().display(),
                    conn.topic,
                    conn.datatype,
                    path.text()
                )
            })?;
            out.insert(BagConn::new(bag_index, conn.id), resolved);
        }
    }
    Ok(out)
}

/// Writes, as one JSON object (docs/JSON.md), the values `path` names in a message of `conn`
/// received at `time` (`echo` and `export` print the same line).
pub fn write_json_values(
    text: &mut String,
    conn: &Connection,
    time: RosTime,
    path: &ResolvedPath,
    values: &[ValueRef<'_>],
) {
    let _ = crate::msg::json::write_field(
        text,
        &conn.topic,
        &conn.datatype,
        time,
        path.text(),
        values,
        path.has_wildcard(),
    );
}
