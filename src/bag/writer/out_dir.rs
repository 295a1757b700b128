//! An output directory: the files of an export that writes many (a Parquet export, image
//! frames), each an [`AtomicFile`], created inside it without ever following a link found
//! there.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use super::atomic::AtomicFile;
use super::dir::Dir;
use super::error::WriteError;
use super::kind::FileKind;
use super::replace::Place;

/// Buffer size of each file's writes (an export may have many open).
const BUFFER: usize = 64 << 10;

/// A directory that output files are created in.
///
/// The directory itself is the one the user named (links on the way to it are followed, as
/// for any path they give). Inside it, names are predictable (`TOPIC.parquet`,
/// `robot=r1/date=2026-11-24/`, `SEC.NSEC.png`), so whoever can write to the directory could
/// plant links there: a subdirectory that is a symbolic link (or anything but a directory) is
/// refused, a file's name that is a FIFO, device, socket or directory is refused, and a
/// symbolic link at a file's name is *replaced* by the new file (the rename replaces the link
/// itself), never written through. Every operation is relative to the open directory (Unix
/// `openat`/`renameat` with `O_NOFOLLOW`), so swapping a directory for a link meanwhile does
/// not redirect the files either.
#[derive(Clone, Debug)]
pub struct OutputDir {
    path: PathBuf,
    root: Arc<Dir>,
}

impl OutputDir {
    /// Creates the directory `path` (and its parents) when missing, and opens it. Something
    /// at `path` that is not a directory (after links) is an error.
    pub fn create(path: &Path) -> Result<Self, WriteError> {
        let kind = FileKind::at(path);
        if !matches!(kind, FileKind::Missing | FileKind::Directory) {
            return Err(WriteError::Io {
                path: path.to_path_buf(),
                what: "cannot write a directory here",
                source: std::io::Error::other(format!("it is {kind}")),
            });
        }
        std::fs::create_dir_all(path).map_err(|source| WriteError::Io {
            path: path.to_path_buf(),
            what: "cannot create the directory",
            source,
        })?;
        let root = Dir::open(path).map_err(|source| WriteError::Io {
            path: path.to_path_buf(),
            what: "cannot open the directory",
            source,
        })?;
        Ok(OutputDir {
            path: path.to_path_buf(),
            root: Arc::new(root),
        })
    }

    /// The directory's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Starts the file `rel` below the directory (`odom.parquet`,
    /// `robot=r1/date=2026-11-24/odom.parquet`), creating its directories; completed by
    /// [`AtomicFile::commit`]. `rel` must be plain names: no `..`, no root.
    pub fn create_file(&self, rel: &Path) -> Result<AtomicFile, WriteError> {
        let not_below = || WriteError::NotBelow {
            path: rel.to_path_buf(),
        };
        let mut names: Vec<OsString> = Vec::new();
        for c in rel.components() {
            match c {
                Component::Normal(n) => names.push(n.to_os_string()),
                Component::CurDir => {}
                _ => return Err(not_below()),
            }
        }
        let name = names.pop().ok_or_else(not_below)?;
        let place = Place::below(Arc::clone(&self.root), names)?;
        AtomicFile::in_place(place, &name, self.path.join(rel), BUFFER)
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn links_inside_are_replaced_or_refused_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("victim"), b"keep").unwrap();
        let out = dir.path().join("out");
        std::fs::create_dir(&out).unwrap();
        // A link at a file's name is replaced by the file, the file it named untouched.
        std::os::unix::fs::symlink(outside.join("victim"), out.join("a.parquet")).unwrap();
        // A link where a directory goes is refused.
        std::os::unix::fs::symlink(&outside, out.join("robot=r1")).unwrap();
        let o = OutputDir::create(&out).unwrap();
        let mut f = o.create_file(Path::new("a.parquet")).unwrap();
        f.write_all(b"new").unwrap();
        f.commit().unwrap();
        assert!(
            !std::fs::symlink_metadata(out.join("a.parquet"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(out.join("a.parquet")).unwrap(), b"new");
        assert_eq!(std::fs::read(outside.join("victim")).unwrap(), b"keep");
        let e = o.create_file(Path::new("robot=r1/a.parquet")).unwrap_err();
        assert!(
            matches!(
                e,
                WriteError::Planted {
                    kind: FileKind::Symlink,
                    ..
                }
            ),
            "{e}"
        );
        assert!(
            e.to_string()
                .contains("robot=r1: is a symbolic link inside the output directory"),
            "{e}"
        );
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 1);
        // No way out by name.
        assert!(o.create_file(Path::new("../x")).is_err());
        assert!(o.create_file(Path::new("/x")).is_err());
    }

    #[test]
    fn parked_files_reopen_and_notice_a_swap() {
        let dir = tempfile::tempdir().unwrap();
        let o = OutputDir::create(dir.path()).unwrap();
        let mut f = o.create_file(Path::new("d=1/x.bin")).unwrap();
        f.write_all(b"one ").unwrap();
        f.park().unwrap();
        assert!(f.is_parked());
        f.write_all(b"two").unwrap();
        assert!(!f.is_parked());
        f.commit().unwrap();
        assert_eq!(
            std::fs::read(dir.path().join("d=1/x.bin")).unwrap(),
            b"one two"
        );
        // A temporary file replaced while parked is not written to.
        let mut g = o.create_file(Path::new("y.bin")).unwrap();
        g.park().unwrap();
        let temp = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .find(|e| e.file_name().to_string_lossy().ends_with(".partial"))
            .unwrap()
            .path();
        std::fs::remove_file(&temp).unwrap();
        std::fs::write(&temp, b"theirs").unwrap();
        assert!(g.write_all(b"mine").is_err());
        assert_eq!(std::fs::read(&temp).unwrap(), b"theirs");
    }
}
