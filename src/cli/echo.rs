//! `bagscope echo`: decoded messages of one or many bags in receive-time order, as
//! `rostopic echo` YAML or as one JSON object per line.

use clap::{Args, ValueEnum};

use crate::catalog::Schemas;
use crate::msg::{json, yaml};

use super::args::{BagsArgs, SelectArgs, open_catalog, topics_from_bags};
use super::damage::{readable, report_unread};
use super::field_paths;
use super::term::Stdout;
use super::where_args::WhereArgs;
use super::{Outcome, print_error, print_note, print_warning};

/// Output formats of `echo`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EchoFormat {
    /// `rostopic echo` style, `---` after each message.
    Yaml,
    /// One JSON object per line (docs/JSON.md).
    Json,
}

/// Arguments of `bagscope echo`.
#[derive(Args, Debug, Clone)]
pub struct EchoArgs {
    /// Which messages.
    #[command(flatten)]
    pub select: SelectArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = EchoFormat::Yaml)]
    pub format: EchoFormat,
    /// Stop after this many messages.
    #[arg(long, short = 'n', value_name = "N")]
    pub limit: Option<u64>,
    /// Which messages, by content.
    #[command(flatten)]
    pub filter: WhereArgs,
    /// The bags, and where the definitions they lack come from.
    #[command(flatten)]
    pub input: BagsArgs,
    /// Follow one bag that is still being recorded (`.bag.active`): print its messages,
    /// then each new one as it is written, until the recording ends or Ctrl-C.
    #[arg(long)]
    pub follow: bool,
    /// With `--follow`: stop waiting once the file has not grown for this many seconds and
    /// no process holds it open for writing (a recorder that crashed); exit 1. 0: wait
    /// forever.
    #[arg(long, value_name = "SECS", default_value_t = super::follow::IDLE_TIMEOUT)]
    pub idle_timeout: u64,
}

/// Runs `bagscope echo` (`BAG` arguments that look like topics select them, see
/// [`topics_from_bags`]).
pub fn run(args: &EchoArgs) -> Outcome {
    let mut args = args.clone();
    topics_from_bags(&mut args.input, &mut args.select);
    let args = &args;
    if args.follow {
        return super::follow::echo(args);
    }
    let (catalog, mut outcome) = match open_catalog(&args.input.bags) {
        Ok(c) => c,
        Err(o) => return o,
    };
    let registry = match args.input.msg.registry() {
        Ok(r) => r,
        Err(o) => return o,
    };
    let fields = match field_paths::split_topics(&args.select.topics, &catalog) {
        Ok(f) => f,
        Err(e) => {
            print_error(e);
            return Outcome::Failed;
        }
    };
    let select = SelectArgs {
        topics: fields.topics.clone(),
        ..args.select.clone()
    };
    let selection = match select.checked_selection(&catalog) {
        Ok(s) => s,
        Err(o) => return o,
    };
    let mut printer = Printer::new(args.format, registry.clone());
    if let Err(e) = printer.set_paths(&fields, &catalog) {
        print_error(e);
        return Outcome::Failed;
    }
    let conns = selected_connections(&catalog, &selection);
    let filter = match args.filter.compile(conns, &Schemas::new(registry)) {
        Ok(f) => f,
        Err(e) => {
            e.print();
            return Outcome::Failed;
        }
    };
    let mut out = Stdout::data();
    let mut written = 0u64;
    let mut unread = crate::bag::Unread::default();
    if args.limit.is_none() {
        // Every message is printed: format on every core, in order.
        for (i, conn) in selected_connections(&catalog, &selection) {
            if let Some(bag) = catalog.bag(i) {
                printer.tell(i, bag.path(), conn);
            }
        }
        let messages = catalog
            .messages(&selection)
            .filter_map(|item| readable(&catalog, item, &mut unread).map(|(m, _)| m));
        let problems =
            super::echo_all::print_all(messages, &catalog, &printer, filter.as_ref(), &mut out);
        outcome = outcome.max(problems.outcome);
        printer.no_value += problems.no_value;
    } else {
        for item in catalog.messages(&selection) {
            if args.limit.is_some_and(|n| written >= n) {
                break;
            }
            let Some((m, bag)) = readable(&catalog, item, &mut unread) else {
                continue;
            };
            let conn = crate::catalog::BagConn::new(m.bag, m.message.entry.conn);
            if filter
                .as_ref()
                .is_some_and(|f| !f.keep(conn, &m.message.data))
            {
                continue;
            }
            let before = printer.no_value;
            let (text, ok) = printer.render(m.bag, bag, &m.message);
            if !ok {
                outcome = outcome.max(Outcome::Problems);
            }
            out.bytes(text.as_bytes());
            if out.is_closed() {
                break;
            }
            // As rostopic's `-n`, a message without a value at the field path does not count.
            if printer.no_value == before || args.format == EchoFormat::Json {
                written += 1;
            }
        }
    }
    outcome = outcome.max(report_unread(&unread));
    if let Some(f) = &filter {
        f.report();
    }
    if printer.no_value > 0 {
        print_note(format_args!(
            "{} messages had no value at the field path (an index past the end of the array): none printed for them",
            printer.no_value
        ));
    }
    out.finish(outcome)
}

/// The connections `selection` reads: (bag index, connection).
pub fn selected_connections<'c>(
    catalog: &'c crate::catalog::Catalog,
    selection: &'c crate::catalog::Selection,
) -> impl Iterator<Item = (usize, &'c crate::bag::Connection)> + 'c {
    catalog.bags().iter().enumerate().flat_map(move |(i, bag)| {
        bag.connections()
            .iter()
            .filter(|c| {
                selection.topics.is_empty()
                    || selection
                        .topics
                        .iter()
                        .any(|t| crate::catalog::topic_matches(t, &c.topic))
            })
            .map(move |c| (i, c))
    })
}

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
