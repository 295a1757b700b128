//! Publishing to raw TCPROS subscribers: latching, slow and stuck subscribers, waiting for
//! room, malformed peers.

use super::*;

#[test]
fn latched_message_reaches_late_subscribers() {
    let f = Fixture::new();
    let latched = f.publication("/map", true, QueueLimits::default());
    let plain = f.publication("/plain", false, QueueLimits::default());
    latched.publish(&string_msg("old")).unwrap();
    latched.publish(&string_msg("last")).unwrap();
    plain.publish(&string_msg("gone")).unwrap();
    let (mut s, _) = subscribe(f.addr(), "/map", "*", None);
    assert_eq!(read_frame(&mut s, 1 << 20).unwrap(), string_msg("last"));
    latched.publish(&string_msg("next")).unwrap();
    assert_eq!(read_frame(&mut s, 1 << 20).unwrap(), string_msg("next"));
    // Not latched: a late subscriber gets only what follows.
    let (mut p, _) = subscribe(f.addr(), "/plain", "*", None);
    wait_for("the subscriber", || plain.subscriber_count() == 1);
    plain.publish(&string_msg("new")).unwrap();
    assert_eq!(read_frame(&mut p, 1 << 20).unwrap(), string_msg("new"));
}

#[test]
fn slow_subscriber_does_not_block_the_others() {
    let f = Fixture::new();
    let limits = QueueLimits {
        messages: 32,
        bytes: 64 << 20,
    };
    let p = f.publication("/big", false, limits);
    // One subscriber never reads; another reads everything.
    let (_stuck, _) = subscribe(f.addr(), "/big", "*", None);
    let (mut fast, _) = subscribe(f.addr(), "/big", "*", None);
    wait_for("two subscribers", || p.subscriber_count() == 2);
    let n = 150;
    let payload = vec![7u8; 1 << 20];
    let reader = std::thread::spawn(move || {
        let mut got = Vec::new();
        for _ in 0..n {
            got.push(read_frame(&mut fast, 2 << 20).unwrap());
        }
        got
    });
    let start = Instant::now();
    for i in 0..n {
        let mut m = payload.clone();
        m[..4].copy_from_slice(&u32::try_from(i).unwrap().to_le_bytes());
        p.publish(&m).unwrap();
        // Paced so the reading subscriber keeps up and drops nothing.
        std::thread::sleep(Duration::from_millis(3));
    }
    let publish_time = start.elapsed();
    let got = reader.join().unwrap();
    for (i, m) in got.iter().enumerate() {
        assert_eq!(
            &m[..4],
            &u32::try_from(i).unwrap().to_le_bytes(),
            "message {i}"
        );
    }
    // Publishing never waited on the stuck subscriber (150 MB it cannot take).
    assert!(publish_time < Duration::from_secs(10), "{publish_time:?}");
    // A write is counted once it has returned, which can be just after the reader has the
    // frame: wait for the last one to be counted.
    wait_for("the last write to the reader counted", || {
        p.stats()
            .subscribers
            .iter()
            .any(|s| s.dropped == 0 && s.messages == n)
    });
    let stats = p.stats();
    let stuck = stats
        .subscribers
        .iter()
        .find(|s| s.dropped > 0)
        .expect("drops counted");
    assert!(stuck.messages < n);
    // Written, dropped, still queued (32) and one being written account for all.
    assert!(stuck.dropped + stuck.messages + 33 >= n);
    let fast_stats = stats.subscribers.iter().find(|s| s.dropped == 0).unwrap();
    assert_eq!(fast_stats.messages, n);
}

#[test]
fn waiting_for_room_loses_nothing() {
    let f = Fixture::new();
    let limits = QueueLimits {
        messages: 4,
        bytes: 64 << 20,
    };
    let p = f.publication("/lossless", false, limits);
    // No subscriber: there is always room.
    assert!(p.wait_for_room(10, &StallBudget::new(Duration::ZERO, Duration::ZERO)));
    let (slow, _) = subscribe(f.addr(), "/lossless", "*", None);
    wait_for("a subscriber", || p.subscriber_count() == 1);
    // Big messages fill the socket buffers and the 4-message queue; without reading, the
    // queue stays full and waiting times out.
    let payload = vec![1u8; 4 << 20];
    let start = Instant::now();
    let budget = StallBudget::new(Duration::from_millis(200), Duration::from_millis(200));
    while p.wait_for_room(payload.len(), &budget) {
        p.publish(&payload).unwrap();
        assert!(start.elapsed() < Duration::from_secs(10), "never full");
    }
    // It took nothing for the whole stall: it is marked slow and not waited for again (not
    // even with a new budget); its oldest messages are dropped (and counted) instead.
    let t = Instant::now();
    let long = StallBudget::new(Duration::from_secs(10), Duration::from_secs(10));
    assert!(!p.wait_for_room(payload.len(), &long));
    assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
    for _ in 0..10 {
        p.publish(&payload).unwrap();
    }
    let stats = p.stats();
    assert!(stats.subscribers[0].slow);
    assert!(stats.subscribers[0].dropped >= 5, "{stats:?}");
    drop(slow);
    wait_for("the slow one to leave", || p.subscriber_count() == 0);
    // A subscriber that keeps up loses nothing: publishing waits for its queue.
    let (mut reading, _) = subscribe(f.addr(), "/lossless", "*", None);
    wait_for("a subscriber", || p.subscriber_count() == 1);
    let n = 20u32;
    let reader = std::thread::spawn(move || {
        (0..n)
            .map(|_| read_frame(&mut reading, 8 << 20).unwrap().len())
            .collect::<Vec<_>>()
    });
    let budget = StallBudget::new(Duration::from_secs(10), Duration::from_secs(10));
    for _ in 0..n {
        assert!(p.wait_for_room(payload.len(), &budget));
        p.publish(&payload).unwrap();
    }
    let got = reader.join().unwrap();
    assert_eq!(got.len(), n as usize);
    assert!(got.iter().all(|l| *l == payload.len()));
    // The link counts a message once its write returned, which can be after the reader has it.
    wait_for("the last message counted", || {
        p.stats().subscribers.last().unwrap().messages == u64::from(n)
    });
    let stats = p.stats();
    let s = stats.subscribers.last().unwrap();
    assert_eq!(s.dropped, 0);
    assert_eq!(s.messages, u64::from(n));
}

#[test]
fn malformed_peers_are_dropped() {
    let f = Fixture::new();
    let p = f.publication("/t", false, QueueLimits::default());
    let junk: Vec<Vec<u8>> = vec![
        vec![],
        b"\xff\xff\xff\xff".to_vec(),
        b"\x08\x00\x00\x00\x04\x00\x00\x00abcd".to_vec(),
        b"\x03\x00\x00".to_vec(),
        b"GET / HTTP/1.1\r\n\r\n".to_vec(),
        Header::new().with("nothing", "here").encode(),
    ];
    for j in junk {
        let mut s = TcpStream::connect(f.addr()).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let _ = s.write_all(&j);
        let _ = s.shutdown(std::net::Shutdown::Write);
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        // Either closed outright or an error header.
        if !out.is_empty() {
            let h = Header::decode(&out[4..]).unwrap();
            assert!(h.get("error").is_some());
        }
    }
    // Still serving.
    let (mut s, h) = subscribe(f.addr(), "/t", "*", None);
    assert_eq!(h.get("error"), None);
    wait_for("the subscriber", || p.subscriber_count() == 1);
    p.publish(&string_msg("ok")).unwrap();
    assert_eq!(read_frame(&mut s, 100).unwrap(), string_msg("ok"));
    // A subscriber that goes away is noticed without publishing.
    drop(s);
    wait_for("the subscriber to leave", || p.subscriber_count() == 0);
}
