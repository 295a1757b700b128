//! Comparing two decoded messages of one type (`m` marks one, the selected one is compared
//! with it): the leaves whose values differ, by the inspector's paths (`pose.position.x`,
//! `transforms[2].child_frame_id`), and every path above them (so a collapsed parent shows
//! that something inside changed). Bounded: at most [`MAX_LEAVES`] leaves are compared.

use std::collections::HashSet;

use crate::msg::{Decoded, ValueRef};
use crate::printable::escape;

/// Leaves compared at most per message (a point cloud's data is one byte-array leaf).
pub const MAX_LEAVES: usize = 100_000;

/// One changed leaf.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// The inspector's path.
    pub path: String,
    /// The marked message's value (`None`: it has no such element).
    pub old: Option<String>,
    /// The selected message's value.
    pub new: Option<String>,
}

/// Leaves of `v` under `path` as `(path, value text)`, depth first, at most `MAX_LEAVES`.
fn flatten(v: &ValueRef<'_>, path: &str, out: &mut Vec<(String, String)>) {
    if out.len() >= MAX_LEAVES {
        return;
    }
    let join = |name: &str| {
        if path.is_empty() {
            name.to_string()
        } else {
            format!("{path}.{name}")
        }
    };
    match v {
        ValueRef::Message(m) => {
            for (name, fv) in m.iter() {
                flatten(&fv, &join(name), out);
            }
        }
        ValueRef::Array(a) => {
            for (i, item) in a.iter().enumerate() {
                flatten(&item, &format!("{path}[{i}]"), out);
            }
        }
        ValueRef::PrimArray(a) => {
            for (i, item) in a.refs().enumerate() {
                flatten(&item, &format!("{path}[{i}]"), out);
            }
        }
        ValueRef::Bytes(b) => out.push((path.to_string(), bytes_text(b))),
        ValueRef::String(s) => out.push((
            path.to_string(),
            format!("{:?}", escape(&String::from_utf8_lossy(s))),
        )),
        other => out.push((path.to_string(), other.summary(8))),
    }
}

/// A byte array as its length and a short hash (two arrays of one length are told apart).
fn bytes_text(b: &[u8]) -> String {
    // FNV-1a: enough to tell whether two blobs differ.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &x in b {
        h = (h ^ u64::from(x)).wrapping_mul(0x0100_0000_01b3);
    }
    format!("[{} bytes, fnv {h:016x}]", b.len())
}

/// The leaves that differ between `old` and `new` (same type expected; a different type
/// differs everywhere), in `new`'s order, then those only `old` has.
pub fn changes(old: &Decoded<'_>, new: &Decoded<'_>) -> Vec<Change> {
    let mut a = Vec::new();
    let mut b = Vec::new();
    flatten(&old.value(), "", &mut a);
    flatten(&new.value(), "", &mut b);
    let olds: std::collections::HashMap<&str, &str> =
        a.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    let news: HashSet<&str> = b.iter().map(|(p, _)| p.as_str()).collect();
    let mut out: Vec<Change> = b
        .iter()
        .filter(|(p, t)| olds.get(p.as_str()) != Some(&t.as_str()))
        .map(|(p, t)| Change {
            path: p.clone(),
            old: olds.get(p.as_str()).map(|s| (*s).to_string()),
            new: Some(t.clone()),
        })
        .collect();
    out.extend(
        a.iter()
            .filter(|(p, _)| !news.contains(p.as_str()))
            .map(|(p, t)| Change {
                path: p.clone(),
                old: Some(t.clone()),
                new: None,
            }),
    );
    out
}

/// The paths of the changed leaves and of every node above them.
pub fn changed_paths(changes: &[Change]) -> HashSet<String> {
    let mut out = HashSet::new();
    for c in changes {
        let p = c.path.as_str();
        for (i, ch) in p.char_indices() {
            if ch == '.' || ch == '[' {
                if let Some(head) = p.get(..i) {
                    out.insert(head.to_string());
                }
            }
        }
        out.insert(p.to_string());
    }
    out
}

/// The changes as lines: `path: old → new`.
pub fn lines(changes: &[Change]) -> Vec<String> {
    changes
        .iter()
        .map(|c| {
            format!(
                "{}: {} → {}",
                c.path,
                c.old.as_deref().unwrap_or("(none)"),
                c.new.as_deref().unwrap_or("(none)")
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msg::{Registry, Schema, decode};

    fn polygon(points: &[(f32, f32)]) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&u32::try_from(points.len()).unwrap().to_le_bytes());
        for (x, y) in points {
            for v in [*x, *y, 0.0] {
                b.extend_from_slice(&v.to_le_bytes());
            }
        }
        b
    }

    #[test]
    fn changed_leaves_and_their_parents() {
        let schema =
            Schema::from_registry("geometry_msgs/Polygon", None, &Registry::bundled()).unwrap();
        let before = polygon(&[(1.0, 2.0), (3.0, 4.0)]);
        let after = polygon(&[(1.0, 2.5), (3.0, 4.0), (5.0, 6.0)]);
        let (da, db) = (
            decode(&schema, &before).unwrap(),
            decode(&schema, &after).unwrap(),
        );
        let c = changes(&da, &db);
        let paths: Vec<&str> = c.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(
            paths,
            ["points[0].y", "points[2].x", "points[2].y", "points[2].z"]
        );
        assert_eq!(lines(&c).first().unwrap(), "points[0].y: 2.0 → 2.5");
        assert_eq!(lines(&c).get(1).unwrap(), "points[2].x: (none) → 5.0");
        let p = changed_paths(&c);
        assert!(p.contains("points") && p.contains("points[0]") && p.contains("points[0].y"));
        assert!(!p.contains("points[1]"));
        assert!(changes(&da, &da).is_empty());
    }
}
