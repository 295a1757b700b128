//! The explorer over a bag still being scanned (issue 17, item 3): shown from the scan's
//! first partial result, with how far the scan is in the status bar and the health view,
//! each newer result replacing the bag, then the finished bag.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bagscope::bag::{Bag, OpenOptions, PartialFn, PartialScan, ProgressFn, RecoveryProgress};
use bagscope::catalog::Catalog;
use bagscope::tui::action::Action;
use bagscope::tui::jobs::opening::{Partial, Progress};
use bagscope::tui::term::event::AppEvent;

use crate::common::tui::Harness;
use crate::common::unindexed::{crashed, record_starts};

fn counts(h: &Harness) -> Vec<(String, u64)> {
    h.app
        .views
        .topics
        .list
        .rows()
        .iter()
        .map(|r| (r.topic.clone(), r.count))
        .collect()
}

#[test]
fn scanning_37_percent_screens() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = crashed(dir.path(), 3000);
    // What the scan has found at 37 %: the chunks before that point (a file cut there, at a
    // record boundary, reads the same).
    let cut = record_starts(&bytes)
        .into_iter()
        .find(|&s| s * 100 >= bytes.len() * 37)
        .unwrap();
    // In memory, under a fixed name: the health view shows the path.
    let bag =
        Bag::from_bytes("crashed.bag", bytes[..cut].to_vec(), OpenOptions::default()).unwrap();
    let total = bytes.len() as u64;
    let done = (total * 37).div_ceil(100);
    for (w, hh) in [(80, 24), (160, 48)] {
        let mut h = Harness::new(Catalog::new(vec![bag.clone()]), w, hh);
        h.app.start_scan(0, Instant::now(), (done, total));
        // Four seconds in: the rate and the time left are known.
        h.app.jobs.scan.note(
            RecoveryProgress::Scanning { done, total },
            Duration::from_secs(4),
        );
        h.scan();
        let screen = h.screen();
        assert!(screen.contains("scanning 37 %"), "{screen}");
        insta::assert_snapshot!(format!("scanning_37_{w}x{hh}"), screen);
        h.act(&[Action::ToggleHealth]);
        let screen = h.screen();
        assert!(screen.contains("still scanning 37 %"), "{screen}");
        insta::assert_snapshot!(format!("scanning_37_health_{w}x{hh}"), screen);
    }
}

#[test]
fn partial_results_replace_the_bag_then_the_finished_one_does() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crashed.bag");
    std::fs::write(&path, crashed(dir.path(), 6000)).unwrap();
    // The real scan's partial results, as the opening thread hands them out.
    let seen: Arc<Mutex<Vec<PartialScan>>> = Arc::default();
    let sink = Arc::clone(&seen);
    let options = OpenOptions {
        partial: Some(PartialFn(Arc::new(move |p| {
            sink.lock().unwrap().push(p);
            true
        }))),
        progress: Some(ProgressFn(Arc::new(|_| {
            std::thread::sleep(Duration::from_millis(3));
        }))),
        ..OpenOptions::default()
    };
    let finished = Bag::open_with(&path, options).unwrap();
    let seen = std::mem::take(&mut *seen.lock().unwrap());
    assert!(seen.len() >= 2, "{} partial results", seen.len());
    let first = &seen[0];
    let mut h = Harness::new(Catalog::new(vec![first.bag.clone()]), 100, 30);
    h.app
        .start_scan(0, Instant::now(), (first.done, first.total));
    assert!(
        h.status_bar().contains("counts partial"),
        "{}",
        h.status_bar()
    );
    let mut last = counts(&h);
    for p in &seen[1..] {
        h.app.handle(AppEvent::Opening(Progress::Partial(Partial {
            bags: vec![p.bag.clone()],
            scanned: 0,
            errors: Vec::new(),
            done: p.done,
            total: p.total,
        })));
        h.pump();
        let now = counts(&h);
        for ((topic, a), (t, b)) in last.iter().zip(&now) {
            assert_eq!(topic, t);
            assert!(b >= a, "{topic}: {a} then {b}");
        }
        last = now;
        assert!(h.app.jobs.scan.is_scanning());
    }
    // The health view says the counts and losses are those found so far.
    let health = |h: &mut Harness| {
        h.scan();
        h.act(&[Action::ToggleHealth]);
        let screen = h.screen().replace(['│', '"'], " ");
        h.act(&[Action::ToggleHealth]);
        screen.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    let during = health(&mut h);
    assert!(during.contains("so far (scan still running"), "{during}");
    h.app
        .handle(AppEvent::Opening(Progress::Scanned(Box::new(Ok(
            finished.clone()
        )))));
    h.pump();
    assert!(!h.app.jobs.scan.is_scanning());
    let want: Vec<(String, u64)> = finished
        .connections()
        .iter()
        .map(|c| (c.topic.clone(), c.message_count))
        .collect();
    assert_eq!(counts(&h), want);
    let status = h.status_bar();
    assert!(!status.contains("partial"), "{status}");
    assert!(status.contains("scan finished"), "{status}");
    let after = health(&mut h);
    assert!(
        after.contains("recovered") && !after.contains("so far"),
        "{after}"
    );
}

#[test]
fn a_bag_that_needs_a_scan_is_opened_last_and_shown_with_the_others() {
    use bagscope::tui::jobs::notify::Notify;
    use bagscope::tui::jobs::opening::{Bags, start};
    let dir = tempfile::tempdir().unwrap();
    let crashed_path = dir.path().join("crashed.bag");
    std::fs::write(&crashed_path, crashed(dir.path(), 6000)).unwrap();
    let good = dir.path().join("good.bag");
    std::fs::copy("tests/fixtures/recorded.bag", &good).unwrap();
    assert!(Bag::likely_needs_scan(&crashed_path));
    assert!(!Bag::likely_needs_scan(&good));
    assert!(!Bag::likely_needs_scan(dir.path().join("missing.bag")));
    // The crashed bag first on the command line, between two good ones.
    let paths = vec![good.clone(), crashed_path.clone(), good.clone()];
    let options = OpenOptions {
        progress: Some(ProgressFn(Arc::new(|_| {
            std::thread::sleep(Duration::from_millis(3));
        }))),
        ..OpenOptions::default()
    };
    let (tx, rx) = std::sync::mpsc::channel();
    start(Bags::Paths(paths, options), Notify::from(tx), |_, _| {}).unwrap();
    let (mut order, mut partials, mut finished) = (Vec::new(), 0, None);
    for news in rx {
        match news {
            Progress::Bag(i) => order.push(i),
            Progress::Partial(p) => {
                // Shown with the others, in the order given.
                assert_eq!(p.scanned, 1);
                let shown: Vec<_> = p.bags.iter().map(|b| b.path().to_path_buf()).collect();
                assert_eq!(
                    shown,
                    vec![good.clone(), crashed_path.clone(), good.clone()]
                );
                partials += 1;
            }
            Progress::Scanned(r) => {
                // The last news (the bags' options keep the channel open).
                finished = Some(r.unwrap());
                break;
            }
            _ => {}
        }
    }
    assert_eq!(order, vec![0, 2, 1], "the bag to scan is opened last");
    assert!(partials >= 1, "no partial result");
    assert_eq!(finished.unwrap().path(), crashed_path.as_path());
}
