//! A plotted series grows with a followed recording: a synthetic recorder appends a bag of
//! `std_msgs/Float64` messages (three per receive time, so a refresh often ends inside a
//! run of equal times) in steps; the plot's points and its legend's max follow the counts,
//! and once the recorder closes the bag the series equals the finished bag's, point for
//! point.

use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use bagscope::bag::writer::{BagWriter, WriterOptions};
use bagscope::bag::{Bag, OpenOptions};
use bagscope::catalog::Catalog;
use bagscope::catalog::series::{self, Column, SeriesRequest};
use bagscope::format::{Compression, ConnectionHeader};
use bagscope::msg::Registry;
use bagscope::time::RosTime;
use bagscope::tui::app::App;

use crate::common::synth::{string_header, string_msg};
use crate::common::tui::Harness;

const WAIT: Duration = Duration::from_secs(10);
const N: u32 = 150;

/// A finished bag: `/x` Float64 (value `i`, 3 per second) between `/s` strings.
fn finished(path: &Path) -> Vec<u8> {
    let mut w = BagWriter::create(
        path,
        WriterOptions {
            compression: Compression::None,
            chunk_size: 600,
        },
    )
    .unwrap();
    let float = ConnectionHeader::build(
        "/x",
        "std_msgs/Float64",
        "fdb28210bfa9d7c91146260178d9a584",
        "float64 data\n",
        Some("/talker"),
        Some("0"),
    );
    let x = w.add_connection("/x", &float).unwrap();
    let s = w
        .add_connection("/s", &string_header("/s", "/talker"))
        .unwrap();
    for i in 0..N {
        let t = RosTime::new(100 + i / 3, 0);
        w.write(x, t, &f64::from(i).to_le_bytes()).unwrap();
        if i % 5 == 0 {
            w.write(s, t, &string_msg(&format!("note {i}"))).unwrap();
        }
    }
    w.finish().unwrap();
    std::fs::read(path).unwrap()
}

fn append(path: &Path, bytes: &[u8]) {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .unwrap();
    f.write_all(bytes).unwrap();
}

/// Messages of `/x` in the explorer's catalog.
fn x_count(app: &App) -> u64 {
    app.catalog
        .topics()
        .iter()
        .find(|t| t.topic == "/x")
        .map_or(0, |t| t.message_count)
}

/// The plotted series' points.
fn points(app: &App) -> usize {
    app.views
        .plot
        .plots
        .entries
        .first()
        .map_or(0, |e| e.series.len())
}

/// The legend's max over the whole series.
fn max(app: &App) -> Option<f64> {
    let s = &app.views.plot.plots.entries.first()?.series;
    s.min_max(0, i64::MAX).map(|(_, hi)| hi)
}

/// Waits until the plot holds a point for every `/x` message the catalog has, after `more`
/// steps of the recorder at most (the follow thread's refresh and the series' extension
/// take a moment).
fn caught_up(h: &mut Harness, what: &str) -> usize {
    h.wait_until(what, WAIT, |app| {
        let n = x_count(app);
        n > 0 && points(app) as u64 == n && app.views.plot.plots.entries[0].progress.is_none()
    });
    points(&h.app)
}

#[test]
fn a_plotted_series_grows_while_the_recording_is_followed() {
    let dir = tempfile::tempdir().unwrap();
    let full = finished(&dir.path().join("full.bag"));
    let reference = Catalog::new(vec![Bag::open(dir.path().join("full.bag")).unwrap()]);
    let request = SeriesRequest::parse(&reference, "/x/data").unwrap();
    let (want, _) = series::extract(
        &reference,
        &request,
        &Registry::bundled(),
        &AtomicBool::new(false),
        |_| true,
    )
    .unwrap();
    assert_eq!(want.len(), N as usize);

    let mut live = full.clone();
    let name = b"index_pos=";
    let at = live.windows(name.len()).position(|w| w == name).unwrap() + name.len();
    live[at..at + 8].fill(0);
    let active = dir.path().join("rec.bag.active");
    let done = dir.path().join("rec.bag");
    // The bag header takes the first 4 KiB: the rest is written in five steps.
    let step = (live.len() - 4096) / 5;
    let cut = |k: usize| 4096 + k * step;
    append(&active, &live[..cut(1)]);

    let bag = Bag::open_with(&active, OpenOptions::default()).unwrap();
    let mut h = Harness::new(Catalog::new(vec![bag]), 80, 24);
    assert!(h.app.jobs.follow.is_following());
    h.wait_until("the first snapshot", WAIT, |app| x_count(app) > 0);
    h.app.plot_field("/x/data").unwrap();
    let mut seen = vec![caught_up(&mut h, "the first points")];
    let mut maxima = vec![max(&h.app).unwrap()];
    for k in 2..5 {
        append(&active, &live[cut(k - 1)..cut(k)]);
        let before = *seen.last().unwrap();
        h.wait_until("more messages", WAIT, |app| x_count(app) as usize > before);
        seen.push(caught_up(&mut h, "the plot extended"));
        maxima.push(max(&h.app).unwrap());
    }
    assert!(seen.is_sorted() && seen.first() < seen.last(), "{seen:?}");
    assert!(*seen.last().unwrap() < N as usize, "{seen:?}");
    assert!(
        maxima.is_sorted() && maxima.first() < maxima.last(),
        "{maxima:?}"
    );
    // Each value is its message's index: the legend's max is the count less one.
    assert_eq!(
        maxima.last().copied(),
        Some(*seen.last().unwrap() as f64 - 1.0)
    );

    // The recorder closes the bag; the series ends equal to the finished bag's.
    append(&active, &live[cut(4)..]);
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&active)
        .unwrap();
    f.write_at(&full[at..at + 8], at as u64).unwrap();
    f.sync_all().unwrap();
    drop(f);
    std::fs::rename(&active, &done).unwrap();
    h.wait_until("the finished bag", WAIT, |app| {
        !app.jobs.follow.is_following()
    });
    assert_eq!(caught_up(&mut h, "the whole series"), N as usize);
    let got: Column = h.app.views.plot.plots.entries[0].series.to_column();
    assert_eq!(got, want, "no point lost or read twice");
}
