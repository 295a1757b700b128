//! Parquet output: a directory with one file per topic (or per topic and bag), below Hive-style
//! partition directories when asked (`robot=r1/date=2026-11-24/odom.parquet`). Columns are the
//! message's fields flattened (see [`columns`]), after `log_time` (microsecond timestamp, UTC),
//! `log_time_ns` (exact nanoseconds), `topic` and `bag`; zstd; row groups of at most 128 Ki
//! rows or 64 MiB. Rows are gathered in batches of at most 8 Ki rows or 16 MiB of message
//! bytes before they go to the Parquet writer, which keeps only the row group in progress:
//! memory is bounded per file, and the files' row groups together are kept under 512 MiB by
//! flushing the largest. At most [`OPEN_FILES`] files have a descriptor open; the least
//! recently written are closed and reopened when needed, so thousands of topics ×
//! partitions need no more descriptors.
//!
//! Every file is written beside its target under a temporary name (inside the output
//! directory, links are never followed: see [`OutputDir`]) and renamed when the whole export
//! is complete; an export that fails leaves no file behind.

pub mod columns;
mod file;
pub mod partition;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::bag::ConnId;
use crate::bag::writer::OutputDir;
use crate::catalog::Schemas;

use super::{Finished, MessageSink, SinkError, SinkMessage};
use file::{OpenFile, parquet_error};
use partition::Level;

/// The row groups in progress of all open files together.
const ALL_GROUPS_BYTES: usize = 512 << 20;
/// Files whose descriptors are open at once; the least recently written are closed beyond
/// (and reopened when written again), so that any number of topics × partitions fits
/// within the usual limit of 1 024 descriptors.
pub const OPEN_FILES: usize = 64;

/// Options of a Parquet export.
#[derive(Clone, Debug, Default)]
pub struct ParquetOptions {
    /// Partition directories, outermost first.
    pub partitions: Vec<Level>,
    /// One file per topic and bag (the bag's file stem in the name) instead of per topic.
    pub per_bag: bool,
}

/// A directory of Parquet files being written.
pub struct ParquetSink {
    out: OutputDir,
    options: ParquetOptions,
    schemas: Schemas,
    files: Vec<OpenFile>,
    /// The open file of each (relative path).
    by_path: HashMap<PathBuf, usize>,
    /// The relative path of each (bag, connection, partition directory), once known.
    routes: HashMap<(usize, ConnId, PathBuf), usize>,
    /// Messages left out, by reason (decode errors, a second type on a topic).
    left_out: HashMap<String, u64>,
    /// Counts the writes, to find the least recently written file.
    clock: u64,
}

impl ParquetSink {
    /// Starts an export into `dir` (created if missing); `schemas` decodes the messages.
    pub fn create(
        dir: &Path,
        options: ParquetOptions,
        schemas: Schemas,
    ) -> Result<Self, SinkError> {
        Ok(ParquetSink {
            out: OutputDir::create(dir)?,
            options,
            schemas,
            files: Vec::new(),
            by_path: HashMap::new(),
            routes: HashMap::new(),
            left_out: HashMap::new(),
            clock: 0,
        })
    }

    fn leave_out(&mut self, why: String) {
        *self.left_out.entry(why).or_insert(0) += 1;
    }

    /// The index of the open file for `m`, opened on first use; `Ok(None)` (with the reason
    /// counted) when `m` cannot go there.
    fn file_for(&mut self, m: &SinkMessage<'_>) -> Result<Option<usize>, SinkError> {
        let partition = partition::directory(&self.options.partitions, m);
        let key = (m.bag, m.conn.id, partition);
        if let Some(&i) = self.routes.get(&key) {
            return Ok(Some(i));
        }
        let bag_name = self.options.per_bag.then_some(m.bag_path);
        let relative = key.2.join(partition::file_name(&m.conn.topic, bag_name));
        let index = if let Some(&i) = self.by_path.get(&relative) {
            let f = self.files.get(i);
            if f.is_some_and(|f| f.md5sum != m.conn.md5sum || f.datatype != m.conn.datatype) {
                let first = f.map_or_else(String::new, |f| f.datatype.clone());
                self.leave_out(format!(
                    "{}: type {} ({}) differs from the first type on the topic, {first}; export it on its own (-t) from the bags that hold that type",
                    m.conn.topic, m.conn.datatype, m.conn.md5sum
                ));
                return Ok(None);
            }
            i
        } else {
            let entry = self.schemas.get(m.bag, m.conn);
            let schema = match &entry.schema {
                Ok(s) => Arc::clone(s),
                Err(e) => {
                    let why = format!("{}: {}: {e}", m.bag_path.display(), m.conn.topic);
                    self.leave_out(why);
                    return Ok(None);
                }
            };
            // JSON messages without a jsonschema have the fields of their own JSON, known only
            // message by message: there are no columns to fix.
            if schema.wire() == crate::msg::Wire::Json && schema.root().fields().is_empty() {
                self.leave_out(format!(
                    "{}: {}: json messages decoded without a jsonschema have no columns fixed in advance (export them with --format jsonl)",
                    m.bag_path.display(),
                    m.conn.topic
                ));
                return Ok(None);
            }
            let file = OpenFile::create(&self.out, &relative, m, &schema)?;
            self.files.push(file);
            let i = self.files.len() - 1;
            self.by_path.insert(relative, i);
            self.bound_open(i)?;
            i
        };
        self.routes.insert(key, index);
        Ok(Some(index))
    }

    /// Keeps the row groups in progress of all files under [`ALL_GROUPS_BYTES`].
    fn bound_memory(&mut self) -> Result<(), SinkError> {
        let total: usize = self.files.iter().map(|f| f.writer.in_progress_size()).sum();
        if total <= ALL_GROUPS_BYTES {
            return Ok(());
        }
        let largest = self
            .files
            .iter()
            .enumerate()
            .max_by_key(|(_, f)| f.writer.in_progress_size())
            .map(|(i, _)| i);
        if let Some(i) = largest {
            if let Some(f) = self.files.get_mut(i) {
                f.writer.flush().map_err(|e| parquet_error(&f.path, &e))?;
            }
            self.bound_open(i)?;
        }
        Ok(())
    }

    /// Notes that file `used` was just written to, and closes the least recently written
    /// files beyond [`OPEN_FILES`].
    fn bound_open(&mut self, used: usize) -> Result<(), SinkError> {
        self.clock += 1;
        if let Some(f) = self.files.get_mut(used) {
            f.last_use = self.clock;
        }
        let mut open = self.files.iter().filter(|f| f.is_open()).count();
        while open > OPEN_FILES {
            let oldest = self
                .files
                .iter_mut()
                .filter(|f| f.is_open())
                .min_by_key(|f| f.last_use);
            match oldest {
                Some(f) => f.park()?,
                None => break,
            }
            open -= 1;
        }
        Ok(())
    }
}

impl MessageSink for ParquetSink {
    fn write(&mut self, m: &SinkMessage<'_>) -> Result<(), SinkError> {
        let Some(index) = self.file_for(m)? else {
            return Ok(());
        };
        let entry = self.schemas.get(m.bag, m.conn);
        let Ok(schema) = &entry.schema else {
            return Ok(());
        };
        let schema = Arc::clone(schema);
        let decoded = match crate::msg::decode(&schema, m.data) {
            Ok(d) => d,
            Err(e) => {
                self.leave_out(format!(
                    "{}: {} message at {}: {e}",
                    m.bag_path.display(),
                    m.conn.topic,
                    m.time
                ));
                return Ok(());
            }
        };
        let Some(f) = self.files.get_mut(index) else {
            return Ok(());
        };
        if f.append(m, &decoded.root())? {
            f.flush_batch()?;
            self.bound_open(index)?;
            self.bound_memory()?;
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<Finished, SinkError> {
        let mut lines = Vec::new();
        let mut done = Vec::new();
        for mut f in std::mem::take(&mut self.files) {
            f.flush_batch()?;
            let rows = f.rows;
            let path = f.path.clone();
            let mut file = f
                .writer
                .into_inner()
                .map_err(|e| parquet_error(&path, &e))?;
            // Complete, and closed until its turn to be put in place.
            file.park()?;
            lines.push(format!(
                "wrote {} to {}",
                crate::wording::count(rows, "row"),
                path.display()
            ));
            done.push(file);
        }
        // Every file complete: only now are they put in place.
        for file in done {
            file.commit()?;
        }
        let mut left: Vec<_> = self.left_out.iter().collect();
        left.sort();
        Ok(Finished {
            wrote: lines,
            left_out: left
                .into_iter()
                .map(|(why, n)| format!("left out {}: {why}", crate::wording::count(*n, "message")))
                .collect(),
        })
    }
}
