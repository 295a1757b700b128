//! The bag being written: an [`AtomicFile`] (a temporary file in the target's directory,
//! renamed over the target only once complete and synced; removed when dropped unfinished;
//! or a spool file streamed into a FIFO or device), with the current offset tracked.

use std::io::Write;
use std::path::Path;

use super::atomic::AtomicFile;
use super::error::WriteError;

/// A temporary file beside the target, written front to back (the bag header is patched at
/// the end), with the current offset tracked.
pub(super) struct TempOutput {
    file: AtomicFile,
    pos: u64,
}

impl TempOutput {
    /// Creates the temporary file in the directory of `target`.
    pub fn create(target: &Path) -> Result<Self, WriteError> {
        Ok(TempOutput {
            file: AtomicFile::create_seekable(target)?,
            pos: 0,
        })
    }

    /// The path the bag will have.
    pub fn target(&self) -> &Path {
        self.file.target()
    }

    /// Offset of the next byte written.
    pub fn pos(&self) -> u64 {
        self.pos
    }

    /// Appends `bytes`.
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), WriteError> {
        self.file
            .write_all(bytes)
            .map_err(|source| WriteError::Io {
                path: self.file.target().to_path_buf(),
                what: "cannot write",
                source,
            })?;
        self.pos += bytes.len() as u64;
        Ok(())
    }

    /// Overwrites the bytes at `at` with `bytes` (which must lie within what was written),
    /// syncs the file to disk and renames it over the target; then syncs the directory so the
    /// rename itself is durable. Returns the file size.
    pub fn finish(mut self, at: u64, bytes: &[u8]) -> Result<u64, WriteError> {
        self.file.patch(at, bytes)?;
        self.file.commit()?;
        Ok(self.pos)
    }
}
