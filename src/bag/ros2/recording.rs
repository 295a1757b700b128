//! A ROS 2 bag directory already opened file by file (the readers open its storage files as
//! bags, see `bag::inputs`): what its metadata says that those bags contradict.

use std::path::Path;

use crate::bag::handle::Bag;

use super::disagree::compare;
use super::metadata::read_metadata;
use super::types::StorageFacts;

/// What `dir`'s `metadata.yaml` says that its opened storage files `bags` (in order)
/// contradict, one line each; nothing when the directory has no readable metadata (a note
/// says so).
pub fn disagreements_of(dir: &Path, bags: &[Bag]) -> Vec<String> {
    let meta = dir.join("metadata.yaml");
    if !meta.is_file() {
        return vec![format!(
            "{}: no metadata.yaml; the storage files were opened in name order",
            dir.display()
        )];
    }
    let metadata = match read_metadata(&meta) {
        Ok(m) => m,
        Err(e) => return vec![e.line()],
    };
    let names: Vec<String> = bags
        .iter()
        .map(|b| {
            b.path()
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        })
        .collect();
    let facts: Vec<StorageFacts> = bags.iter().map(StorageFacts::of_bag).collect();
    compare(&metadata, &names, &facts)
}
