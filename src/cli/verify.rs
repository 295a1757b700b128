//! `bagscope verify`: read, decompress and decode every message of every connection (in
//! parallel across chunks) and report each problem with file, byte offset, topic and what.

use std::collections::HashMap;
use std::sync::Arc;

use clap::Args;

use crate::bag::{Bag, Chunk, ConnId, parallel_map};
use crate::catalog::compile;
use crate::msg::{Registry, Schema};

use super::args::BagsArgs;
use super::error::CliError;
use super::outcome::Outcome;
use super::term::{Stdout, outln};
use super::term::{print_error, print_warning};
use crate::wording::count;

/// Arguments of `bagscope verify`.
#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The bags, and where the definitions they lack come from.
    #[command(flatten)]
    pub input: BagsArgs,
}

/// One problem found.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Problem {
    /// File offset (of the message record, or of its chunk for compressed chunks); none for
    /// problems of a whole connection.
    pub offset: Option<u64>,
    /// Topic, when the problem concerns messages of one.
    pub topic: Option<String>,
    /// What is wrong.
    pub what: String,
}

/// What verifying one bag found.
#[derive(Debug, Default)]
pub struct Report {
    /// Messages read and checked.
    pub messages: u64,
    /// Chunks read.
    pub chunks: u64,
    /// Problems, sorted by offset.
    pub problems: Vec<Problem>,
    /// Notes that are not problems (md5 mismatches, bundled definitions).
    pub notes: Vec<String>,
    /// The file changed on disk while it was verified: the report is incomplete.
    pub changed: Option<crate::bag::BagError>,
}

/// Runs `bagscope verify`.
pub fn run(args: &VerifyArgs) -> Result<Outcome, CliError> {
    let registry = args.input.msg.registry()?;
    let mut outcome = Outcome::Ok;
    let (mut total_msgs, mut total_problems) = (0u64, 0usize);
    let mut out = Stdout::human();
    for path in &crate::bag::inputs::expand(&args.input.bags) {
        if out.is_closed() {
            break;
        }
        let bag = match Bag::open_with(path, super::cache_dir::open_options()) {
            Ok(b) => b,
            Err(e) => {
                print_error(&e);
                outcome = Outcome::Failed;
                continue;
            }
        };
        let started = std::time::Instant::now();
        let report = verify_bag(&bag, &registry);
        if let Some(e) = &report.changed {
            // What was checked is not the file any more: no summary, one error.
            print_error(e);
            outcome = outcome.max(Outcome::Problems);
            total_problems += 1;
            continue;
        }
        let shown = path.display();
        for n in &report.notes {
            print_warning(format_args!("{shown}: {n}"));
        }
        // The end of a recording still being written: not checked, and no problem.
        if let Some(u) = bag.recovery().and_then(|r| r.unfinished.as_ref()) {
            super::term::print_note(format_args!("{shown}: unfinished: {u}"));
        }
        for p in &report.problems {
            let at = p
                .offset
                .map(|o| format!(" at byte {o}:"))
                .unwrap_or_default();
            let topic = p
                .topic
                .as_ref()
                .map(|t| format!(" {t}:"))
                .unwrap_or_default();
            outln!(out, "{shown}:{at}{topic} {}", p.what);
        }
        outln!(
            out,
            "{shown}: {} in {} verified in {:.2} s: {}",
            count(report.messages, "message"),
            count(report.chunks, "chunk"),
            started.elapsed().as_secs_f64(),
            match report.problems.len() {
                0 => "no problems".to_string(),
                n => count(n as u64, "problem"),
            }
        );
        total_msgs += report.messages;
        total_problems += report.problems.len();
        if !report.problems.is_empty() {
            outcome = outcome.max(Outcome::Problems);
        }
    }
    if args.input.bags.len() > 1 {
        outln!(
            out,
            "total: {} bags, {}, {}",
            args.input.bags.len(),
            count(total_msgs, "message"),
            count(total_problems as u64, "problem")
        );
    }
    Ok(out.finish(outcome))
}

/// Verifies one bag: what opening it revealed, then every chunk and message.
pub fn verify_bag(bag: &Bag, registry: &Registry) -> Report {
    let mut report = Report::default();
    if let Some(r) = bag.recovery() {
        for l in &r.losses {
            report.problems.push(Problem {
                offset: Some(l.offset),
                topic: None,
                what: format!("lost: {l}"),
            });
        }
    }
    // Schemas once per connection, shared by the workers.
    let mut schemas: HashMap<ConnId, Result<Arc<Schema>, String>> = HashMap::new();
    for c in bag.connections() {
        let entry = compile(c, registry);
        report.notes.extend(entry.notes.iter().cloned());
        // Messages in an encoding bagscope does not decode (MCAP protobuf, ...) are read and
        // framed like the others but not decoded: a note, not a problem.
        if c.wire().is_none() {
            if c.message_count > 0 {
                report.notes.push(format!(
                    "{}: {} message(s) in encoding '{}' read but not decoded",
                    c.topic, c.message_count, c.message_encoding
                ));
            }
        } else if let Err(e) = &entry.schema {
            if c.message_count > 0 {
                report.problems.push(Problem {
                    offset: None,
                    topic: Some(c.topic.clone()),
                    what: format!(
                        "{} message(s) of connection {} cannot be decoded: {e}",
                        c.message_count, c.file_id
                    ),
                });
            }
        }
        schemas.insert(c.id, entry.schema.map_err(|e| e.to_string()));
    }
    let chunks: Vec<&Chunk> = bag.chunks().iter().collect();
    let results = parallel_map(&chunks, bag.threads(), |chunk| {
        verify_chunk(bag, chunk, &schemas)
    });
    for (messages, problems) in results {
        report.messages += messages;
        report.chunks += 1;
        report.problems.extend(problems);
    }
    for w in bag.warnings() {
        report.problems.push(Problem {
            offset: w.offset,
            topic: None,
            what: w.message.clone(),
        });
    }
    report.problems.sort();
    report.problems.dedup();
    report.changed = bag.changed_on_disk();
    report
}

/// Checks one chunk: it decompresses, its index matches its records, every message reads and
/// decodes. Returns (messages checked, problems).
fn verify_chunk(
    bag: &Bag,
    chunk: &Chunk,
    schemas: &HashMap<ConnId, Result<Arc<Schema>, String>>,
) -> (u64, Vec<Problem>) {
    let mut problems = Vec::new();
    if bag.changed_on_disk().is_some() {
        // Reported once, by `verify_bag`.
        return (0, problems);
    }
    let topic = |c: ConnId| bag.connection(c).map(|c| c.topic.clone());
    let entries = bag.chunk_entries(chunk.index);
    // Held against the bag's decode budget until the chunk is checked: all workers together
    // hold at most that much decompressed data.
    let (bytes, _permit) = match bag.chunk_bytes_held(chunk.index) {
        Ok(b) => b,
        Err(_) if bag.changed_on_disk().is_some() => return (0, problems),
        Err(e) => {
            problems.push(Problem {
                offset: Some(chunk.pos),
                topic: None,
                what: format!("{} message(s) unreadable: {}", entries.len(), e.what()),
            });
            return (0, problems);
        }
    };
    // Every message the index lists must be in the chunk...
    let lost = bag.unfound(chunk.index, |_| true);
    if lost > 0 {
        problems.push(Problem {
            offset: Some(chunk.pos),
            topic: None,
            what: crate::bag::BagErrorKind::NotFound { lost }.to_string(),
        });
    }
    // An MCAP chunk's records must match their CRC.
    if let Some(what) = crate::bag::mcap::crc::chunk_crc_mismatch(bag, chunk, &bytes) {
        problems.push(Problem {
            offset: Some(chunk.pos),
            topic: None,
            what,
        });
    }
    // ...and every message record of the chunk must be in its index.
    if chunk.is_record() {
        let (records, walk_error) = bag.count_message_records(chunk, &bytes);
        if records > entries.len() {
            problems.push(Problem {
                offset: Some(chunk.pos),
                topic: None,
                what: format!(
                    "the chunk holds {records} message records but its index lists {}",
                    entries.len()
                ),
            });
        }
        if let Some(e) = walk_error {
            problems.push(Problem {
                offset: Some(e.file_offset()),
                topic: None,
                what: format!("chunk records unreadable: {e}"),
            });
        }
    }
    let mut checked = 0u64;
    // Known once the chunk is loaded; `None` reads as compressed (offsets in the chunk).
    let plain = bag
        .chunk_head(chunk.index)
        .filter(|h| h.compression == crate::format::Compression::None)
        .map(|h| h.data_offset);
    for entry in entries.iter() {
        let at = if let Some(data_offset) = plain.filter(|_| chunk.is_record()) {
            data_offset + entry.offset
        } else if chunk.is_record() {
            chunk.pos
        } else {
            entry.offset
        };
        let where_ = if chunk.is_record() && plain.is_none() {
            format!(" (offset {} in the uncompressed chunk)", entry.offset)
        } else {
            String::new()
        };
        let message = match bag.read_with(entry, &bytes) {
            Ok(m) => m,
            Err(e) => {
                problems.push(Problem {
                    offset: Some(e.offset.unwrap_or(at)),
                    topic: topic(entry.conn),
                    what: e.what(),
                });
                continue;
            }
        };
        checked += 1;
        if let Some(Ok(schema)) = schemas.get(&entry.conn) {
            // The decoder itself, not a lighter check: verify passes exactly the messages
            // that `echo` and the other commands can decode (its value cap included).
            if let Err(e) = crate::msg::decode(schema, &message.data) {
                problems.push(Problem {
                    offset: Some(at),
                    topic: topic(entry.conn),
                    what: format!("message at {} does not decode{where_}: {e}", entry.time),
                });
            }
        }
    }
    (checked, problems)
}
