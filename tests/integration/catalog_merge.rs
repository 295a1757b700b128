//! A catalog of several bags yields the union of their messages in receive-time order.

use bagscope::bag::{OpenOptions, Query};
use bagscope::catalog::{Catalog, Selection};
use bagscope::time::RosTime;

use crate::common::{fixtures_dir, skip};

#[test]
fn merges_bags_in_time_order() {
    let dir = fixtures_dir();
    let paths = vec![
        dir.join("recorded.bag"),
        dir.join("recorded_record_lz4.bag"),
        dir.join("v12_indexed.bag"),
    ];
    if !paths.iter().all(|p| p.exists()) {
        skip("tests/fixtures is not present");
        return;
    }
    let (cat, errors) = Catalog::open(&paths, &OpenOptions::default());
    assert!(errors.is_empty());
    let merged: Vec<(RosTime, usize, Vec<u8>)> = cat
        .messages(&Selection::default())
        .map(|m| {
            let m = m.unwrap();
            (m.message.entry.time, m.bag, m.message.data.to_vec())
        })
        .collect();
    let mut expected = Vec::new();
    for (i, bag) in cat.bags().iter().enumerate() {
        for m in bag.messages(&Query::all()) {
            let m = m.unwrap();
            expected.push((m.entry.time, i, m.data.to_vec()));
        }
    }
    expected.sort_by_key(|(t, b, _)| (*t, *b));
    assert_eq!(merged.len(), expected.len());
    assert_eq!(merged, expected);
    assert_eq!(cat.message_count() as usize, merged.len());
    // Selecting a topic and a window.
    let start = cat
        .start_time()
        .unwrap()
        .saturating_add_nanos(1_000_000_000);
    let sel = Selection {
        topics: vec!["chatter".into()],
        start: Some(start),
        end: None,
        parallel: false,
    };
    let picked: Vec<_> = cat.messages(&sel).map(|m| m.unwrap()).collect();
    assert!(!picked.is_empty());
    for m in &picked {
        let topic = &cat
            .bag(m.bag)
            .unwrap()
            .connection(m.message.entry.conn)
            .unwrap()
            .topic;
        assert_eq!(topic.trim_start_matches('/'), "chatter");
        assert!(m.message.entry.time >= start);
    }
    let topics = cat.topics();
    let chatter = topics.iter().find(|t| t.topic == "/chatter").unwrap();
    assert_eq!(chatter.bags, vec![0, 1, 2]);
    assert_eq!(
        chatter.connections.len(),
        cat.bags()
            .iter()
            .map(|b| b
                .connections()
                .iter()
                .filter(|c| c.topic == "/chatter")
                .count())
            .sum::<usize>()
    );
}
