//! `bagscope info`: the `rosbag info` summary (same rows, order and number formats), its YAML
//! form, and JSON; plus what `rosbag info` lacks: bags it cannot open (unindexed, truncated,
//! old versions), the true first/last message times, and what recovery found or lost.

mod follow;
mod forms;
mod health;
mod log;
mod ros2;
pub mod summary;

use std::path::PathBuf;

use clap::Args;

use crate::bag::Bag;
use crate::bag::stats_cache::{Slot, StatsCache};

use super::error::CliError;
use super::json::Json;
use super::outcome::Outcome;
use super::term::{Stdout, outln};
use health::{health_json, health_text};
use summary::Summary;

/// Arguments of `bagscope info` (independent flags, hence the bools).
#[derive(Args, Debug)]
#[allow(clippy::struct_excessive_bools)]
pub struct InfoArgs {
    /// Print YAML (the `rosbag info --yaml` keys).
    #[arg(long, short = 'y', conflicts_with = "json")]
    pub yaml: bool,
    /// Print JSON (one object per bag; an array for several bags).
    #[arg(long)]
    pub json: bool,
    /// Also compute each topic's median message rate (reads the index data of every chunk,
    /// never the chunks themselves).
    #[arg(long)]
    pub freq: bool,
    /// Also report each topic's health: median rate, gaps longer than a few periods,
    /// out-of-order receive times, type conflicts, chunk compression (from index data only),
    /// and the log lines (`/rosout`) per node and level (the log topics' chunks are read).
    #[arg(long)]
    pub health: bool,
    /// Bag files.
    #[arg(required = true, value_name = "BAG")]
    pub bags: Vec<PathBuf>,
    /// Follow one bag that is still being recorded: print its summary again on each change
    /// (redrawn in place on a terminal) until the recording ends or Ctrl-C; with `--freq`,
    /// with each topic's median rate so far.
    #[arg(long, conflicts_with_all = ["yaml", "json", "health"])]
    pub follow: bool,
    /// With `--follow`: stop waiting once the file has not grown for this many seconds and
    /// no process holds it open for writing (a recorder that crashed); exit 1. 0: wait
    /// forever.
    #[arg(long, value_name = "SECS", default_value_t = super::follow::IDLE_TIMEOUT)]
    pub idle_timeout: u64,
    /// Read every chunk record header for the compression statistics, even when they are
    /// remembered from an earlier run on the same unchanged file (see `BAGSCOPE_CACHE_DIR`);
    /// and remember nothing.
    #[arg(long)]
    pub no_cache: bool,
}

/// Runs `bagscope info`.
pub fn run(args: &InfoArgs) -> Result<Outcome, CliError> {
    if args.follow {
        return follow::info(&args.bags, args.freq, args.idle_timeout);
    }
    let cache = if args.no_cache {
        None
    } else {
        super::cache_dir::stats_cache()
    };
    let mut outcome = Outcome::Ok;
    let mut texts = Vec::new();
    let mut jsons = Vec::new();
    for path in &args.bags {
        let bag = match ros2::open_input(path, args.health, !args.no_cache, &mut outcome) {
            ros2::Input::Nothing => continue,
            ros2::Input::Bag(b) => b,
            ros2::Input::Ros2(info) => {
                let shown = path.display().to_string();
                if args.json {
                    jsons.push(info.json(&shown));
                } else if args.yaml {
                    texts.push(ros2::yaml(&info.json(&shown)));
                } else {
                    texts.push(info.text());
                }
                continue;
            }
        };
        if bag.recovery().is_some_and(|r| !r.is_lossless()) {
            outcome = outcome.max(Outcome::Problems);
        }
        let heads = Heads::start(&bag, cache.as_ref(), !args.health);
        let shown = path.display().to_string();
        let summary = Summary::new(&bag, args.freq);
        let health = args.health.then(|| {
            crate::catalog::health::compute(
                &crate::catalog::Catalog::new(vec![bag.clone()]),
                &mut |_| {},
            )
        });
        let logs = if args.health {
            log::LogCounts::read(&crate::catalog::Catalog::new(vec![bag.clone()]))
        } else {
            None
        };
        if args.json {
            let mut j = summary.json(&bag, &shown);
            if let (Json::Obj(pairs), Some(h)) = (&mut j, &health) {
                pairs.push(("health".into(), health_json(h)));
                if let Some(l) = &logs {
                    pairs.push(("log".into(), l.json()));
                }
            }
            jsons.push(j);
        } else if args.yaml {
            texts.push(summary.yaml(&bag, &shown));
        } else {
            let mut t = summary.text(&bag, &shown);
            if let Some(h) = &health {
                t.push('\n');
                t.push_str(&health_text(h));
            }
            if let Some(l) = &logs {
                t.push('\n');
                t.push_str(&l.text());
            }
            texts.push(t);
        }
        heads.finish(&bag, cache.as_ref());
        retire(bag);
    }
    if args.json {
        let out = match jsons.len() {
            1 => jsons.pop().unwrap_or(Json::Null),
            _ => Json::Arr(jsons),
        };
        if !matches!(out, Json::Arr(ref v) if v.is_empty()) || args.bags.len() > 1 {
            let mut stdout = Stdout::data();
            outln!(stdout, "{}", out.to_compact());
            return Ok(stdout.finish(outcome));
        }
        Ok(outcome)
    } else {
        // The YAML form is data; the rosbag-style text is a summary, always escaped.
        let mut stdout = if args.yaml {
            Stdout::data()
        } else {
            Stdout::human()
        };
        outln!(stdout, "{}", texts.join("\n---\n"));
        Ok(stdout.finish(outcome))
    }
}

/// Where a bag's compression statistics (shown in every form, from every chunk record header)
/// come from.
enum Heads {
    /// Remembered from an earlier run on the same unchanged file.
    Remembered,
    /// Read on the bag's threads while the rest of the summary is worked out; the bag's place
    /// in the cache, to remember them.
    Reading(std::thread::JoinHandle<()>, Option<Slot>),
    /// Read when the summary asks for them (few chunks).
    WhenAsked(Option<Slot>),
}

impl Heads {
    /// Takes the statistics `cache` remembers for `bag` (when `use_remembered`), or starts
    /// reading the headers.
    fn start(bag: &Bag, cache: Option<&StatsCache>, use_remembered: bool) -> Heads {
        let slot = cache.map(|c| c.slot(bag));
        let remembered = cache
            .zip(slot.as_ref())
            .filter(|_| use_remembered)
            .and_then(|(c, s)| c.load_in(s));
        if let Some(stats) = remembered {
            bag.know_compression_stats(stats);
            Heads::Remembered
        } else if bag.pending_heads() >= MANY_HEADS {
            let b = bag.clone();
            Heads::Reading(std::thread::spawn(move || b.read_heads()), slot)
        } else {
            Heads::WhenAsked(slot)
        }
    }

    /// Waits for the headers being read, and remembers statistics that were read.
    fn finish(self, bag: &Bag, cache: Option<&StatsCache>) {
        let slot = match self {
            Heads::Remembered => return,
            Heads::Reading(thread, slot) => {
                let _ = thread.join();
                slot
            }
            Heads::WhenAsked(slot) => slot,
        };
        if let (Some(c), Some(slot)) = (cache, slot) {
            c.store_in(&slot, bag, &bag.compression_stats());
        }
    }
}

/// Chunk record headers worth reading on a thread of their own while the rest of the summary
/// is worked out (fewer are read in less time than the thread takes to start).
const MANY_HEADS: usize = 16_384;

/// Drops a bag of many chunks on a thread of its own: freeing a million chunks takes tens of
/// milliseconds the printed summary need not wait for (the process may exit first).
fn retire(bag: crate::bag::Bag) {
    if bag.chunks().len() >= 1 << 16 {
        std::thread::spawn(move || drop(bag));
    }
}
