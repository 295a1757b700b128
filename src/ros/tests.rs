//! The node against a fake master (our own XML-RPC server recording calls) and raw TCPROS
//! peers on loopback: registration, the slave API, handshakes, latching, slow subscribers,
//! services, malformed peers. Interop with the official tools is in `tests/integration/ros_play.rs`.

#![allow(clippy::many_single_char_names)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::xmlrpc::{self, Fault, Handler, Value};
use super::*;

/// A master that accepts every registration and records the calls.
#[derive(Default)]
struct FakeMaster {
    calls: Mutex<Vec<(String, Vec<String>)>>,
}

impl Handler for FakeMaster {
    fn handle(&self, method: &str, params: &[Value]) -> Result<Value, Fault> {
        let args = params
            .iter()
            .map(|p| p.as_str().unwrap_or_default().to_string())
            .collect();
        self.calls.lock().unwrap().push((method.to_string(), args));
        let value = match method {
            "getUri" => Value::from("http://fake:1/"),
            "registerPublisher" => Value::Array(vec![Value::from("http://sub:2/")]),
            _ => Value::Int(1),
        };
        Ok(Value::Array(vec![Value::Int(1), Value::from(""), value]))
    }
}

pub(super) struct Fixture {
    master: Arc<FakeMaster>,
    server: xmlrpc::Server,
    pub(super) node: Node,
}

impl Fixture {
    pub(super) fn new() -> Fixture {
        Fixture::with_limits(NodeLimits::default())
    }

    /// A node holding peers to `limits`.
    pub(super) fn with_limits(limits: NodeLimits) -> Fixture {
        let master = Arc::new(FakeMaster::default());
        let server = xmlrpc::Server::start(
            SocketAddr::from(([127, 0, 0, 1], 0)),
            Arc::clone(&master) as Arc<dyn Handler>,
        )
        .unwrap();
        let uri = format!("http://{}/", server.local_addr());
        let vars = [
            ("ROS_MASTER_URI", uri.as_str()),
            ("ROS_HOSTNAME", "127.0.0.1"),
        ];
        let mut config = NodeConfig::from_vars("test_node", |k| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| (*v).to_string())
        })
        .unwrap();
        config.limits = limits;
        let node = Node::start(config).unwrap();
        Fixture {
            master,
            server,
            node,
        }
    }

    fn calls(&self, method: &str) -> Vec<Vec<String>> {
        self.master
            .calls
            .lock()
            .unwrap()
            .iter()
            .filter(|(m, _)| m == method)
            .map(|(_, a)| a.clone())
            .collect()
    }

    /// Stops the fake master (connections to it are refused from then on).
    pub(super) fn stop_master(&mut self) {
        self.server.stop();
    }

    pub(super) fn slave(&self, method: &str, params: &[Value]) -> Value {
        let mut all = vec![Value::from("/tester")];
        all.extend_from_slice(params);
        xmlrpc::call(self.node.uri(), method, &all, Duration::from_secs(5)).unwrap()
    }

    pub(super) fn addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.node.tcpros_port()))
    }
}

pub(super) fn string_info(latching: bool) -> TopicInfo {
    TopicInfo {
        datatype: "std_msgs/String".into(),
        md5sum: "992ce8a1687cec8c8bd883ec73ca41d1".into(),
        message_definition: "string data\n".into(),
        latching,
    }
}

/// Connects as a subscriber; returns the stream and the publisher's answer.
pub(super) fn subscribe(
    addr: SocketAddr,
    topic: &str,
    md5: &str,
    ty: Option<&str>,
) -> (TcpStream, Header) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut h = Header::new()
        .with("callerid", "/sub")
        .with("topic", topic)
        .with("md5sum", md5)
        .with("tcp_nodelay", "1");
    if let Some(t) = ty {
        h.insert("type", t);
    }
    s.write_all(&h.encode()).unwrap();
    let reply = Header::read_from(&mut s, MAX_HEADER).unwrap();
    (s, reply)
}

pub(super) fn string_msg(text: &str) -> Vec<u8> {
    let mut v = u32::try_from(text.len()).unwrap().to_le_bytes().to_vec();
    v.extend_from_slice(text.as_bytes());
    v
}

pub(super) fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn registration_and_unregistration() {
    let f = Fixture::new();
    assert_eq!(f.node.name(), "/test_node");
    let a = f
        .node
        .advertise("chatter", string_info(false), QueueLimits::default())
        .unwrap();
    assert_eq!(a.publication.topic(), "/chatter");
    assert_eq!(a.subscribers, vec!["http://sub:2/".to_string()]);
    assert_eq!(
        f.calls("registerPublisher"),
        vec![vec![
            "/test_node".to_string(),
            "/chatter".into(),
            "std_msgs/String".into(),
            f.node.uri().to_string()
        ]]
    );
    // The same type again: the same publication, no new registration.
    f.node
        .advertise("/chatter", string_info(false), QueueLimits::default())
        .unwrap();
    assert_eq!(f.calls("registerPublisher").len(), 1);
    // Another type: refused.
    let mut other = string_info(false);
    other.datatype = "std_msgs/Int32".into();
    other.md5sum = "da5909fbe378aeaf85e547e830cc1bb7".into();
    assert!(matches!(
        f.node.advertise("/chatter", other, QueueLimits::default()),
        Err(RosError::TypeConflict { .. })
    ));
    assert!(matches!(
        f.node
            .advertise("/bad-name", string_info(false), QueueLimits::default()),
        Err(RosError::InvalidName { .. })
    ));
    f.node
        .advertise_service(
            "svc",
            ServiceInfo::default(),
            Arc::new(|c: &ServiceCall<'_>| Ok(c.request.to_vec())),
        )
        .unwrap();
    assert_eq!(
        f.calls("registerService"),
        vec![vec![
            "/test_node".to_string(),
            "/svc".into(),
            f.node.service_uri(),
            f.node.uri().to_string()
        ]]
    );
    f.node.shutdown().unwrap();
    assert_eq!(
        f.calls("unregisterPublisher"),
        vec![vec![
            "/test_node".to_string(),
            "/chatter".into(),
            f.node.uri().to_string()
        ]]
    );
    assert_eq!(f.calls("unregisterService").len(), 1);
    // Shut down: nothing more is accepted, and a second shutdown does nothing.
    assert!(matches!(
        f.node
            .advertise("/x", string_info(false), QueueLimits::default()),
        Err(RosError::ShutDown)
    ));
    f.node.shutdown().unwrap();
    assert_eq!(f.calls("unregisterPublisher").len(), 1);
    // The slave API is gone too.
    assert!(
        xmlrpc::call(
            f.node.uri(),
            "getPid",
            &[Value::from("/x")],
            Duration::from_secs(2)
        )
        .is_err()
    );
}

#[test]
fn slave_api() {
    let f = Fixture::new();
    let p = f
        .node
        .advertise("/chatter", string_info(false), QueueLimits::default())
        .unwrap()
        .publication;
    let pid = f.slave("getPid", &[]);
    assert_eq!(
        pid,
        Value::Array(vec![
            Value::Int(1),
            Value::from(""),
            Value::Int(i32::try_from(std::process::id()).unwrap())
        ])
    );
    let tcpros = Value::Array(vec![Value::Array(vec![Value::from("TCPROS")])]);
    let r = f.slave("requestTopic", &[Value::from("/chatter"), tcpros.clone()]);
    let parts = r.as_array().unwrap();
    assert_eq!(parts[0], Value::Int(1));
    assert_eq!(
        parts[2],
        Value::Array(vec![
            Value::from("TCPROS"),
            Value::from("127.0.0.1"),
            Value::Int(i32::from(f.node.tcpros_port()))
        ])
    );
    let r = f.slave("requestTopic", &[Value::from("/other"), tcpros]);
    assert_eq!(r.as_array().unwrap()[0], Value::Int(-1));
    let udp = Value::Array(vec![Value::Array(vec![Value::from("UDPROS")])]);
    let r = f.slave("requestTopic", &[Value::from("/chatter"), udp]);
    assert_eq!(r.as_array().unwrap()[0], Value::Int(0));
    let r = f.slave("getPublications", &[]);
    assert_eq!(
        r.as_array().unwrap()[2],
        Value::Array(vec![Value::Array(vec![
            Value::from("/chatter"),
            Value::from("std_msgs/String")
        ])])
    );
    let r = f.slave("getMasterUri", &[]);
    assert_eq!(
        r.as_array().unwrap()[2],
        Value::from(f.node.config().master_uri.as_str())
    );
    // A subscriber shows up in getBusInfo and getBusStats.
    let (mut s, _) = subscribe(f.addr(), "/chatter", "*", None);
    wait_for("the subscriber", || p.subscriber_count() == 1);
    p.publish(&string_msg("hi")).unwrap();
    let got = read_frame(&mut s, 1 << 20).unwrap();
    assert_eq!(got, string_msg("hi"));
    let info = f.slave("getBusInfo", &[]);
    let conns = info.as_array().unwrap()[2].as_array().unwrap().to_vec();
    assert_eq!(conns.len(), 1);
    let c = conns[0].as_array().unwrap();
    assert_eq!(c[1], Value::from("/sub"));
    assert_eq!(c[2], Value::from("o"));
    assert_eq!(c[3], Value::from("TCPROS"));
    assert_eq!(c[4], Value::from("/chatter"));
    assert!(
        c[6].as_str()
            .unwrap()
            .starts_with("TCPROS connection on port")
    );
    let stats = f.slave("getBusStats", &[]);
    let pubs = stats.as_array().unwrap()[2].as_array().unwrap()[0].clone();
    let pubs = pubs.as_array().unwrap();
    assert_eq!(pubs[0].as_array().unwrap()[0], Value::from("/chatter"));
    // Bad calls: a fault for unknown methods, an error code for a missing caller id.
    let r = xmlrpc::call(
        f.node.uri(),
        "nope",
        &[Value::from("/x")],
        Duration::from_secs(5),
    );
    assert!(matches!(r, Err(xmlrpc::XmlRpcError::Fault(_))));
    let r = xmlrpc::call(f.node.uri(), "getPid", &[], Duration::from_secs(5)).unwrap();
    assert_eq!(r.as_array().unwrap()[0], Value::Int(-1));
    // shutdown reaches the owner's hook.
    let asked = Arc::new(Mutex::new(String::new()));
    {
        let asked = Arc::clone(&asked);
        f.node
            .on_shutdown_request(move |why| *asked.lock().unwrap() = why.to_string());
    }
    f.slave("shutdown", &[Value::from("bye")]);
    assert!(f.node.shutdown_requested());
    assert_eq!(*asked.lock().unwrap(), "bye");
    // The subscriber sees the connection close when the node shuts down.
    f.node.shutdown().unwrap();
    let mut buf = [0u8; 8];
    assert!(matches!(s.read(&mut buf), Ok(0) | Err(_)));
}

#[test]
fn handshake_checks() {
    let f = Fixture::new();
    f.node
        .advertise("/t", string_info(true), QueueLimits::default())
        .unwrap();
    let md5 = "992ce8a1687cec8c8bd883ec73ca41d1";
    let (_, ok) = subscribe(f.addr(), "/t", md5, Some("std_msgs/String"));
    assert_eq!(ok.get("error"), None);
    assert_eq!(ok.get("md5sum"), Some(md5));
    assert_eq!(ok.get("type"), Some("std_msgs/String"));
    assert_eq!(ok.get("message_definition"), Some("string data\n"));
    assert_eq!(ok.get("callerid"), Some("/test_node"));
    assert_eq!(ok.get("latching"), Some("1"));
    assert_eq!(ok.get("topic"), Some("/t"));
    let (_, any) = subscribe(f.addr(), "/t", "*", Some("*"));
    assert_eq!(any.get("error"), None);
    let refused = [
        (
            "/t",
            "0123456789abcdef0123456789abcdef",
            Some("std_msgs/String"),
        ),
        ("/t", md5, Some("std_msgs/Int32")),
        ("/t", "*", Some("std_msgs/Int32")),
        ("/other", md5, None),
    ];
    for (topic, m, ty) in refused {
        let (mut s, h) = subscribe(f.addr(), topic, m, ty);
        assert!(h.get("error").is_some(), "{topic} {m} {ty:?}: {h:?}");
        let mut buf = [0u8; 1];
        assert!(matches!(s.read(&mut buf), Ok(0) | Err(_)));
    }
    // Missing fields.
    let mut s = TcpStream::connect(f.addr()).unwrap();
    s.write_all(
        &Header::new()
            .with("topic", "/t")
            .with("md5sum", "*")
            .encode(),
    )
    .unwrap();
    let h = Header::read_from(&mut s, MAX_HEADER).unwrap();
    assert!(h.get("error").unwrap().contains("callerid"), "{h:?}");
}

#[test]
fn latched_message_reaches_late_subscribers() {
    let f = Fixture::new();
    let latched = f
        .node
        .advertise("/map", string_info(true), QueueLimits::default())
        .unwrap()
        .publication;
    let plain = f
        .node
        .advertise("/plain", string_info(false), QueueLimits::default())
        .unwrap()
        .publication;
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
    let p = f
        .node
        .advertise("/big", string_info(false), limits)
        .unwrap()
        .publication;
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
    let p = f
        .node
        .advertise("/lossless", string_info(false), limits)
        .unwrap()
        .publication;
    // No subscriber: there is always room.
    assert!(p.wait_for_room(10, Duration::ZERO));
    let (slow, _) = subscribe(f.addr(), "/lossless", "*", None);
    wait_for("a subscriber", || p.subscriber_count() == 1);
    // Big messages fill the socket buffers and the 4-message queue; without reading, the
    // queue stays full and waiting times out.
    let payload = vec![1u8; 4 << 20];
    let start = Instant::now();
    while p.wait_for_room(payload.len(), Duration::from_millis(200)) {
        p.publish(&payload).unwrap();
        assert!(start.elapsed() < Duration::from_secs(10), "never full");
    }
    // It kept the publisher waiting the whole allowance: it is marked slow and not waited
    // for again; its oldest messages are dropped (and counted) instead.
    let t = Instant::now();
    assert!(!p.wait_for_room(payload.len(), Duration::from_secs(10)));
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
    for _ in 0..n {
        assert!(p.wait_for_room(payload.len(), Duration::from_secs(10)));
        p.publish(&payload).unwrap();
    }
    let got = reader.join().unwrap();
    assert_eq!(got.len(), n as usize);
    assert!(got.iter().all(|l| *l == payload.len()));
    let stats = p.stats();
    let s = stats.subscribers.last().unwrap();
    assert_eq!(s.dropped, 0);
    assert_eq!(s.messages, u64::from(n));
}

#[test]
fn slow_services_are_awaited() {
    let f = Fixture::new();
    let info = ServiceInfo {
        datatype: "bagscope/Slow".into(),
        md5sum: "*".into(),
        request_type: "bagscope/SlowRequest".into(),
        response_type: "bagscope/SlowResponse".into(),
    };
    f.node
        .advertise_service(
            "/slow",
            info,
            Arc::new(|c: &ServiceCall<'_>| {
                let r = c.request;
                std::thread::sleep(Duration::from_millis(600));
                Ok(r.to_vec())
            }),
        )
        .unwrap();
    let uri = f.node.service_uri();
    let short = Duration::from_millis(200);
    // The one-timeout call gives up; the waiting one gets the answer.
    assert!(call_service(&uri, "/slow", "*", "/c", b"x", short).is_err());
    let r = call_service_waiting(&uri, "/slow", "*", "/c", b"y", short, None).unwrap();
    assert_eq!(r, Ok(b"y".to_vec()));
    let r = call_service_waiting(&uri, "/slow", "*", "/c", b"z", short, Some(short));
    assert!(r.is_err());
    // Shutting down lets a request being answered finish.
    let caller = {
        let uri = uri.clone();
        std::thread::spawn(move || {
            call_service_waiting(&uri, "/slow", "*", "/c", b"w", short, None)
        })
    };
    wait_for("the request", || f.node.service_calls("/slow") == Some(4));
    f.node.shutdown().unwrap();
    assert_eq!(caller.join().unwrap().unwrap(), Ok(b"w".to_vec()));
}

#[test]
fn services() {
    let f = Fixture::new();
    let info = ServiceInfo {
        datatype: "bagscope/Echo".into(),
        md5sum: "0123456789abcdef0123456789abcdef".into(),
        request_type: "bagscope/EchoRequest".into(),
        response_type: "bagscope/EchoResponse".into(),
    };
    f.node
        .advertise_service(
            "/echo",
            info.clone(),
            Arc::new(|c: &ServiceCall<'_>| {
                let r = c.request;
                if r.is_empty() {
                    Err("empty request".into())
                } else {
                    Ok(r.iter().rev().copied().collect())
                }
            }),
        )
        .unwrap();
    let uri = f.node.service_uri();
    let t = Duration::from_secs(5);
    let r = call_service(&uri, "/echo", &info.md5sum, "/c", b"abc", t).unwrap();
    assert_eq!(r, Ok(b"cba".to_vec()));
    let r = call_service(&uri, "/echo", "*", "/c", b"", t).unwrap();
    assert_eq!(r, Err("empty request".to_string()));
    assert!(
        call_service(
            &uri,
            "/echo",
            "ffffffffffffffffffffffffffffffff",
            "/c",
            b"x",
            t
        )
        .is_err()
    );
    assert!(call_service(&uri, "/nope", "*", "/c", b"x", t).is_err());
    assert_eq!(f.node.service_calls("/echo"), Some(2));
    // A probe gets the header only.
    let mut s = TcpStream::connect(f.addr()).unwrap();
    s.write_all(
        &Header::new()
            .with("callerid", "/p")
            .with("service", "/echo")
            .with("md5sum", "*")
            .with("probe", "1")
            .encode(),
    )
    .unwrap();
    let h = Header::read_from(&mut s, MAX_HEADER).unwrap();
    assert_eq!(h.get("type"), Some("bagscope/Echo"));
    assert_eq!(h.get("request_type"), Some("bagscope/EchoRequest"));
    let mut rest = Vec::new();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    assert_eq!(s.read_to_end(&mut rest).unwrap(), 0);
    // Persistent connections serve several requests.
    let mut s = TcpStream::connect(f.addr()).unwrap();
    s.write_all(
        &Header::new()
            .with("callerid", "/p")
            .with("service", "/echo")
            .with("md5sum", "*")
            .with("persistent", "1")
            .encode(),
    )
    .unwrap();
    Header::read_from(&mut s, MAX_HEADER).unwrap();
    for req in [&b"12"[..], b"345"] {
        s.write_all(&frame(req).unwrap()).unwrap();
        let mut ok = [0u8; 1];
        s.read_exact(&mut ok).unwrap();
        assert_eq!(ok[0], 1);
        let body = read_frame(&mut s, 100).unwrap();
        assert_eq!(body, req.iter().rev().copied().collect::<Vec<_>>());
    }
}

#[test]
fn malformed_peers_are_dropped() {
    let f = Fixture::new();
    let p = f
        .node
        .advertise("/t", string_info(false), QueueLimits::default())
        .unwrap()
        .publication;
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

#[test]
fn unreachable_master_is_an_error() {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let uri = format!("http://{}/", l.local_addr().unwrap());
    drop(l);
    let config = NodeConfig::from_vars("n", |k| match k {
        "ROS_MASTER_URI" => Some(uri.clone()),
        "ROS_HOSTNAME" => Some("127.0.0.1".into()),
        _ => None,
    })
    .unwrap();
    assert!(matches!(Node::start(config), Err(RosError::Call { .. })));
}
