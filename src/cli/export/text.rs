//! The text formats of `bagscope export` (CSV, JSON lines), formatted on every core.
//!
//! The messages are read in order on the calling thread; batches of them are decoded and
//! formatted on workers ([`crate::cli::ordered`]) and written in input order, so the output is
//! byte-identical to formatting them one by one. The CSV columns come from the first message,
//! which is formatted on the calling thread before the workers start.

use std::collections::HashMap;
use std::io::Write;
use std::sync::Arc;

use crate::bag::Unread;
use crate::catalog::{BagConn, Catalog, CatalogMessage, DecodePlan, Schemas, Selection};
use crate::msg::Registry;
use crate::msg::csv::{CsvLayout, FloatCache};
use crate::msg::json;
use crate::msg::path::ResolvedPath;

use super::args::ExportFormat;
use crate::cli::damage::readable;
use crate::cli::field_paths::write_json_values;
use crate::cli::ordered::{BatchLimit, ordered_map, workers};

/// What a text export needs besides the messages.
pub(super) struct TextExport<'a> {
    /// CSV or JSON lines.
    pub format: ExportFormat,
    /// The bags.
    pub catalog: &'a Catalog,
    /// Definitions for connections without one.
    pub registry: Registry,
    /// Field paths given with `-t /topic/field`, by connection.
    pub paths: &'a HashMap<BagConn, ResolvedPath>,
    /// `--where`: only the messages it keeps are written.
    pub keep: Option<&'a crate::cli::where_args::Where>,
}

/// What an export wrote, and what went wrong on the way.
#[derive(Debug, Default)]
pub(super) struct Written {
    /// Rows (messages) written.
    pub rows: u64,
    /// CSV rows that did not fit the first message's columns.
    pub misfit: u64,
    /// Array elements of those rows left without a column (dropped).
    pub dropped: u64,
    /// Cells of those rows left empty (an array shorter than in the first message).
    pub empty_cells: u64,
    /// Messages with no value at the field path.
    pub no_value: u64,
    /// Messages that could not be decoded, each said on standard error.
    pub undecoded: u64,
    /// Why the export stopped early (no definition for a connection), if it did.
    pub fatal: Option<String>,
}

impl Written {
    /// Counts how a CSV row fitted the columns.
    fn tally(&mut self, fit: crate::msg::csv::RowFit) {
        self.misfit += u64::from(!fit.is_exact());
        self.dropped += fit.dropped_elements as u64;
        self.empty_cells += fit.missing_cells as u64;
    }
}

/// One batch's text and tallies.
#[derive(Default)]
struct Piece {
    text: String,
    written: Written,
    errors: Vec<String>,
}

impl TextExport<'_> {
    /// Formats the selected messages into `out`; `Err` when writing failed. Messages lost to
    /// damage are noted in `unread`.
    pub fn run(
        &self,
        selection: &Selection,
        out: &mut dyn Write,
        unread: &mut Unread,
    ) -> std::io::Result<Written> {
        let mut total = Written::default();
        let mut first = Formatter {
            schemas: Schemas::new(self.registry.clone()),
            layout: None,
            floats: FloatCache::default(),
            last_len: 0,
        };
        let keep = self.keep;
        let mut messages = self.catalog.messages(selection).filter_map(|item| {
            if item.is_err() {
                // Messages of unknown topics lost: no previous message for diff()/rate().
                keep.inspect(|w| w.forget());
            }
            readable(self.catalog, item, unread).map(|(m, _)| m)
        });
        // Until the CSV columns are known, one message at a time on this thread; all of
        // them when `--where` compares messages with their topic's previous one.
        let in_order = keep.is_some_and(crate::cli::where_args::Where::is_stateful);
        while (self.format == ExportFormat::Csv && first.layout.is_none()) || in_order {
            let Some(m) = messages.next() else { break };
            let mut piece = Piece::default();
            self.format_one(&mut first, &m, &mut piece);
            if !Self::take(piece, out, &mut total)? {
                return Ok(total);
            }
        }
        let mut failed = None;
        ordered_map(
            messages,
            workers(),
            BatchLimit::default(),
            |m| m.message.data.len() + 64,
            || Formatter {
                schemas: Schemas::new(self.registry.clone()),
                layout: first.layout.clone(),
                floats: first.floats.clone(),
                last_len: 0,
            },
            |f: &mut Formatter, batch: Vec<CatalogMessage>| {
                // Room for about as much text as the last batch made: no regrowing and copying.
                let mut piece = Piece {
                    text: String::with_capacity(f.last_len + f.last_len / 8),
                    ..Piece::default()
                };
                for m in &batch {
                    self.format_one(f, m, &mut piece);
                    if piece.written.fatal.is_some() {
                        break;
                    }
                }
                f.last_len = piece.text.len();
                piece
            },
            |piece| match Self::take(piece, out, &mut total) {
                Ok(go_on) => go_on,
                Err(e) => {
                    failed = Some(e);
                    false
                }
            },
        );
        match failed {
            Some(e) => Err(e),
            None => Ok(total),
        }
    }

    /// Writes a piece and adds its tallies; `false` when the export must stop.
    fn take(piece: Piece, out: &mut dyn Write, total: &mut Written) -> std::io::Result<bool> {
        out.write_all(piece.text.as_bytes())?;
        for e in piece.errors {
            crate::cli::term::print_error(e);
        }
        let w = piece.written;
        total.rows += w.rows;
        total.misfit += w.misfit;
        total.dropped += w.dropped;
        total.empty_cells += w.empty_cells;
        total.no_value += w.no_value;
        total.undecoded += w.undecoded;
        if let Some(fatal) = w.fatal {
            crate::cli::term::print_error(&fatal);
            total.fatal = Some(fatal);
            return Ok(false);
        }
        Ok(true)
    }

    /// Decodes one message and appends its row to the piece.
    fn format_one(&self, f: &mut Formatter, m: &CatalogMessage, piece: &mut Piece) {
        let Some(bag) = self.catalog.bag(m.bag) else {
            return;
        };
        let Some(conn) = bag.connection(m.message.entry.conn) else {
            return;
        };
        let bag_conn = BagConn::new(m.bag, conn.id);
        // With `--where`, a kept message was decoded to test it: that value is used.
        let kept = match self.keep {
            Some(w) => match w.decode_kept(bag_conn, m.message.entry.time, &m.message.data) {
                Some(value) => Some(value),
                None => return,
            },
            None => None,
        };
        let time = m.message.entry.time;
        let schema;
        let value = if let Some(value) = kept {
            value
        } else {
            schema = match &f.schemas.get(m.bag, conn).schema {
                Ok(s) => DecodePlan::new(Arc::clone(s), None),
                Err(e) => {
                    piece.written.fatal =
                        Some(format!("{}: {}: {e}", bag.path().display(), conn.topic));
                    return;
                }
            };
            match schema.decode(&m.message.data) {
                Ok(v) => v,
                Err(e) => {
                    piece.errors.push(format!(
                        "{}: {} message at {time}: {e}",
                        bag.path().display(),
                        conn.topic
                    ));
                    piece.written.undecoded += 1;
                    return;
                }
            }
        };
        let text = &mut piece.text;
        let w = &mut piece.written;
        match self.paths.get(&bag_conn) {
            Some(path) => {
                let values = path.collect(value.root());
                let Some(first) = values.first() else {
                    w.no_value += 1;
                    return;
                };
                if self.format == ExportFormat::Jsonl {
                    write_json_values(text, conn, time, path, &values);
                } else {
                    let l = layout_for(&mut f.layout, text, || CsvLayout::for_value(first));
                    if let Ok(fit) = l.write_value_row(text, time, first, &mut f.floats) {
                        w.tally(fit);
                    }
                }
            }
            None if self.format == ExportFormat::Jsonl => {
                let _ = json::write_message(text, &conn.topic, &conn.datatype, time, &value);
            }
            None => {
                let l = layout_for(&mut f.layout, text, || CsvLayout::new(&value));
                if let Ok(fit) = l.write_row(text, time, &value, &mut f.floats) {
                    w.tally(fit);
                }
            }
        }
        text.push('\n');
        w.rows += 1;
    }
}

/// What one formatting thread keeps from message to message.
struct Formatter {
    /// The decoding schemas, per bag and connection.
    schemas: Schemas,
    /// The CSV columns, once known (from the first message; shared by every thread).
    layout: Option<CsvLayout>,
    /// Each CSV column's last float and its text.
    floats: FloatCache,
    /// The length of the text of the last batch formatted.
    last_len: usize,
}

/// The CSV layout, made from this message (and its header line written) when it is the first.
fn layout_for<'l>(
    layout: &'l mut Option<CsvLayout>,
    text: &mut String,
    make: impl FnOnce() -> CsvLayout,
) -> &'l CsvLayout {
    layout.get_or_insert_with(|| {
        let l = make();
        text.push_str(&l.header());
        text.push('\n');
        l
    })
}
