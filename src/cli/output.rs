//! Text output files of the command line (`export -o`, YAML conversion): written to a
//! temporary file beside the target and renamed over it only when complete; never an input.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

/// A file being written. Flushing it completes it (sync + rename); dropping it unflushed
/// removes the temporary file.
pub struct Output {
    target: PathBuf,
    file: Option<BufWriter<NamedTempFile>>,
}

impl Output {
    /// Starts writing `target`, refusing when it is one of `inputs`.
    pub fn create(target: &Path, inputs: &[PathBuf]) -> io::Result<Output> {
        crate::bag::writer::ensure_distinct(target, inputs)
            .map_err(|e| io::Error::other(e.to_string()))?;
        let dir = target
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let temp = tempfile::Builder::new()
            .prefix(".bagscope-")
            .suffix(".partial")
            .tempfile_in(dir)
            .map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!(
                        "{}: cannot create a temporary file beside it: {e}",
                        target.display()
                    ),
                )
            })?;
        Ok(Output {
            target: target.to_path_buf(),
            file: Some(BufWriter::with_capacity(1 << 16, temp)),
        })
    }

    fn commit(&mut self) -> io::Result<()> {
        if let Some(f) = self.file.take() {
            let temp = f.into_inner().map_err(io::IntoInnerError::into_error)?;
            temp.as_file().sync_all()?;
            temp.persist(&self.target).map_err(|e| {
                io::Error::new(
                    e.error.kind(),
                    format!("{}: {}", self.target.display(), e.error),
                )
            })?;
        }
        Ok(())
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
