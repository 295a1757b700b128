//! `bagscope export --format images -o DIR`: one file per camera frame, named by receive time
//! (`1700000000.123456789.png`): an `Image` converted to PNG (its data kept: see
//! `picture::png`), a `CompressedImage`'s JPEG/PNG bytes as they are. Each file is written to
//! a temporary file and renamed, so a cut-off run leaves whole frames only; inside DIR no
//! link is followed (see `OutputDir`). `--where` keeps only the frames its expression holds
//! for (`header.frame_id == "left"`, `width > 600`).

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use crate::bag::rewrite::Progress;
use crate::bag::writer::OutputDir;
use crate::catalog::{BagConn, DecodePlan};
use crate::picture::{is_image_type, png};
use crate::time::RosTime;

use super::args::ExportArgs;
use crate::cli::context::{Context, Wanted};
use crate::cli::damage::{readable, report_unread};
use crate::cli::error::CliError;
use crate::cli::outcome::Outcome;
use crate::cli::progress::CopyProgress;
use crate::cli::term::print_error;
use crate::cli::term::print_note;
use crate::cli::term::print_warning;

/// Runs `bagscope export --format images`.
pub fn run(args: &ExportArgs) -> Result<Outcome, CliError> {
    let Some(dir) = &args.output else {
        return Err(CliError::Usage(
            "--format images needs an output directory: -o DIR".to_string(),
        ));
    };
    if args.select.topics.is_empty() {
        return Err(CliError::Usage(
            "export needs a topic: -t TOPIC".to_string(),
        ));
    }
    let mut ctx = Context::open(&Wanted::new(&args.input, &args.select, &args.filter))?;
    let mut outcome = ctx.outcome;
    let (catalog, selection) = (&ctx.catalog, &ctx.selection);
    let out = OutputDir::create(dir)?;
    let range = selection_range(catalog, selection);
    let mut progress = CopyProgress::new(range);
    let mut names = FrameNames::default();
    let (mut written, mut skipped) = (0u64, 0u64);
    let mut unread = crate::bag::Unread::default();
    for item in catalog.messages(selection) {
        let Some((m, bag)) = readable(catalog, item, &mut unread) else {
            continue;
        };
        let Some(conn) = bag.connection(m.message.entry.conn) else {
            continue;
        };
        let time = m.message.entry.time;
        let where_ = || format!("{}: {} message at {time}", bag.path().display(), conn.topic);
        if !is_image_type(&conn.datatype) {
            print_error(format!(
                "{}: {} is a {}, not an Image or CompressedImage",
                bag.path().display(),
                conn.topic,
                conn.datatype
            ));
            return Ok(Outcome::Failed);
        }
        let bag_conn = BagConn::new(m.bag, conn.id);
        // With `--where`, a kept frame was decoded to test it: that value is used.
        let kept = match &ctx.filter {
            Some(w) => match w.decode_kept(bag_conn, time, &m.message.data) {
                Some(value) => Some(value),
                None => continue,
            },
            None => None,
        };
        let plan;
        let decoded = if let Some(value) = kept {
            Ok(value)
        } else {
            plan = match &ctx.schemas.get(m.bag, conn).schema {
                Ok(s) => DecodePlan::new(Arc::clone(s), None),
                Err(e) => {
                    print_error(format!("{}: {}: {e}", bag.path().display(), conn.topic));
                    return Ok(Outcome::Failed);
                }
            };
            plan.decode(&m.message.data)
        };
        let frame = decoded.map_err(|e| e.to_string()).and_then(|v| {
            png::frame(&conn.datatype, v.root())
                .map(|f| (f.bytes.into_owned(), f.extension))
                .map_err(|e| e.to_string())
        });
        let (bytes, extension) = match frame {
            Ok(f) => f,
            Err(e) => {
                print_error(format!("{}: {e}", where_()));
                skipped += 1;
                outcome = outcome.max(Outcome::Problems);
                continue;
            }
        };
        let name = names.next(time, extension);
        if let Err(e) = write_atomic(&out, &name, &bytes) {
            print_error(e);
            progress.finish();
            return Ok(Outcome::Failed);
        }
        written += 1;
        progress.update(Progress {
            time,
            messages: written,
        });
    }
    progress.finish();
    outcome = outcome.max(report_unread(&unread));
    if let Some(f) = &ctx.filter {
        f.report();
    }
    if skipped > 0 {
        print_warning(format_args!(
            "{skipped} frames could not be converted (see above)"
        ));
    }
    print_note(format_args!("wrote {written} frames to {}", dir.display()));
    Ok(outcome)
}

/// The time range the selection covers, for the progress bar.
fn selection_range(
    catalog: &crate::catalog::Catalog,
    selection: &crate::catalog::Selection,
) -> Option<(RosTime, RosTime)> {
    let start = selection.start.or(catalog.start_time())?;
    let end = selection.end.or(catalog.end_time())?;
    Some((
        start.max(catalog.start_time()?),
        end.min(catalog.end_time()?),
    ))
}

/// The names of the frames: `SEC.NSEC.EXT`, and `SEC.NSEC-N.EXT` for the `N`th frame of
/// that receive time and extension. One count per (time, extension): each name is made in
/// constant time, however many frames share a time (`SEC.NSEC` holds no `-`, so the names
/// never collide).
#[derive(Debug, Default)]
struct FrameNames {
    counts: HashMap<(RosTime, &'static str), u64>,
}

impl FrameNames {
    /// The name of the next frame received at `time`.
    fn next(&mut self, time: RosTime, ext: &'static str) -> String {
        let n = self.counts.entry((time, ext)).or_insert(0);
        *n += 1;
        let base = format!("{}.{:09}", time.sec, time.nsec);
        if *n == 1 {
            format!("{base}.{ext}")
        } else {
            format!("{base}-{n}.{ext}")
        }
    }
}

/// Writes a whole file `name` in `out` or nothing.
fn write_atomic(
    out: &OutputDir,
    name: &str,
    bytes: &[u8],
) -> Result<(), crate::bag::writer::WriteError> {
    let mut file = out.create_file(Path::new(name))?;
    file.write_all(bytes)
        .map_err(|source| crate::bag::writer::WriteError::Io {
            path: out.path().join(name),
            what: "cannot write",
            source,
        })?;
    file.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_sharing_a_time_get_numbered_names() {
        let mut names = FrameNames::default();
        let t = RosTime::new(1_700_000_000, 5);
        // Many frames at one time: each name once, made without searching the names so far
        // (one map entry per time and extension).
        let got: Vec<String> = (0..50_000).map(|_| names.next(t, "png")).collect();
        assert_eq!(got[0], "1700000000.000000005.png");
        assert_eq!(got[1], "1700000000.000000005-2.png");
        assert_eq!(got[49_999], "1700000000.000000005-50000.png");
        let unique: std::collections::HashSet<&String> = got.iter().collect();
        assert_eq!(unique.len(), got.len());
        assert_eq!(names.counts.len(), 1);
        // Another extension or time starts its own count.
        assert_eq!(names.next(t, "jpg"), "1700000000.000000005.jpg");
        assert_eq!(
            names.next(RosTime::new(1_700_000_000, 6), "png"),
            "1700000000.000000006.png"
        );
    }
}
