//! File-level import cycles: file A names something of file B and B names something of A,
//! directly or through other files. A path is attributed to the file that defines the longest
//! module prefix of it (`crate::bag::open_v2::Fallback` → `src/bag/open_v2.rs`; a name
//! re-exported by a `mod.rs` counts as that `mod.rs`), so a child that uses its parent's items
//! while the parent uses the child is a cycle too.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The file below `src` that holds the module `target` names, or its longest prefix that is a
/// module file; `None` for the crate root.
pub fn file_of(src: &Path, target: &[String]) -> Option<String> {
    for n in (1..=target.len()).rev() {
        let prefix = target.get(..n)?.join("/");
        for candidate in [format!("{prefix}.rs"), format!("{prefix}/mod.rs")] {
            if src.join(&candidate).is_file() {
                return Some(format!("src/{candidate}"));
            }
        }
    }
    None
}

/// The strongly connected groups of more than one file in the graph `edges` (file → files it
/// uses), each sorted, in sorted order (Tarjan's algorithm, iterative).
pub fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let mut nodes: BTreeSet<&String> = edges.keys().collect();
    nodes.extend(edges.values().flatten());
    let nodes: Vec<&String> = nodes.into_iter().collect();
    let id: BTreeMap<&String, usize> = nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let succ: Vec<Vec<usize>> = nodes
        .iter()
        .map(|n| {
            edges
                .get(*n)
                .map(|s| s.iter().map(|t| id[t]).collect())
                .unwrap_or_default()
        })
        .collect();
    let n = nodes.len();
    let (mut index, mut low) = (vec![usize::MAX; n], vec![0; n]);
    let (mut on_stack, mut stack, mut next) = (vec![false; n], Vec::new(), 0);
    let mut out = Vec::new();
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        // (node, next successor to visit)
        let mut call = vec![(root, 0usize)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut i)) = call.last_mut() {
            if let Some(&w) = succ[v].get(*i) {
                *i += 1;
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            call.pop();
            if let Some(&(parent, _)) = call.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut group = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    group.push(nodes[w].clone());
                    if w == v {
                        break;
                    }
                }
                if group.len() > 1 {
                    group.sort();
                    out.push(group);
                }
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_circle_through_three_files_is_one_group() {
    let mut e = BTreeMap::new();
    let mut add = |a: &str, b: &str| {
        e.entry(a.to_string())
            .or_insert_with(BTreeSet::new)
            .insert(b.to_string());
    };
    add("a", "b");
    add("b", "c");
    add("c", "a");
    add("c", "d");
    add("d", "e");
    add("x", "y");
    add("y", "x");
    let want: Vec<Vec<String>> = [&["a", "b", "c"][..], &["x", "y"][..]]
        .iter()
        .map(|g| g.iter().map(|s| (*s).to_string()).collect())
        .collect();
    assert_eq!(cycles(&e), want);
    let mut chain = BTreeMap::new();
    chain.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    assert!(cycles(&chain).is_empty());
}
