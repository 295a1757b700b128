//! The topic list's filter in the background and inline: newest wins, the same rows either
//! way, names ranked above types.

use std::sync::{Arc, mpsc};

use crate::tui::model::topic_filter::{BACKGROUND_FROM, compute};
use crate::tui::model::topic_row::{SortKey, TopicRow};
use crate::tui::model::topics::TopicList;

fn rows(n: usize) -> Vec<TopicRow> {
    (0..n)
        .map(|i| TopicRow {
            topic: format!("/sensor_{i:06}/data"),
            datatype: "std_msgs/String".into(),
            count: i as u64,
            rate: None,
            bytes: None,
            bandwidth: None,
            view_bandwidth: None,
            connections: vec![],
            bags: vec![0],
            conflicting: false,
        })
        .collect()
}

fn names(l: &TopicList) -> Vec<String> {
    l.visible()
        .iter()
        .map(|v| l.rows()[v.row].topic.clone())
        .collect()
}

#[test]
fn many_rows_are_filtered_in_the_background_newest_wins() {
    let n = BACKGROUND_FROM + 5;
    let mut inline = TopicList::new(rows(n));
    let mut l = TopicList::new(rows(n));
    let (tx, rx) = mpsc::channel();
    let tx = std::sync::Mutex::new(tx);
    l.filter_in_background(Arc::new(move |d| {
        let _ = tx.lock().map(|t| t.send(d));
    }));
    l.set_filter("0000");
    assert!(l.is_filtering(), "scored on the background thread");
    assert_eq!(
        l.visible().len(),
        n,
        "the previous rows stay shown meanwhile"
    );
    l.set_filter("00001");
    let mut applied = 0;
    while l.is_filtering() {
        let done = rx.recv_timeout(std::time::Duration::from_secs(60)).unwrap();
        applied += usize::from(l.apply_filtered(done));
    }
    assert_eq!(applied, 1, "only the newest filter's result is shown");
    inline.set_filter("00001");
    assert_eq!(names(&l), names(&inline), "same rows as inline filtering");
    assert!(!l.visible().is_empty() && l.visible().len() < n);
    assert_eq!(l.matched("/sensor_000010/data").len(), 5);
    // Clearing is immediate and drops any result under way.
    l.set_filter("000012");
    assert!(l.is_filtering());
    l.clear_filter(true);
    assert!(!l.is_filtering());
    assert_eq!(l.visible().len(), n);
    let late = rx.recv_timeout(std::time::Duration::from_secs(60)).unwrap();
    assert!(!l.apply_filtered(late), "a stale result is dropped");
    assert_eq!(l.visible().len(), n);
}

#[test]
fn the_filter_matches_types_below_names() {
    let mut r = rows(3);
    r[0].topic = "/base_scan".into();
    r[0].datatype = "sensor_msgs/LaserScan".into();
    r[2].topic = "/laser_status".into();
    let shown = compute(&r, "laser", SortKey::Name, None);
    let names: Vec<&str> = shown.iter().map(|v| r[v.row].topic.as_str()).collect();
    assert_eq!(
        names,
        vec!["/laser_status", "/base_scan"],
        "names rank first"
    );
    assert_eq!(compute(&r, "Laser", SortKey::Name, None).len(), 2);
}

#[test]
fn few_rows_are_filtered_at_once() {
    let mut l = TopicList::new(rows(100));
    l.filter_in_background(Arc::new(|_| panic!("no background work for 100 rows")));
    l.set_filter("0000");
    assert!(!l.is_filtering());
    assert_eq!(l.visible().len(), 100);
    l.set_filter("00009");
    // Fuzzy: the exact run first, then the scattered ones.
    let shown = names(&l);
    assert_eq!(shown.len(), 19);
    assert_eq!(shown[0], "/sensor_000090/data");
    assert_eq!(shown[10], "/sensor_000009/data");
}
