//! What a path given on the command line names: a bag or MCAP file as it is, or a ROS 2 bag
//! directory (rosbag2: `metadata.yaml` beside its storage files), which stands for its storage
//! files in order, so that every reader opens it as the recording it is.

use std::path::{Path, PathBuf};

/// The file names a ROS 2 bag directory's storage files end with.
const STORAGE: [&str; 4] = [".mcap", ".db3", ".mcap.zstd", ".db3.zstd"];

/// `paths` with every ROS 2 bag directory replaced by its storage files (see
/// [`storage_files`]); other paths are kept as they are (a directory that is not a bag then
/// fails to open as one, with the reason).
pub fn expand(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::with_capacity(paths.len());
    for p in paths {
        match storage_files(p) {
            Some(files) if !files.is_empty() => out.extend(files),
            _ => out.push(p.clone()),
        }
    }
    out
}

/// True when `path` is a directory that holds a ROS 2 bag: a `metadata.yaml`, or storage files
/// (`.mcap`, `.db3`, compressed `.zstd`).
pub fn is_bag_dir(path: &Path) -> bool {
    storage_files(path).is_some_and(|f| !f.is_empty())
}

/// The storage files of the ROS 2 bag directory `dir`, in order: those its `metadata.yaml`
/// lists under `relative_file_paths` that exist, else every storage file in the directory in
/// natural name order (`bag_2` before `bag_10`). `None` when `dir` is not a directory.
pub fn storage_files(dir: &Path) -> Option<Vec<PathBuf>> {
    if !dir.is_dir() {
        return None;
    }
    let listed = listed_files(dir);
    if !listed.is_empty() {
        return Some(listed);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.is_file()
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| STORAGE.iter().any(|s| n.ends_with(s)))
        })
        .collect();
    files.sort_by_cached_key(|p| natural_key(p));
    Some(files)
}

/// The files `relative_file_paths` names in `metadata.yaml` (a YAML list of plain names; the
/// full metadata is read by `bag::ros2`).
fn listed_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(text) = std::fs::read_to_string(dir.join("metadata.yaml")) else {
        return Vec::new();
    };
    let mut files = Vec::new();
    let mut inside: Option<usize> = None;
    for line in text.lines() {
        let indent = line.len() - line.trim_start().len();
        let t = line.trim();
        if let Some(at) = inside {
            if let Some(item) = t.strip_prefix("- ").filter(|_| indent >= at) {
                let name = item.trim().trim_matches(|c| c == '"' || c == '\'');
                let path = dir.join(name);
                // A listed file that is compressed on disk carries `.zstd`.
                let zstd = dir.join(format!("{name}.zstd"));
                if path.is_file() {
                    files.push(path);
                } else if zstd.is_file() {
                    files.push(zstd);
                } else {
                    files.push(path);
                }
                continue;
            }
            if !t.is_empty() {
                inside = None;
            }
        }
        if t == "relative_file_paths:" {
            inside = Some(indent);
        }
    }
    files
}

/// A sort key that orders the digit runs of a file name by value.
fn natural_key(p: &Path) -> Vec<(String, u64)> {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let mut key = Vec::new();
    let mut text = String::new();
    let mut digits = String::new();
    for c in name.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
        } else {
            if !digits.is_empty() {
                key.push((
                    std::mem::take(&mut text),
                    digits.parse().unwrap_or(u64::MAX),
                ));
                digits.clear();
            }
            text.push(c);
        }
    }
    key.push((text, digits.parse().unwrap_or(0)));
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bag_directory_stands_for_its_storage_files_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for n in ["b_10.db3", "b_2.db3", "b_0.db3", "notes.txt"] {
            std::fs::write(d.join(n), b"").unwrap();
        }
        let names = |v: Vec<PathBuf>| {
            v.iter()
                .map(|p| p.file_name().unwrap().to_str().unwrap().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            names(storage_files(d).unwrap()),
            ["b_0.db3", "b_2.db3", "b_10.db3"]
        );
        std::fs::write(
            d.join("metadata.yaml"),
            "rosbag2_bagfile_information:\n  relative_file_paths:\n    - b_2.db3\n    - b_0.db3\n  files:\n    - path: x\n",
        )
        .unwrap();
        assert_eq!(names(storage_files(d).unwrap()), ["b_2.db3", "b_0.db3"]);
        let plain = d.join("b_0.db3");
        assert_eq!(expand(std::slice::from_ref(&plain)), [plain]);
        assert_eq!(expand(&[d.to_path_buf()]).len(), 2);
        assert!(storage_files(&d.join("b_0.db3")).is_none());
    }
}
