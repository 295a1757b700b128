//! Text output files of the command line (`export -o`, YAML conversion): an
//! [`AtomicFile`] — written to a temporary file beside the target, synced and renamed over it
//! only when complete (through a symbolic link, onto the file it names), or straight into a
//! FIFO or character device; never an input.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::bag::writer::AtomicFile;

/// A file being written. Flushing it completes it (sync + rename); dropping it unflushed
/// removes the temporary file.
pub struct Output {
    file: Option<AtomicFile>,
}

impl Output {
    /// Starts writing `target`, refusing when it is one of `inputs`.
    pub fn create(target: &Path, inputs: &[PathBuf]) -> io::Result<Output> {
        crate::bag::writer::ensure_distinct(target, inputs)
            .map_err(|e| io::Error::other(e.to_string()))?;
        let file = AtomicFile::create(target).map_err(|e| io::Error::other(e.to_string()))?;
        Ok(Output { file: Some(file) })
    }

    fn commit(&mut self) -> io::Result<()> {
        match self.file.take() {
            // The kind kept: a FIFO whose reader left (`BrokenPipe`) ends the output as a
            // closed standard output does.
            Some(f) => f.commit().map_err(|e| {
                let kind = match &e {
                    crate::bag::writer::WriteError::Io { source, .. } => source.kind(),
                    _ => io::ErrorKind::Other,
                };
                io::Error::new(kind, e.to_string())
            }),
            None => Ok(()),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.file {
            Some(f) => f.write(buf),
            None => Err(io::Error::other("output already complete")),
        }
    }

    /// Completes the output: the file is synced and renamed into place.
    fn flush(&mut self) -> io::Result<()> {
        self.commit()
    }
}
