//! A file written completely or not at all: every output of bagscope (bags, YAML, CSV/JSONL,
//! MCAP, Parquet, frames, indexes) goes through [`AtomicFile`], whose documentation says how.

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::dir::Dir;
use super::error::WriteError;
use super::kind::FileKind;
use super::replace::{Place, Replace};
use super::stream::{self, Opened};
use super::target;

/// Buffer size of the writes to a file or device.
const BUFFER: usize = 1 << 20;

/// An output file being written.
///
/// What happens depends on what is at the target (links followed):
///
/// * **nothing, or a regular file**: the bytes go to a temporary file beside the target
///   (`.NAME.XXXXXX.partial`, created with the mode any new file gets: 0666 less the umask);
///   [`AtomicFile::commit`] syncs it, renames it over the target and syncs the directory, so
///   the target is either what it was or the complete new file, also after a crash. A
///   symbolic link at the target is written through: the file it points to is replaced and
///   the link kept. Dropping an `AtomicFile` without committing removes the temporary file,
///   and so does a process stopped by SIGINT, SIGTERM or SIGHUP once
///   [`remove_temp_files_on_signals`](super::remove_temp_files_on_signals) is installed.
/// * **a FIFO or a character device** (`/dev/null`, `/dev/stdout` into a pipe, a terminal):
///   written straight into, as `cp` and `tee` do — never replaced. The open does not block
///   (a FIFO gets [`READER_WAIT`](super::READER_WAIT) to find a reader, then the write fails with
///   [`WriteError::NoReader`]); write errors (`ENOSPC` on `/dev/full`, `EPIPE`) are errors.
///   A writer that goes back to patch what it wrote ([`AtomicFile::create_seekable`]: bags,
///   indexes) writes to an anonymous spool file in the temporary directory instead, copied
///   into the FIFO or device by [`AtomicFile::commit`].
/// * **a directory, block device or socket**: refused ([`WriteError::Unwritable`]).
///
/// Files inside an output directory (a Parquet export, image frames) are made by
/// [`OutputDir`](super::OutputDir), which never follows or writes through a link found there.
pub struct AtomicFile {
    out: Out,
    target: PathBuf,
}

/// How the bytes get to the target.
enum Out {
    /// A temporary file renamed over the target when complete.
    Replace(Box<Replace>),
    /// Straight into a FIFO or character device.
    Direct(BufWriter<File>),
    /// Into an anonymous spool file, copied into the FIFO or device when complete.
    Spool {
        spool: BufWriter<File>,
        device: File,
    },
}

impl std::fmt::Debug for AtomicFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let how = match &self.out {
            Out::Replace(r) => format!("replace via {}", r.temp_path().display()),
            Out::Direct(_) => "direct".to_string(),
            Out::Spool { .. } => "spooled".to_string(),
        };
        f.debug_struct("AtomicFile")
            .field("target", &self.target)
            .field("how", &how)
            .finish_non_exhaustive()
    }
}

fn seek_refused() -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        "cannot go back in a FIFO or device (the output is written straight into it)",
    )
}

fn as_io(e: WriteError) -> io::Error {
    let kind = match &e {
        WriteError::Io { source, .. } => source.kind(),
        _ => io::ErrorKind::Other,
    };
    io::Error::new(kind, e)
}

impl AtomicFile {
    /// Starts writing the file that [`AtomicFile::commit`] completes at `path`, front to back
    /// (a FIFO or device there is written straight into; see [`AtomicFile`]). Nothing
    /// changes at a regular `path` before the commit.
    pub fn create(path: &Path) -> Result<Self, WriteError> {
        Self::open(path, false)
    }

    /// Like [`AtomicFile::create`], for a writer that goes back ([`AtomicFile::patch`],
    /// [`Seek`]): a FIFO or device at `path` gets the bytes through a spool file, when
    /// complete.
    pub fn create_seekable(path: &Path) -> Result<Self, WriteError> {
        Self::open(path, true)
    }

    fn open(path: &Path, seekable: bool) -> Result<Self, WriteError> {
        let kind = FileKind::at(path);
        if kind.is_stream() {
            if let Opened::Stream(device) = stream::open(path)? {
                let out = if seekable {
                    let spool = tempfile::tempfile().map_err(|source| WriteError::Io {
                        path: std::env::temp_dir(),
                        what: "cannot create a spool file in the temporary directory",
                        source,
                    })?;
                    Out::Spool {
                        spool: BufWriter::with_capacity(BUFFER, spool),
                        device,
                    }
                } else {
                    Out::Direct(BufWriter::with_capacity(BUFFER, device))
                };
                return Ok(AtomicFile {
                    out,
                    target: path.to_path_buf(),
                });
            }
        } else if !matches!(kind, FileKind::Missing | FileKind::Regular) {
            return Err(WriteError::Unwritable {
                path: path.to_path_buf(),
                kind,
            });
        }
        let target = target::resolve(path);
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = target.file_name().map_or_else(
            || std::ffi::OsString::from("output"),
            std::ffi::OsStr::to_os_string,
        );
        let root = Dir::open(dir).map_err(|source| WriteError::Io {
            path: target.clone(),
            what: "cannot open its directory",
            source,
        })?;
        let replace = Replace::create(Place::at(Arc::new(root)), &name, target.clone(), BUFFER)?;
        Ok(AtomicFile {
            out: Out::Replace(Box::new(replace)),
            target,
        })
    }

    /// A file inside an output directory (see [`super::OutputDir`]).
    pub(super) fn in_place(
        place: Place,
        name: &std::ffi::OsStr,
        target: PathBuf,
        buffer: usize,
    ) -> Result<Self, WriteError> {
        let replace = Replace::create(place, name, target.clone(), buffer)?;
        Ok(AtomicFile {
            out: Out::Replace(Box::new(replace)),
            target,
        })
    }

    /// The path the file will have (a symbolic link to a regular file resolved; a FIFO or
    /// device as given).
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// True when the output is written straight into a FIFO or device (not through a
    /// temporary file).
    pub fn is_stream(&self) -> bool {
        !matches!(self.out, Out::Replace(_))
    }

    /// Flushes the file and closes its descriptor until the next write (which reopens it,
    /// checking it is the same file): for exports that write more files than may be open at
    /// once. Nothing happens to FIFOs and devices.
    pub fn park(&mut self) -> Result<(), WriteError> {
        match &mut self.out {
            Out::Replace(r) => r.park(),
            Out::Direct(_) | Out::Spool { .. } => Ok(()),
        }
    }

    /// True while parked (see [`AtomicFile::park`]).
    pub fn is_parked(&self) -> bool {
        match &self.out {
            Out::Replace(r) => r.is_parked(),
            Out::Direct(_) | Out::Spool { .. } => false,
        }
    }

    fn io(&self, what: &'static str) -> impl FnOnce(io::Error) -> WriteError + use<> {
        let path = self.target.clone();
        move |source| WriteError::Io { path, what, source }
    }

    /// The file to seek in: the temporary file or the spool (a FIFO or device cannot).
    fn seekable(&mut self) -> io::Result<&mut BufWriter<File>> {
        match &mut self.out {
            Out::Replace(r) => r.file().map_err(as_io),
            Out::Spool { spool, .. } => Ok(spool),
            Out::Direct(_) => Err(seek_refused()),
        }
    }

    /// Overwrites the bytes at `at` with `bytes` (within what was written), then goes on
    /// writing at the end. Only for files made with [`AtomicFile::create_seekable`] (or
    /// regular files).
    pub fn patch(&mut self, at: u64, bytes: &[u8]) -> Result<(), WriteError> {
        let rewrite = self.io("cannot rewrite what was written");
        let write = self.io("cannot write");
        let refused = self.io("cannot rewrite what was written");
        let f = self.seekable().map_err(refused)?;
        // What is buffered goes first (the seek would flush it): its errors are write errors.
        f.flush().map_err(write)?;
        let done = f
            .seek(SeekFrom::Start(at))
            .and_then(|_| f.write_all(bytes))
            .and_then(|()| f.seek(SeekFrom::End(0)))
            .map(|_| ());
        done.map_err(rewrite)
    }

    /// Completes the file: a regular file is flushed, synced, renamed over the target and
    /// its directory synced so that the rename itself is durable; a FIFO or device gets the
    /// last bytes (or the whole spool).
    pub fn commit(self) -> Result<(), WriteError> {
        let AtomicFile { out, target } = self;
        let io = |what: &'static str| {
            let path = target.clone();
            move |source| WriteError::Io { path, what, source }
        };
        match out {
            Out::Replace(r) => (*r).commit(),
            Out::Direct(mut w) => w.flush().map_err(io("cannot write")),
            Out::Spool { mut spool, device } => {
                spool.flush().map_err(io("cannot write the spool file"))?;
                let mut spool = spool
                    .into_inner()
                    .map_err(|e| io("cannot write the spool file")(e.into_error()))?;
                spool
                    .seek(SeekFrom::Start(0))
                    .map_err(io("cannot read the spool file"))?;
                let mut out = BufWriter::with_capacity(BUFFER, device);
                copy(&mut spool, &mut out).map_err(io("cannot write"))?;
                out.flush().map_err(io("cannot write"))
            }
        }
    }
}

/// Copies `from` into `to` (`io::copy` without its special cases).
fn copy(from: &mut File, to: &mut BufWriter<File>) -> io::Result<()> {
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match from.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => to.write_all(buf.get(..n).unwrap_or_default())?,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.out {
            Out::Replace(r) => r.file().map_err(as_io)?.write(buf),
            Out::Direct(w) => w.write(buf),
            Out::Spool { spool, .. } => spool.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut self.out {
            Out::Replace(r) => r.file().map_err(as_io)?.write_all(buf),
            Out::Direct(w) => w.write_all(buf),
            Out::Spool { spool, .. } => spool.write_all(buf),
        }
    }

    /// Flushes the buffer (it does not complete the file: see [`AtomicFile::commit`]).
    fn flush(&mut self) -> io::Result<()> {
        match &mut self.out {
            Out::Replace(r) if r.is_parked() => Ok(()),
            Out::Replace(r) => r.file().map_err(as_io)?.flush(),
            Out::Direct(w) => w.flush(),
            Out::Spool { spool, .. } => spool.flush(),
        }
    }
}

/// Seeking (for formats that go back to fill in a length) flushes the buffer first; a FIFO or
/// device written straight into cannot seek.
impl Seek for AtomicFile {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.seekable()?.seek(pos)
    }
}

#[cfg(test)]
mod tests {
    use super::super::cleanup;
    use super::*;

    fn temp_of(f: &AtomicFile) -> PathBuf {
        match &f.out {
            Out::Replace(r) => r.temp_path().to_path_buf(),
            _ => panic!("not a regular file"),
        }
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn complete_or_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.txt");
        // Dropped unfinished: nothing at the target, no temporary file.
        let mut f = AtomicFile::create(&target).unwrap();
        f.write_all(b"half").unwrap();
        assert_eq!(names(dir.path()).len(), 1);
        drop(f);
        assert!(names(dir.path()).is_empty());
        // Committed, with a patch: the whole file.
        let mut f = AtomicFile::create(&target).unwrap();
        f.write_all(b"xxxx tail").unwrap();
        f.patch(0, b"head").unwrap();
        f.write_all(b"!").unwrap();
        f.commit().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"head tail!");
        assert_eq!(names(dir.path()), vec!["out.txt"]);
    }

    #[test]
    fn unfinished_files_are_registered_for_removal_on_a_signal() {
        // (Removing them is tested end to end in tests/integration/cli_truth.rs: calling the global
        // cleanup here would race with the other tests writing files.)
        let dir = tempfile::tempdir().unwrap();
        let f = AtomicFile::create(&dir.path().join("a.bag")).unwrap();
        let temp = temp_of(&f);
        assert!(cleanup::is_pending(&temp));
        f.commit().unwrap();
        assert!(!cleanup::is_pending(&temp));
        let f = AtomicFile::create(&dir.path().join("b.bag")).unwrap();
        let temp = temp_of(&f);
        drop(f);
        assert!(!cleanup::is_pending(&temp) && !temp.exists());
    }

    #[cfg(unix)]
    #[test]
    fn links_are_written_through_even_to_files_not_there_yet() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        let link = dir.path().join("link.csv");
        std::os::unix::fs::symlink("sub/real.csv", &link).unwrap();
        let mut f = AtomicFile::create(&link).unwrap();
        f.write_all(b"a,b\n").unwrap();
        f.commit().unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(sub.join("real.csv")).unwrap(), b"a,b\n");
        assert_eq!(names(&sub), vec!["real.csv"]);
    }
}
