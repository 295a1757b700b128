//! Where the output goes: resolving the target path, and refusing an output that is one of the
//! inputs (the same path, a symbolic link to it, or another hard link of the same file).

use std::path::{Path, PathBuf};

use super::error::WriteError;

/// The path to rename the finished file to: `path` itself, or the file a symbolic link at
/// `path` points to (so the link keeps working and the file it names is replaced, as when
/// writing through the link) — also when that file does not exist yet.
pub(super) fn resolve(path: &Path) -> PathBuf {
    let mut at = path.to_path_buf();
    // Follow the chain of links (at most as many as the system would).
    for _ in 0..40 {
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {}
            _ => break,
        }
        if let Ok(p) = std::fs::canonicalize(&at) {
            return p;
        }
        // A link to a file that does not exist yet: resolve it by hand.
        let Ok(link) = std::fs::read_link(&at) else {
            break;
        };
        at = match at.parent() {
            Some(dir) if link.is_relative() => dir.join(link),
            _ => link,
        };
    }
    at
}

/// The canonical form of `path`, also when the file does not exist yet (its directory is
/// canonicalised instead); `None` when even that fails.
fn canonical(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = std::fs::canonicalize(path) {
        return Some(p);
    }
    let name = path.file_name()?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    std::fs::canonicalize(parent).ok().map(|d| d.join(name))
}

/// `(device, inode)` of the file at `path` (following links), where the platform has them.
#[cfg(unix)]
fn identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn identity(_path: &Path) -> Option<(u64, u64)> {
    None
}

/// Fails with [`WriteError::SameFile`] when `output` refers to any of `inputs`: equal
/// canonical paths (catches `./a` vs `a` and symbolic links) or the same device and inode
/// (catches hard links).
pub fn ensure_distinct<P: AsRef<Path>>(output: &Path, inputs: &[P]) -> Result<(), WriteError> {
    let out_canon = canonical(output);
    let out_id = identity(output);
    for input in inputs {
        let input = input.as_ref();
        let same_path = out_canon.is_some() && out_canon == canonical(input);
        let same_inode = out_id.is_some() && out_id == identity(input);
        if same_path || same_inode {
            return Err(WriteError::SameFile {
                output: output.to_path_buf(),
                input: input.to_path_buf(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catches_the_same_file_under_other_names() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.bag");
        std::fs::write(&input, b"x").unwrap();
        let other = dir.path().join("out.bag");
        assert!(ensure_distinct(&other, &[&input]).is_ok());
        assert!(ensure_distinct(&input, &[&input]).is_err());
        let dotted = dir.path().join(".").join("in.bag");
        assert!(ensure_distinct(&dotted, &[&input]).is_err());
        #[cfg(unix)]
        {
            let link = dir.path().join("link.bag");
            std::os::unix::fs::symlink(&input, &link).unwrap();
            assert!(ensure_distinct(&link, &[&input]).is_err());
            assert!(ensure_distinct(&input, &[&link]).is_err());
            assert_eq!(resolve(&link), std::fs::canonicalize(&input).unwrap());
            let hard = dir.path().join("hard.bag");
            std::fs::hard_link(&input, &hard).unwrap();
            assert!(ensure_distinct(&hard, &[&input]).is_err());
        }
    }
}
