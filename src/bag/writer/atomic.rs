//! A file written completely or not at all: every output of bagscope (bags, YAML, CSV/JSONL,
//! indexes) goes through [`AtomicFile`].
//!
//! The bytes go to a temporary file beside the target (`.NAME.XXXXXX.partial`, created with
//! the mode any new file gets: 0666 less the umask); [`AtomicFile::commit`] syncs it, renames
//! it over the target and syncs the directory, so the target is either what it was or the
//! complete new file, also after a crash. A symbolic link at the target is written through:
//! the file it points to is replaced and the link kept. Dropping an `AtomicFile` without
//! committing removes the temporary file, and so does a process stopped by SIGINT, SIGTERM or
//! SIGHUP once [`super::cleanup::remove_temp_files_on_signals`] is installed.

use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use tempfile::TempPath;

use super::cleanup;
use super::error::WriteError;
use super::target;

/// Buffer size of the writes to the temporary file.
const BUFFER: usize = 1 << 20;

/// An output file being written under a temporary name beside its target.
pub struct AtomicFile {
    file: BufWriter<File>,
    /// Removes the temporary file when dropped, unless persisted.
    temp: Option<TempPath>,
    target: PathBuf,
}

impl std::fmt::Debug for AtomicFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AtomicFile")
            .field("target", &self.target)
            .field("temp", &self.temp.as_deref())
            .finish_non_exhaustive()
    }
}

impl AtomicFile {
    /// Starts writing the file that [`AtomicFile::commit`] will put at `path` (through a
    /// symbolic link at `path`, at the file it points to). Nothing changes at `path` before.
    pub fn create(path: &Path) -> Result<Self, WriteError> {
        let target = target::resolve(path);
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = target.file_name().map_or_else(
            || "output".to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let prefix = format!(".{name}.");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".partial");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            // Like any new file: 0666 less the umask (tempfile's default is 0600).
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        let file = builder.tempfile_in(dir).map_err(|source| WriteError::Io {
            path: target.clone(),
            what: "cannot create a temporary file beside it",
            source,
        })?;
        let (file, temp) = file.into_parts();
        cleanup::register(&temp);
        Ok(AtomicFile {
            file: BufWriter::with_capacity(BUFFER, file),
            temp: Some(temp),
            target,
        })
    }

    /// The path the file will have (a symbolic link given as the path resolved).
    pub fn target(&self) -> &Path {
        &self.target
    }

    fn io(&self, what: &'static str) -> impl FnOnce(io::Error) -> WriteError + use<> {
        let path = self.target.clone();
        move |source| WriteError::Io { path, what, source }
    }

    /// Overwrites the bytes at `at` with `bytes` (within what was written), then goes on
    /// writing at the end.
    pub fn patch(&mut self, at: u64, bytes: &[u8]) -> Result<(), WriteError> {
        let write = self.io("cannot write");
        self.file.flush().map_err(write)?;
        let io = self.io("cannot rewrite what was written");
        self.file
            .get_mut()
            .seek(SeekFrom::Start(at))
            .and_then(|_| self.file.get_mut().write_all(bytes))
            .and_then(|()| self.file.get_mut().seek(SeekFrom::End(0)))
            .map(|_| ())
            .map_err(io)
    }

    /// Completes the file: flushes and syncs it, renames it over the target and syncs the
    /// directory so that the rename itself is durable.
    pub fn commit(mut self) -> Result<(), WriteError> {
        let write = self.io("cannot write");
        self.file.flush().map_err(write)?;
        let sync = self.io("cannot sync to disk");
        self.file.get_ref().sync_all().map_err(sync)?;
        let Some(temp) = self.temp.take() else {
            return Ok(());
        };
        let temp_path = temp.to_path_buf();
        let renamed = temp.persist(&self.target);
        cleanup::unregister(&temp_path);
        renamed.map_err(|e| WriteError::Io {
            path: self.target.clone(),
            what: "cannot move the finished temporary file into place",
            source: e.error,
        })?;
        let sync_dir = self.io("cannot sync the directory after renaming");
        target::sync_dir(&self.target).map_err(sync_dir)
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.file.write_all(buf)
    }

    /// Flushes the buffer to the temporary file (it does not complete the file: see
    /// [`AtomicFile::commit`]).
    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// Seeking (for formats that go back to fill in a length, like MCAP's chunks) flushes the
/// buffer first.
impl Seek for AtomicFile {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.file.seek(pos)
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if let Some(temp) = self.temp.take() {
            let path = temp.to_path_buf();
            // Removes the file.
            drop(temp);
            cleanup::unregister(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let temp = f.temp.as_deref().unwrap().to_path_buf();
        assert!(cleanup::is_pending(&temp));
        f.commit().unwrap();
        assert!(!cleanup::is_pending(&temp));
        let f = AtomicFile::create(&dir.path().join("b.bag")).unwrap();
        let temp = f.temp.as_deref().unwrap().to_path_buf();
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
