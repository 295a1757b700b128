//! A `ros2idl` schema → its sections: each after a line of 80 `=` and a header naming its
//! type (`IDL: pkg/msg/Type`; rosbag2 also writes `MSG:`, `SRV:` and `ACTION:` sections into
//! IDL schemas of service and action types). Text before the first separator is a section
//! without a header (the MCAP specification's form of the main type).

/// The language of a section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `IDL:` (or no header): IDL text.
    Idl,
    /// `MSG:`, `SRV:`, `ACTION:`: text in the ROS 2 interface language, kept as it is.
    Interface,
}

/// One section of a schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Section<'a> {
    /// Its language.
    pub kind: Kind,
    /// The type its header names.
    pub name: Option<String>,
    /// The text after the header.
    pub text: &'a str,
    /// The 1-based line of the schema the text starts on.
    pub first_line: usize,
}

const HEADERS: [(&str, Kind); 4] = [
    ("IDL:", Kind::Idl),
    ("MSG:", Kind::Interface),
    ("SRV:", Kind::Interface),
    ("ACTION:", Kind::Interface),
];

fn is_separator(line: &str) -> bool {
    let line = line.trim_end();
    line.len() == 80 && line.bytes().all(|b| b == b'=')
}

/// Splits `schema` into sections, in order; a blank text before the first separator is
/// left out.
pub(crate) fn split(schema: &str) -> Vec<Section<'_>> {
    // (byte offset, line number) of every line start.
    let mut starts = Vec::new();
    let mut offset = 0;
    for (i, line) in schema.split_inclusive('\n').enumerate() {
        starts.push((offset, i + 1, line));
        offset += line.len();
    }
    let mut out = Vec::new();
    let mut current = Section {
        kind: Kind::Idl,
        name: None,
        text: "",
        first_line: 1,
    };
    let mut begin = 0;
    let mut k = 0;
    while let Some(&(at, line_no, line)) = starts.get(k) {
        k += 1;
        if !is_separator(line) {
            continue;
        }
        current.text = schema.get(begin..at).unwrap_or("");
        if current.name.is_some() || !current.text.trim().is_empty() {
            out.push(current);
        }
        let header = starts.get(k).and_then(|&(_, hline, h)| {
            let h = h.trim();
            HEADERS.iter().find_map(|(tag, kind)| {
                let name = h.strip_prefix(tag)?.trim().to_string();
                Some((hline, *kind, name))
            })
        });
        if let Some((hline, kind, name)) = header {
            k += 1;
            current = Section {
                kind,
                name: Some(name),
                text: "",
                first_line: hline + 1,
            };
        } else {
            current = Section {
                kind: Kind::Idl,
                name: None,
                text: "",
                first_line: line_no + 1,
            };
        }
        begin = starts.get(k).map_or(schema.len(), |s| s.0);
    }
    current.text = schema.get(begin..).unwrap_or("");
    if current.name.is_some() || !current.text.trim().is_empty() {
        out.push(current);
    }
    out
}
