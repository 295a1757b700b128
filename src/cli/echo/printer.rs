//! Rendering one message in `echo`'s formats (`rostopic echo` YAML, JSON lines), whole or the
//! values a field path names.

use std::sync::Arc;

use crate::catalog::{DecodePlan, Schemas};

use crate::cli::field_paths::write_json_values;
use crate::cli::term::{print_error, print_warning};
use crate::cli::where_args::Where;
use crate::msg::json;
use crate::msg::yaml::YamlStyle;

use super::args::EchoFormat;

/// Renders messages in `echo`'s formats, compiling each connection's schema once.
#[derive(Clone)]
pub struct Printer {
    format: EchoFormat,
    schemas: Schemas,
    told: std::collections::HashSet<crate::catalog::BagConn>,
    text: String,
    paths: std::collections::HashMap<crate::catalog::BagConn, crate::msg::path::ResolvedPath>,
    /// Messages printed as nothing because the field path named no value in them.
    pub no_value: u64,
}

impl Printer {
    /// A printer for `format`, with `registry` for definitions the bags lack.
    pub fn new(format: EchoFormat, registry: crate::msg::Registry) -> Self {
        Printer {
            format,
            schemas: Schemas::new(registry),
            told: std::collections::HashSet::new(),
            text: String::new(),
            paths: std::collections::HashMap::new(),
            no_value: 0,
        }
    }

    /// Prints only the value each connection's field path names (resolved, see
    /// [`crate::cli::field_paths::resolve`]).
    pub fn set_resolved_paths(
        &mut self,
        paths: std::collections::HashMap<crate::catalog::BagConn, crate::msg::path::ResolvedPath>,
    ) {
        self.paths = paths;
    }

    /// The text of one message of bag `bag_index`, and whether it decoded (a failure is
    /// reported on stderr; in JSON an `"error"` line keeps the lines aligned).
    pub fn render(
        &mut self,
        bag_index: usize,
        bag: &crate::bag::Bag,
        message: &crate::bag::Message,
    ) -> (&str, bool) {
        let Some(conn) = bag.connection(message.entry.conn) else {
            self.text.clear();
            return (&self.text, false);
        };
        self.render_conn(
            bag_index,
            bag.path(),
            conn,
            message.entry.time,
            &message.data,
        )
    }

    /// [`Printer::render`] for the messages `filter` (`--where`) keeps: `None` for one it
    /// does not. A kept message is decoded once, to test and to print.
    pub fn render_kept(
        &mut self,
        filter: Option<&Where>,
        bag_index: usize,
        bag: &crate::bag::Bag,
        message: &crate::bag::Message,
    ) -> Option<(&str, bool)> {
        let Some(filter) = filter else {
            return Some(self.render(bag_index, bag, message));
        };
        let key = crate::catalog::BagConn::new(bag_index, message.entry.conn);
        let decoded = filter.decode_kept(key, message.entry.time, &message.data)?;
        let Some(conn) = bag.connection(message.entry.conn) else {
            self.text.clear();
            return Some((&self.text, false));
        };
        self.tell(bag_index, bag.path(), conn);
        Some(self.render_decoded(bag_index, Ok(decoded), bag.path(), conn, message.entry.time))
    }

    /// Says once per connection (on standard error) what is to know about its schema.
    pub fn tell(
        &mut self,
        bag_index: usize,
        path: &std::path::Path,
        conn: &crate::bag::Connection,
    ) {
        let entry = self.schemas.get(bag_index, conn);
        if self
            .told
            .insert(crate::catalog::BagConn::new(bag_index, conn.id))
        {
            for n in &entry.notes {
                print_warning(format_args!("{}: {n}", path.display()));
            }
        }
    }

    /// The text of one message on connection `conn` of bag `bag_index` (at `path`), received
    /// at `time` with payload `data`: [`Printer::render`] for messages that are not read
    /// through a [`crate::bag::Bag`] (a followed recording).
    pub fn render_conn(
        &mut self,
        bag_index: usize,
        path: &std::path::Path,
        conn: &crate::bag::Connection,
        time: crate::time::RosTime,
        data: &[u8],
    ) -> (&str, bool) {
        self.tell(bag_index, path, conn);
        let plan = match &self.schemas.get(bag_index, conn).schema {
            Ok(s) => Ok(DecodePlan::new(Arc::clone(s), None)),
            Err(e) => Err(e.to_string()),
        };
        let decoded = match &plan {
            Ok(p) => p.decode(data).map_err(|e| e.to_string()),
            Err(e) => Err(e.clone()),
        };
        self.render_decoded(bag_index, decoded, path, conn, time)
    }

    /// The text of a message of `conn` (of the bag at `path`) received at `time`, decoded
    /// (or not, and why), and whether it decoded.
    fn render_decoded(
        &mut self,
        bag_index: usize,
        decoded: Result<crate::msg::Decoded<'_>, String>,
        path: &std::path::Path,
        conn: &crate::bag::Connection,
        time: crate::time::RosTime,
    ) -> (&str, bool) {
        self.text.clear();
        // ROS 2 (CDR) messages as `ros2 topic echo` prints them.
        let style = self
            .schemas
            .get(bag_index, conn)
            .schema
            .as_ref()
            .map_or(YamlStyle::Rostopic, |s| YamlStyle::for_wire(s.wire()));
        let field = self
            .paths
            .get(&crate::catalog::BagConn::new(bag_index, conn.id));
        match (decoded, field) {
            (Ok(v), Some(path)) => {
                let text = &mut self.text;
                let values = path.collect(v.root());
                if values.is_empty() {
                    self.no_value += 1;
                }
                match self.format {
                    EchoFormat::Yaml if values.is_empty() => {}
                    EchoFormat::Yaml => {
                        let _ = style.write_echo_values(text, &values);
                    }
                    EchoFormat::Json => {
                        write_json_values(text, conn, time, path, &values);
                        text.push('\n');
                    }
                }
                (text, true)
            }
            (decoded, _) => self.render_whole(decoded, path, conn, time, style),
        }
    }

    fn render_whole(
        &mut self,
        decoded: Result<crate::msg::Decoded<'_>, String>,
        path: &std::path::Path,
        conn: &crate::bag::Connection,
        time: crate::time::RosTime,
        style: YamlStyle,
    ) -> (&str, bool) {
        let text = &mut self.text;
        match (decoded, self.format) {
            (Ok(v), EchoFormat::Yaml) => {
                let _ = style.write_echo(text, &v);
                (text, true)
            }
            (Ok(v), EchoFormat::Json) => {
                let _ = json::write_message(text, &conn.topic, &conn.datatype, time, &v);
                text.push('\n');
                (text, true)
            }
            (Err(e), format) => {
                print_error(format!(
                    "{}: {} message at {time} ({}): {e}",
                    path.display(),
                    conn.topic,
                    conn.datatype
                ));
                if format == EchoFormat::Json {
                    // A line per message keeps outputs aligned with other tools' dumps.
                    text.push_str("{\"topic\":");
                    let _ = json::write_str(text, &conn.topic);
                    text.push_str(",\"type\":");
                    let _ = json::write_str(text, &conn.datatype);
                    let _ = write_time(text, time);
                    text.push_str(",\"data\":null,\"error\":");
                    let _ = json::write_str(text, &e);
                    text.push_str("}\n");
                }
                (text, false)
            }
        }
    }
}

fn write_time(out: &mut String, t: crate::time::RosTime) -> std::fmt::Result {
    use std::fmt::Write as _;
    write!(out, ",\"time\":{{\"sec\":{},\"nsec\":{}}}", t.sec, t.nsec)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Catalog, Selection};
    use crate::cli::where_args::WhereArgs;

    #[test]
    fn a_kept_where_message_is_decoded_once() {
        let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.bag")).unwrap();
        let bag =
            crate::bag::Bag::from_bytes("demo.bag", bytes, crate::bag::OpenOptions::default())
                .unwrap();
        let catalog = Catalog::new(vec![bag]);
        let selection = Selection {
            topics: vec!["/battery".into()],
            ..Selection::default()
        };
        let args = WhereArgs {
            expr: Some("header.seq < 10".into()),
        };
        let schemas = Schemas::default();
        let filter = args
            .compile(catalog.selected_connections(&selection), &schemas)
            .unwrap()
            .unwrap();
        let mut printer = Printer::new(EchoFormat::Json, schemas.registry().clone());
        let before = crate::catalog::decodes_on_this_thread();
        let (mut read, mut kept) = (0u64, 0u64);
        for item in catalog.messages(&selection) {
            let m = item.unwrap();
            let bag = catalog.bag(m.bag).unwrap();
            read += 1;
            if let Some((text, ok)) = printer.render_kept(Some(&filter), m.bag, bag, &m.message) {
                assert!(ok && text.contains("\"percentage\""), "{text}");
                kept += 1;
            }
        }
        assert_eq!(read, 24);
        assert_eq!(kept, 10, "{kept} of {read} kept");
        // One decode per message read, kept or not (twice per kept message before).
        assert_eq!(crate::catalog::decodes_on_this_thread() - before, read);
        // Without --where, one decode per message printed.
        let before = crate::catalog::decodes_on_this_thread();
        for item in catalog.messages(&selection) {
            let m = item.unwrap();
            let bag = catalog.bag(m.bag).unwrap();
            assert!(printer.render_kept(None, m.bag, bag, &m.message).is_some());
        }
        assert_eq!(crate::catalog::decodes_on_this_thread() - before, read);
    }
}
