//! Playback timing benchmark: how close to its scheduled time each message leaves.
//!
//! A bag is played at rate 1 through the real node, outlet and player, to one TCPROS
//! subscriber per topic on loopback (raw sockets in this process, so both ends share one
//! clock). The master is a minimal in-process XML-RPC server: it is not on the hot path.
//! For every message it prints how late it was, against the schedule, when
//!
//! * **sent**: it had been queued for every subscriber (the player's own measure), and
//! * **received**: its last byte arrived at the subscriber (a real peer's view).
//!
//! ```sh
//! cargo bench --bench play                    # assets/demo.bag (24 s)
//! cargo bench --bench play -- BAG [RATE]      # another bag, another rate
//! ```

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::pedantic
)]

use std::collections::BTreeMap;
use std::io::Write;
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bagscope::catalog::{Catalog, Selection};
use bagscope::play::{Outlet, PlayOptions, Played, Player, Status};
use bagscope::ros::xmlrpc::{self, Fault, Handler, Value};
use bagscope::ros::{Header, MAX_HEADER, Node, NodeConfig, QueueLimits, read_frame};

/// Accepts every call; nobody else is in this graph.
struct Master;

impl Handler for Master {
    fn handle(&self, method: &str, _params: &[Value]) -> Result<Value, Fault> {
        let value = match method {
            "registerPublisher" | "registerSubscriber" => Value::Array(Vec::new()),
            "getUri" => Value::from("http://127.0.0.1:1/"),
            _ => Value::Int(1),
        };
        Ok(Value::Array(vec![Value::Int(1), Value::from(""), value]))
    }
}

/// Subscribes to `topic` on our node and records the arrival time of every message.
fn subscribe(addr: SocketAddr, topic: String, arrivals: Arc<Mutex<Vec<(String, Instant)>>>) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_nodelay(true).unwrap();
    let h = Header::new()
        .with("callerid", "/bench_subscriber")
        .with("topic", &topic)
        .with("md5sum", "*")
        .with("tcp_nodelay", "1");
    s.write_all(&h.encode()).unwrap();
    Header::read_from(&mut s, MAX_HEADER).unwrap();
    std::thread::spawn(move || {
        while read_frame(&mut s, 1 << 30).is_ok() {
            let now = Instant::now();
            arrivals.lock().unwrap().push((topic.clone(), now));
        }
    });
}

/// Percentiles of a sample of lateness values (µs).
fn summary(name: &str, mut v: Vec<f64>) {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let q = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
    let over = v.iter().filter(|x| **x > 1000.0).count();
    println!(
        "{name:<9} n={:<6} min {:>7.1} µs  p50 {:>7.1} µs  p90 {:>7.1} µs  p99 {:>7.1} µs  \
         p99.9 {:>7.1} µs  max {:>8.1} µs  > 1 ms: {over} ({:.2} %)",
        v.len(),
        v[0],
        q(0.5),
        q(0.9),
        q(0.99),
        q(0.999),
        v[v.len() - 1],
        100.0 * over as f64 / v.len() as f64
    );
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let bag = args.first().map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/demo.bag"),
        PathBuf::from,
    );
    let rate: f64 = args.get(1).map_or(1.0, |r| r.parse().unwrap());

    let master =
        xmlrpc::Server::start(SocketAddr::from(([127, 0, 0, 1], 0)), Arc::new(Master)).unwrap();
    let uri = format!("http://{}/", master.local_addr());
    let config = NodeConfig::from_vars("bagscope_play_bench", |k| match k {
        "ROS_MASTER_URI" => Some(uri.clone()),
        "ROS_HOSTNAME" => Some("127.0.0.1".into()),
        _ => None,
    })
    .unwrap();
    let node = Arc::new(Node::start(config).unwrap());
    let catalog = Catalog::open(std::slice::from_ref(&bag), &Default::default()).0;
    let selection = Selection::default();
    let mut outlet = Outlet::new(Arc::clone(&node), "/", QueueLimits::default());
    outlet.advertise_selection(&catalog, &selection).unwrap();

    let arrivals = Arc::new(Mutex::new(Vec::new()));
    let addr = SocketAddr::from(([127, 0, 0, 1], node.tcpros_port()));
    let publications = outlet.publications();
    for p in &publications {
        subscribe(addr, p.topic().to_string(), Arc::clone(&arrivals));
    }
    for p in &publications {
        assert!(p.wait_for_subscribers(1, Duration::from_secs(10)));
    }

    // Topic of each message in playback order (the player plays `catalog.messages`).
    let topics: Vec<String> = catalog
        .messages(&selection)
        .map(|m| {
            let m = m.unwrap();
            let bag = catalog.bag(m.bag).unwrap();
            bag.connection(m.message.entry.conn).unwrap().topic.clone()
        })
        .collect();
    assert!(!topics.is_empty(), "{}: no messages to play", bag.display());
    println!(
        "{}: {} messages on {} topics, rate {rate}",
        bag.display(),
        topics.len(),
        publications.len()
    );

    let (_control_tx, control) = mpsc::channel();
    let mut played: Vec<Played> = Vec::with_capacity(topics.len());
    let started = Instant::now();
    let report = Player {
        outlet: &mut outlet,
        clock: None,
        options: PlayOptions {
            rate,
            delay: Duration::ZERO,
            subscriber_wait: Duration::ZERO,
            ..PlayOptions::default()
        },
        status: Arc::new(Status::default()),
    }
    .run(&catalog, &selection, &control, &mut |p| played.push(*p));
    let wall = started.elapsed();
    for p in &publications {
        p.flush(Duration::from_secs(10));
    }
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(report.published as usize, topics.len(), "{report:?}");

    // The n-th arrival on a topic is the n-th message played on it.
    let arrivals = arrivals.lock().unwrap().clone();
    let mut per_topic: BTreeMap<&str, Vec<Instant>> = BTreeMap::new();
    for (t, at) in &arrivals {
        per_topic.entry(t.as_str()).or_default().push(*at);
    }
    let mut next: BTreeMap<&str, usize> = BTreeMap::new();
    let micros = |a: Instant, due: Instant| match a.checked_duration_since(due) {
        Some(d) => d.as_secs_f64() * 1e6,
        None => -(due.duration_since(a).as_secs_f64() * 1e6),
    };
    let mut sent = Vec::new();
    let mut received = Vec::new();
    let mut by_topic: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for (p, topic) in played.iter().zip(&topics) {
        sent.push(micros(p.sent, p.due));
        let i = next.entry(topic.as_str()).or_insert(0);
        if let Some(at) = per_topic.get(topic.as_str()).and_then(|v| v.get(*i)) {
            received.push(micros(*at, p.due));
            by_topic
                .entry(topic.as_str())
                .or_default()
                .push(micros(*at, p.due));
        }
        *i += 1;
    }
    println!(
        "played in {:.3} s; {} of {} messages received",
        wall.as_secs_f64(),
        received.len(),
        topics.len()
    );
    summary("sent", sent);
    summary("received", received);
    if std::env::var_os("BY_TOPIC").is_some() {
        for (topic, v) in by_topic {
            println!("{topic}");
            summary("received", v);
        }
    }
    node.shutdown().ok();
}
