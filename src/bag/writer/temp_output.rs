//! The file being written: a temporary file in the target's directory, renamed over the
//! target only once complete and synced. Dropping it unfinished removes it.

use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use tempfile::TempPath;

use super::error::WriteError;

/// Buffer size of the writes to the temporary file.
const BUFFER: usize = 1 << 20;

/// A temporary file beside the target, written front to back (the bag header is patched at
/// the end), with the current offset tracked.
pub(super) struct TempOutput {
    file: BufWriter<File>,
    /// Removes the temporary file when dropped, unless persisted.
    temp: TempPath,
    target: PathBuf,
    pos: u64,
}

impl TempOutput {
    /// Creates the temporary file in the directory of `target`.
    pub fn create(target: &Path) -> Result<Self, WriteError> {
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = target
            .file_name()
            .map_or_else(|| "bag".to_string(), |n| n.to_string_lossy().into_owned());
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
            path: target.to_path_buf(),
            what: "cannot create a temporary file beside it",
            source,
        })?;
        let (file, temp) = file.into_parts();
        Ok(TempOutput {
            file: BufWriter::with_capacity(BUFFER, file),
            temp,
            target: target.to_path_buf(),
            pos: 0,
        })
    }

    /// The path the bag will have.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Offset of the next byte written.
    pub fn pos(&self) -> u64 {
        self.pos
    }

    fn io_error(&self, what: &'static str, source: std::io::Error) -> WriteError {
        WriteError::Io {
            path: self.target.clone(),
            what,
            source,
        }
    }

    /// Appends `bytes`.
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), WriteError> {
        self.file
            .write_all(bytes)
            .map_err(|e| self.io_error("cannot write", e))?;
        self.pos += bytes.len() as u64;
        Ok(())
    }

    /// Overwrites the bytes at `at` with `bytes` (which must lie within what was written),
    /// syncs the file to disk and renames it over the target; then syncs the directory so the
    /// rename itself is durable. Returns the file size.
    pub fn finish(self, at: u64, bytes: &[u8]) -> Result<u64, WriteError> {
        let size = self.pos;
        let target = self.target;
        let io = |what, source| WriteError::Io {
            path: target.clone(),
            what,
            source,
        };
        let mut file = self
            .file
            .into_inner()
            .map_err(|e| io("cannot write", e.into_error()))?;
        file.seek(SeekFrom::Start(at))
            .and_then(|_| file.write_all(bytes))
            .map_err(|e| io("cannot rewrite the bag header", e))?;
        file.sync_all().map_err(|e| io("cannot sync to disk", e))?;
        drop(file);
        self.temp.persist(&target).map_err(|e| {
            io(
                "cannot move the finished temporary file into place",
                e.error,
            )
        })?;
        sync_dir(&target).map_err(|e| io("cannot sync the directory after renaming", e))?;
        Ok(size)
    }
}

/// Makes the rename of `target` durable (POSIX: fsync its directory).
#[cfg(unix)]
fn sync_dir(target: &Path) -> std::io::Result<()> {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_dir(_target: &Path) -> std::io::Result<()> {
    Ok(())
}
