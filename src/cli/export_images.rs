//! `bagscope export --format images -o DIR`: one file per camera frame, named by receive time
//! (`1700000000.123456789.png`): an `Image` converted to PNG (its data kept: see
//! `picture::png`), a `CompressedImage`'s JPEG/PNG bytes as they are. Each file is written to
//! a temporary file and renamed, so a cut-off run leaves whole frames only. `--where` keeps
//! only the frames its expression holds for (`header.frame_id == "left"`, `width > 600`).

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::bag::rewrite::Progress;
use crate::bag::writer::AtomicFile;
use crate::catalog::{BagConn, Schemas};
use crate::picture::{is_image_type, png};
use crate::time::RosTime;

use super::args::open_selection;
use super::damage::{readable, report_unread};
use super::export::ExportArgs;
use super::progress::CopyProgress;
use super::{Outcome, print_error, print_note, print_warning};

/// Runs `bagscope export --format images`.
pub fn run(args: &ExportArgs) -> Outcome {
    let Some(dir) = &args.output else {
        print_error("--format images needs an output directory: -o DIR");
        return Outcome::Failed;
    };
    if args.select.topics.is_empty() {
        print_error("export needs a topic: -t TOPIC");
        return Outcome::Failed;
    }
    let (catalog, selection, mut outcome) = match open_selection(&args.input.bags, &args.select) {
        Ok(opened) => opened,
        Err(o) => return o,
    };
    let registry = match args.input.msg.registry() {
        Ok(r) => r,
        Err(o) => return o,
    };
    let mut schemas = Schemas::new(registry);
    let conns = super::echo::selected_connections(&catalog, &selection);
    let filter = match args.filter.compile(conns, &schemas) {
        Ok(f) => f,
        Err(e) => {
            e.print();
            return Outcome::Failed;
        }
    };
    if let Err(e) = std::fs::create_dir_all(dir) {
        print_error(format!("cannot create {}: {e}", dir.display()));
        return Outcome::Failed;
    }
    let range = selection_range(&catalog, &selection);
    let mut progress = CopyProgress::new(range);
    let mut names = HashSet::new();
    let (mut written, mut skipped) = (0u64, 0u64);
    let mut unread = crate::bag::Unread::default();
    for item in catalog.messages(&selection) {
        let Some((m, bag)) = readable(&catalog, item, &mut unread) else {
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
            return Outcome::Failed;
        }
        let bag_conn = BagConn::new(m.bag, conn.id);
        if filter
            .as_ref()
            .is_some_and(|w| !w.keep(bag_conn, &m.message.data))
        {
            continue;
        }
        let schema = match &schemas.get(m.bag, conn).schema {
            Ok(s) => s.clone(),
            Err(e) => {
                print_error(format!("{}: {}: {e}", bag.path().display(), conn.topic));
                return Outcome::Failed;
            }
        };
        let frame = crate::msg::decode(&schema, &m.message.data)
            .map_err(|e| e.to_string())
            .and_then(|v| {
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
        let path = unique_name(dir, time, extension, &mut names);
        if let Err(e) = write_atomic(&path, &bytes) {
            print_error(format!("cannot write {}: {e}", path.display()));
            progress.finish();
            return Outcome::Failed;
        }
        written += 1;
        progress.update(Progress {
            time,
            messages: written,
        });
    }
    progress.finish();
    outcome = outcome.max(report_unread(&unread));
    if let Some(f) = &filter {
        f.report();
    }
    if skipped > 0 {
        print_warning(format_args!(
            "{skipped} frames could not be converted (see above)"
        ));
    }
    print_note(format_args!("wrote {written} frames to {}", dir.display()));
    outcome
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

/// `DIR/SEC.NSEC.EXT`, or `DIR/SEC.NSEC-N.EXT` when frames share a receive time.
fn unique_name(dir: &Path, time: RosTime, ext: &str, seen: &mut HashSet<PathBuf>) -> PathBuf {
    let base = format!("{}.{:09}", time.sec, time.nsec);
    let mut path = dir.join(format!("{base}.{ext}"));
    let mut n = 1;
    while !seen.insert(path.clone()) {
        n += 1;
        path = dir.join(format!("{base}-{n}.{ext}"));
    }
    path
}

/// Writes a whole file or nothing.
fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = AtomicFile::create(path).map_err(std::io::Error::other)?;
    file.write_all(bytes)?;
    file.commit().map_err(std::io::Error::other)
}
