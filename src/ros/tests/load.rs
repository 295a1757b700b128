//! The node under slow and greedy peers, on loopback with small limits: slow XML-RPC
//! requests, many unfinished TCPROS handshakes, huge declared frames. A normal client keeps
//! being served meanwhile. Counts and times are bounded; every test ends by itself.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::*;
use super::{Fixture, string_info, string_msg, subscribe, wait_for};

const DEADLINE: Duration = Duration::from_millis(1500);

fn small_limits() -> NodeLimits {
    NodeLimits {
        request_deadline: DEADLINE,
        handshake_deadline: DEADLINE,
        frame_deadline: DEADLINE,
        idle_timeout: Duration::from_secs(3),
        max_reading: 16,
        max_reading_per_peer: 8,
        max_active: 32,
        frame_budget: 2 * 1024 * 1024,
        max_service_request: 64 * 1024 * 1024,
        ..NodeLimits::default()
    }
}

fn xmlrpc_addr(f: &Fixture) -> SocketAddr {
    let (host, port) = uri::host_port(f.node.uri(), "http").unwrap();
    format!("{host}:{port}").parse().unwrap()
}

/// True when the server closed `s` (within `within`).
fn closed_by_server(s: &mut TcpStream, within: Duration) -> bool {
    s.set_read_timeout(Some(within)).unwrap();
    let mut buf = [0u8; 64];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e) => {
                return !matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                );
            }
        }
    }
}

fn echo_service(f: &Fixture) {
    let info = ServiceInfo {
        datatype: "bagscope/Echo".into(),
        md5sum: "*".into(),
        request_type: "bagscope/EchoRequest".into(),
        response_type: "bagscope/EchoResponse".into(),
    };
    f.node
        .advertise_service(
            "/echo",
            info,
            Arc::new(|c: &ServiceCall<'_>| Ok(c.request.to_vec())),
        )
        .unwrap();
}

fn timed_call(f: &Fixture) -> Duration {
    let t = Instant::now();
    let r = call_service(
        &f.node.service_uri(),
        "/echo",
        "*",
        "/normal",
        b"ping",
        Duration::from_secs(5),
        Some(Duration::from_secs(5)),
    )
    .unwrap();
    assert_eq!(r, Ok(b"ping".to_vec()));
    t.elapsed()
}

#[test]
fn slow_xmlrpc_clients_do_not_lock_out_the_api() {
    let f = Fixture::with_limits(small_limits());
    let addr = xmlrpc_addr(&f);
    // 40 connections that send one byte and then nothing (more than every cap).
    let mut slow: Vec<TcpStream> = (0..40)
        .map(|_| {
            let mut s = TcpStream::connect(addr).unwrap();
            s.write_all(b"P").unwrap();
            s
        })
        .collect();
    let t = Instant::now();
    let pid = f.slave("getPid", &[]);
    assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
    assert!(matches!(pid, xmlrpc::Value::Array(_)));
    let load = f.node.load();
    assert!(load.xmlrpc.reading <= 8, "{load:?}");
    assert!(load.xmlrpc.closed_slow >= 32, "{load:?}");
    // A connection that trickles a byte every 200 ms is closed at the request deadline,
    // not kept alive by its progress.
    let mut trickle = TcpStream::connect(addr).unwrap();
    let started = Instant::now();
    let mut closed = false;
    for b in b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n" {
        if trickle.write_all(&[*b]).is_err() {
            closed = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
        if started.elapsed() > DEADLINE + Duration::from_secs(2) {
            break;
        }
    }
    assert!(
        closed || closed_by_server(&mut trickle, Duration::from_secs(2)),
        "the trickling client is still connected after {:?}",
        started.elapsed()
    );
    assert!(started.elapsed() < DEADLINE + Duration::from_secs(3));
    // The slow ones still open are closed by their deadline too.
    for s in &mut slow {
        assert!(closed_by_server(s, Duration::from_secs(3)));
    }
}

#[test]
fn unfinished_handshakes_block_neither_services_nor_subscribers() {
    let f = Fixture::with_limits(small_limits());
    echo_service(&f);
    let p = f
        .node
        .advertise("/t", string_info(false), QueueLimits::default())
        .unwrap()
        .publication;
    let usual = timed_call(&f);
    // 60 handshakes that send two bytes of the header length, then nothing.
    let _slow: Vec<TcpStream> = (0..60)
        .map(|_| {
            let mut s = TcpStream::connect(f.addr()).unwrap();
            s.write_all(b"\x10\x00").unwrap();
            s
        })
        .collect();
    let under_attack = timed_call(&f);
    assert!(
        under_attack < usual * 2 + Duration::from_millis(200),
        "{under_attack:?} vs {usual:?}"
    );
    let (mut s, h) = subscribe(f.addr(), "/t", "*", None);
    assert_eq!(h.get("error"), None);
    wait_for("the subscriber", || p.subscriber_count() == 1);
    p.publish(&string_msg("still here")).unwrap();
    assert_eq!(read_frame(&mut s, 100).unwrap(), string_msg("still here"));
    let load = f.node.load();
    assert!(load.tcpros.reading <= 8, "{load:?}");
}

#[test]
fn huge_frames_stay_within_the_budget() {
    let f = Fixture::with_limits(small_limits());
    echo_service(&f);
    // 8 service clients that complete their handshake, declare a 64 MiB request and send
    // 1 MiB of it: the node holds their 64 KiB each plus at most its 2 MiB budget.
    let mut greedy = Vec::new();
    for i in 0..8 {
        let mut s = TcpStream::connect(f.addr()).unwrap();
        let hello = Header::new()
            .with("callerid", &format!("/greedy{i}"))
            .with("md5sum", "*")
            .with("service", "/echo");
        s.write_all(&hello.encode()).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        Header::read_from(&mut s, MAX_HEADER).unwrap();
        s.set_write_timeout(Some(Duration::from_secs(2))).unwrap();
        let _ = s.write_all(&(64u32 * 1024 * 1024).to_le_bytes());
        let _ = s.write_all(&vec![0u8; 1024 * 1024]);
        greedy.push(s);
    }
    let load = f.node.load();
    assert!(load.frame_bytes <= 2 * 1024 * 1024, "{load:?}");
    // A small request still gets through.
    assert!(timed_call(&f) < Duration::from_secs(1));
    // A request larger than the limit is refused with a message.
    let mut limits = small_limits();
    limits.max_service_request = 1024;
    let g = Fixture::with_limits(limits);
    echo_service(&g);
    let r = call_service(
        &g.node.service_uri(),
        "/echo",
        "*",
        "/c",
        &[0u8; 2048],
        Duration::from_secs(5),
        Some(Duration::from_secs(5)),
    )
    .unwrap();
    assert!(r.unwrap_err().contains("at most 1024"));
    // Every greedy client is closed by the frame deadline and the budget is given back.
    for s in &mut greedy {
        assert!(closed_by_server(s, Duration::from_secs(4)));
    }
    wait_for("the budget to be given back", || {
        f.node.load().frame_bytes == 0
    });
}

#[test]
fn a_lost_master_is_noticed_and_shutdown_stays_bounded() {
    let mut f = Fixture::new();
    f.node
        .advertise("/t", string_info(false), QueueLimits::default())
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    f.node
        .watch_master(Duration::from_millis(100), 3, move |why| {
            let _ = tx.send(why.to_string());
        });
    // While the master answers, nothing is reported.
    assert!(rx.recv_timeout(Duration::from_millis(600)).is_err());
    f.stop_master();
    let why = rx.recv_timeout(Duration::from_secs(5)).unwrap();
    assert!(why.contains("getUri"), "{why}");
    // Unregistering gives up at once on a master that refuses connections.
    let t = Instant::now();
    assert!(f.node.shutdown().is_err());
    assert!(t.elapsed() < Duration::from_secs(6), "{:?}", t.elapsed());
}
