//! Rendering one message in `echo`'s formats (`rostopic echo` YAML, JSON lines), whole or the
//! values a field path names.

use crate::catalog::Schemas;
use crate::cli::field_paths;
use crate::cli::term::{print_error, print_warning};
use crate::msg::{json, yaml};

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

    /// Prints only the value each topic's field path names (`-t /topic/field`), resolved
    /// against every connection of the topic; `Err` with the message when a path does not fit
    /// a connection's type.
    pub fn set_paths(
        &mut self,
        paths: &field_paths::FieldTopics,
        catalog: &crate::catalog::Catalog,
    ) -> Result<(), String> {
        self.paths = field_paths::resolve(paths, catalog, &mut self.schemas)?;
        Ok(())
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
        self.text.clear();
        self.tell(bag_index, path, conn);
        let schema = self.schemas.get(bag_index, conn).schema.clone();
        let decoded = match &schema {
            Ok(s) => crate::msg::decode(s, data).map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
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
                        let _ = yaml::write_echo_values(text, &values);
                    }
                    EchoFormat::Json => {
                        let _ = json::write_field(
                            text,
                            &conn.topic,
                            &conn.datatype,
                            time,
                            path.text(),
                            &values,
                            path.has_wildcard(),
                        );
                        text.push('\n');
                    }
                }
                (text, true)
            }
            (decoded, _) => self.render_whole(decoded, path, conn, time),
        }
    }

    fn render_whole(
        &mut self,
        decoded: Result<crate::msg::Decoded<'_>, String>,
        path: &std::path::Path,
        conn: &crate::bag::Connection,
        time: crate::time::RosTime,
    ) -> (&str, bool) {
        let text = &mut self.text;
        match (decoded, self.format) {
            (Ok(v), EchoFormat::Yaml) => {
                let _ = yaml::write_echo(text, &v);
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
