use super::*;

/// A message of a synthetic catalog: (time, bag, chunk, index, stream, value).
type Msg = (i64, u32, u32, u32, u32, f64);

fn place(m: &Msg) -> Place {
    Place {
        time_ns: m.0,
        bag: m.1,
        chunk: m.2,
        index: m.3,
    }
}

/// What a worker gathers from one chunk (its messages in any order).
fn gathered(msgs: &[Msg]) -> Gathered {
    let mut g = Gathered::default();
    for m in msgs {
        g.push_numbers(place(m), m.4, 0);
        g.numbers.push(m.5);
        // A second number, to check widths above one survive the shuffles.
        g.numbers.push(m.5 * 10.0);
        g.close_numbers();
    }
    g
}

/// A synthetic stateful quantity: the change of the value since the stream's previous
/// message (none for the first), checking both gathered numbers arrive.
fn diff(_: &Record, numbers: &[f64], previous: &mut Option<f64>) -> Option<f64> {
    assert_eq!(numbers.len(), 2);
    assert!((numbers[1] - numbers[0] * 10.0).abs() < 1e-9);
    let d = previous.map(|p| numbers[0] - p);
    *previous = Some(numbers[0]);
    d
}

/// The same computed by walking every message in receive-time order.
fn sequential(all: &[Msg]) -> Vec<(i64, f64)> {
    let mut sorted = all.to_vec();
    sorted.sort_by_key(place);
    let mut previous: Vec<Option<f64>> = vec![None; 4];
    sorted
        .iter()
        .filter_map(|m| {
            let p = &mut previous[m.4 as usize];
            let d = p.map(|p| m.5 - p);
            *p = Some(m.5);
            d.map(|d| (m.0, d))
        })
        .collect()
}

/// Chunks of two bags whose times overlap, read in start order in batches of `batch`.
fn chunks() -> Vec<Vec<Msg>> {
    let mut chunks = Vec::new();
    let mut value = 1.0f64;
    for c in 0..12u32 {
        let mut msgs = Vec::new();
        for i in 0..20u32 {
            // Bag 0's chunks cover 100 ns each, bag 1's start half-way and run 150 ns:
            // every chunk overlaps its neighbours and the other bag's.
            let bag = c % 2;
            let t = i64::from(c / 2) * 100 + i64::from(bag) * 50 + i64::from(i) * 7;
            value = (value * 1.37 + 0.11) % 17.0;
            msgs.push((t, bag, c / 2, i, (i % 3) + bag, value));
        }
        // Workers may hand a chunk's messages in any order.
        msgs.reverse();
        chunks.push(msgs);
    }
    chunks
}

fn start(chunk: &[Msg]) -> i64 {
    chunk.iter().map(|m| m.0).min().unwrap()
}

#[test]
fn overlapping_chunks_of_two_bags_are_finished_in_time_order_per_stream() {
    let chunks = chunks();
    let all: Vec<Msg> = chunks.iter().flatten().copied().collect();
    let want = sequential(&all);
    for batch in [1, 2, 3, 5, 12] {
        let mut jobs = chunks.clone();
        jobs.sort_by_key(|c| start(c));
        let mut order = InOrder::new();
        let mut states: Vec<Option<f64>> = Vec::new();
        let mut got = Vec::new();
        let mut rest = &jobs[..];
        while !rest.is_empty() {
            let (now, later) = rest.split_at(batch.min(rest.len()));
            rest = later;
            for c in now {
                order.add(gathered(c));
            }
            let below = rest.first().map(|c| start(c));
            let (points, _) = finish_in_order(&mut order, below, &mut states, diff);
            assert!(points.is_sorted_by_key(|p| p.0), "batch {batch}");
            got.extend(points);
        }
        assert_eq!(order.pending(), 0);
        assert_eq!(order.late(), 0);
        assert_eq!(got, want, "batch {batch}");
    }
}

#[test]
fn lost_messages_give_no_value_and_keep_the_state() {
    let mut order = InOrder::new();
    let mut g = gathered(&[(10, 0, 0, 0, 0, 1.0), (30, 0, 0, 2, 0, 4.0)]);
    g.push(
        Place {
            time_ns: 20,
            bag: 0,
            chunk: 0,
            index: 1,
        },
        0,
        0,
        Outcome::Lost,
    );
    order.add(g);
    let mut states: Vec<Option<f64>> = Vec::new();
    let (points, no_value) = finish_in_order(&mut order, None, &mut states, diff);
    assert_eq!(points, [(30, 3.0)]);
    assert_eq!(no_value, 1, "the first message has no previous one");
}

#[test]
fn a_message_earlier_than_what_was_released_is_late_but_not_lost() {
    let mut order = InOrder::new();
    order.add(gathered(&[(10, 0, 0, 0, 0, 1.0), (20, 0, 0, 1, 0, 2.0)]));
    let mut states: Vec<Option<f64>> = Vec::new();
    let (points, _) = finish_in_order(&mut order, Some(100), &mut states, diff);
    assert_eq!(points, [(20, 1.0)]);
    // A chunk claiming to start at 100 holds a message at 15.
    order.add(gathered(&[(15, 0, 1, 0, 0, 7.0), (120, 0, 1, 1, 0, 8.0)]));
    let (points, _) = finish_in_order(&mut order, None, &mut states, diff);
    assert_eq!(points, [(15, 5.0), (120, 1.0)]);
    assert_eq!(order.late(), 1);
}

#[test]
fn what_is_held_back_keeps_its_numbers() {
    let mut order = InOrder::new();
    order.add(gathered(&[(5, 0, 0, 0, 0, 1.0), (50, 0, 0, 1, 0, 2.0)]));
    order.add(gathered(&[(40, 1, 0, 0, 0, 3.0)]));
    let mut seen = Vec::new();
    order.release(Some(45), |r, n| seen.push((r.place.time_ns, n.to_vec())));
    assert_eq!(seen, [(5, vec![1.0, 10.0]), (40, vec![3.0, 30.0])]);
    assert_eq!(order.pending(), 1);
    seen.clear();
    order.release(None, |r, n| seen.push((r.place.time_ns, n.to_vec())));
    assert_eq!(seen, [(50, vec![2.0, 20.0])]);
}
