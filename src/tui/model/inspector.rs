//! The inspector: the expandable tree of a decoded message's fields as plain rows (no
//! terminal types). Decoding itself happens off the UI thread (`worker::decode`).

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use crate::catalog::MsgRef;
use crate::msg::{ConstValue, ValueRef};
use crate::time::RosTime;

use super::super::jobs::worker::decode::Inspected;
use super::timefmt::TimeFormat;

/// Array elements shown when an array is first expanded, and added per "show more".
pub const ARRAY_PAGE: usize = 32;
/// Bytes per row of a byte array's hex view when the pane's width is not known.
pub const HEX_ROW: usize = 16;
/// Most bytes per hex row, however wide the pane.
pub const HEX_ROW_MAX: usize = 32;
/// Characters of a string shown in its row.
pub const STRING_PREVIEW: usize = 120;

/// One visible row of the tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// Nesting depth (0 = top-level field).
    pub depth: usize,
    /// Path of the node (`pose.position.x`, `transforms[2]`), the key of its expansion state.
    pub path: String,
    /// Field name or `[i]`.
    pub label: String,
    /// Declared type, when known.
    pub type_name: String,
    /// The value (one line).
    pub text: String,
    /// A constant of the message with this value, shown beside it.
    pub constant: Option<String>,
    /// Whether the node has children, and whether they are shown.
    pub expand: Expand,
    /// A "show more" row of an array (the array's path is `path`).
    pub more: Option<usize>,
}

/// Expansion state of a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expand {
    /// No children.
    Leaf,
    /// Children hidden.
    Collapsed,
    /// Children shown.
    Expanded,
}

/// The inspector's state: what is shown and how it is unfolded.
#[derive(Debug, Default)]
pub struct Inspector {
    /// The message shown.
    pub data: Option<Inspected>,
    /// The message being decoded ("decoding…").
    pub loading: Option<MsgRef>,
    /// Nodes whose expansion differs from their default.
    toggled: HashSet<String>,
    /// Array elements shown per array path.
    shown: HashMap<String, usize>,
    /// Expand everything (arrays included, paged).
    all: Option<bool>,
    rows: Vec<Row>,
    /// Selected row.
    pub selected: usize,
    /// First row shown.
    pub offset: usize,
    /// Cells inside the pane (0: unknown): hex rows are sized to fit them.
    width: usize,
    /// Paths that differ from the message marked with `m` (and the nodes above them).
    pub changed: HashSet<String>,
}

impl Inspector {
    /// The pane's inside width changed: hex rows are laid out again to fit it.
    pub fn set_width(&mut self, width: usize, format: TimeFormat, start: RosTime) {
        if width != self.width {
            self.width = width;
            self.rebuild(format, start);
        }
    }

    /// Bytes per hex row at nesting `depth`: what fits the pane (the row draws as indent,
    /// marker, `000000: `, three cells a byte, a gap, `|ascii|`), a multiple of 4, 4 to 32.
    pub fn hex_row(&self, depth: usize) -> usize {
        if self.width == 0 {
            return HEX_ROW;
        }
        let room = self.width.saturating_sub(2 * depth + 2 + 6 + 2 + 3);
        (room / 4 / 4 * 4).clamp(4, HEX_ROW_MAX)
    }

    /// Rows as currently unfolded.
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// The selected row, if any.
    pub fn selected_row(&self) -> Option<&Row> {
        self.rows.get(self.selected)
    }

    /// The message shown, when it decoded.
    pub fn decoded(&self) -> Option<&Inspected> {
        self.data.as_ref().filter(|d| d.value.is_ok())
    }

    /// Shows a new message, keeping the unfolding (same type: same paths) and selection.
    pub fn set(&mut self, data: Inspected, format: TimeFormat, start: RosTime) {
        let same_type = self
            .data
            .as_ref()
            .is_some_and(|d| d.datatype == data.datatype);
        if !same_type {
            self.toggled.clear();
            self.shown.clear();
            self.all = None;
            self.selected = 0;
            self.offset = 0;
        }
        self.data = Some(data);
        self.loading = None;
        self.rebuild(format, start);
    }

    /// Recomputes the rows (after a change of data, unfolding or time format).
    pub fn rebuild(&mut self, format: TimeFormat, start: RosTime) {
        self.rows.clear();
        if let Some(Inspected { value: Ok(v), .. }) = &self.data {
            let mut b = Builder {
                inspector: self,
                rows: Vec::new(),
                format,
                start,
            };
            b.children(&v.value(), "", 0);
            self.rows = b.rows;
        }
        self.selected = self.selected.min(self.rows.len().saturating_sub(1));
    }

    fn is_expanded(&self, path: &str, default: bool) -> bool {
        if let Some(all) = self.all {
            return all != self.toggled.contains(path);
        }
        default != self.toggled.contains(path)
    }

    /// Toggles the selected node, or shows more of an array on a "more" row.
    pub fn toggle(&mut self, format: TimeFormat, start: RosTime) {
        let Some(row) = self.rows.get(self.selected).cloned() else {
            return;
        };
        if row.more.is_some() {
            *self.shown.entry(row.path).or_insert(ARRAY_PAGE) += ARRAY_PAGE * 4;
        } else if row.expand != Expand::Leaf && !self.toggled.remove(&row.path) {
            self.toggled.insert(row.path);
        }
        self.rebuild(format, start);
    }

    /// Expands (`true`) or collapses the selected node; collapsing a leaf goes to its parent.
    pub fn set_expanded(&mut self, expand: bool, format: TimeFormat, start: RosTime) {
        let Some(row) = self.rows.get(self.selected).cloned() else {
            return;
        };
        match (row.expand, expand) {
            (Expand::Collapsed, true) | (Expand::Expanded, false) => self.toggle(format, start),
            (Expand::Leaf | Expand::Collapsed, false) if row.depth > 0 => {
                // Jump to the parent.
                if let Some(p) = self
                    .rows
                    .get(..self.selected)
                    .and_then(|r| r.iter().rposition(|r| r.depth < row.depth))
                {
                    self.selected = p;
                }
            }
            _ => {}
        }
    }

    /// Expands or collapses everything.
    pub fn set_all(&mut self, expand: bool, format: TimeFormat, start: RosTime) {
        self.all = Some(expand);
        self.toggled.clear();
        self.rebuild(format, start);
    }

    /// Moves the selection.
    pub fn move_by(&mut self, delta: isize, height: usize) {
        if self.rows.is_empty() {
            return;
        }
        self.selected = self
            .selected
            .saturating_add_signed(delta)
            .min(self.rows.len() - 1);
        self.scroll_into_view(height);
    }

    /// Keeps the selection visible in `height` rows.
    pub fn scroll_into_view(&mut self, height: usize) {
        self.offset =
            super::scroll::offset_for(self.selected, self.offset, self.rows.len(), height);
    }
}

struct Builder<'s> {
    inspector: &'s Inspector,
    rows: Vec<Row>,
    format: TimeFormat,
    start: RosTime,
}

impl Builder<'_> {
    /// Adds the rows of the children of `v` (fields of a message, elements of an array).
    fn children(&mut self, v: &ValueRef<'_>, path: &str, depth: usize) {
        match v {
            ValueRef::Message(m) => {
                let ty = m.ty();
                let owned = crate::msg::field_constants(ty);
                for ((f, fv), own) in ty.fields().iter().zip(m.values()).zip(&owned) {
                    let p = if path.is_empty() {
                        f.name().to_string()
                    } else {
                        format!("{path}.{}", f.name())
                    };
                    let constant = constant_for(ty.constants(), own, &fv);
                    self.node(
                        &fv,
                        p,
                        f.name().to_string(),
                        f.type_text().to_string(),
                        constant,
                        depth,
                    );
                }
            }
            ValueRef::Array(items) => {
                let shown = self.shown(path).min(items.len());
                for (i, item) in items.iter().take(shown).enumerate() {
                    let ty = match &item {
                        ValueRef::Message(m) => m.ty().name().to_string(),
                        _ => String::new(),
                    };
                    self.node(
                        &item,
                        format!("{path}[{i}]"),
                        format!("[{i}]"),
                        ty,
                        None,
                        depth,
                    );
                }
                self.more(path, items.len() - shown, depth);
            }
            ValueRef::PrimArray(items) => {
                let shown = self.shown(path).min(items.len());
                for (i, item) in items.refs().take(shown).enumerate() {
                    self.node(
                        &item,
                        format!("{path}[{i}]"),
                        format!("[{i}]"),
                        String::new(),
                        None,
                        depth,
                    );
                }
                self.more(path, items.len() - shown, depth);
            }
            ValueRef::Bytes(bytes) => {
                let n = self.inspector.hex_row(depth);
                let lines = bytes.len().div_ceil(n);
                let shown = self.shown(path).min(lines);
                for (i, chunk) in bytes.chunks(n).take(shown).enumerate() {
                    self.rows.push(Row {
                        depth,
                        path: format!("{path}#{i}"),
                        label: format!("{:06x}", i * n),
                        type_name: String::new(),
                        text: hex_line(chunk, n),
                        constant: None,
                        expand: Expand::Leaf,
                        more: None,
                    });
                }
                self.more(path, bytes.len().saturating_sub(shown * n), depth);
            }
            _ => {}
        }
    }

    fn shown(&self, path: &str) -> usize {
        self.inspector
            .shown
            .get(path)
            .copied()
            .unwrap_or(ARRAY_PAGE)
    }

    fn more(&mut self, path: &str, remaining: usize, depth: usize) {
        if remaining > 0 {
            self.rows.push(Row {
                depth,
                path: path.to_string(),
                label: "…".into(),
                type_name: String::new(),
                text: format!("{remaining} more (Enter shows more)"),
                constant: None,
                expand: Expand::Leaf,
                more: Some(remaining),
            });
        }
    }

    fn node(
        &mut self,
        v: &ValueRef<'_>,
        path: String,
        label: String,
        type_name: String,
        constant: Option<String>,
        depth: usize,
    ) {
        let (has_children, default_open) = match v {
            ValueRef::Message(m) => (!m.ty().fields().is_empty(), depth < 3),
            ValueRef::Array(a) => (!a.is_empty(), false),
            ValueRef::PrimArray(a) => (!a.is_empty(), false),
            ValueRef::Bytes(b) => (!b.is_empty(), false),
            _ => (false, false),
        };
        let expand = if !has_children {
            Expand::Leaf
        } else if self.inspector.is_expanded(&path, default_open) {
            Expand::Expanded
        } else {
            Expand::Collapsed
        };
        self.rows.push(Row {
            depth,
            path,
            label,
            type_name,
            text: value_text(v, self.format, self.start),
            constant,
            expand,
            more: None,
        });
        if expand == Expand::Expanded {
            let path = self.rows.last().map(|r| r.path.clone()).unwrap_or_default();
            self.children(v, &path, depth + 1);
        }
    }
}

/// The names of the field's constants (`own`: indices in `constants`, as
/// [`crate::msg::field_constants`] assigns them) equal to `v`.
fn constant_for(
    constants: &[crate::msg::Constant],
    own: &[usize],
    v: &ValueRef<'_>,
) -> Option<String> {
    let names: Vec<&str> = own
        .iter()
        .filter_map(|&i| constants.get(i))
        .filter(|c| match (c.value(), v) {
            (ConstValue::Bool(a), ValueRef::Bool(b)) => a == b,
            (ConstValue::Int(a), _) => int_of(v) == Some(i128::from(*a)),
            (ConstValue::UInt(a), _) => int_of(v) == Some(i128::from(*a)),
            (ConstValue::String(a), ValueRef::String(s)) => a.as_bytes() == *s,
            _ => false,
        })
        .map(crate::msg::Constant::name)
        .collect();
    (!names.is_empty()).then(|| names.join(" | "))
}

fn int_of(v: &ValueRef<'_>) -> Option<i128> {
    Some(match v {
        ValueRef::I8(x) => i128::from(*x),
        ValueRef::U8(x) => i128::from(*x),
        ValueRef::I16(x) => i128::from(*x),
        ValueRef::U16(x) => i128::from(*x),
        ValueRef::I32(x) => i128::from(*x),
        ValueRef::U32(x) => i128::from(*x),
        ValueRef::I64(x) => i128::from(*x),
        ValueRef::U64(x) => i128::from(*x),
        _ => return None,
    })
}

/// One hex row of `n` bytes (`bytes` may be shorter: the last row): hex with a gap in the
/// middle, then the printable characters.
fn hex_line(bytes: &[u8], n: usize) -> String {
    let mut s = String::with_capacity(n * 4 + 3);
    for (i, b) in bytes.iter().enumerate() {
        if i == n / 2 {
            s.push(' ');
        }
        let _ = write!(s, "{b:02x} ");
    }
    let pad = n.saturating_sub(bytes.len()) * 3 + usize::from(bytes.len() <= n / 2);
    s.push_str(&" ".repeat(pad));
    s.push('|');
    s.extend(bytes.iter().map(|&b| {
        if b.is_ascii_graphic() || b == b' ' {
            char::from(b)
        } else {
            '.'
        }
    }));
    s.push('|');
    s
}

/// A string with control and non-UTF-8 bytes escaped, cut at `max` characters.
pub fn escaped(bytes: &[u8], max: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::from("\"");
    for (n, c) in text.chars().enumerate() {
        if n >= max {
            out.push('…');
            break;
        }
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' | '\t' => crate::printable::push_escaped(&mut out, c),
            c if crate::printable::is_unsafe(c) => crate::printable::push_escaped(&mut out, c),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// One-line text of a value as the tree shows it.
pub fn value_text(v: &ValueRef<'_>, format: TimeFormat, start: RosTime) -> String {
    match v {
        ValueRef::String(s) => {
            let mut t = escaped(s, STRING_PREVIEW);
            if s.len() > STRING_PREVIEW {
                let _ = write!(t, " ({} bytes)", s.len());
            }
            t
        }
        ValueRef::Time(t) => {
            let shown = match format {
                TimeFormat::Epoch | TimeFormat::Utc => TimeFormat::Utc.format(*t, start),
                other => other.format(*t, start),
            };
            format!("{}.{:09}  ({shown})", t.sec, t.nsec)
        }
        ValueRef::Duration(d) => format!("{}.{:09}  ({:.6} s)", d.sec, d.nsec, d.as_secs_f64()),
        ValueRef::Message(m) => {
            let n = m.ty().fields().len();
            format!("{{{n} field{}}}", if n == 1 { "" } else { "s" })
        }
        ValueRef::Array(a) => format!("[{} items]", a.len()),
        other => other.summary(8),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msg::{Schema, decode};

    fn inspected(def: &str, ty: &str, payload: &[u8]) -> Inspected {
        let schema = Schema::from_definition(ty, def).unwrap();
        Inspected {
            msg: MsgRef {
                bag: 0,
                entry: crate::bag::IndexEntry {
                    time: RosTime::new(1, 0),
                    conn: 0,
                    chunk: 0,
                    offset: 0,
                },
            },
            topic: "/t".into(),
            datatype: ty.into(),
            time: RosTime::new(1, 0),
            wire: schema.wire(),
            size: payload.len(),
            value: Ok(decode(&schema, payload).unwrap().into_owned()),
            notes: vec![],
            head: vec![],
        }
    }

    #[test]
    fn unfolds_messages_and_pages_arrays() {
        let def = "uint8 OK=0\nuint8 ERROR=2\nuint8 level\nstring name\nint32[] values\n";
        let mut payload = vec![2u8];
        payload.extend(3u32.to_le_bytes());
        payload.extend(b"a\nb");
        payload.extend(100u32.to_le_bytes());
        for i in 0..100i32 {
            payload.extend(i.to_le_bytes());
        }
        let mut ins = Inspector::default();
        ins.set(
            inspected(def, "pkg/Status", &payload),
            TimeFormat::Epoch,
            RosTime::MIN,
        );
        let rows = ins.rows();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].constant.as_deref(), Some("ERROR"));
        assert_eq!(rows[1].text, "\"a\\nb\"");
        assert_eq!(rows[2].expand, Expand::Collapsed);
        ins.selected = 2;
        ins.toggle(TimeFormat::Epoch, RosTime::MIN);
        assert_eq!(ins.rows().len(), 3 + ARRAY_PAGE + 1);
        assert_eq!(ins.rows().last().unwrap().more, Some(100 - ARRAY_PAGE));
        ins.selected = ins.rows().len() - 1;
        ins.toggle(TimeFormat::Epoch, RosTime::MIN);
        assert_eq!(ins.rows().len(), 3 + 100);
        ins.set_all(false, TimeFormat::Epoch, RosTime::MIN);
        assert_eq!(ins.rows().len(), 3);
    }

    #[test]
    fn constants_only_beside_their_field() {
        let def = "uint8 INT8=1\nuint8 UINT8=2\nuint8 INT16=3\nuint8 UINT16=4\nuint8 FLOAT32=7\n\
                   string name\nuint32 offset\nuint8 datatype\nuint32 count\n";
        let mut payload = 1u32.to_le_bytes().to_vec();
        payload.push(b'x');
        payload.extend(4u32.to_le_bytes());
        payload.push(7);
        payload.extend(1u32.to_le_bytes());
        let mut ins = Inspector::default();
        ins.set(
            inspected(def, "sensor_msgs/PointField", &payload),
            TimeFormat::Epoch,
            RosTime::MIN,
        );
        let shown: Vec<Option<&str>> = ins.rows().iter().map(|r| r.constant.as_deref()).collect();
        assert_eq!(shown, [None, None, Some("FLOAT32"), None]);
        // Marker: uint8 constants, int32 fields; `id` is never a shape.
        let def = "uint8 ARROW=0\nuint8 CUBE=1\nuint8 ADD=0\nuint8 MODIFY=0\nuint8 DELETE=2\n\
                   string ns\nint32 id\nint32 type\nint32 action\n";
        let mut payload = 0u32.to_le_bytes().to_vec();
        for v in [0i32, 0, 0] {
            payload.extend(v.to_le_bytes());
        }
        ins.set(
            inspected(def, "visualization_msgs/Marker", &payload),
            TimeFormat::Epoch,
            RosTime::MIN,
        );
        let shown: Vec<Option<&str>> = ins.rows().iter().map(|r| r.constant.as_deref()).collect();
        assert_eq!(shown, [None, None, Some("ARROW"), Some("ADD | MODIFY")]);
    }

    #[test]
    fn hex_lines_align() {
        assert_eq!(
            hex_line(b"ABCDEFGHIJKLMNOP", 16),
            "41 42 43 44 45 46 47 48  49 4a 4b 4c 4d 4e 4f 50 |ABCDEFGHIJKLMNOP|"
        );
        assert_eq!(
            hex_line(b"A", 16).len(),
            hex_line(b"ABCDEFGHIJKLMNOP", 16).len() - 15
        );
        assert_eq!(hex_line(b"ABCD", 4), "41 42  43 44 |ABCD|");
        assert_eq!(hex_line(b"A", 4).len(), hex_line(b"ABCD", 4).len() - 3);
    }

    #[test]
    fn hex_rows_fit_the_pane() {
        let mut ins = Inspector::default();
        assert_eq!(ins.hex_row(0), HEX_ROW);
        for width in [20usize, 38, 39, 60, 78, 158] {
            ins.width = width;
            for depth in 0..3 {
                let n = ins.hex_row(depth);
                let drawn = 2 * depth + 2 + 6 + 2 + hex_line(&vec![b'x'; n], n).chars().count();
                assert!(
                    drawn <= width || n == 4,
                    "{width} {depth}: {n} bytes take {drawn}"
                );
                assert_eq!(n % 4, 0);
            }
        }
        ins.width = 78;
        assert_eq!(ins.hex_row(1), 12);
    }
}
