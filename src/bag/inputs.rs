//! What a path given on the command line names: a bag or MCAP file as it is, or a ROS 2 bag
//! directory (rosbag2: `metadata.yaml` beside its storage files), which stands for its storage
//! files in order, so that every reader opens it as the recording it is.

use std::path::{Path, PathBuf};

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

/// The storage files of the ROS 2 bag directory `dir`, in order (see
/// [`crate::bag::ros2::paths_to_open`]: those its `metadata.yaml` lists, then unlisted files
/// continuing their split series; without metadata, every storage file in natural name order).
/// `None` when `dir` is not a directory.
pub fn storage_files(dir: &Path) -> Option<Vec<PathBuf>> {
    dir.is_dir().then(|| super::ros2::paths_to_open(dir))
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
        // The listed files in their order, then an unlisted one continuing their split
        // series (a recorder lists its newest file only when it closes it).
        assert_eq!(
            names(storage_files(d).unwrap()),
            ["b_2.db3", "b_0.db3", "b_10.db3"]
        );
        let plain = d.join("b_0.db3");
        assert_eq!(expand(std::slice::from_ref(&plain)), [plain]);
        assert_eq!(expand(&[d.to_path_buf()]).len(), 3);
        assert!(storage_files(&d.join("b_0.db3")).is_none());
    }
}
