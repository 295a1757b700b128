//! Compiled message schemas per connection, compiled once, with notes worth telling the user
//! (md5sum mismatch, definition taken from the bundled library, a jsonschema not used).

use std::collections::HashMap;
use std::sync::Arc;

use crate::bag::Connection;
use crate::msg::{MsgError, Registry, Schema, SchemaEncoding, Wire};

use super::BagConn;

/// A connection's schema and notes about it.
#[derive(Clone, Debug)]
pub struct SchemaEntry {
    /// The compiled schema, or why there is none.
    pub schema: Result<Arc<Schema>, Arc<MsgError>>,
    /// Things to tell the user once.
    pub notes: Vec<String>,
}

/// Schemas by (bag, connection).
#[derive(Clone, Debug)]
pub struct Schemas {
    registry: Registry,
    cache: HashMap<BagConn, SchemaEntry>,
}

impl Default for Schemas {
    fn default() -> Self {
        Schemas::new(Registry::bundled())
    }
}

impl Schemas {
    /// Schemas resolved with `registry` where bags carry no (or incomplete) definitions.
    pub fn new(registry: Registry) -> Self {
        Schemas {
            registry,
            cache: HashMap::new(),
        }
    }

    /// The definitions used for connections that carry none.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The entry for connection `conn` of bag `bag`, compiled on first use.
    pub fn get(&mut self, bag: usize, conn: &Connection) -> &SchemaEntry {
        let registry = &self.registry;
        self.cache
            .entry(BagConn::new(bag, conn.id))
            .or_insert_with(|| compile(conn, registry))
    }
}

/// Compiles a connection's schema.
pub fn compile(conn: &Connection, registry: &Registry) -> SchemaEntry {
    match conn.wire() {
        Some(Wire::Ros1) => {}
        Some(Wire::Cdr) => return compile_ros2(conn, registry),
        Some(Wire::Json) => return compile_json(conn),
        None => {
            return SchemaEntry {
                schema: Err(Arc::new(MsgError::UnknownEncoding {
                    topic: conn.topic.clone(),
                    encoding: conn.message_encoding.clone(),
                })),
                notes: Vec::new(),
            };
        }
    }
    let mut notes = Vec::new();
    let schema = Schema::for_connection(
        &conn.datatype,
        &conn.message_definition,
        &conn.md5sum,
        registry,
    )
    .map_err(Arc::new);
    if let Ok(s) = &schema {
        if conn.message_definition.trim().is_empty() && s.md5sum() != crate::msg::EMPTY_MD5 {
            notes.push(format!(
                "the definition of {} comes from the bundled library",
                conn.datatype
            ));
        }
        if s.md5sum() != conn.md5sum && conn.md5sum != "*" {
            notes.push(format!(
                "md5sum mismatch on {} ({}): the connection says {}, its definition gives {}",
                conn.topic,
                conn.datatype,
                conn.md5sum,
                s.md5sum()
            ));
        }
    }
    SchemaEntry { schema, notes }
}

/// Compiles a CDR connection's schema from its ROS 2 definition (`ros2msg` or `ros2idl`), or
/// from `--msg-path` when the file carries none.
fn compile_ros2(conn: &Connection, registry: &Registry) -> SchemaEntry {
    let mut notes = Vec::new();
    let encoding = match conn.schema_encoding.as_str() {
        "" => SchemaEncoding::Ros2Msg,
        name => match SchemaEncoding::from_name(name) {
            Some(SchemaEncoding::Ros1Msg) | None => {
                return SchemaEntry {
                    schema: Err(Arc::new(MsgError::UnknownEncoding {
                        topic: conn.topic.clone(),
                        encoding: format!(
                            "{} messages with a {name} schema",
                            conn.message_encoding
                        ),
                    })),
                    notes,
                };
            }
            Some(e) => e,
        },
    };
    let schema = Schema::for_ros2(&conn.datatype, &conn.message_definition, encoding, registry)
        .map_err(Arc::new);
    if schema.is_ok() && conn.message_definition.trim().is_empty() {
        notes.push(format!(
            "the file carries no definition of {}: it comes from --msg-path or the bundled ROS 2 definitions",
            conn.datatype
        ));
    }
    SchemaEntry { schema, notes }
}

/// Compiles a JSON connection's schema from its `jsonschema`; without one (or with one that
/// uses what bagscope does not map, which a note names) the channel is free-form: each
/// message decodes into the type its own JSON has.
fn compile_json(conn: &Connection) -> SchemaEntry {
    let mut notes = Vec::new();
    let schema = match conn.schema_encoding.as_str() {
        "" => Schema::json_free_form(&conn.datatype),
        "jsonschema" => Schema::for_json(&conn.datatype, &conn.message_definition)
            .unwrap_or_else(|e| {
                notes.push(format!(
                    "{}: {e}; its messages are decoded without the schema, each as its own JSON reads",
                    conn.topic
                ));
                Schema::json_free_form(&conn.datatype)
            }),
        other => {
            notes.push(format!(
                "{}: a '{}' schema of json messages is not read; its messages are decoded \
                 without it, each as its own JSON reads",
                conn.topic,
                crate::printable::escape(other)
            ));
            Schema::json_free_form(&conn.datatype)
        }
    };
    SchemaEntry {
        schema: Ok(schema),
        notes,
    }
}
