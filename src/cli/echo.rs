//! `bagscope echo`: decoded messages of one or many bags in receive-time order, as
//! `rostopic echo` YAML or as one JSON object per line.

use clap::{Args, ValueEnum};

use crate::catalog::Schemas;
use crate::msg::{json, yaml};

use super::args::{BagsArgs, SelectArgs, open_catalog};
use super::damage::{readable, report_unread};
use super::term::Stdout;
use super::{Outcome, print_error, print_warning};

/// Output formats of `echo`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EchoFormat {
    /// `rostopic echo` style, `---` after each message.
    Yaml,
    /// One JSON object per line (docs/JSON.md).
    Json,
}

/// Arguments of `bagscope echo`.
#[derive(Args, Debug)]
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
    /// The bags, and where the definitions they lack come from.
    #[command(flatten)]
    pub input: BagsArgs,
}

/// Runs `bagscope echo`.
pub fn run(args: &EchoArgs) -> Outcome {
    let (catalog, mut outcome) = match open_catalog(&args.input.bags) {
        Ok(c) => c,
        Err(o) => return o,
    };
    let registry = match args.input.msg.registry() {
        Ok(r) => r,
        Err(o) => return o,
    };
    let selection = match args.select.checked_selection(&catalog) {
        Ok(s) => s,
        Err(o) => return o,
    };
    let mut printer = Printer::new(args.format, registry);
    let mut out = Stdout::data();
    let mut written = 0u64;
    let mut unread = crate::bag::Unread::default();
    for item in catalog.messages(&selection) {
        if args.limit.is_some_and(|n| written >= n) {
            break;
        }
        let Some((m, bag)) = readable(&catalog, item, &mut unread) else {
            continue;
        };
        let (text, ok) = printer.render(m.bag, bag, &m.message);
        if !ok {
            outcome = outcome.max(Outcome::Problems);
        }
        out.bytes(text.as_bytes());
        if out.is_closed() {
            break;
        }
        written += 1;
    }
    outcome = outcome.max(report_unread(&unread));
    out.finish(outcome)
}

/// Renders messages in `echo`'s formats, compiling each connection's schema once.
pub struct Printer {
    format: EchoFormat,
    schemas: Schemas,
    told: std::collections::HashSet<crate::catalog::BagConn>,
    text: String,
}

impl Printer {
    /// A printer for `format`, with `registry` for definitions the bags lack.
    pub fn new(format: EchoFormat, registry: crate::msg::Registry) -> Self {
        Printer {
            format,
            schemas: Schemas::new(registry),
            told: std::collections::HashSet::new(),
            text: String::new(),
        }
    }

    /// The text of one message of bag `bag_index`, and whether it decoded (a failure is
    /// reported on stderr; in JSON an `"error"` line keeps the lines aligned).
    pub fn render(
        &mut self,
        bag_index: usize,
        bag: &crate::bag::Bag,
        message: &crate::bag::Message,
    ) -> (&str, bool) {
        self.text.clear();
        let Some(conn) = bag.connection(message.entry.conn) else {
            return (&self.text, false);
        };
        let entry = self.schemas.get(bag_index, conn);
        if self
            .told
            .insert(crate::catalog::BagConn::new(bag_index, conn.id))
        {
            for n in &entry.notes {
                print_warning(format_args!("{}: {n}", bag.path().display()));
            }
        }
        let time = message.entry.time;
        let decoded = match &entry.schema {
            Ok(s) => crate::msg::decode(s, &message.data).map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
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
                    bag.path().display(),
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
