//! Where a converted storage file's MCAP goes ([`convert_into_file`]): the cache entry for
//! the input when there is a cache (`cache.rs`) and room in it, else an unlinked temporary
//! file in `$TMPDIR` (gone when the bag is closed, or if the process dies). Never beside the
//! input: inputs are never modified, and their directory may be read-only.
//!
//! A disk that fills up while writing is [`Ros2Error::NoSpace`], naming the directory and
//! about how much the MCAP needs; a full cache file system falls back to the temporary
//! directory first.

use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};

use super::cache::{Cache, Key, free_space};
use super::error::Ros2Error;
use super::mcap_storage::read_summary_of;
use super::mcap_storage::summary_facts;
use super::types::StorageFacts;

/// Buffer between the MCAP writer and the file.
const WRITE_BUFFER: usize = 1 << 20;

/// A converted storage file: its MCAP (open), what it holds, and the conversion's notes.
pub struct Made {
    /// The MCAP, an unlinked temporary file or a cache entry.
    pub file: File,
    /// What it holds.
    pub facts: StorageFacts,
    /// What the conversion noticed.
    pub notes: Vec<String>,
}

/// What a conversion hands back: the buffered file it wrote, what it holds, its notes.
pub type Written = (BufWriter<File>, StorageFacts, Vec<String>);

/// Converts the input `shown` (read from `files`: the storage file and its `-wal`; the key
/// of its cache entry, with `variant`) by `convert` into a file: the cache entry when
/// `cache` has a valid one (nothing converted) or room for a new one (`estimate`: about
/// the MCAP's size), else an unlinked temporary file.
pub fn convert_into_file(
    shown: &Path,
    files: &[&Path],
    variant: &str,
    estimate: u64,
    cache: Option<&Cache>,
    convert: &mut dyn FnMut(BufWriter<File>) -> Result<Written, Ros2Error>,
) -> Result<Made, Ros2Error> {
    let keyed = cache.and_then(|c| Some((c, c.key(shown, files, variant)?)));
    if let Some((cache, key)) = &keyed {
        if let Some(hit) = cache.lookup(key) {
            let mut file = hit.file;
            let facts = match read_summary_of(&mut file, shown) {
                Ok(summary) => summary_facts(summary.as_ref()),
                Err(_) => StorageFacts::default(),
            };
            return Ok(Made {
                file,
                facts,
                notes: hit.notes,
            });
        }
        if cache.room_for(estimate) {
            match into_cache(shown, files, variant, cache, key, convert) {
                Ok(made) => return Ok(made),
                Err(e) if disk_full(&e) => {}
                Err(e) => return Err(e),
            }
        }
    }
    into_temp(shown, estimate, convert)
}

/// Converts into a new cache entry for `key`; kept only when the input did not change
/// meanwhile (else the file is used once, unnamed).
fn into_cache(
    shown: &Path,
    files: &[&Path],
    variant: &str,
    cache: &Cache,
    key: &Key,
    convert: &mut dyn FnMut(BufWriter<File>) -> Result<Written, Ros2Error>,
) -> Result<Made, Ros2Error> {
    let writing = |e| Ros2Error::io(cache.dir(), "writing a converted file into the cache", e);
    let tmp = cache.temp_file().map_err(writing)?;
    let out = BufWriter::with_capacity(WRITE_BUFFER, tmp.as_file().try_clone().map_err(writing)?);
    let (out, facts, notes) = convert(out)?;
    finish(out).map_err(writing)?;
    if cache.key(shown, files, variant).as_ref() != Some(key) {
        return Ok(Made {
            file: tmp.into_file(),
            facts,
            notes,
        });
    }
    let file = cache.commit(key, tmp, &notes).map_err(writing)?;
    Ok(Made { file, facts, notes })
}

/// Converts into an unlinked temporary file in `$TMPDIR`.
fn into_temp(
    shown: &Path,
    estimate: u64,
    convert: &mut dyn FnMut(BufWriter<File>) -> Result<Written, Ros2Error>,
) -> Result<Made, Ros2Error> {
    let dir = std::env::temp_dir();
    let no_space = |dir: PathBuf| {
        let free = free_space(&dir).map(|(f, _)| f);
        Ros2Error::NoSpace {
            path: shown.to_path_buf(),
            dir,
            needed: estimate,
            free,
        }
    };
    let file = tempfile::tempfile_in(&dir)
        .map_err(|e| Ros2Error::io(shown, "making a temporary file to convert into", e))?;
    let out = BufWriter::with_capacity(
        WRITE_BUFFER,
        file.try_clone()
            .map_err(|e| Ros2Error::io(shown, "making a temporary file to convert into", e))?,
    );
    let result = convert(out).and_then(|(out, facts, notes)| {
        finish(out)
            .map_err(|e| Ros2Error::io(shown, "writing the converted file", e))
            .map(|()| (facts, notes))
    });
    match result {
        Ok((facts, notes)) => Ok(Made { file, facts, notes }),
        Err(e) if disk_full(&e) => Err(no_space(dir)),
        Err(e) => Err(e),
    }
}

/// Flushes `out` to its file.
fn finish(mut out: BufWriter<File>) -> std::io::Result<()> {
    out.flush()?;
    out.into_inner()
        .map_err(std::io::IntoInnerError::into_error)?;
    Ok(())
}

/// Whether `e` is a disk (or quota) that is full.
pub fn disk_full(e: &Ros2Error) -> bool {
    let io = match e {
        Ros2Error::Io { source, .. }
        | Ros2Error::Mcap {
            source: mcap::McapError::Io(source),
            ..
        } => source,
        Ros2Error::NoSpace { .. } => return true,
        _ => return false,
    };
    matches!(
        io.kind(),
        std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_disk_says_where_and_how_much() {
        let full = || std::io::Error::from(std::io::ErrorKind::StorageFull);
        let mcap = Ros2Error::Mcap {
            path: "a.db3".into(),
            source: mcap::McapError::Io(full()),
        };
        assert!(disk_full(&mcap));
        assert!(disk_full(&Ros2Error::io(
            Path::new("a.db3"),
            "writing",
            full()
        )));
        let other = Ros2Error::io(Path::new("a.db3"), "writing", std::io::Error::other("x"));
        assert!(!disk_full(&other));
        let e = Ros2Error::NoSpace {
            path: "/bags/run/run_0.db3".into(),
            dir: "/tmp".into(),
            needed: 20_000_000_000,
            free: Some(1_000_000),
        };
        assert_eq!(
            e.line(),
            "/bags/run/run_0.db3: no space left in /tmp for the MCAP this file converts to \
             (about 20000000000 bytes, 1000000 free): free some space there, or set TMPDIR to \
             a directory on a larger disk"
        );
    }
}
