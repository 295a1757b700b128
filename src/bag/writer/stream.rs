//! Opening an output that is a FIFO or a character device (`/dev/null`, `/dev/stdout` into a
//! pipe, a terminal) to write straight into it, as `cp` and `tee` do, without ever blocking
//! forever: the open is non-blocking (a FIFO without a reader fails at once with `ENXIO`
//! instead of waiting), retried for [`READER_WAIT`] while no process reads the FIFO, and
//! the descriptor is made blocking again for the writes.

use std::fs::File;
use std::path::Path;
use std::time::Duration;

use super::error::WriteError;
use super::kind::FileKind;

/// How long an output FIFO may go without a reader before the write is given up.
pub const READER_WAIT: Duration = Duration::from_secs(5);

/// What opening a stream output found.
pub(super) enum Opened {
    /// The FIFO or device, open for writing (blocking).
    Stream(File),
    /// A regular file by the time it was opened (it was replaced meanwhile): to be written as
    /// regular files are.
    Regular,
}

/// `O_NONBLOCK | O_NOCTTY` (small positive numbers: no wrap).
#[cfg(unix)]
#[allow(clippy::cast_possible_wrap)]
const OPEN_FLAGS: i32 =
    (rustix::fs::OFlags::NONBLOCK.bits() | rustix::fs::OFlags::NOCTTY.bits()) as i32;

/// Opens the FIFO or character device at `path` for writing.
#[cfg(unix)]
pub(super) fn open(path: &Path) -> Result<Opened, WriteError> {
    use std::os::unix::fs::OpenOptionsExt;
    let started = std::time::Instant::now();
    let file = loop {
        let opened = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(OPEN_FLAGS)
            .open(path);
        match opened {
            Ok(f) => break f,
            // A FIFO that no process has open for reading.
            Err(e) if e.raw_os_error() == Some(rustix::io::Errno::NXIO.raw_os_error()) => {
                if FileKind::at(path) != FileKind::Fifo {
                    return Err(WriteError::Unwritable {
                        path: path.to_path_buf(),
                        kind: FileKind::at(path),
                    });
                }
                if started.elapsed() >= READER_WAIT {
                    return Err(WriteError::NoReader {
                        path: path.to_path_buf(),
                        waited_secs: READER_WAIT.as_secs(),
                    });
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(source) => {
                return Err(WriteError::Io {
                    path: path.to_path_buf(),
                    what: "cannot open for writing",
                    source,
                });
            }
        }
    };
    let io = |what: &'static str| {
        move |source: std::io::Error| WriteError::Io {
            path: path.to_path_buf(),
            what,
            source,
        }
    };
    // What was opened, not what the name showed before.
    let kind = FileKind::of(file.metadata().map_err(io("cannot examine"))?.file_type());
    match kind {
        FileKind::Regular => return Ok(Opened::Regular),
        k if k.is_stream() => {}
        k => {
            return Err(WriteError::Unwritable {
                path: path.to_path_buf(),
                kind: k,
            });
        }
    }
    let flags =
        rustix::fs::fcntl_getfl(&file).map_err(|e| io("cannot set blocking writes")(e.into()))?;
    rustix::fs::fcntl_setfl(&file, flags.difference(rustix::fs::OFlags::NONBLOCK))
        .map_err(|e| io("cannot set blocking writes")(e.into()))?;
    Ok(Opened::Stream(file))
}

/// Elsewhere there are no FIFOs or devices to write into.
#[cfg(not(unix))]
pub(super) fn open(path: &Path) -> Result<Opened, WriteError> {
    Err(WriteError::Unwritable {
        path: path.to_path_buf(),
        kind: FileKind::at(path),
    })
}
