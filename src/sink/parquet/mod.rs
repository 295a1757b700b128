//! Parquet output: a directory with one file per topic (or per topic and bag), below Hive-style
//! partition directories when asked (`robot=r1/date=2026-11-24/odom.parquet`). Columns are the
//! message's fields flattened (see [`columns`]), after `log_time`, `topic` and `bag`; zstd;
//! row groups of at most 128 Ki rows or 64 MiB. Rows are gathered in batches of at most
//! 8 Ki rows or 16 MiB of message bytes before they go to the Parquet writer, which keeps
//! only the row group in progress: memory is bounded per open file, and the open files'
//! row groups together are kept under 512 MiB by flushing the largest.
//!
//! Every file is written beside its target under a temporary name and renamed when the
//! whole export is complete; an export that fails leaves no file behind.

pub mod columns;
pub mod partition;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::builder::{ArrayBuilder, StringBuilder, TimestampNanosecondBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema as ArrowSchema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

use crate::bag::ConnId;
use crate::bag::writer::AtomicFile;
use crate::catalog::Schemas;

use super::{Finished, MessageSink, SinkError, SinkMessage};
use columns::{Column, append_message};
use partition::Level;

/// Rows per batch handed to the writer.
const BATCH_ROWS: usize = 8 * 1024;
/// Message bytes per batch.
const BATCH_BYTES: usize = 16 << 20;
/// Rows per row group.
const GROUP_ROWS: usize = 128 * 1024;
/// Bytes per row group (estimated, encoded).
const GROUP_BYTES: usize = 64 << 20;
/// The row groups in progress of all open files together.
const ALL_GROUPS_BYTES: usize = 512 << 20;

/// Options of a Parquet export.
#[derive(Clone, Debug, Default)]
pub struct ParquetOptions {
    /// Partition directories, outermost first.
    pub partitions: Vec<Level>,
    /// One file per topic and bag (the bag's file stem in the name) instead of per topic.
    pub per_bag: bool,
}

/// One output file being written.
struct OpenFile {
    path: PathBuf,
    writer: ArrowWriter<AtomicFile>,
    schema: SchemaRef,
    /// The type the file's columns come from, and its md5sum.
    datatype: String,
    md5sum: String,
    columns: Vec<Column>,
    log_time: TimestampNanosecondBuilder,
    topic: StringBuilder,
    bag: StringBuilder,
    builders: Vec<Box<dyn ArrayBuilder>>,
    batch_rows: usize,
    batch_bytes: usize,
    rows: u64,
}

/// A directory of Parquet files being written.
pub struct ParquetSink {
    dir: PathBuf,
    options: ParquetOptions,
    schemas: Schemas,
    files: Vec<OpenFile>,
    /// The open file of each (relative path).
    by_path: HashMap<PathBuf, usize>,
    /// The relative path of each (bag, connection, partition directory), once known.
    routes: HashMap<(usize, ConnId, PathBuf), usize>,
    /// Messages left out, by reason (decode errors, a second type on a topic).
    left_out: HashMap<String, u64>,
}

impl ParquetSink {
    /// Starts an export into `dir` (created if missing); `schemas` decodes the messages.
    pub fn create(
        dir: &Path,
        options: ParquetOptions,
        schemas: Schemas,
    ) -> Result<Self, SinkError> {
        std::fs::create_dir_all(dir).map_err(|e| SinkError::Parquet {
            path: dir.to_path_buf(),
            what: format!("cannot create the directory: {e}"),
        })?;
        Ok(ParquetSink {
            dir: dir.to_path_buf(),
            options,
            schemas,
            files: Vec::new(),
            by_path: HashMap::new(),
            routes: HashMap::new(),
            left_out: HashMap::new(),
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
            let file = OpenFile::create(&self.dir.join(&relative), m, &schema)?;
            self.files.push(file);
            let i = self.files.len() - 1;
            self.by_path.insert(relative, i);
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
        if let Some(f) = self
            .files
            .iter_mut()
            .max_by_key(|f| f.writer.in_progress_size())
        {
            let path = f.path.clone();
            f.writer.flush().map_err(|e| parquet_error(&path, &e))?;
        }
        Ok(())
    }
}

fn parquet_error(path: &Path, e: &dyn std::fmt::Display) -> SinkError {
    SinkError::Parquet {
        path: path.to_path_buf(),
        what: e.to_string(),
    }
}

impl OpenFile {
    fn create(
        path: &Path,
        m: &SinkMessage<'_>,
        schema: &crate::msg::Schema,
    ) -> Result<Self, SinkError> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| SinkError::Parquet {
                path: parent.to_path_buf(),
                what: format!("cannot create the directory: {e}"),
            })?;
        }
        let columns = columns::columns(schema.root());
        let mut fields = vec![
            Field::new("log_time", columns::time_type(), false),
            Field::new("topic", DataType::Utf8, false),
            Field::new("bag", DataType::Utf8, false),
        ];
        fields.extend(
            columns
                .iter()
                .map(|c| Field::new(c.name.clone(), c.data_type.clone(), true)),
        );
        let arrow_schema = Arc::new(ArrowSchema::new(fields));
        let zstd = ZstdLevel::try_new(3).map_err(|e| parquet_error(path, &e))?;
        let props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(zstd))
            .set_max_row_group_row_count(Some(GROUP_ROWS))
            .set_max_row_group_bytes(Some(GROUP_BYTES))
            .set_created_by(concat!("bagscope ", env!("CARGO_PKG_VERSION")).to_string())
            .build();
        let file = AtomicFile::create(path)?;
        let writer = ArrowWriter::try_new(file, Arc::clone(&arrow_schema), Some(props))
            .map_err(|e| parquet_error(path, &e))?;
        let builders = columns::builders(&columns, BATCH_ROWS.min(1024));
        Ok(OpenFile {
            path: path.to_path_buf(),
            writer,
            schema: arrow_schema,
            datatype: m.conn.datatype.clone(),
            md5sum: m.conn.md5sum.clone(),
            columns,
            log_time: TimestampNanosecondBuilder::new(),
            topic: StringBuilder::new(),
            bag: StringBuilder::new(),
            builders,
            batch_rows: 0,
            batch_bytes: 0,
            rows: 0,
        })
    }

    /// Hands the gathered rows to the writer as one batch.
    fn flush_batch(&mut self) -> Result<(), SinkError> {
        if self.batch_rows == 0 {
            return Ok(());
        }
        let mut arrays: Vec<ArrayRef> = vec![
            Arc::new(self.log_time.finish()),
            Arc::new(self.topic.finish()),
            Arc::new(self.bag.finish()),
        ];
        arrays.extend(self.builders.iter_mut().map(ArrayBuilder::finish));
        let batch = RecordBatch::try_new(Arc::clone(&self.schema), arrays)
            .map_err(|e| parquet_error(&self.path, &e))?;
        self.writer
            .write(&batch)
            .map_err(|e| parquet_error(&self.path, &e))?;
        self.batch_rows = 0;
        self.batch_bytes = 0;
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
        let mut at = 0;
        append_message(&decoded.root(), &f.columns, &mut f.builders, &mut at).map_err(
            |misfit| SinkError::Parquet {
                path: f.path.clone(),
                what: format!("{} message at {}: {}", m.conn.topic, m.time, misfit.0),
            },
        )?;
        f.log_time
            .append_option(i64::try_from(m.time.as_nanos()).ok());
        f.topic.append_value(&m.conn.topic);
        f.bag.append_value(m.bag_path.to_string_lossy());
        f.batch_rows += 1;
        f.batch_bytes = f.batch_bytes.saturating_add(m.data.len());
        f.rows += 1;
        if f.batch_rows >= BATCH_ROWS || f.batch_bytes >= BATCH_BYTES {
            f.flush_batch()?;
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
            let file = f
                .writer
                .into_inner()
                .map_err(|e| parquet_error(&path, &e))?;
            lines.push(format!("wrote {rows} rows to {}", path.display()));
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
                .map(|(why, n)| format!("left out {n} messages: {why}"))
                .collect(),
        })
    }
}
