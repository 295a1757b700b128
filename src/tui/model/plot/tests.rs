//! Tests of the plot model: spikes, gaps, legend numbers, scales.

use super::*;

/// `n` points every `period` ns from `t0`, value `f(i)`.
fn series(n: usize, t0: i64, period: i64, f: impl Fn(usize) -> f64) -> PlotSeries {
    let points = (0..n)
        .map(|i| (t0 + period * i64::try_from(i).unwrap(), f(i)))
        .collect();
    PlotSeries::new(Column::from_points(points))
}

fn view(start_ns: i64, end_ns: i64, width_px: usize) -> TimeView {
    TimeView {
        start_ns,
        end_ns,
        width_px,
    }
}

#[test]
fn a_single_sample_spike_survives_any_width() {
    let n = 1_000_000;
    let s = series(n, 0, 1_000, |i| match i {
        654_321 => 1e3,
        123_456 => -7.5,
        _ => (i % 10) as f64 * 0.01,
    });
    for width in [320usize, 100, 7, 1] {
        let e = s.envelope(&view(0, 999_999_000, width));
        assert_eq!(e.buckets.len(), width);
        let max = e
            .buckets
            .iter()
            .flatten()
            .map(|b| b.max)
            .fold(f64::MIN, f64::max);
        let min = e
            .buckets
            .iter()
            .flatten()
            .map(|b| b.min)
            .fold(f64::MAX, f64::min);
        assert!((max - 1e3).abs() < f64::EPSILON, "{width}");
        assert!((min + 7.5).abs() < f64::EPSILON, "{width}");
        // Every point counted once.
        let points: u64 = e
            .buckets
            .iter()
            .flatten()
            .map(|b| u64::from(b.points))
            .sum();
        assert_eq!(points, n as u64);
        // A dense series: every column has points, joined to the one before.
        assert!(e.buckets.iter().all(Option::is_some));
        assert!(e.buckets.iter().flatten().skip(1).all(|b| b.joined));
    }
    // The spike's column holds it, and only that column reaches 1000.
    let e = s.envelope(&view(0, 999_999_000, 320));
    let col = view(0, 999_999_000, 320).column_of(654_321_000).unwrap();
    let hits: Vec<usize> = e
        .buckets
        .iter()
        .enumerate()
        .filter(|(_, b)| b.is_some_and(|b| b.max > 1.0))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(hits, [col]);
}

#[test]
fn first_and_last_draw_the_line_through_the_values() {
    // Two points per column: first and last are the values in time order.
    let s = series(8, 0, 10, |i| i as f64);
    let e = s.envelope(&view(0, 79, 4));
    let b: Vec<(f64, f64, f64, f64)> = e
        .buckets
        .iter()
        .flatten()
        .map(|b| (b.first, b.last, b.min, b.max))
        .collect();
    assert_eq!(
        b,
        [
            (0.0, 1.0, 0.0, 1.0),
            (2.0, 3.0, 2.0, 3.0),
            (4.0, 5.0, 4.0, 5.0),
            (6.0, 7.0, 6.0, 7.0)
        ]
    );
    assert!(e.enter.is_none() && e.leave.is_none());
    // Zoomed between two points: no bucket, the line crosses the view.
    let e = s.envelope(&view(12, 18, 4));
    assert!(e.buckets.iter().all(Option::is_none));
    assert_eq!(
        (e.enter, e.leave),
        (
            Some(EdgePoint {
                time_ns: 10,
                value: 1.0
            }),
            Some(EdgePoint {
                time_ns: 20,
                value: 2.0
            })
        )
    );
}

#[test]
fn gaps_are_not_joined() {
    // 10 Hz for 10 s, nothing for 20 s, 10 Hz for 10 s.
    let sec = 1_000_000_000i64;
    let mut points: Vec<(i64, f64)> = (0..100).map(|i| (i * sec / 10, 1.0)).collect();
    points.extend((0..100).map(|i| (30 * sec + i * sec / 10, 2.0)));
    let s = PlotSeries::new(Column::from_points(points));
    assert_eq!(s.period_ns(), Some(sec / 10));
    let v = view(0, 40 * sec, 80);
    let e = s.envelope(&v);
    let first_after = v.column_of(30 * sec).unwrap();
    let b = e.buckets[first_after].unwrap();
    assert!(!b.joined && (b.first - 2.0).abs() < f64::EPSILON);
    // Between: empty columns.
    let last_before = v.column_of(9_900_000_000).unwrap();
    assert!(
        e.buckets[last_before + 1..first_after]
            .iter()
            .all(Option::is_none)
    );
    // Everything else is joined.
    let unjoined = e.buckets.iter().flatten().filter(|b| !b.joined).count();
    assert_eq!(unjoined, 2, "the first bucket and the one after the gap");
    // Zoomed out so far that the gap is narrower than a column: no gap.
    let e = s.envelope(&view(0, 40 * sec, 1));
    assert_eq!(e.buckets[0].unwrap().points, 200);
    // A slow topic (1 Hz) on a view where points fall every few columns: joined (no gap).
    let slow = series(60, 0, sec, |i| i as f64);
    let e = slow.envelope(&view(0, 59 * sec, 320));
    assert!(e.buckets.iter().flatten().skip(1).all(|b| b.joined));
    assert!(e.buckets.iter().any(Option::is_none));
    // The line enters from before the view when the previous point is close.
    let e = slow.envelope(&view(10 * sec + 1, 20 * sec, 10));
    assert_eq!(e.enter.map(|p| p.time_ns), Some(10 * sec));
    assert_eq!(e.leave.map(|p| p.time_ns), Some(21 * sec));
}

#[test]
fn legend_numbers_are_exact() {
    let n = 100_003;
    let f = |i: usize| ((i * 7919) % 10_007) as f64 * 0.1 - 300.0;
    let s = series(n, 1_000, 10, f);
    let values: Vec<f64> = (0..n).map(f).collect();
    for (a, b) in [
        (0i64, i64::MAX),
        (1_000, 1_000),
        (5_555, 777_777),
        (999, 1_004),
    ] {
        let r = s.range_of(a, b);
        let want = values[r.clone()]
            .iter()
            .fold(None, |acc: MinMax, v| match acc {
                None => Some((*v, *v)),
                Some((lo, hi)) => Some((lo.min(*v), hi.max(*v))),
            });
        assert_eq!(s.min_max(a, b), want, "{a}..{b}");
    }
    assert_eq!(s.range_of(999, 1_004), 0..1);
    assert_eq!(s.value_at(999), None);
    assert_eq!(s.value_at(1_000), Some((1_000, f(0))));
    assert_eq!(s.value_at(1_019), Some((1_010, f(1))));
    assert_eq!(
        s.value_at(i64::MAX),
        Some((1_000 + 10 * (i64::try_from(n).unwrap() - 1), f(n - 1)))
    );
    let fr = frame(
        &[&s],
        &view(5_555, 777_777, 160),
        Some(6_000),
        YMode::Shared,
        6,
    );
    assert_eq!(fr.legends[0].min_max, s.min_max(5_555, 777_777));
    assert_eq!(fr.legends[0].at_cursor, Some((6_000, f(500))));
    assert!(s.heap_bytes() <= 17 * n + 4096, "{}", s.heap_bytes());
}

#[test]
fn shared_and_normalised_scales() {
    let a = series(100, 0, 10, |i| i as f64);
    let b = series(100, 0, 10, |i| -1000.0 + i as f64 * 0.001);
    let v = view(0, 990, 50);
    let shared = frame(&[&a, &b], &v, None, YMode::Shared, 5);
    assert!(shared.axis.lo <= -1000.0 && shared.axis.hi >= 99.0);
    assert_eq!(shared.scales[0], shared.scales[1]);
    let norm = frame(&[&a, &b], &v, None, YMode::Normalised, 5);
    assert_eq!(norm.axis.labels.first().map(String::as_str), Some("0.0"));
    assert!((norm.scales[0].fraction(99.0) - 1.0).abs() < 1e-12);
    assert!(norm.scales[1].fraction(-1000.0).abs() < 1e-12);
    // A flat series sits in the middle; an empty one gets 0..1.
    let flat = series(10, 0, 10, |_| 3.0);
    let empty = PlotSeries::new(Column::new());
    let fr = frame(&[&flat, &empty], &v, Some(0), YMode::Normalised, 5);
    assert!((fr.scales[0].fraction(3.0) - 0.5).abs() < 1e-12);
    assert_eq!(fr.legends[1].at_cursor, None);
    assert!(fr.envelopes[1].buckets.iter().all(Option::is_none));
}

#[test]
fn extending_keeps_time_order() {
    let mut s = series(10, 0, 10, |i| i as f64);
    s.extend(Column::from_points(vec![(5, -1.0), (200, 9.0)]));
    assert_eq!(s.len(), 12);
    assert!(s.times().to_vec().is_sorted());
    assert_eq!(s.min_max(0, 1_000), Some((-1.0, 9.0)));
    assert_eq!(s.time_range(), Some((0, 200)));
}

#[test]
fn a_dense_series_holds_at_most_16_bytes_a_point() {
    // 1 kHz for 1 000 s, plus a pause of 10 s (a block of full times) in the middle.
    let n = 1_000_000;
    let s = series(n, 1_700_000_000_000_000_000, 1_000_000, |i| i as f64);
    let mut c = s.to_column();
    let pause = n / 2 + 7; // inside a block: that block keeps full times
    for t in c.times.iter_mut().skip(pause) {
        *t += 10_000_000_000;
    }
    let s = PlotSeries::new(c.clone());
    let per_point = s.heap_bytes() as f64 / n as f64;
    assert!(per_point <= 16.0, "{per_point} bytes a point");
    assert!(per_point < 13.0, "{per_point} bytes a point");
    // Exact: every time and value comes back.
    assert_eq!(s.to_column(), c);
    assert_eq!(s.point(pause), Some((c.times[pause], c.values[pause])));
    assert_eq!(
        s.value_at(c.times[pause] - 1),
        Some((c.times[pause - 1], c.values[pause - 1]))
    );
    assert_eq!(
        s.range_of(c.times[pause - 1] + 1, c.times[pause]),
        pause..pause + 1
    );
}

#[test]
fn a_series_grown_in_small_pieces_equals_one_built_at_once() {
    // As a followed recording extends it: pieces of a few points, over many level blocks,
    // with runs of equal times and a NaN or two.
    let points: Vec<(i64, f64)> = (0..50_000i64)
        .map(|i| {
            let v = if i % 9_973 == 0 {
                f64::NAN
            } else {
                ((i * 37) % 1_001) as f64 - 500.0
            };
            (1_000 + (i / 3) * 7, v)
        })
        .collect();
    let whole = PlotSeries::new(Column::from_points(points.clone()));
    let mut grown = PlotSeries::default();
    let mut rest = points.as_slice();
    let mut size = 1;
    while !rest.is_empty() {
        let (piece, later) = rest.split_at(size.min(rest.len()));
        grown.extend(Column::from_points(piece.to_vec()));
        rest = later;
        size = size % 97 + 13;
    }
    assert_eq!(grown.levels, whole.levels, "levels as if built in one go");
    assert_eq!(grown.to_column().times, whole.to_column().times);
    assert_eq!(grown.period_ns(), whole.period_ns());
    assert_eq!(grown.min_max(0, i64::MAX), whole.min_max(0, i64::MAX));
    let r = grown.resume().unwrap();
    assert_eq!(
        (crate::catalog::series::time_ns(r.time), r.skip),
        (1_000 + 16_666 * 7, 2)
    );
}
