//! `bagscope serve INDEX --namespace NS`: the bagserver. Provides `NS/play_interval`
//! (`bagscope_msgs/PlayInterval`) and publishes the indexed messages of each requested
//! interval under NS, until Ctrl-C, SIGTERM, SIGHUP, a shutdown request (`rosnode kill`) or
//! the master is lost (6 s without an answer).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;

use crate::catalog::index::Index;
use crate::play::bagserver::{Bagserver, MIN_RATE, ServeOptions};
use crate::ros::{Node, NodeConfig, QueueLimits, names};

use super::controls::Stops;
use super::outcome::Outcome;
use super::term::{print_error, print_note, print_warning};

/// Arguments of `bagscope serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The index file (`bagscope index build`).
    #[arg(value_name = "INDEX")]
    pub index: PathBuf,
    /// Publish every topic under this namespace (`/odom` → `NS/odom`); the service is
    /// `NS/play_interval`.
    #[arg(long, value_name = "NS")]
    pub namespace: String,
    /// Speed of requests that do not choose one: a factor of the recorded timing (1: as
    /// recorded), or `max` (as fast as the connections take them; slow subscribers may drop).
    #[arg(short = 'r', long, default_value = "1", value_name = "R", value_parser = parse_rate)]
    pub rate: f64,
    /// Skip stretches longer than S seconds without messages (e.g. between bags recorded
    /// hours apart) instead of waiting through them; 0 never skips.
    #[arg(long, default_value_t = 10.0, value_name = "S", value_parser = parse_seconds)]
    pub skip_empty: f64,
    /// Messages queued per subscriber (publishing waits up to 1 s when a queue is full; a
    /// subscriber that makes it wait that long then loses its oldest messages).
    #[arg(long, default_value_t = 100, value_name = "N")]
    pub queue: usize,
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(t) if t.is_finite() && (0.0..=1e9).contains(&t) => Ok(t),
        _ => Err(format!("'{s}' is not a number of seconds")),
    }
}

/// A rate: `max` (or `inf`) or a positive factor.
pub(super) fn parse_rate(s: &str) -> Result<f64, String> {
    if matches!(s, "max" | "inf" | "+inf") {
        return Ok(f64::INFINITY);
    }
    match s.parse::<f64>() {
        Ok(r) if r.is_finite() && r > 0.0 => Ok(r),
        _ => Err(format!("'{s}' is not a positive number or 'max'")),
    }
}

/// Runs `bagscope serve`.
pub fn run(args: &ServeArgs) -> Outcome {
    let namespace = names::resolve("/", &args.namespace);
    if let Err(e) = names::validate_global(&namespace) {
        print_error(format!("--namespace: {e}"));
        return Outcome::Failed;
    }
    if args.rate < MIN_RATE {
        print_error(format!("--rate {}: at least {MIN_RATE}, or max", args.rate));
        return Outcome::Failed;
    }
    let index = match Index::open(&args.index) {
        Ok(i) => i,
        Err(e) => {
            print_error(e);
            return Outcome::Failed;
        }
    };
    // The bags are opened before the node starts: its connection caps are fitted to the
    // file descriptors left then.
    let catalog = match index.catalog() {
        Ok(c) => c,
        Err(e) => {
            print_error(e);
            return Outcome::Failed;
        }
    };
    let config = match NodeConfig::from_env(&names::anonymous("bagscope_serve")) {
        Ok(c) => c,
        Err(e) => {
            print_error(e);
            return Outcome::Failed;
        }
    };
    let master_uri = config.master_uri.clone();
    let node = match Node::start(config) {
        Ok(n) => Arc::new(n),
        Err(e) => {
            print_error(format!("cannot reach the ROS master at {master_uri}: {e}"));
            return Outcome::Failed;
        }
    };
    let options = ServeOptions {
        namespace,
        rate: args.rate,
        skip_empty: (args.skip_empty > 0.0).then(|| Duration::from_secs_f64(args.skip_empty)),
        limits: QueueLimits {
            messages: args.queue.max(1),
            ..QueueLimits::default()
        },
        ..ServeOptions::default()
    };
    note_few_descriptors(&node, |line| print_warning(line));
    node.on_refusal(|line| print_warning(line));
    let server = match Bagserver::start(&node, index, catalog, &options, |line| {
        print_note(line);
    }) {
        Ok(s) => s,
        Err(e) => {
            print_error(e);
            let _ = node.shutdown();
            return Outcome::Failed;
        }
    };
    let ix = server.index();
    let span = match (ix.start_time(), ix.end_time()) {
        (Some(a), Some(b)) => format!(", {a} to {b}"),
        _ => String::new(),
    };
    print_note(format_args!(
        "serving {} ({} of {} topic(s) in {} bag(s){span}) as {} (master {master_uri})",
        args.index.display(),
        crate::wording::count(ix.entry_count(), "message"),
        server.output_topics().len(),
        ix.files().len(),
        node.name(),
    ));
    print_note(format_args!(
        "service {} (bagscope_msgs/PlayInterval); topics under {}; Ctrl-C stops",
        server.service_name(),
        server.namespace()
    ));

    let (stops, tx) = Stops::watch(&node, MASTER_CHECK, MASTER_MISSES, move |why| {
        print_error(format_args!("lost the ROS master at {master_uri}: {why}"));
    });
    drop(tx);
    stops.wait_for_stop();
    print_note("stopping");
    server.stop();
    if let Err(e) = node.shutdown() {
        print_warning(format_args!("unregistering from the master: {e}"));
    }
    if stops.master_lost() {
        Outcome::Problems
    } else {
        Outcome::Ok
    }
}

/// Says so (through `say`) when the node's caps had to be lowered to fit the process's
/// limit on open files.
pub(super) fn note_few_descriptors(node: &Node, say: impl Fn(&str)) {
    let (now, configured) = (node.limits(), &node.config().limits);
    if now.max_subscribers < configured.max_subscribers || now.max_active < configured.max_active {
        let limit = crate::ros::raise_limit().map_or_else(|| "?".into(), |l| l.to_string());
        say(&format!(
            "the limit on open files is {limit}: at most {} subscribers ({} per address) and \
             {} connections per server",
            now.max_subscribers, now.max_subscribers_per_peer, now.max_active
        ));
    }
}

/// How often the master is checked, and after how many failures in a row it is taken as
/// lost (the server then unregisters what it can and exits 1).
const MASTER_CHECK: Duration = Duration::from_secs(2);
const MASTER_MISSES: u32 = 3;
