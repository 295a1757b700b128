//! `bagscope echo --where EXPR --intervals`: the stretches of time in which a condition held,
//! one line per maximal run of consecutive messages of a topic for which it holds:
//! `START END COUNT` (receive times of the run's first and last message as `sec.nsec` with 9
//! digits, the form `--start` takes), and the topic as a 4th column when several topics are
//! selected (then the lines are ordered by start time, then topic).
//!
//! The messages are read in receive-time order on this thread. A message of the topic for
//! which the condition does not hold ends the topic's run; so does one that cannot be
//! decoded, and a damaged stretch of the bag (whose lost messages may be any topic's) ends
//! every run. `--start`/`--end` cut runs at the range's ends. With `--format json`, one
//! object per stretch: `{"topic":…,"start":{"sec","nsec"},"end":{…},"count":N}`.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::catalog::BagConn;
use crate::cli::context::{Context, Wanted};
use crate::cli::damage::{readable, report_unread};
use crate::cli::error::CliError;
use crate::cli::outcome::Outcome;
use crate::cli::term::{Stdout, print_note};
use crate::msg::json;
use crate::time::RosTime;

use super::args::{EchoArgs, EchoFormat};

/// One run of matching messages of a topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stretch {
    /// Receive time of its first message.
    pub start: RosTime,
    /// Receive time of its last message.
    pub end: RosTime,
    /// How many messages it spans.
    pub count: u64,
}

/// Collects the stretches of several topics from messages fed in receive-time order.
#[derive(Debug, Default)]
pub struct Runs {
    /// The run open on each topic.
    open: HashMap<String, Stretch>,
    /// Runs ended, with their topic, in the order they ended.
    done: Vec<(String, Stretch)>,
}

impl Runs {
    /// A message of `topic` received at `time`, for which the condition holds (`true`) or
    /// not (or which could not be decoded: `false`).
    pub fn message(&mut self, topic: &str, time: RosTime, holds: bool) {
        if holds {
            match self.open.get_mut(topic) {
                Some(run) => {
                    run.end = time;
                    run.count += 1;
                }
                None => {
                    self.open.insert(
                        topic.to_string(),
                        Stretch {
                            start: time,
                            end: time,
                            count: 1,
                        },
                    );
                }
            }
        } else if let Some(run) = self.open.remove(topic) {
            self.done.push((topic.to_string(), run));
        }
    }

    /// Ends every open run (messages of unknown topics were lost).
    pub fn break_all(&mut self) {
        let mut open: Vec<(String, Stretch)> = self.open.drain().collect();
        open.sort_by(|a, b| (a.1.start, &a.0).cmp(&(b.1.start, &b.0)));
        self.done.extend(open);
    }

    /// Takes the runs ended so far, in the order they ended.
    pub fn take_done(&mut self) -> Vec<(String, Stretch)> {
        std::mem::take(&mut self.done)
    }

    /// Ends every run and gives them all (those not taken yet), ordered by start, then
    /// topic.
    pub fn finish(mut self) -> Vec<(String, Stretch)> {
        self.break_all();
        let mut all = self.done;
        all.sort_by(|a, b| (a.1.start, &a.0).cmp(&(b.1.start, &b.0)));
        all
    }
}

/// `sec.nsec` with nine digits.
pub fn time_text(t: RosTime) -> String {
    format!("{}.{:09}", t.sec, t.nsec)
}

/// One output line (with its newline).
fn line(out: &mut String, format: EchoFormat, topic: &str, run: &Stretch, with_topic: bool) {
    match format {
        EchoFormat::Yaml => {
            let _ = write!(
                out,
                "{} {} {}",
                time_text(run.start),
                time_text(run.end),
                run.count
            );
            if with_topic {
                out.push(' ');
                out.push_str(&crate::printable::escape_line(topic));
            }
        }
        EchoFormat::Json => {
            out.push_str("{\"topic\":");
            let _ = json::write_str(out, topic);
            let _ = write!(
                out,
                ",\"start\":{{\"sec\":{},\"nsec\":{}}},\"end\":{{\"sec\":{},\"nsec\":{}}},\"count\":{}}}",
                run.start.sec, run.start.nsec, run.end.sec, run.end.nsec, run.count
            );
        }
    }
    out.push('\n');
}

/// Runs `bagscope echo --where EXPR --intervals`.
pub fn run(args: &EchoArgs) -> Result<Outcome, CliError> {
    if args.filter.expr.is_none() {
        return Err(CliError::Usage(
            "--intervals prints the stretches where a condition holds: give it with --where EXPR"
                .to_string(),
        ));
    }
    if args.limit.is_some() || args.follow {
        return Err(CliError::Usage(
            "--intervals reads the whole selection: -n and --follow do not apply".to_string(),
        ));
    }
    let ctx = Context::open(&Wanted::new(&args.input, &args.select, &args.filter))?;
    let Some(filter) = &ctx.filter else {
        return Ok(ctx.outcome);
    };
    let topics: std::collections::BTreeSet<&str> = ctx
        .catalog
        .selected_connections(&ctx.selection)
        .map(|(_, c)| c.topic.as_str())
        .collect();
    let several = topics.len() > 1;
    let mut out = Stdout::data();
    let mut runs = Runs::default();
    let mut unread = crate::bag::Unread::default();
    let mut text = String::new();
    let (mut count, mut seconds) = (0u64, 0f64);
    let mut tally = |list: &[(String, Stretch)]| {
        for (_, r) in list {
            count += 1;
            #[allow(clippy::cast_precision_loss)]
            let span = r.end.as_nanos().saturating_sub(r.start.as_nanos()) as f64 / 1e9;
            seconds += span;
        }
    };
    for item in ctx.catalog.messages(&ctx.selection) {
        if item.is_err() {
            runs.break_all();
            filter.forget();
        }
        let Some((m, bag)) = readable(&ctx.catalog, item, &mut unread) else {
            continue;
        };
        let Some(conn) = bag.connection(m.message.entry.conn) else {
            continue;
        };
        let time = m.message.entry.time;
        let holds = filter.keep(BagConn::new(m.bag, conn.id), time, &m.message.data);
        runs.message(&conn.topic, time, holds);
        if !several {
            // One topic: each stretch is printed as soon as it ends.
            let done = runs.take_done();
            tally(&done);
            for (topic, r) in &done {
                line(&mut text, args.format, topic, r, false);
            }
            if text.len() >= 1 << 14 {
                out.bytes(text.as_bytes());
                text.clear();
                if out.is_closed() {
                    break;
                }
            }
        }
    }
    let rest = runs.finish();
    tally(&rest);
    for (topic, r) in &rest {
        line(&mut text, args.format, topic, r, several);
    }
    out.bytes(text.as_bytes());
    filter.report();
    let outcome = ctx.outcome.max(report_unread(&unread));
    print_note(format_args!(
        "{count} stretch{}, {seconds:.1} s in total",
        if count == 1 { "" } else { "es" }
    ));
    Ok(out.finish(outcome))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ns: u64) -> RosTime {
        RosTime::new(
            u32::try_from(ns / 1_000_000_000).unwrap(),
            u32::try_from(ns % 1_000_000_000).unwrap(),
        )
    }

    #[test]
    fn runs_end_at_a_miss_and_per_topic() {
        let mut runs = Runs::default();
        for (topic, ns, holds) in [
            ("/a", 1, true),
            ("/b", 2, true),
            ("/a", 3, true),
            ("/b", 4, false),
            ("/a", 5, false),
            ("/a", 6, true),
            ("/b", 7, true),
        ] {
            runs.message(topic, t(ns), holds);
        }
        assert_eq!(
            runs.finish(),
            vec![
                (
                    "/a".into(),
                    Stretch {
                        start: t(1),
                        end: t(3),
                        count: 2
                    }
                ),
                (
                    "/b".into(),
                    Stretch {
                        start: t(2),
                        end: t(2),
                        count: 1
                    }
                ),
                (
                    "/a".into(),
                    Stretch {
                        start: t(6),
                        end: t(6),
                        count: 1
                    }
                ),
                (
                    "/b".into(),
                    Stretch {
                        start: t(7),
                        end: t(7),
                        count: 1
                    }
                ),
            ]
        );
        let mut runs = Runs::default();
        runs.message("/a", t(1), true);
        runs.break_all();
        runs.message("/a", t(2), true);
        assert_eq!(runs.finish().len(), 2);
        assert_eq!(
            time_text(t(1_700_000_000_000_000_042)),
            "1700000000.000000042"
        );
    }
}
