//! Collects connections while a bag is opened, keyed by their id in the file, and turns them
//! into the dense, file-id-ordered list the rest of the program uses.

use std::collections::HashMap;

use crate::format::ConnectionHeader;

use crate::bag::connection::{ConnId, Connection};
use crate::bag::error::Warning;

/// Connections found so far, keyed by file id.
#[derive(Debug, Default)]
pub(crate) struct ConnTable {
    by_file_id: HashMap<u32, (String, ConnectionHeader)>,
}

impl ConnTable {
    /// Adds a connection; a second definition of the same id is ignored with a warning when
    /// it disagrees.
    pub fn insert(
        &mut self,
        file_id: u32,
        topic: String,
        header: ConnectionHeader,
        offset: u64,
        warnings: &mut Vec<Warning>,
    ) {
        match self.by_file_id.get(&file_id) {
            None => {
                self.by_file_id.insert(file_id, (topic, header));
            }
            Some((t, h)) => {
                if *t != topic || h.datatype != header.datatype || h.md5sum != header.md5sum {
                    warnings.push(Warning::at(
                        offset,
                        format!(
                            "connection {file_id} is defined again with topic '{topic}' and type '{}'; keeping '{t}' ({})",
                            header.datatype, h.datatype
                        ),
                    ));
                }
            }
        }
    }

    /// True when `file_id` is known.
    pub fn contains(&self, file_id: u32) -> bool {
        self.by_file_id.contains_key(&file_id)
    }

    /// Number of connections.
    pub fn len(&self) -> usize {
        self.by_file_id.len()
    }

    /// The map from file id to dense id that [`ConnTable::finish`] would give now.
    pub fn dense_ids(&self) -> HashMap<u32, ConnId> {
        let mut ids: Vec<u32> = self.by_file_id.keys().copied().collect();
        ids.sort_unstable();
        ids.into_iter()
            .enumerate()
            .map(|(i, id)| (id, ConnId::try_from(i).unwrap_or(ConnId::MAX)))
            .collect()
    }

    /// What [`ConnTable::finish`] would give now, as copies (for a snapshot taken while
    /// connections are still being found), for the connections in `map`.
    pub fn cloned(&self, map: &HashMap<u32, ConnId>) -> (Vec<Connection>, HashMap<u32, ConnId>) {
        let mut copy = ConnTable::default();
        for (id, entry) in &self.by_file_id {
            if map.contains_key(id) {
                copy.by_file_id.insert(*id, entry.clone());
            }
        }
        copy.finish()
    }

    /// The dense list sorted by file id, and the map from file id to dense id.
    pub fn finish(self) -> (Vec<Connection>, HashMap<u32, ConnId>) {
        let mut items: Vec<_> = self.by_file_id.into_iter().collect();
        items.sort_by_key(|(id, _)| *id);
        let mut map = HashMap::with_capacity(items.len());
        let conns = items
            .into_iter()
            .enumerate()
            .map(|(i, (file_id, (topic, header)))| {
                let id = ConnId::try_from(i).unwrap_or(ConnId::MAX);
                map.insert(file_id, id);
                Connection {
                    id,
                    file_id,
                    topic,
                    datatype: header.datatype.clone(),
                    md5sum: header.md5sum.clone(),
                    message_definition: header.message_definition.clone(),
                    callerid: header.callerid.clone(),
                    latching: header.latching.clone(),
                    header,
                    message_count: 0,
                    message_encoding: "ros1".into(),
                    schema_encoding: "ros1msg".into(),
                }
            })
            .collect();
        (conns, map)
    }
}
