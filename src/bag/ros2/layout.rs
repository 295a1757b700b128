//! Which storage files of a bag directory to open, in which order: those `metadata.yaml`
//! lists (by file name: older rosbag2 versions wrote the bag directory in front), then any
//! unlisted file that continues the listed split series (`NAME_N.ext`), each noted; without
//! metadata, every storage file in natural name order (`x_2` before `x_10`).

use std::cmp::Ordering;
use std::path::Path;

use super::error::Ros2Error;
use super::types::Metadata;

/// File name endings of rosbag2 storage files.
const STORAGE_ENDINGS: &[&str] = &[".db3", ".mcap", ".db3.zstd", ".mcap.zstd"];

/// True when `name` ends like a rosbag2 storage file.
pub fn is_storage_name(name: &str) -> bool {
    STORAGE_ENDINGS
        .iter()
        .any(|e| name.ends_with(e) && name.len() > e.len())
}

/// The storage files directly in `dir`, in natural name order.
pub fn storage_files_in(dir: &Path) -> Result<Vec<String>, Ros2Error> {
    let entries = std::fs::read_dir(dir).map_err(|e| Ros2Error::io(dir, "listing", e))?;
    let mut names: Vec<String> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file() || t.is_symlink()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| is_storage_name(n))
        .collect();
    names.sort_by(|a, b| natural_cmp(a, b));
    Ok(names)
}

/// The files to open (names in `dir`) and notes on files listed but missing or present but
/// not listed.
pub fn plan(dir: &Path, metadata: &Metadata, present: &[String]) -> (Vec<String>, Vec<String>) {
    let mut listed: Vec<String> = if metadata.relative_file_paths.is_empty() {
        metadata.files.iter().map(|f| f.path.clone()).collect()
    } else {
        metadata.relative_file_paths.clone()
    };
    for name in &mut listed {
        *name = file_name(name);
    }
    let mut notes = Vec::new();
    let mut open = Vec::new();
    for name in &listed {
        if name.is_empty() || open.contains(name) {
            continue;
        }
        if dir.join(name).is_file() {
            open.push(name.clone());
        } else {
            notes.push(format!(
                "{}: listed in metadata.yaml but not in the directory",
                dir.join(name).display()
            ));
        }
    }
    for name in present {
        if listed.contains(name) {
            continue;
        }
        let shown = dir.join(name);
        if listed.iter().any(|l| same_series(l, name)) {
            notes.push(format!(
                "{}: not listed in metadata.yaml; opened after the listed files (it continues their split series)",
                shown.display()
            ));
            open.push(name.clone());
        } else {
            notes.push(format!(
                "{}: not listed in metadata.yaml; not opened",
                shown.display()
            ));
        }
    }
    (open, notes)
}

/// The storage files of the bag directory `dir` every reader opens, in order: with a readable
/// `metadata.yaml`, those it lists (a listed file present only compressed, `NAME.zstd`, as
/// that; one missing is kept, so that opening it says so), then unlisted files that continue
/// the listed split series (a recorder still writing lists its new file only when it is
/// done); without one, every storage file in natural name order.
pub fn paths_to_open(dir: &Path) -> Vec<std::path::PathBuf> {
    let present = storage_files_in(dir).unwrap_or_default();
    let metadata = Some(dir.join("metadata.yaml"))
        .filter(|m| m.is_file())
        .and_then(|m| super::metadata::read_metadata(&m).ok());
    let Some(metadata) = metadata else {
        return present.iter().map(|n| dir.join(n)).collect();
    };
    let (open, _) = plan(dir, &metadata, &present);
    let mut paths = Vec::new();
    let mut listed: Vec<String> = if metadata.relative_file_paths.is_empty() {
        metadata.files.iter().map(|f| f.path.clone()).collect()
    } else {
        metadata.relative_file_paths.clone()
    };
    for name in &mut listed {
        *name = file_name(name);
    }
    for name in listed.iter().filter(|n| !n.is_empty()) {
        let path = dir.join(name);
        let zstd = dir.join(format!("{name}.zstd"));
        let path = if !path.is_file() && zstd.is_file() {
            zstd
        } else {
            path
        };
        if !paths.contains(&path) {
            paths.push(path);
        }
    }
    for name in open.iter().filter(|n| !listed.contains(n)) {
        paths.push(dir.join(name));
    }
    paths
}

/// The last component of a listed path (`bag/bag_0.db3` → `bag_0.db3`); empty for `..`.
fn file_name(listed: &str) -> String {
    Path::new(listed)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_string()
}

/// `NAME_N.ext` and `NAME_M.ext`: the same stem and ending, a number after the last `_`.
fn same_series(a: &str, b: &str) -> bool {
    match (series_key(a), series_key(b)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// (`NAME`, ending) of `NAME_N` + ending.
fn series_key(name: &str) -> Option<(&str, &str)> {
    let ending = STORAGE_ENDINGS
        .iter()
        .filter(|e| name.ends_with(*e))
        .max_by_key(|e| e.len())?;
    let stem = name.get(..name.len() - ending.len())?;
    let (prefix, number) = stem.rsplit_once('_')?;
    (!number.is_empty() && number.bytes().all(|b| b.is_ascii_digit())).then_some((prefix, ending))
}

/// Natural order: runs of digits compare as numbers (`x_2` < `x_10`), the rest as text.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut a, mut b) = (a.as_bytes(), b.as_bytes());
    loop {
        match (a.first(), b.first()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let da = a.iter().take_while(|c| c.is_ascii_digit()).count();
                let db = b.iter().take_while(|c| c.is_ascii_digit()).count();
                let (na, ra) = a.split_at(da);
                let (nb, rb) = b.split_at(db);
                let ta = trim_zeros(na);
                let tb = trim_zeros(nb);
                let order = ta
                    .len()
                    .cmp(&tb.len())
                    .then_with(|| ta.cmp(tb))
                    .then(da.cmp(&db));
                if order != Ordering::Equal {
                    return order;
                }
                (a, b) = (ra, rb);
            }
            (Some(x), Some(y)) => {
                if x != y {
                    return x.cmp(y);
                }
                (a, b) = (
                    a.get(1..).unwrap_or_default(),
                    b.get(1..).unwrap_or_default(),
                );
            }
        }
    }
}

fn trim_zeros(digits: &[u8]) -> &[u8] {
    let zeros = digits.iter().take_while(|&&c| c == b'0').count();
    digits.get(zeros..).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natural_order() {
        let mut names = vec!["b_10.db3", "b_2.db3", "b_1.db3", "a.db3", "b_02.db3"];
        names.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            names,
            ["a.db3", "b_1.db3", "b_2.db3", "b_02.db3", "b_10.db3"]
        );
    }

    #[test]
    fn storage_names_and_series() {
        assert!(is_storage_name("x_0.db3") && is_storage_name("x_0.mcap.zstd"));
        assert!(
            !is_storage_name("x.db3-wal")
                && !is_storage_name(".db3")
                && !is_storage_name("metadata.yaml")
        );
        assert!(same_series("bag_0.db3", "bag_12.db3"));
        assert!(!same_series("bag_0.db3", "bag_1.mcap"));
        assert!(!same_series("bag_0.db3", "other_1.db3"));
        assert!(same_series("r_0.db3.zstd", "r_3.db3.zstd"));
    }

    #[test]
    fn listed_missing_and_unlisted_files() {
        let dir = tempfile::tempdir().unwrap();
        for n in ["bag_0.db3", "bag_2.db3", "stray.db3"] {
            std::fs::write(dir.path().join(n), b"").unwrap();
        }
        let metadata = Metadata {
            relative_file_paths: vec![
                "old_dir/bag_0.db3".into(),
                "bag_1.db3".into(),
                "../x".into(),
            ],
            ..Metadata::default()
        };
        let present = storage_files_in(dir.path()).unwrap();
        assert_eq!(present, ["bag_0.db3", "bag_2.db3", "stray.db3"]);
        let (open, notes) = plan(dir.path(), &metadata, &present);
        assert_eq!(open, ["bag_0.db3", "bag_2.db3"]);
        assert_eq!(notes.len(), 4, "{notes:?}");
        assert!(notes[0].ends_with("bag_1.db3: listed in metadata.yaml but not in the directory"));
        assert!(notes[1].ends_with("x: listed in metadata.yaml but not in the directory"));
        assert!(notes[2].contains("bag_2.db3: not listed in metadata.yaml; opened after"));
        assert!(notes[3].ends_with("stray.db3: not listed in metadata.yaml; not opened"));
    }
}
