//! The node against a fake master (our own XML-RPC server recording calls) and raw TCPROS
//! peers on loopback: registration, the slave API, handshakes, latching, slow subscribers,
//! services, malformed peers. Interop with the official tools is in `tests/integration/ros_play.rs`.
//!
//! This file holds the fixture and the helpers; the tests are grouped by what they exercise.

#![allow(clippy::many_single_char_names)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::xmlrpc::{self, Fault, Handler, Value};
use super::*;

mod load;
mod node;
mod publishing;
mod services;

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
