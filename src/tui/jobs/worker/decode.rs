//! Decoding one message for the inspector, on the worker thread: reads it, compiles its
//! connection's schema once, and keeps what the tree and the hex view show.

use crate::catalog::{Catalog, Schemas};
use crate::msg::{Decoded, Registry, Wire};
use crate::time::RosTime;

use crate::catalog::MsgRef;

/// A decoded message (or why it could not be decoded).
#[derive(Debug, Clone)]
pub struct Inspected {
    /// Which message.
    pub msg: MsgRef,
    /// Topic.
    pub topic: String,
    /// Type.
    pub datatype: String,
    /// Receive time.
    pub time: RosTime,
    /// Payload size.
    pub size: usize,
    /// The value, or the error (with field path and offset).
    pub value: Result<Decoded<'static>, String>,
    /// Things to know (md5sum mismatch, definition from the bundled library, ...).
    pub notes: Vec<String>,
    /// The first payload bytes, for a hex view when decoding fails.
    pub head: Vec<u8>,
    /// How the payload is laid out (ROS1 or CDR), which picks the YAML it is copied as.
    pub wire: Wire,
}

/// Decodes messages for the inspector, compiling each connection's schema once.
#[derive(Debug, Default)]
pub struct Decoder {
    schemas: Schemas,
}

impl Decoder {
    /// A decoder using the bundled definitions for bags that carry none.
    pub fn new() -> Self {
        Self::default()
    }

    /// A decoder with a given registry.
    pub fn with_registry(registry: Registry) -> Self {
        Decoder {
            schemas: Schemas::new(registry),
        }
    }

    /// The payload size of `msg` and its one-line preview (when it decodes), for the
    /// message list.
    pub fn size_and_preview(
        &mut self,
        catalog: &Catalog,
        msg: MsgRef,
    ) -> (Option<usize>, Option<String>) {
        let Some(bag) = catalog.bag(msg.bag) else {
            return (None, None);
        };
        let Ok(message) = bag.read(&msg.entry) else {
            return (None, None);
        };
        let size = Some(message.data.len());
        let Some(conn) = bag.connection(msg.entry.conn) else {
            return (size, None);
        };
        let Ok(schema) = &self.schemas.get(msg.bag, conn).schema else {
            return (size, None);
        };
        let preview = crate::msg::decode(schema, &message.data)
            .ok()
            .map(|d| crate::msg::render::preview::preview(d.root()));
        (size, preview)
    }

    /// Reads and decodes `msg`.
    pub fn inspect(&mut self, catalog: &Catalog, msg: MsgRef) -> Inspected {
        let mut out = Inspected {
            msg,
            topic: String::new(),
            datatype: String::new(),
            time: msg.entry.time,
            size: 0,
            value: Err("not read".into()),
            notes: Vec::new(),
            head: Vec::new(),
            wire: Wire::Ros1,
        };
        let Some(bag) = catalog.bag(msg.bag) else {
            out.value = Err("no such bag".into());
            return out;
        };
        let Some(conn) = bag.connection(msg.entry.conn) else {
            out.value = Err("no such connection".into());
            return out;
        };
        out.topic.clone_from(&conn.topic);
        out.datatype.clone_from(&conn.datatype);
        let entry = self.schemas.get(msg.bag, conn);
        out.notes.clone_from(&entry.notes);
        let schema = entry.schema.clone().map_err(|e| e.to_string());
        if let Ok(s) = &schema {
            out.wire = s.wire();
        }
        let message = match bag.read(&msg.entry) {
            Ok(m) => m,
            Err(e) => {
                out.value = Err(e.to_string());
                return out;
            }
        };
        out.size = message.data.len();
        out.head = message
            .data
            .get(..message.data.len().min(4096))
            .unwrap_or_default()
            .to_vec();
        out.value = match schema {
            Ok(s) => crate::msg::decode(&s, &message.data)
                .map(Decoded::into_owned)
                .map_err(|e| e.to_string()),
            Err(e) => Err(e),
        };
        out
    }
}
