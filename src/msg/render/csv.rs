//! Messages as CSV rows with the columns of `rostopic echo -p`, so spreadsheets and scripts
//! written for it keep working: `%time` (the receive time in integer nanoseconds), then one
//! column per leaf value named like `field.header.seq`, `field.pose.position.x`, array
//! elements numbered without a separator (`field.position_covariance0`,
//! `field.poses3.position.x`). Values are printed as rostopic prints them: booleans `1`/`0`,
//! floats as Python's `repr` (float32 widened to double), times and durations as total
//! nanoseconds, strings as their text.
//!
//! As in rostopic, the columns come from the **first** message: an array that is empty in it
//! has no columns, and `uint8[]`/`char[]` arrays (blobs such as image data) have none at all
//! (Python 3 rostopic leaves them out). When a later message's variable-length array is
//! longer, the extra elements are dropped; when it is shorter, the missing cells are left
//! empty, so every row has exactly the header's columns. [`RowFit`] reports both so the
//! caller can warn. Deliberate difference: a cell that holds `,`, `"` or a line break is
//! quoted as RFC 4180 says (rostopic writes it raw, which breaks the row).

use std::fmt::{self, Write};

use super::{pyrepr, write_bool_or_integer};
use crate::msg::{Decoded, ValueRef};
use crate::time::RosTime;

/// The columns of a topic's CSV export, fixed by its first message.
#[derive(Debug, Clone)]
pub struct CsvLayout {
    columns: Vec<String>,
    root: Option<Node>,
}

#[derive(Debug, Clone)]
enum Node {
    /// One column.
    Leaf,
    /// A message: the field indices that have columns, their names and their layout.
    Message(Vec<(usize, String, Node)>),
    /// An array: the layout of each element present in the first message (`None` for an
    /// element without columns).
    Array(Vec<Option<Node>>),
    /// An array that was empty in the first message: no columns.
    EmptyArray,
}

/// How a row fitted the layout.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RowFit {
    /// Cells left empty because an array was shorter than in the first message.
    pub missing_cells: usize,
    /// Array elements without a column (the array was longer than in the first message).
    pub dropped_elements: usize,
}

impl RowFit {
    /// True when every value of the message had its column and every column a value.
    pub fn is_exact(&self) -> bool {
        self.missing_cells == 0 && self.dropped_elements == 0
    }
}

fn is_leaf(v: &ValueRef<'_>) -> bool {
    !matches!(
        v,
        ValueRef::Bytes(_) | ValueRef::PrimArray(_) | ValueRef::Array(_) | ValueRef::Message(_)
    )
}

fn build(v: &ValueRef<'_>, name: &str, columns: &mut Vec<String>) -> Option<Node> {
    match v {
        ValueRef::Bytes(_) => None,
        ValueRef::Message(m) => {
            let subs: Vec<(usize, String, Node)> = m
                .iter()
                .enumerate()
                .filter_map(|(i, (field, value))| {
                    build(&value, &format!("{name}.{field}"), columns)
                        .map(|n| (i, field.to_string(), n))
                })
                .collect();
            (!subs.is_empty()).then_some(Node::Message(subs))
        }
        ValueRef::PrimArray(items) if items.is_empty() => Some(Node::EmptyArray),
        ValueRef::PrimArray(items) => {
            columns.extend((0..items.len()).map(|i| format!("{name}{i}")));
            Some(Node::Array(vec![Some(Node::Leaf); items.len()]))
        }
        ValueRef::Array(items) => {
            let Some(first) = items.iter().next() else {
                return Some(Node::EmptyArray);
            };
            if is_leaf(&first) {
                columns.extend((0..items.len()).map(|i| format!("{name}{i}")));
                return Some(Node::Array(vec![Some(Node::Leaf); items.len()]));
            }
            let elems: Vec<Option<Node>> = items
                .iter()
                .enumerate()
                .map(|(i, item)| build(&item, &format!("{name}{i}"), columns))
                .collect();
            elems
                .iter()
                .any(Option::is_some)
                .then_some(Node::Array(elems))
        }
        _ => {
            columns.push(name.to_string());
            Some(Node::Leaf)
        }
    }
}

fn leaf_count(node: &Node) -> usize {
    match node {
        Node::Leaf => 1,
        Node::Message(subs) => subs.iter().map(|(_, _, n)| leaf_count(n)).sum(),
        Node::Array(elems) => elems.iter().flatten().map(leaf_count).sum(),
        Node::EmptyArray => 0,
    }
}

impl CsvLayout {
    /// The layout `rostopic echo -p` would use, from the first message of the topic.
    pub fn new(first: &Decoded<'_>) -> Self {
        let mut columns = Vec::new();
        let root = build(&first.value(), "field", &mut columns);
        CsvLayout { columns, root }
    }

    /// The layout `rostopic echo -p -b BAG /topic/field` uses for the value a field path
    /// names, from its first message: one `field` column for a scalar, `field.x`… for a
    /// message, `field0`… for an array.
    pub fn for_value(first: &ValueRef<'_>) -> Self {
        let mut columns = Vec::new();
        let root = build(first, "field", &mut columns);
        CsvLayout { columns, root }
    }

    /// [`CsvLayout::write_row`] for a value a field path names (see [`CsvLayout::for_value`]).
    pub fn write_value_row<W: Write + ?Sized>(
        &self,
        out: &mut W,
        time: RosTime,
        value: &ValueRef<'_>,
        floats: &mut FloatCache,
    ) -> Result<RowFit, fmt::Error> {
        self.emit_row(out, time, Some(value.clone()), Some(floats))
    }

    /// The row's cells written straight to `out`: no cell is built as a string of its own.
    fn emit_row<W: Write + ?Sized>(
        &self,
        out: &mut W,
        time: RosTime,
        value: Option<ValueRef<'_>>,
        floats: Option<&mut FloatCache>,
    ) -> Result<RowFit, fmt::Error> {
        write!(out, "{},", time.as_nanos())?;
        let mut fit = RowFit::default();
        if let Some(root) = &self.root {
            let mut cells = Cells::Row {
                out,
                column: 0,
                floats,
            };
            fill(root, value, &mut cells, &mut fit)?;
        }
        Ok(fit)
    }

    /// The value columns (without `%time`).
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// The header line (no newline): `%time,field.a,field.b…`.
    pub fn header(&self) -> String {
        format!("%time,{}", self.columns.join(","))
    }

    /// The cells of one message in column order, unquoted (as `rostopic echo -p` prints
    /// them), with how it fitted.
    pub fn cells(&self, message: &Decoded<'_>) -> (Vec<String>, RowFit) {
        let mut cells: Cells<'_, String> = Cells::List(Vec::with_capacity(self.columns.len()));
        let mut fit = RowFit::default();
        if let Some(root) = &self.root {
            // Writing to a String cannot fail.
            let _ = fill(root, Some(message.value()), &mut cells, &mut fit);
        }
        match cells {
            Cells::List(list) => (list, fit),
            Cells::Row { .. } => (Vec::new(), fit),
        }
    }

    /// Writes one row (no newline): the receive time in nanoseconds, then the cells, quoted
    /// where needed.
    /// `floats` keeps each column's last float and its text, for the rows that follow.
    pub fn write_row<W: Write + ?Sized>(
        &self,
        out: &mut W,
        time: RosTime,
        message: &Decoded<'_>,
        floats: &mut FloatCache,
    ) -> Result<RowFit, fmt::Error> {
        self.emit_row(out, time, Some(message.value()), Some(floats))
    }

    /// [`CsvLayout::write_row`] into a new `String`.
    pub fn row(&self, time: RosTime, message: &Decoded<'_>) -> (String, RowFit) {
        let mut out = String::new();
        // Writing to a String cannot fail.
        let fit = self
            .emit_row(&mut out, time, Some(message.value()), None)
            .unwrap_or_default();
        (out, fit)
    }
}

/// The column names `rostopic echo -p` prints for this first message (without `%time`).
pub fn columns(first: &Decoded<'_>) -> Vec<String> {
    CsvLayout::new(first).columns
}

/// Where a row's cells go: straight into the output, separated by commas and quoted where
/// needed, or into a list, one unquoted string per cell.
enum Cells<'o, W: ?Sized> {
    Row {
        out: &'o mut W,
        /// The column of the next cell.
        column: usize,
        floats: Option<&'o mut FloatCache>,
    },
    List(Vec<String>),
}

/// The last float written in each column and its text, kept from row to row: sensor streams
/// repeat values column by column (covariance matrices, constant fields), and a repeated
/// value's text is copied instead of worked out again (a third of an `Imu` export's time was
/// float formatting, and 27 of its 37 floats are covariances).
#[derive(Debug, Default, Clone)]
pub struct FloatCache {
    /// Per column: the float's bits and its text (empty before the first float).
    slots: Vec<(u64, String)>,
}

/// Columns whose floats are kept (beyond, a float is formatted every time).
const CACHED_COLUMNS: usize = 1 << 16;

impl FloatCache {
    /// Writes `x` (the float of column `column`) as [`pyrepr::write_float`] does.
    fn write<W: Write + ?Sized>(&mut self, out: &mut W, column: usize, x: f64) -> fmt::Result {
        if column >= CACHED_COLUMNS {
            return pyrepr::write_float(out, x);
        }
        if self.slots.len() <= column {
            self.slots.resize(column + 1, (0, String::new()));
        }
        let Some((bits, text)) = self.slots.get_mut(column) else {
            return pyrepr::write_float(out, x);
        };
        if text.is_empty() || *bits != x.to_bits() {
            text.clear();
            pyrepr::write_float(text, x)?;
            *bits = x.to_bits();
        }
        out.write_str(text)
    }
}

impl<W: Write + ?Sized> Cells<'_, W> {
    /// `n` empty cells (columns this message has no value for).
    fn empty(&mut self, n: usize, fit: &mut RowFit) -> fmt::Result {
        fit.missing_cells += n;
        for _ in 0..n {
            self.leaf(&ValueRef::Bytes(&[]))?;
        }
        Ok(())
    }

    fn leaf(&mut self, v: &ValueRef<'_>) -> fmt::Result {
        match self {
            Cells::Row {
                out,
                column,
                floats,
            } => {
                if *column > 0 {
                    out.write_char(',')?;
                }
                let at = *column;
                *column += 1;
                match (floats, v) {
                    (Some(cache), ValueRef::F64(x)) => cache.write(*out, at, *x),
                    (Some(cache), ValueRef::F32(x)) => cache.write(*out, at, f64::from(*x)),
                    _ => write_leaf(*out, v, true),
                }
            }
            Cells::List(cells) => {
                let mut cell = String::new();
                write_leaf(&mut cell, v, false)?;
                cells.push(cell);
                Ok(())
            }
        }
    }
}

/// One leaf as `rostopic echo -p` prints it: bools as 0/1, floats as Python's `repr`, times
/// and durations in nanoseconds, strings (quoted where needed when `quote`); nothing for
/// anything else.
fn write_leaf<W: Write + ?Sized>(out: &mut W, v: &ValueRef<'_>, quote: bool) -> fmt::Result {
    match *v {
        ValueRef::Bool(b) => out.write_str(if b { "1" } else { "0" }),
        ValueRef::String(bytes) if quote => write_cell(out, &String::from_utf8_lossy(bytes)),
        ValueRef::String(bytes) => out.write_str(&String::from_utf8_lossy(bytes)),
        ValueRef::F32(x) => pyrepr::write_float(out, f64::from(x)),
        ValueRef::F64(x) => pyrepr::write_float(out, x),
        ValueRef::Time(t) => write!(out, "{}", t.as_nanos()),
        ValueRef::Duration(d) => write!(out, "{}", d.as_nanos()),
        ValueRef::Bytes(_) | ValueRef::PrimArray(_) | ValueRef::Array(_) | ValueRef::Message(_) => {
            Ok(())
        }
        // Integers.
        _ => write_bool_or_integer(out, v).unwrap_or(Ok(())),
    }
}

fn fill<W: Write + ?Sized>(
    node: &Node,
    value: Option<ValueRef<'_>>,
    cells: &mut Cells<'_, W>,
    fit: &mut RowFit,
) -> fmt::Result {
    match (node, value) {
        (Node::Leaf, Some(v)) if is_leaf(&v) => cells.leaf(&v),
        (Node::Message(subs), Some(ValueRef::Message(m))) => {
            // `subs` holds field indices in increasing order. The field there must have the
            // column's name: a JSON message without a schema has the fields of its own JSON,
            // which need not be the first message's.
            let mut values = m.iter().enumerate();
            for (index, name, sub) in subs {
                let value = values
                    .find(|(i, _)| i == index)
                    .and_then(|(_, (field, v))| (field == name).then_some(v));
                fill(sub, value, cells, fit)?;
            }
            Ok(())
        }
        (Node::Array(elems), Some(ValueRef::Array(items))) => {
            let mut values = items.iter();
            for elem in elems {
                let value = values.next();
                if let Some(elem) = elem {
                    fill(elem, value, cells, fit)?;
                }
            }
            fit.dropped_elements += items.len().saturating_sub(elems.len());
            Ok(())
        }
        (Node::Array(elems), Some(ValueRef::PrimArray(items))) => {
            let mut values = items.refs();
            for _ in elems {
                match values.next() {
                    Some(v) => cells.leaf(&v)?,
                    None => cells.empty(1, fit)?,
                }
            }
            fit.dropped_elements += items.len().saturating_sub(elems.len());
            Ok(())
        }
        (Node::EmptyArray, Some(ValueRef::Array(items))) => {
            fit.dropped_elements += items.len();
            Ok(())
        }
        (Node::EmptyArray, Some(ValueRef::PrimArray(items))) => {
            fit.dropped_elements += items.len();
            Ok(())
        }
        (node, _) => cells.empty(leaf_count(node), fit),
    }
}

fn write_cell<W: Write + ?Sized>(out: &mut W, cell: &str) -> fmt::Result {
    if cell.contains([',', '"', '\n', '\r']) {
        out.write_char('"')?;
        out.write_str(&cell.replace('"', "\"\""))?;
        out.write_char('"')
    } else {
        out.write_str(cell)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msg::{Schema, decode};

    fn poly(n: u32, names: &[&str]) -> Vec<u8> {
        let mut p = n.to_le_bytes().to_vec();
        for i in 0..n {
            p.extend(f64::from(i).to_le_bytes());
        }
        p.extend(u32::try_from(names.len()).unwrap().to_le_bytes());
        for name in names {
            p.extend(u32::try_from(name.len()).unwrap().to_le_bytes());
            p.extend(name.as_bytes());
        }
        p
    }

    #[test]
    fn variable_arrays_keep_the_first_messages_columns() {
        let s = Schema::from_definition("t/T", "float64[] xs\nstring[] tags\n").unwrap();
        let first = poly(2, &[]);
        let layout = CsvLayout::new(&decode(&s, &first).unwrap());
        assert_eq!(layout.header(), "%time,field.xs0,field.xs1");

        let t = RosTime::new(1, 5);
        let longer = poly(3, &["a"]);
        let longer = decode(&s, &longer).unwrap();
        let (row, fit) = layout.row(t, &longer);
        assert_eq!(row, "1000000005,0.0,1.0");
        assert_eq!(
            fit,
            RowFit {
                missing_cells: 0,
                dropped_elements: 2
            }
        );

        let shorter = poly(1, &[]);
        let shorter = decode(&s, &shorter).unwrap();
        let (row, fit) = layout.row(t, &shorter);
        assert_eq!(row, "1000000005,0.0,");
        assert_eq!(
            fit,
            RowFit {
                missing_cells: 1,
                dropped_elements: 0
            }
        );
        assert!(layout.row(t, &decode(&s, &first).unwrap()).1.is_exact());
    }

    #[test]
    fn rows_through_the_float_cache_are_the_rows_without_it() {
        let schema =
            Schema::from_definition("t/T", "float64 a\nfloat32 b\nfloat64[] xs\n").unwrap();
        let values = [
            0.0,
            -0.0,
            0.01,
            1e-5,
            1e16,
            f64::NAN,
            f64::INFINITY,
            0.01,
            3.5,
            3.5,
        ];
        let mut cache = FloatCache::default();
        let mut layout = None;
        for (i, &x) in values.iter().enumerate() {
            let y = values[(i + 3) % values.len()];
            let mut payload = x.to_le_bytes().to_vec();
            #[allow(clippy::cast_possible_truncation)]
            payload.extend((y as f32).to_le_bytes());
            payload.extend(2u32.to_le_bytes());
            payload.extend(x.to_le_bytes());
            payload.extend((x * 2.0).to_le_bytes());
            let message = decode(&schema, &payload).unwrap();
            let layout = layout.get_or_insert_with(|| CsvLayout::new(&message));
            let time = RosTime::new(1, u32::try_from(i).unwrap());
            let mut cached = String::new();
            layout
                .write_row(&mut cached, time, &message, &mut cache)
                .unwrap();
            assert_eq!(cached, layout.row(time, &message).0, "row {i}");
        }
        // Beyond the columns kept, floats are formatted each time.
        let mut out = String::new();
        cache.write(&mut out, CACHED_COLUMNS, 0.25).unwrap();
        assert_eq!(out, "0.25");
    }

    #[test]
    fn quotes_cells_that_need_it() {
        let s = Schema::from_definition("t/T", "float64[] xs\nstring[] tags\n").unwrap();
        let payload = poly(0, &["a,b", "say \"x\"", "plain"]);
        let v = decode(&s, &payload).unwrap();
        let layout = CsvLayout::new(&v);
        assert_eq!(
            layout.columns(),
            ["field.tags0", "field.tags1", "field.tags2"]
        );
        let (row, _) = layout.row(RosTime::new(0, 7), &v);
        assert_eq!(row, "7,\"a,b\",\"say \"\"x\"\"\",plain");
    }
}
