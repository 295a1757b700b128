//! `bagscope echo --follow`: the messages of a bag still being recorded, printed as they are
//! written (see [`crate::cli::follow`] for how a follow ends). With `--where`, only those the
//! expression keeps; it is compiled again for the connections seen so far whenever one
//! appears (one it does not fit ends the follow with the error), keeping each topic's memory
//! for `diff()`/`rate()`.

use std::time::Duration;

use crate::cli::error::CliError;
use crate::cli::follow::{POLL_BUDGET, Stop, gave_up, open, report_losses, single};
use crate::cli::outcome::Outcome;
use crate::cli::term::{Stdout, print_error};

use super::args::EchoArgs;
use super::printer::Printer;

/// Runs `bagscope echo --follow`.
pub fn echo(args: &EchoArgs) -> Result<Outcome, CliError> {
    let path = &single(&args.input.bags)?;
    if args.select.start.is_some() || args.select.end.is_some() {
        return Err(CliError::Usage(
            "--follow prints every new message: --start and --end do not apply".to_string(),
        ));
    }
    let registry = args.input.msg.registry()?;
    let mut follower = open(path, false)?;
    let topics: Vec<String> = args
        .select
        .topics
        .iter()
        .map(|t| {
            if t.starts_with('/') {
                t.clone()
            } else {
                format!("/{t}")
            }
        })
        .collect();
    let stop = Stop::watch();
    let schemas = crate::catalog::Schemas::new(registry.clone());
    // A syntax error is told before anything is read.
    let mut filter = args.filter.compile(std::iter::empty(), &schemas)?;
    let mut printer = Printer::new(args.format, registry);
    let mut out = Stdout::data();
    let mut outcome = Outcome::Ok;
    let mut written = 0u64;
    loop {
        let update = match follower.poll(POLL_BUDGET) {
            Ok(u) => u,
            Err(e) => {
                print_error(e);
                return Ok(out.finish(Outcome::Failed));
            }
        };
        if report_losses(path, &update) {
            outcome = outcome.max(Outcome::Problems);
        }
        if !update.new_connections.is_empty() && args.filter.expr.is_some() {
            // `--where`: compiled again for the connections seen so far (a new one must fit).
            let conns = follower
                .connections()
                .iter()
                .filter(|c| topics.is_empty() || topics.contains(&c.topic))
                .map(|c| (0, c));
            match args.filter.compile(conns, &schemas) {
                Ok(Some(mut w)) => {
                    if let Some(old) = filter.take() {
                        w.take_over(old);
                    }
                    filter = Some(w);
                }
                Ok(None) => {}
                Err(e) => {
                    e.print();
                    return Ok(out.finish(Outcome::Failed));
                }
            }
        }
        for m in &update.messages {
            if args.limit.is_some_and(|n| written >= n) {
                break;
            }
            let Some(conn) = follower.connections().get(m.conn as usize) else {
                continue;
            };
            if !topics.is_empty() && !topics.contains(&conn.topic) {
                continue;
            }
            if let Some(w) = &filter {
                if !w.keep(crate::catalog::BagConn::new(0, conn.id), m.time, &m.data) {
                    continue;
                }
            }
            let (text, ok) = printer.render_conn(0, path, conn, m.time, &m.data);
            if !ok {
                outcome = outcome.max(Outcome::Problems);
            }
            out.bytes(text.as_bytes());
            written += 1;
        }
        if std::io::Write::flush(&mut out).is_err() || out.is_closed() {
            return Ok(out.finish(outcome));
        }
        if args.limit.is_some_and(|n| written >= n) || update.finished {
            return Ok(out.finish(outcome));
        }
        if let Some(sig) = stop.signal() {
            return Ok(out.finish(outcome.max(Outcome::Signal(sig))));
        }
        if !update.more && gave_up(path, &mut follower, args.idle_timeout) {
            return Ok(out.finish(outcome.max(Outcome::Problems)));
        }
        if !update.more {
            if let Err(e) = stop.wait(&follower, Duration::from_secs(1)) {
                print_error(e);
                return Ok(out.finish(Outcome::Failed));
            }
        }
    }
}
