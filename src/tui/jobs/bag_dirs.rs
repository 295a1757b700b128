//! ROS 2 bag directories among the paths the explorer is given: each stands for its storage
//! files, in order ([`crate::bag::inputs`]), and what its `metadata.yaml` says that they
//! contradict becomes warnings of the first of them that opened, as [`Catalog::open`] does
//! for the command line (the health view lists them, the status bar counts them).
//!
//! [`Catalog::open`]: crate::catalog::Catalog::open

use std::ops::Range;
use std::path::PathBuf;

use crate::bag::{Bag, Warning};

/// The paths given, as files to open.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    /// Every file to open, in order (a directory's storage files in its place).
    pub files: Vec<PathBuf>,
    /// Each ROS 2 bag directory, and which of `files` are its storage files.
    pub dirs: Vec<(PathBuf, Range<usize>)>,
}

/// `paths` with every ROS 2 bag directory replaced by its storage files.
pub fn expand(paths: &[PathBuf]) -> Inputs {
    let mut out = Inputs::default();
    for p in paths {
        match crate::bag::inputs::storage_files(p) {
            Some(files) if !files.is_empty() => {
                let from = out.files.len();
                out.files.extend(files);
                out.dirs.push((p.clone(), from..out.files.len()));
            }
            _ => out.files.push(p.clone()),
        }
    }
    out
}

/// Adds what each directory of `dirs` disagrees with to the first of its storage files that
/// opened; `opened` are the bags of the files, in order (`None`: not opened).
pub fn add_disagreements(dirs: &[(PathBuf, Range<usize>)], opened: &[Option<Bag>]) {
    for (dir, range) in dirs {
        let bags: Vec<Bag> = opened
            .get(range.clone())
            .unwrap_or_default()
            .iter()
            .flatten()
            .cloned()
            .collect();
        if let Some(head) = bags.first() {
            let lines = crate::bag::ros2::disagreements_of(dir, &bags);
            head.add_warnings(lines.into_iter().map(Warning::general));
        }
    }
}
