//! One Parquet file being written: its Arrow schema, the builders of the batch being
//! gathered, and the writer (over an [`AtomicFile`] that can be parked, its descriptor
//! closed, while other files are written).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::builder::{
    ArrayBuilder, Int64Builder, StringBuilder, TimestampMicrosecondBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema as ArrowSchema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

use crate::bag::writer::{AtomicFile, OutputDir};

use super::super::{SinkError, SinkMessage};
use super::columns::{self, Column, append_message, micros};

/// Rows per batch handed to the writer.
pub(super) const BATCH_ROWS: usize = 8 * 1024;
/// Message bytes per batch.
pub(super) const BATCH_BYTES: usize = 16 << 20;
/// Rows per row group.
const GROUP_ROWS: usize = 128 * 1024;
/// Bytes per row group (estimated, encoded).
const GROUP_BYTES: usize = 64 << 20;

/// One output file being written.
pub(super) struct OpenFile {
    pub path: PathBuf,
    pub writer: ArrowWriter<AtomicFile>,
    schema: SchemaRef,
    /// The type the file's columns come from, and its md5sum.
    pub datatype: String,
    pub md5sum: String,
    columns: Vec<Column>,
    log_time: TimestampMicrosecondBuilder,
    log_time_ns: Int64Builder,
    topic: StringBuilder,
    bag: StringBuilder,
    builders: Vec<Box<dyn ArrayBuilder>>,
    batch_rows: usize,
    batch_bytes: usize,
    pub rows: u64,
    /// When the file was last written to (for closing the least recently used).
    pub last_use: u64,
}

pub(super) fn parquet_error(path: &Path, e: &dyn std::fmt::Display) -> SinkError {
    SinkError::Parquet {
        path: path.to_path_buf(),
        what: e.to_string(),
    }
}

impl OpenFile {
    /// Starts the file `relative` below `out` for the messages of `m`'s type.
    pub fn create(
        out: &OutputDir,
        relative: &Path,
        m: &SinkMessage<'_>,
        schema: &crate::msg::Schema,
    ) -> Result<Self, SinkError> {
        let path = out.path().join(relative);
        let columns = columns::columns(schema.root());
        let mut fields = vec![
            Field::new("log_time", columns::time_type(), false),
            Field::new("log_time_ns", DataType::Int64, false),
            Field::new("topic", DataType::Utf8, false),
            Field::new("bag", DataType::Utf8, false),
        ];
        fields.extend(
            columns
                .iter()
                .map(|c| Field::new(c.name.clone(), c.data_type.clone(), true)),
        );
        let arrow_schema = Arc::new(ArrowSchema::new(fields));
        let zstd = ZstdLevel::try_new(3).map_err(|e| parquet_error(&path, &e))?;
        let props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(zstd))
            .set_max_row_group_row_count(Some(GROUP_ROWS))
            .set_max_row_group_bytes(Some(GROUP_BYTES))
            .set_created_by(concat!("bagscope ", env!("CARGO_PKG_VERSION")).to_string())
            .build();
        let file = out.create_file(relative)?;
        let writer = ArrowWriter::try_new(file, Arc::clone(&arrow_schema), Some(props))
            .map_err(|e| parquet_error(&path, &e))?;
        let builders = columns::builders(&columns, BATCH_ROWS.min(1024));
        Ok(OpenFile {
            path,
            writer,
            schema: arrow_schema,
            datatype: m.conn.datatype.clone(),
            md5sum: m.conn.md5sum.clone(),
            columns,
            log_time: TimestampMicrosecondBuilder::new().with_timezone("UTC"),
            log_time_ns: Int64Builder::new(),
            topic: StringBuilder::new(),
            bag: StringBuilder::new(),
            builders,
            batch_rows: 0,
            batch_bytes: 0,
            rows: 0,
            last_use: 0,
        })
    }

    /// Adds the row of `m`, whose decoded value is `root`; `true` when the batch is full
    /// (see [`OpenFile::flush_batch`]).
    pub fn append(
        &mut self,
        m: &SinkMessage<'_>,
        root: &crate::msg::MessageRef<'_>,
    ) -> Result<bool, SinkError> {
        let mut at = 0;
        append_message(root, &self.columns, &mut self.builders, &mut at).map_err(|misfit| {
            SinkError::Parquet {
                path: self.path.clone(),
                what: format!("{} message at {}: {}", m.conn.topic, m.time, misfit.0),
            }
        })?;
        self.log_time.append_value(micros(m.time));
        self.log_time_ns
            .append_value(i64::try_from(m.time.as_nanos()).unwrap_or(i64::MAX));
        self.topic.append_value(&m.conn.topic);
        self.bag.append_value(m.bag_path.to_string_lossy());
        self.batch_rows += 1;
        self.batch_bytes = self.batch_bytes.saturating_add(m.data.len());
        self.rows += 1;
        Ok(self.batch_rows >= BATCH_ROWS || self.batch_bytes >= BATCH_BYTES)
    }

    /// Hands the gathered rows to the writer as one batch.
    pub fn flush_batch(&mut self) -> Result<(), SinkError> {
        if self.batch_rows == 0 {
            return Ok(());
        }
        let mut arrays: Vec<ArrayRef> = vec![
            Arc::new(self.log_time.finish()),
            Arc::new(self.log_time_ns.finish()),
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

    /// True while the file's descriptor is open.
    pub fn is_open(&self) -> bool {
        !self.writer.inner().is_parked()
    }

    /// Flushes what the writer holds for the file and closes its descriptor (the row group
    /// in progress stays in memory); the next write reopens it.
    pub fn park(&mut self) -> Result<(), SinkError> {
        self.writer
            .sync()
            .map_err(|e| parquet_error(&self.path, &e))?;
        self.writer.inner_mut().park()?;
        Ok(())
    }
}
