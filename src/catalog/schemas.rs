//! Compiled message schemas per connection, compiled once, with notes worth telling the user
//! (md5sum mismatch, definition taken from the bundled library).

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
            "the definition of {} comes from --msg-path (the file carries none)",
            conn.datatype
        ));
    }
    SchemaEntry { schema, notes }
}
