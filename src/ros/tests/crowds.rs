//! Crowds of subscribers: capped per address and in total (the excess refused with the
//! reason, and reported), and subscribers that never read costing lossless publishing one
//! stall together, not one each.

use super::*;

#[test]
fn subscribers_are_capped_and_the_excess_refused_with_a_reason() {
    let f = Fixture::with_limits(NodeLimits {
        max_subscribers: 6,
        max_subscribers_per_peer: 4,
        ..NodeLimits::default()
    });
    assert_eq!(f.node.limits().max_subscribers_per_peer, 4);
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    {
        let lines = Arc::clone(&lines);
        f.node
            .on_refusal(move |l| lines.lock().unwrap().push(l.to_string()));
    }
    let p = f.publication("/t", false, QueueLimits::default());
    let mut kept: Vec<TcpStream> = (0..4)
        .map(|_| {
            let (s, h) = subscribe(f.addr(), "/t", "*", None);
            assert_eq!(h.get("error"), None);
            s
        })
        .collect();
    // A fifth from the same address is refused, saying why, and the refusal reported.
    let (_refused, h) = subscribe(f.addr(), "/t", "*", None);
    let why = h.get("error").unwrap_or_default().to_string();
    assert!(
        why.contains("too many subscribers from 127.0.0.1 (at most 4 per address)"),
        "{why}"
    );
    let lines_now = lines.lock().unwrap().clone();
    assert_eq!(lines_now.len(), 1, "{lines_now:?}");
    assert!(
        lines_now[0].starts_with("refused a subscriber of /t from 127.0.0.1: too many"),
        "{lines_now:?}"
    );
    let load = f.node.load();
    assert_eq!((load.subscribers, load.refused_subscribers), (4, 1));
    // (Kept once the answer is written: it may take a moment to be listed.)
    wait_for("four subscribers", || p.subscriber_count() == 4);
    // The publication still serves the ones it kept.
    p.publish(&string_msg("kept")).unwrap();
    for s in &mut kept {
        assert_eq!(read_frame(s, 100).unwrap(), string_msg("kept"));
    }
    // One that leaves gives its seat back without anything being published.
    drop(kept.pop());
    wait_for("the seat given back", || f.node.load().subscribers == 3);
    let (_again, h) = subscribe(f.addr(), "/t", "*", None);
    assert_eq!(h.get("error"), None);
    // Meanwhile the slave API answers.
    assert!(matches!(f.slave("getPid", &[]), Value::Array(_)));
}

#[test]
fn limits_fit_the_descriptors_there_are() {
    let d = NodeLimits::default();
    // Plenty: the configured caps.
    assert_eq!(d.fitted(1 << 20), d);
    // 172 descriptors (a limit of 256): a quarter each for the servers, the rest for
    // subscribers, half of those per address; everything fits.
    let f = d.fitted(172);
    assert_eq!(
        (
            f.max_active,
            f.max_reading,
            f.max_subscribers,
            f.max_subscribers_per_peer
        ),
        (43, 43, 86, 43)
    );
    assert!(f.descriptors() <= 172);
    // Nothing left: still one of each.
    let z = d.fitted(0);
    assert_eq!((z.max_active, z.max_subscribers), (1, 1));
}

#[test]
fn subscribers_that_never_read_cost_one_stall_together() {
    let f = Fixture::new();
    let limits = QueueLimits {
        messages: 2,
        bytes: 64 << 20,
    };
    let topics = ["/a", "/b", "/c"];
    let pubs: Vec<Publication> = topics
        .iter()
        .map(|t| f.publication(t, false, limits))
        .collect();
    // Eight subscribers on each topic connect and never read.
    let stuck: Vec<TcpStream> = topics
        .iter()
        .flat_map(|t| (0..8).map(|_| subscribe(f.addr(), t, "*", None).0))
        .collect();
    for p in &pubs {
        wait_for("the subscribers", || p.subscriber_count() == 8);
    }
    // 1 MiB messages fill their socket buffers and 2-message queues at once. Each of the 24
    // would have cost its own stall; one budget for the run costs one, whoever stalls.
    let stall = Duration::from_millis(800);
    let budget = StallBudget::new(stall, stall);
    let payload = vec![3u8; 1 << 20];
    let t = Instant::now();
    for _ in 0..12 {
        for p in &pubs {
            p.wait_for_room(payload.len(), &budget);
            p.publish(&payload).unwrap();
        }
    }
    let took = t.elapsed();
    assert!(
        took < stall + Duration::from_secs(3),
        "24 subscribers that never read held publishing for {took:?}"
    );
    assert!(
        budget.spent() <= stall + Duration::from_millis(200),
        "{budget:?}"
    );
    // They lost their oldest messages instead (most were marked slow; the others were not
    // waited for once the budget was spent).
    for p in &pubs {
        let stats = p.stats();
        assert!(stats.subscribers.iter().all(|s| s.dropped > 0), "{stats:?}");
        assert!(stats.subscribers.iter().any(|s| s.slow), "{stats:?}");
    }
    // The answer does not wait for them either.
    let t = Instant::now();
    assert!(!f.node.flush_within(Duration::from_secs(10), Some(&budget)));
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    drop(stuck);
}
