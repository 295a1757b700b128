//! Tests of the catalog's questions (chunk scan, topic spans, message windows) on catalogs of
//! several bags written for the purpose.

use crate::bag::Bag;
use crate::bag::writer::{BagWriter, WriterOptions};
use crate::format::{Compression, ConnectionHeader};
use crate::time::RosTime;

use super::{BagConn, Catalog, MsgRef};

/// The type of every message written (each a `std_msgs/String` "ok").
const TYPE: &str = "std_msgs/String";
/// Its md5sum.
const MD5: &str = "992ce8a1687cec8c8bd883ec73ca41d1";

/// Writes a bag with one message per `(topic, seconds, nanoseconds)`, in that order, in
/// chunks of about `chunk_size` bytes.
pub(super) fn write_bag(
    dir: &std::path::Path,
    name: &str,
    msgs: &[(&str, u32, u32)],
    chunk_size: u32,
) -> Bag {
    let path = dir.join(name);
    let mut w = BagWriter::create(
        &path,
        WriterOptions {
            compression: Compression::None,
            chunk_size,
        },
    )
    .unwrap();
    let mut conns: Vec<(&str, u32)> = Vec::new();
    for &(topic, s, ns) in msgs {
        let known = conns.iter().find(|(t, _)| *t == topic).map(|&(_, c)| c);
        let c = known.unwrap_or_else(|| {
            let header = ConnectionHeader::build(topic, TYPE, MD5, "string data\n", None, None);
            let c = w.add_connection(topic, &header).unwrap();
            conns.push((topic, c));
            c
        });
        w.write(c, RosTime::new(s, ns), &[2, 0, 0, 0, b'o', b'k'])
            .unwrap();
    }
    w.finish().unwrap();
    Bag::open(&path).unwrap()
}

/// An empty `rec.bag.active` in `dir` and a follower on it, and `bag` (a closed bag's bytes)
/// as the recorder writes it — the bag header's index position still 0 — for a test to append
/// piece by piece.
pub(super) fn recording(
    dir: &std::path::Path,
    bag: &[u8],
) -> (std::path::PathBuf, crate::bag::follow::Follower, Vec<u8>) {
    let mut live = bag.to_vec();
    let name = b"index_pos=";
    let at = live.windows(name.len()).position(|w| w == name).unwrap() + name.len();
    live[at..at + 8].fill(0);
    let path = dir.join("rec.bag.active");
    std::fs::write(&path, b"").unwrap();
    let follower = crate::bag::follow::Follower::open(&path).unwrap();
    (path, follower, live)
}

/// Two bags whose times interleave and tie, `/a` in both (in several chunks), `/b` in the
/// first only.
fn two_bags(dir: &std::path::Path) -> Catalog {
    let mut first = Vec::new();
    let mut second = Vec::new();
    for i in 0..40u32 {
        first.push(("/a", 10 + i, 0));
        if i % 3 == 0 {
            first.push(("/b", 10 + i, 500_000_000));
        }
        if i % 2 == 0 {
            // Same times as the first bag's every other message: ties broken by bag order.
            second.push(("/a", 10 + i, 0));
        }
    }
    second.push(("/a", 70, 0));
    Catalog::new(vec![
        write_bag(dir, "first.bag", &first, 200),
        write_bag(dir, "second.bag", &second, 300),
    ])
}

/// Every message of `conns`, sorted, read the slow way: every chunk's index data.
fn all_refs(catalog: &Catalog, conns: &[BagConn]) -> Vec<MsgRef> {
    let mut all: Vec<MsgRef> = Vec::new();
    for (bag, b) in catalog.bags().iter().enumerate() {
        for c in b.chunks() {
            all.extend(
                b.chunk_entries(c.index)
                    .iter()
                    .map(|&entry| MsgRef { bag, entry })
                    .filter(|m| conns.contains(&m.key())),
            );
        }
    }
    all.sort_unstable();
    all
}

fn topic_conns(catalog: &Catalog, topic: &str) -> Vec<BagConn> {
    catalog
        .topics()
        .into_iter()
        .find(|t| t.topic == topic)
        .unwrap()
        .connections
}

#[test]
fn the_catalog_has_several_chunks_per_bag() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = two_bags(dir.path());
    for b in catalog.bags() {
        assert!(b.chunks().len() > 2, "{} chunks", b.chunks().len());
    }
    assert_eq!(
        catalog.chunks().count(),
        catalog
            .bags()
            .iter()
            .map(|b| b.chunks().len())
            .sum::<usize>()
    );
}

#[test]
fn spans_chunk_counts_and_windows_agree() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = two_bags(dir.path());
    let topics = catalog.topics();
    let spans = catalog.topic_spans(&topics);
    for (t, span) in topics.iter().zip(&spans) {
        let holding: Vec<_> = catalog.chunks_holding(Some(&t.connections)).collect();
        // The histogram's input: every message of the topic, in chunks holding some.
        let counted: u64 = holding.iter().map(|&(_, n)| n).sum();
        assert_eq!(counted, t.message_count, "{}", t.topic);
        let from_chunks = holding
            .iter()
            .map(|(c, _)| (c.chunk.start, c.chunk.end))
            .reduce(|(a, b), (c, d)| (a.min(c), b.max(d)));
        assert_eq!(*span, from_chunks, "{}", t.topic);
        // A window wide enough holds them all, within the span.
        let (lo, hi) = span.unwrap();
        let w = catalog.window(&t.connections, lo, usize::MAX, usize::MAX);
        assert_eq!(w.entries, all_refs(&catalog, &t.connections), "{}", t.topic);
        assert_eq!(w.entries.len() as u64, t.message_count);
        assert!(w.at_start && w.at_end);
        assert!(w.entries.iter().all(|m| (lo..=hi).contains(&m.entry.time)));
        // Every chunk the window read from is one the scan names.
        assert!(w.entries.iter().all(|m| {
            holding
                .iter()
                .any(|(c, _)| c.bag == m.bag && c.chunk.index == m.entry.chunk)
        }));
    }
    // Every connection, as the histogram asks with no topic selected.
    let all: u64 = catalog.chunks_holding(None).map(|(_, n)| n).sum();
    assert_eq!(all, catalog.message_count());
}

#[test]
fn windows_are_complete_between_their_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = two_bags(dir.path());
    let conns = topic_conns(&catalog, "/a");
    let all = all_refs(&catalog, &conns);
    assert_eq!(all.len(), 40 + 21);
    for center_s in [0u32, 10, 11, 25, 30, 49, 50, 69, 70, 71, 100] {
        let center = RosTime::new(center_s, 0);
        for (before, after) in [(0, 0), (0, 5), (1, 1), (3, 7), (10, 2), (100, 100)] {
            let w = catalog.window(&conns, center, before, after);
            let what = format!("center {center_s} before {before} after {after}: {w:?}");
            assert!(w.entries.windows(2).all(|p| p[0] < p[1]), "{what}");
            let expected: Vec<MsgRef> = all
                .iter()
                .filter(|m| (w.from..=w.to).contains(&m.entry.time))
                .copied()
                .collect();
            assert_eq!(w.entries, expected, "{what}");
            let earlier = all.iter().filter(|m| m.entry.time < center).count();
            let later = all.len() - earlier;
            let got_earlier = w.entries.iter().filter(|m| m.entry.time < center).count();
            assert!(got_earlier >= before.min(earlier), "{what}");
            assert!(
                w.entries.len() - got_earlier >= after.max(1).min(later),
                "{what}"
            );
            if w.at_start {
                assert!(all.iter().all(|m| m.entry.time >= w.from), "{what}");
            }
            if w.at_end {
                assert!(all.iter().all(|m| m.entry.time <= w.to), "{what}");
            }
        }
    }
}

#[test]
fn ties_across_bags_are_ordered_by_bag() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = two_bags(dir.path());
    let conns = topic_conns(&catalog, "/a");
    let w = catalog.window(&conns, RosTime::new(20, 0), 0, 2);
    let at: Vec<(u32, usize)> = w
        .entries
        .iter()
        .map(|m| (m.entry.time.sec, m.bag))
        .collect();
    assert_eq!(at, vec![(20, 0), (20, 1)]);
    assert_eq!((w.from, w.to), (RosTime::new(20, 0), RosTime::new(20, 0)));
}

#[test]
fn a_connection_set_selects_its_own_messages_only() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = two_bags(dir.path());
    let b = topic_conns(&catalog, "/b");
    assert_eq!(b, vec![BagConn::new(0, b[0].conn)]);
    let second_a = BagConn::new(1, 0);
    assert!(second_a.is_in(None));
    assert!(!second_a.is_in(Some(&b)));
    let w = catalog.window(&b, RosTime::new(0, 0), 0, usize::MAX);
    assert_eq!(w.entries.len(), 14);
    assert!(w.entries.iter().all(|m| m.key() == b[0]));
    assert!(catalog.chunks_holding(Some(&b)).all(|(c, _)| c.bag == 0));
}
