//! Writing messages of a catalog (several bags) into one new bag: one output connection per
//! input connection, headers kept byte for byte.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::bag::Message;
use crate::bag::writer::{BagWriter, WriteError, WriteSummary, WriterOptions, ensure_distinct};

use super::Catalog;

/// What an export wrote, and the messages it could not read.
#[derive(Debug)]
pub struct Exported {
    /// The written bag.
    pub summary: WriteSummary,
    /// Messages that could not be read (why).
    pub skipped: Vec<String>,
}

/// Writes `messages` (bag index in `catalog`, message) to a new bag at `path`, refusing to
/// overwrite any of the catalog's bags or `also_inputs`.
pub fn write_bag(
    catalog: &Catalog,
    messages: impl Iterator<Item = Result<(usize, Message), String>>,
    path: &Path,
    options: WriterOptions,
    also_inputs: &[PathBuf],
) -> Result<Exported, WriteError> {
    let mut inputs: Vec<PathBuf> = catalog
        .bags()
        .iter()
        .map(|b| b.path().to_path_buf())
        .collect();
    inputs.extend(also_inputs.iter().cloned());
    ensure_distinct(path, &inputs)?;
    let mut writer = BagWriter::create(path, options)?;
    let mut ids: HashMap<(usize, u32), u32> = HashMap::new();
    let mut skipped = Vec::new();
    for item in messages {
        let (bag, message) = match item {
            Ok(x) => x,
            Err(e) => {
                skipped.push(e);
                continue;
            }
        };
        let Some(conn) = catalog
            .bag(bag)
            .and_then(|b| b.connection(message.entry.conn))
        else {
            skipped.push(format!("bag {bag}: unknown connection"));
            continue;
        };
        let id = if let Some(id) = ids.get(&(bag, conn.id)) {
            *id
        } else {
            let id = writer.add_connection(&conn.topic, &conn.header)?;
            ids.insert((bag, conn.id), id);
            id
        };
        writer.write(id, message.entry.time, &message.data)?;
    }
    Ok(Exported {
        summary: writer.finish()?,
        skipped,
    })
}
