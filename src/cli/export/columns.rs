//! `bagscope export --column NAME=EXPR`: computed columns instead of the message's fields.
//!
//! CSV: `%time` (receive time in nanoseconds, as `rostopic echo -p`), then one column per
//! `--column` in the order given; integers printed as integers, floats as the CSV export
//! prints them (Python's `repr`), an empty cell where there is no value. JSON lines: one
//! object per message, `{"topic":…,"time":{"sec":…,"nsec":…},"values":{"NAME":…}}` (`null`
//! for no value). Messages are read in receive-time order on this thread: `diff()` and
//! `rate()` compare each message with its topic's previous one, whether `--where` kept that
//! one or not.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write;
use std::sync::Arc;

use crate::bag::Unread;
use crate::catalog::{BagConn, DecodePlan};
use crate::cli::context::Context;
use crate::cli::damage::readable;
use crate::cli::error::CliError;
use crate::msg::expr::{Expr, Memory, Num, Quantity};
use crate::msg::render::pyrepr;
use crate::msg::{ValueRef, json};

use super::args::ExportFormat;
use super::text::Written;

/// One `--column NAME=EXPR`, parsed.
#[derive(Debug, Clone)]
pub struct Column {
    /// The column's name.
    pub name: String,
    /// Its expression.
    pub expr: Expr,
}

/// Parses the `--column` values: `NAME=EXPR`, names unique, non-empty, without a comma, a
/// quote or a control character. `Err` with the message.
pub fn parse(values: &[String]) -> Result<Vec<Column>, String> {
    let mut out: Vec<Column> = Vec::new();
    for v in values {
        let Some((name, text)) = v.split_once('=') else {
            return Err(format!(
                "--column '{v}': expected NAME=EXPR (e.g. speed='norm(twist.twist.linear)')"
            ));
        };
        let name = name.trim();
        if name.is_empty() {
            return Err(format!(
                "--column '{v}': the column needs a name before '='"
            ));
        }
        if name.chars().any(|c| c == ',' || c == '"' || c.is_control()) || name == "%time" {
            return Err(format!(
                "--column '{v}': a column name cannot hold a comma, a quote or a control character, nor be %time"
            ));
        }
        if out.iter().any(|c| c.name == name) {
            return Err(format!(
                "--column '{v}': there is already a column named '{name}'"
            ));
        }
        let expr = Expr::parse(text.trim()).map_err(|e| {
            format!(
                "--column {name}: {}\n  {}",
                e.message(),
                e.pointer().replace('\n', "\n  ")
            )
        })?;
        out.push(Column {
            name: name.to_string(),
            expr,
        });
    }
    Ok(out)
}

/// A connection's schema and its columns compiled.
type Plan = (Arc<crate::msg::Schema>, Arc<Vec<Quantity>>);

/// The columns compiled for every selected connection; `Err` (a usage error naming the
/// topic and type) for the first that does not fit.
fn compile(columns: &[Column], ctx: &mut Context) -> Result<HashMap<BagConn, Plan>, CliError> {
    let mut out = HashMap::new();
    let mut by_type: HashMap<(String, String, String), Arc<Vec<Quantity>>> = HashMap::new();
    let conns: Vec<(usize, crate::bag::Connection)> = ctx
        .catalog
        .selected_connections(&ctx.selection)
        .map(|(i, c)| (i, c.clone()))
        .collect();
    for (bag, conn) in conns {
        let Ok(schema) = ctx.schemas.get(bag, &conn).schema.clone() else {
            continue;
        };
        let key = (
            conn.topic.clone(),
            conn.datatype.clone(),
            conn.message_definition.clone(),
        );
        if let Some(q) = by_type.get(&key) {
            out.insert(BagConn::new(bag, conn.id), (schema, Arc::clone(q)));
            continue;
        }
        let mut quantities = Vec::new();
        for c in columns {
            let q = c
                .expr
                .compile_quantity(schema.root(), &conn.topic)
                .map_err(|e| {
                    CliError::Usage(format!(
                        "--column {}: topic '{}' ({}): {}\n  {}",
                        c.name,
                        conn.topic,
                        conn.datatype,
                        e.message(),
                        e.pointer().replace('\n', "\n  ")
                    ))
                })?;
            quantities.push(q);
        }
        let q = Arc::new(quantities);
        by_type.insert(key, Arc::clone(&q));
        out.insert(BagConn::new(bag, conn.id), (schema, q));
    }
    Ok(out)
}

/// Writes the computed columns of the selected messages to `out`.
pub(super) fn run(
    columns: &[Column],
    format: ExportFormat,
    ctx: &mut Context,
    out: &mut dyn Write,
    unread: &mut Unread,
) -> Result<std::io::Result<Written>, CliError> {
    let plans = compile(columns, ctx)?;
    let ctx = &*ctx;
    let mut written = Written::default();
    let mut memories: HashMap<String, Vec<Memory>> = HashMap::new();
    let mut line = String::new();
    if format == ExportFormat::Csv {
        line.push_str("%time");
        for c in columns {
            line.push(',');
            line.push_str(&c.name);
        }
        line.push('\n');
    }
    let mut values: Vec<Option<Num>> = Vec::with_capacity(columns.len());
    for item in ctx.catalog.messages(&ctx.selection) {
        if item.is_err() {
            // Lost messages of unknown topics: no topic has a known previous message.
            memories.values_mut().flatten().for_each(Memory::clear);
            if let Some(w) = &ctx.filter {
                w.forget();
            }
        }
        let Some((m, bag)) = readable(&ctx.catalog, item, unread) else {
            continue;
        };
        let Some(conn) = bag.connection(m.message.entry.conn) else {
            continue;
        };
        let key = BagConn::new(m.bag, conn.id);
        let time = m.message.entry.time;
        let Some((schema, quantities)) = plans.get(&key) else {
            written.fatal = Some(format!(
                "{}: {}: no definition of {} to decode it with",
                bag.path().display(),
                conn.topic,
                conn.datatype
            ));
            break;
        };
        let memory = memories
            .entry(conn.topic.clone())
            .or_insert_with(|| vec![Memory::new(); columns.len()]);
        let plan = DecodePlan::new(Arc::clone(schema), None);
        let decoded = match plan.decode(&m.message.data) {
            Ok(d) => d,
            Err(e) => {
                crate::cli::term::print_error(format!(
                    "{}: {} message at {time}: {e}",
                    bag.path().display(),
                    conn.topic
                ));
                written.undecoded += 1;
                memory.iter_mut().for_each(Memory::clear);
                continue;
            }
        };
        let ns = i64::try_from(time.as_nanos()).unwrap_or(i64::MAX);
        values.clear();
        for (q, mem) in quantities.iter().zip(memory.iter_mut()) {
            values.push(q.eval_num(decoded.root(), ns, mem));
        }
        if ctx
            .filter
            .as_ref()
            .is_some_and(|w| !w.keep(key, time, &m.message.data))
        {
            continue;
        }
        if format == ExportFormat::Csv {
            let _ = write!(line, "{}", time.as_nanos());
            for v in &values {
                line.push(',');
                write_csv(&mut line, *v);
            }
        } else {
            {
                line.push_str("{\"topic\":");
                let _ = json::write_str(&mut line, &conn.topic);
                let _ = write!(
                    line,
                    ",\"time\":{{\"sec\":{},\"nsec\":{}}},\"values\":{{",
                    time.sec, time.nsec
                );
                for (i, (c, v)) in columns.iter().zip(&values).enumerate() {
                    if i > 0 {
                        line.push(',');
                    }
                    let _ = json::write_str(&mut line, &c.name);
                    line.push(':');
                    write_json(&mut line, *v);
                }
                line.push_str("}}");
            }
        }
        line.push('\n');
        written.rows += 1;
        if line.len() >= 1 << 16 {
            if let Err(e) = out.write_all(line.as_bytes()) {
                return Ok(Err(e));
            }
            line.clear();
        }
    }
    if let Err(e) = out.write_all(line.as_bytes()) {
        return Ok(Err(e));
    }
    if let Some(fatal) = &written.fatal {
        crate::cli::term::print_error(fatal);
    }
    Ok(Ok(written))
}

/// A CSV cell: an integer as it is, a float as Python's `repr`, nothing for no value.
fn write_csv(out: &mut String, v: Option<Num>) {
    match v {
        None => {}
        Some(Num::Int(i)) => {
            let _ = write!(out, "{i}");
        }
        Some(Num::Float(f)) => {
            let _ = pyrepr::write_float(out, f);
        }
    }
}

/// A JSON value as `echo --format json` writes numbers; `null` for no value.
fn write_json(out: &mut String, v: Option<Num>) {
    match v {
        None => out.push_str("null"),
        Some(Num::Int(i)) => {
            let _ = write!(out, "{i}");
        }
        Some(Num::Float(f)) => {
            let _ = json::write_value(out, &ValueRef::F64(f));
        }
    }
}
