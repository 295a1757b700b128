//! A regular output file written under a temporary name in its directory and renamed over
//! its name when complete (the [`super::AtomicFile`] of a regular or missing target).
//!
//! Every operation is relative to the open directory, by name, without following a link at
//! the name (see [`super::dir`]). The file can be *parked* — flushed and its descriptor
//! closed, and the directory's too when it lies below an output directory — so that an export
//! of thousands of files keeps only a bounded number open; the next write reopens it by name
//! (walking from the output directory again, links refused) and checks it is the same file,
//! unchanged.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::cleanup;
use super::dir::{Dir, Stamp, SubError, stamp, temp_name};
use super::error::WriteError;
use super::kind::FileKind;

/// Where a file goes: an open directory, and the subdirectories below it.
pub(super) struct Place {
    /// The directory opened by path (the target's, or an output directory).
    root: Arc<Dir>,
    /// Subdirectories below `root`, walked without following links.
    rel: Vec<OsString>,
    /// The directory holding the file while the file is open (`root` itself when `rel` is
    /// empty).
    dir: Option<Arc<Dir>>,
    /// True inside an output directory, where links and special files at a file's name are
    /// never written through.
    inside: bool,
}

impl Place {
    /// The directory `root` itself.
    pub fn at(root: Arc<Dir>) -> Place {
        Place {
            root,
            rel: Vec::new(),
            dir: None,
            inside: false,
        }
    }

    /// `rel` below the output directory `root` (empty: `root` itself), its directories
    /// created when missing; a component that is a link or anything but a directory is
    /// refused.
    pub fn below(root: Arc<Dir>, rel: Vec<OsString>) -> Result<Place, WriteError> {
        let dir = walk(&root, &rel, true)?;
        Ok(Place {
            root,
            rel,
            dir: Some(dir),
            inside: true,
        })
    }

    /// True inside an output directory.
    fn inside(&self) -> bool {
        self.inside
    }

    /// The directory holding the file, opened again if it was let go.
    fn dir(&mut self) -> Result<Arc<Dir>, WriteError> {
        if self.rel.is_empty() {
            return Ok(Arc::clone(&self.root));
        }
        if let Some(d) = &self.dir {
            return Ok(Arc::clone(d));
        }
        let d = walk(&self.root, &self.rel, false)?;
        self.dir = Some(Arc::clone(&d));
        Ok(d)
    }

    /// Lets go of the directory's descriptor (it is walked to again when needed).
    fn release(&mut self) {
        if !self.rel.is_empty() {
            self.dir = None;
        }
    }
}

/// Opens `rel` below `root` component by component, creating missing directories when asked;
/// a symbolic link, or anything but a directory, is refused ([`WriteError::Planted`]).
pub(super) fn walk(
    root: &Arc<Dir>,
    rel: &[OsString],
    create: bool,
) -> Result<Arc<Dir>, WriteError> {
    let mut at = Arc::clone(root);
    for name in rel {
        at = match at.sub(name, create) {
            Ok(d) => Arc::new(d),
            Err(SubError::NotADirectory(kind)) => {
                return Err(WriteError::Planted {
                    path: at.path().join(name),
                    kind,
                });
            }
            Err(SubError::Io(source)) => {
                return Err(WriteError::Io {
                    path: at.path().join(name),
                    what: "cannot create or open the directory",
                    source,
                });
            }
        };
    }
    Ok(at)
}

/// A file being written under a temporary name.
pub(super) struct Replace {
    place: Place,
    name: OsString,
    temp: OsString,
    /// The temporary file's path (messages, the signal cleanup).
    temp_path: PathBuf,
    /// The final path (messages).
    target: PathBuf,
    /// `None` while parked.
    file: Option<BufWriter<File>>,
    /// The write position while parked.
    pos: u64,
    /// The temporary file's [`Stamp`] when it was parked.
    stamp: Stamp,
    buffer: usize,
    /// True until the temporary file is renamed or removed.
    live: bool,
}

impl Replace {
    /// Creates the temporary file for `name` in `place`; `target` is the path shown in
    /// messages. What is at `name` must be nothing, a regular file or (inside an output
    /// directory, to be replaced, not followed) a symbolic link.
    pub fn create(
        mut place: Place,
        name: &OsStr,
        target: PathBuf,
        buffer: usize,
    ) -> Result<Replace, WriteError> {
        let dir = place.dir()?;
        check_name(&dir, name, &target, place.inside())?;
        let mut tries = 0;
        let (temp, file) = loop {
            let temp = temp_name(name);
            match dir.create_new(&temp) {
                Ok(f) => break (temp, f),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && tries < 16 => tries += 1,
                Err(source) => {
                    return Err(WriteError::Io {
                        path: target,
                        what: "cannot create a temporary file beside it",
                        source,
                    });
                }
            }
        };
        let temp_path = dir.path().join(&temp);
        cleanup::register(&temp_path);
        let mut this = Replace {
            place,
            name: name.to_os_string(),
            temp,
            temp_path,
            target,
            file: None,
            pos: 0,
            stamp: Stamp::default(),
            buffer,
            live: true,
        };
        this.file = Some(BufWriter::with_capacity(buffer, file));
        Ok(this)
    }

    fn io(&self, what: &'static str) -> impl FnOnce(io::Error) -> WriteError + use<> {
        let path = self.target.clone();
        move |source| WriteError::Io { path, what, source }
    }

    /// The temporary file's path.
    pub fn temp_path(&self) -> &Path {
        &self.temp_path
    }

    /// True while parked.
    pub fn is_parked(&self) -> bool {
        self.file.is_none()
    }

    /// The open file, reopened (and checked to be the one created) when parked.
    pub fn file(&mut self) -> Result<&mut BufWriter<File>, WriteError> {
        if self.file.is_none() {
            let dir = self.place.dir()?;
            let mut f = dir
                .reopen(&self.temp)
                .map_err(self.io("cannot reopen the temporary file"))?;
            let now = stamp(&f).map_err(self.io("cannot examine the temporary file"))?;
            if now != self.stamp {
                return Err(WriteError::Io {
                    path: self.temp_path.clone(),
                    what: "the temporary file was replaced while it was closed",
                    source: io::Error::other("not the file bagscope created"),
                });
            }
            f.seek(SeekFrom::Start(self.pos))
                .map_err(self.io("cannot reopen the temporary file"))?;
            self.file = Some(BufWriter::with_capacity(self.buffer, f));
        }
        self.file.as_mut().ok_or_else(|| WriteError::Io {
            path: self.target.clone(),
            what: "cannot reopen the temporary file",
            source: io::Error::other("closed"),
        })
    }

    /// Flushes and closes the file (and its directory below an output directory).
    pub fn park(&mut self) -> Result<(), WriteError> {
        if let Some(mut f) = self.file.take() {
            let flushed = f.flush().and_then(|()| f.stream_position());
            self.pos = flushed.map_err(self.io("cannot write"))?;
            self.stamp =
                stamp(f.get_ref()).map_err(self.io("cannot examine the temporary file"))?;
        }
        self.place.release();
        Ok(())
    }

    /// Syncs the file, renames it over the target and syncs the directory.
    pub fn commit(mut self) -> Result<(), WriteError> {
        let f = self.file()?;
        let flushed = f.flush();
        flushed.map_err(self.io("cannot write"))?;
        let synced = self.file()?.get_ref().sync_all();
        synced.map_err(self.io("cannot sync to disk"))?;
        let dir = self.place.dir()?;
        check_name(&dir, &self.name, &self.target, self.place.inside())?;
        dir.rename(&self.temp, &self.name)
            .map_err(self.io("cannot move the finished temporary file into place"))?;
        self.live = false;
        cleanup::unregister(&self.temp_path);
        self.file = None;
        dir.sync()
            .map_err(self.io("cannot sync the directory after renaming"))
    }
}

/// Refuses a `name` that a finished file may not be renamed over: a directory, FIFO,
/// device or socket — and inside an output directory nothing but those either (a link
/// there is replaced, not followed).
fn check_name(dir: &Dir, name: &OsStr, target: &Path, inside: bool) -> Result<(), WriteError> {
    let kind = dir.kind(name).map_err(|source| WriteError::Io {
        path: target.to_path_buf(),
        what: "cannot examine",
        source,
    })?;
    match kind {
        FileKind::Missing | FileKind::Regular | FileKind::Symlink => Ok(()),
        kind if inside => Err(WriteError::Planted {
            path: target.to_path_buf(),
            kind,
        }),
        kind => Err(WriteError::Unwritable {
            path: target.to_path_buf(),
            kind,
        }),
    }
}

impl Drop for Replace {
    fn drop(&mut self) {
        self.file = None;
        if self.live {
            if let Ok(dir) = self.place.dir() {
                let _ = dir.remove(&self.temp);
            }
            cleanup::unregister(&self.temp_path);
        }
    }
}
