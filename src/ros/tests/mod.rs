//! The node against a fake master (our own XML-RPC server recording calls) and raw TCPROS
//! peers on loopback: registration, the slave API, handshakes, latching, slow subscribers,
//! services, malformed peers. Interop with the official tools is in `tests/integration/ros_play.rs`.
//!
//! This file holds the fixture and the helpers; the tests are grouped by what they exercise.

#![allow(clippy::many_single_char_names)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::xmlrpc::{self, Fault, Handler, Value};
use super::*;

mod crowds;
mod deadlines;
mod load;
mod node;
mod publishing;
mod services;

/// How long a silent master or a trickling peer keeps at it, at most (tests end sooner).
const GIVE_UP: Duration = Duration::from_secs(30);

/// A master that accepts every registration and records the calls; while `silent`, it
/// answers nothing (each call waits until it speaks again, or [`GIVE_UP`]).
#[derive(Default)]
struct FakeMaster {
    calls: Mutex<Vec<(String, Vec<String>)>>,
    silent: AtomicBool,
}

impl Handler for FakeMaster {
    fn handle(&self, method: &str, params: &[Value]) -> Result<Value, Fault> {
        let t = Instant::now();
        while self.silent.load(Ordering::SeqCst) && t.elapsed() < GIVE_UP {
            std::thread::sleep(Duration::from_millis(20));
        }
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

    /// Makes the fake master stop answering (it still accepts connections), or speak again.
    pub(super) fn silence_master(&self, silent: bool) {
        self.master.silent.store(silent, Ordering::SeqCst);
    }

    pub(super) fn slave(&self, method: &str, params: &[Value]) -> Value {
        let mut all = vec![Value::from("/tester")];
        all.extend_from_slice(params);
        xmlrpc::call(self.node.uri(), method, &all, Duration::from_secs(5)).unwrap()
    }

    /// Advertises `topic` (`std_msgs/String`, latched or not) with queues of `limits`.
    pub(super) fn publication(
        &self,
        topic: &str,
        latching: bool,
        limits: QueueLimits,
    ) -> Publication {
        self.node
            .advertise(topic, string_info(latching), limits)
            .unwrap()
            .publication
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

/// A server on loopback that answers every connection (after reading what arrives first) by
/// sending `reply` one byte every `gap`, until the peer goes, the reply ends or the
/// returned flag is set (or [`GIVE_UP`]). Its address.
pub(super) fn trickler(reply: Vec<u8>, gap: Duration) -> (SocketAddr, Arc<AtomicBool>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    let done = Arc::new(AtomicBool::new(false));
    let stop = Arc::clone(&done);
    std::thread::spawn(move || {
        let t = Instant::now();
        while !stop.load(Ordering::SeqCst) && t.elapsed() < GIVE_UP {
            let Ok((mut c, _)) = listener.accept() else {
                std::thread::sleep(Duration::from_millis(10));
                continue;
            };
            let (reply, stop) = (reply.clone(), Arc::clone(&stop));
            std::thread::spawn(move || {
                c.set_nonblocking(false).unwrap();
                c.set_read_timeout(Some(Duration::from_millis(200)))
                    .unwrap();
                let mut buf = [0u8; 4096];
                let _ = c.read(&mut buf);
                for b in reply {
                    if stop.load(Ordering::SeqCst)
                        || t.elapsed() > GIVE_UP
                        || c.write_all(&[b]).is_err()
                    {
                        return;
                    }
                    std::thread::sleep(gap);
                }
            });
        }
    });
    (addr, done)
}
