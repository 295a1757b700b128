//! `bagscope call NS START END [-t TOPIC]...`: the bagserver's client. Asks the server serving
//! under NS (`bagscope serve --namespace NS`) to publish an interval, waits until it has, and
//! prints its answer.

use std::time::{Duration, Instant};

use clap::Args;

use crate::play::bagserver::srv::{PLAY_INTERVAL_MD5, SERVICE_NAME};
use crate::play::bagserver::{PREEMPT_FIELD, PlayIntervalRequest, PlayIntervalResponse};
use crate::ros::xmlrpc::XmlRpcError;
use crate::ros::{Header, MasterClient, NodeConfig, RosError, call_service_with_header, names};
use crate::time::{RosTime, TimeSpec, parse_time_spec};

use super::outcome::Outcome;
use super::serve::parse_rate;
use super::term::print_error;
use super::term::{Stdout, outln};

/// Arguments of `bagscope call`.
#[derive(Args, Debug)]
pub struct CallArgs {
    /// The namespace the bagserver publishes under (its `--namespace`).
    #[arg(value_name = "NS")]
    pub namespace: String,
    /// First receive time: seconds since the epoch, or `+SECONDS` after the index's first
    /// message.
    #[arg(value_parser = parse_time_spec, allow_hyphen_values = true, value_name = "START")]
    pub start: TimeSpec,
    /// Last receive time (inclusive), in the same form as START.
    #[arg(value_parser = parse_time_spec, allow_hyphen_values = true, value_name = "END")]
    pub end: TimeSpec,
    /// Only this topic, by its original name (repeatable; default: every indexed topic).
    #[arg(short = 't', long = "topic", value_name = "TOPIC")]
    pub topics: Vec<String>,
    /// Speed: a factor of the recorded timing, or `max`; default: the server's `--rate`.
    #[arg(short = 'r', long, value_name = "R", value_parser = parse_rate)]
    pub rate: Option<f64>,
    /// Give up after this many seconds in all — finding the service, connecting, waiting in
    /// line and for the answer (default: wait as long as the server is publishing).
    #[arg(long, value_name = "S", value_parser = parse_timeout)]
    pub timeout: Option<f64>,
    /// Stop the request the server is publishing (its client gets an error) and go before
    /// the ones waiting.
    #[arg(long)]
    pub preempt: bool,
}

fn parse_timeout(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(t) if t.is_finite() && t > 0.0 && t <= 1e9 => Ok(t),
        _ => Err(format!("'{s}' is not a positive number of seconds")),
    }
}

/// The request's interval: both absolute, or both offsets (`relative`).
fn interval(start: TimeSpec, end: TimeSpec) -> Result<(RosTime, RosTime, bool), String> {
    let offset = |d: i128, what: &str| {
        u64::try_from(d)
            .ok()
            .filter(|n| *n <= RosTime::MAX.as_nanos())
            .map(RosTime::from_nanos)
            .ok_or_else(|| format!("{what}: an offset must be between +0 and +4294967295"))
    };
    match (start, end) {
        (TimeSpec::Absolute(a), TimeSpec::Absolute(b)) => Ok((a, b, false)),
        (TimeSpec::Offset(a), TimeSpec::Offset(b)) => {
            Ok((offset(a, "START")?, offset(b, "END")?, true))
        }
        _ => Err(
            "START and END must both be times (seconds since the epoch) or both offsets (+S)"
                .into(),
        ),
    }
}

/// Runs `bagscope call`.
pub fn run(args: &CallArgs) -> Outcome {
    let fail = |message: String| {
        print_error(message);
        Outcome::Failed
    };
    let namespace = names::resolve("/", &args.namespace);
    if let Err(e) = names::validate_global(&namespace) {
        return fail(format!("NS: {e}"));
    }
    let (start, end, relative) = match interval(args.start, args.end) {
        Ok(i) => i,
        Err(e) => return fail(e),
    };
    let started = Instant::now();
    let whole = args.timeout.map(Duration::from_secs_f64);
    let too_late = |service: &str| {
        format!(
            "{service}: no answer within {} s (--timeout); the server goes on with the request",
            args.timeout.unwrap_or_default()
        )
    };
    let callerid = names::anonymous("/bagscope_call");
    let config = match NodeConfig::from_env(&callerid) {
        Ok(c) => c,
        Err(e) => return fail(e.to_string()),
    };
    let service = names::relocate(&namespace, SERVICE_NAME);
    let master_timeout = whole.map_or(config.call_timeout, |w| w.min(config.call_timeout));
    let master = MasterClient::new(&config.master_uri, &config.name, master_timeout);
    let uri = match master.lookup_service(&service) {
        Ok(u) => u,
        Err(RosError::Refused { .. }) => {
            return fail(format!(
                "no service {service} is registered with the master at {} (is `bagscope serve \
                 --namespace {namespace}` running?)",
                config.master_uri
            ));
        }
        Err(
            e @ RosError::Call {
                source: XmlRpcError::TimedOut { .. },
                ..
            },
        ) if whole.is_some_and(|w| started.elapsed() >= w) => {
            return fail(format!(
                "{service}: no answer within {} s (--timeout) from the ROS master at {}: {e}",
                args.timeout.unwrap_or_default(),
                config.master_uri
            ));
        }
        Err(e) => {
            return fail(format!(
                "cannot reach the ROS master at {}: {e}",
                config.master_uri
            ));
        }
    };
    let request = PlayIntervalRequest {
        start,
        end,
        relative,
        topics: args.topics.clone(),
        rate: args.rate.unwrap_or(0.0),
    };
    let mut hello = Header::new()
        .with("callerid", &config.name)
        .with("md5sum", PLAY_INTERVAL_MD5)
        .with("service", &service);
    if args.preempt {
        hello.insert(PREEMPT_FIELD, "1");
    }
    // What is left of --timeout bounds the rest of the call, the answer included.
    let left = whole.map(|w| {
        w.saturating_sub(started.elapsed())
            .max(Duration::from_millis(1))
    });
    let answer =
        call_service_with_header(&uri, &hello, &request.encode(), config.call_timeout, left);
    let body = match answer {
        Ok(Ok(body)) => body,
        Ok(Err(refusal)) => return fail(format!("{service}: {refusal}")),
        Err(RosError::Io { source, .. })
            if source.kind() == std::io::ErrorKind::TimedOut
                && whole.is_some_and(|w| started.elapsed() >= w) =>
        {
            return fail(too_late(&service));
        }
        Err(e) => return fail(format!("calling {service}: {e}")),
    };
    let response = match PlayIntervalResponse::decode(&body) {
        Ok(r) => r,
        Err(e) => return fail(format!("{service}: {e}")),
    };
    let mut out = Stdout::human();
    outln!(out, "published: {}", response.published);
    outln!(out, "failed: {}", response.failed);
    outln!(out, "first: {}", response.first);
    outln!(out, "last: {}", response.last);
    outln!(out, "message: {}", response.message);
    out.finish(if response.failed > 0 {
        Outcome::Problems
    } else {
        Outcome::Ok
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals() {
        let abs = |s, n| TimeSpec::Absolute(RosTime::new(s, n));
        assert_eq!(
            interval(abs(5, 1), abs(3, 0)),
            Ok((RosTime::new(5, 1), RosTime::new(3, 0), false))
        );
        assert_eq!(
            interval(TimeSpec::Offset(1_500_000_000), TimeSpec::Offset(0)),
            Ok((RosTime::new(1, 500_000_000), RosTime::new(0, 0), true))
        );
        assert!(interval(abs(1, 0), TimeSpec::Offset(0)).is_err());
        assert!(interval(TimeSpec::Offset(-1), TimeSpec::Offset(0)).is_err());
        assert!(parse_timeout("0").is_err());
        assert!(parse_timeout("nan").is_err());
        assert_eq!(parse_timeout("2.5"), Ok(2.5));
        assert_eq!(parse_rate("max"), Ok(f64::INFINITY));
        assert!(parse_rate("0").is_err());
    }
}
