//! `bagscope log --follow`: the log messages of a bag still being recorded, printed as they
//! are written (see [`crate::cli::follow`] for how a follow ends).

use std::collections::HashMap;
use std::time::Duration;

use crate::bag::{ConnId, Connection};
use crate::catalog::log::is_log_type;
use crate::catalog::log_record::LogRecord;
use crate::catalog::{BagConn, DecodePlan, DecodePlans, Schemas};
use crate::cli::error::CliError;
use crate::cli::follow::{POLL_BUDGET, Stop, gave_up, open, report_losses, single};
use crate::cli::outcome::Outcome;
use crate::cli::term::{Stdout, print_error};
use crate::cli::where_args::Where;
use crate::msg::Registry;

use super::args::LogArgs;
use super::line::LineStyle;
use super::pick::{Pick, Seen};

/// How the messages of one connection are read: not at all (not a log topic, or no
/// definition), decoded, or decoded and tested.
enum Reading {
    Skip,
    Decode(DecodePlan),
    Test(Box<Where>),
}

/// The connections met so far and how each is read.
struct Readings<'a> {
    args: &'a LogArgs,
    schemas: Schemas,
    by_conn: HashMap<ConnId, Reading>,
}

impl Readings<'_> {
    /// How `conn` is read, set up when first met: `/rosout_agg` only while there is no
    /// `/rosout` (unless topics were given); `Err` when `--where` does not fit its type.
    fn of(&mut self, conn: &Connection, others: &[Connection]) -> Result<&Reading, CliError> {
        if !self.by_conn.contains_key(&conn.id) {
            let reading = self.set_up(conn, others)?;
            self.by_conn.insert(conn.id, reading);
        }
        Ok(self.by_conn.get(&conn.id).unwrap_or(&Reading::Skip))
    }

    fn set_up(&self, conn: &Connection, others: &[Connection]) -> Result<Reading, CliError> {
        let topics = &self.args.select.topics;
        let wanted = if topics.is_empty() {
            is_log_type(&conn.datatype)
                && (conn.topic != "/rosout_agg" || !others.iter().any(|c| c.topic == "/rosout"))
        } else {
            topics
                .iter()
                .any(|t| crate::catalog::topic_matches(t, &conn.topic))
                && is_log_type(&conn.datatype)
        };
        if !wanted {
            return Ok(Reading::Skip);
        }
        let one = [(0usize, conn)];
        if let Some(w) = self.args.filter.compile(one, &self.schemas)? {
            return Ok(Reading::Test(Box::new(w)));
        }
        let plans = DecodePlans::new(one, None, self.schemas.registry()).unwrap_or_default();
        if let Some(p) = plans.get(BagConn::new(0, conn.id)) {
            return Ok(Reading::Decode(p.clone()));
        }
        print_error(format_args!(
            "{}: no usable definition of {}: its messages cannot be read",
            conn.topic, conn.datatype
        ));
        Ok(Reading::Skip)
    }
}

/// Runs `bagscope log --follow`.
pub fn log(args: &LogArgs, style: LineStyle, pick: &Pick) -> Result<Outcome, CliError> {
    let path = &single(&args.input.bags)?;
    if args.select.start.is_some() || args.select.end.is_some() {
        return Err(CliError::Usage(
            "--follow prints every new message: --start and --end do not apply".to_string(),
        ));
    }
    let registry: Registry = args.input.msg.registry()?;
    let mut follower = open(path, false)?;
    let mut readings = Readings {
        args,
        schemas: Schemas::new(registry),
        by_conn: HashMap::new(),
    };
    let stop = Stop::watch();
    let mut out = Stdout::escaped_by_caller();
    let mut outcome = Outcome::Ok;
    let mut seen = Seen::default();
    let mut undecodable = 0u64;
    let finish = |out: Stdout, outcome: Outcome, seen: &Seen, undecodable: u64| {
        let mut outcome = outcome;
        if undecodable > 0 {
            print_error(format_args!(
                "{undecodable} log message(s) could not be decoded"
            ));
            outcome = outcome.max(Outcome::Problems);
        }
        pick.warn_unseen(seen, args.filter.expr.is_some());
        Ok(out.finish(outcome))
    };
    loop {
        let update = match follower.poll(POLL_BUDGET) {
            Ok(u) => u,
            Err(e) => {
                print_error(e);
                return finish(out, Outcome::Failed, &seen, undecodable);
            }
        };
        if report_losses(path, &update) {
            outcome = outcome.max(Outcome::Problems);
        }
        let mut text = String::new();
        for m in &update.messages {
            let conns = follower.connections();
            let Some(conn) = conns.get(m.conn as usize) else {
                continue;
            };
            let decoded = match readings.of(conn, conns)? {
                Reading::Skip => continue,
                Reading::Test(w) => {
                    let before = w.undecodable();
                    let Some(d) = w.decode_kept(BagConn::new(0, conn.id), m.time, &m.data) else {
                        if w.undecodable() > before {
                            undecodable += 1;
                        }
                        continue;
                    };
                    d
                }
                Reading::Decode(plan) => match plan.decode(&m.data) {
                    Ok(d) => d,
                    Err(e) => {
                        if undecodable == 0 {
                            print_error(format_args!(
                                "{}: log message at {} does not decode: {e}",
                                path.display(),
                                m.time
                            ));
                        }
                        undecodable += 1;
                        continue;
                    }
                },
            };
            let record = LogRecord::read(&decoded.root());
            if pick.wants_nodes() {
                seen.note(record.name, record.kind);
            }
            if pick.keeps(&record) {
                style.push(&mut text, &conn.topic, m.time, &record);
            }
        }
        out.bytes(text.as_bytes());
        if std::io::Write::flush(&mut out).is_err() || out.is_closed() || update.finished {
            return finish(out, outcome, &seen, undecodable);
        }
        if let Some(sig) = stop.signal() {
            return finish(out, outcome.max(Outcome::Signal(sig)), &seen, undecodable);
        }
        if !update.more && gave_up(path, &mut follower, args.idle_timeout) {
            return finish(out, outcome.max(Outcome::Problems), &seen, undecodable);
        }
        if !update.more {
            if let Err(e) = stop.wait(&follower, Duration::from_secs(1)) {
                print_error(e);
                return finish(out, Outcome::Failed, &seen, undecodable);
            }
        }
    }
}
