//! Deadlines of outgoing calls, against peers on loopback that trickle their answers one byte
//! every half second or stop answering — no ROS installation needed:
//!
//! * `bagscope call --timeout 2` ends within its 2 s whether the master or the bagserver
//!   trickles;
//! * `bagscope play` gives up on a trickling master within its 5 s call timeout;
//! * `bagscope serve` notices a master that stops answering within the documented 6 s,
//!   unregisters what it can (5 s at most) and exits 1.
//!
//! The bounds are the deadlines plus 3 s of slack: the property is that the deadline holds.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use bagscope::ros::Header;
use bagscope::ros::xmlrpc::{self, Fault, Handler, Value};

use crate::common;
use crate::common::ros_graph::{Proc, build_index, two_recorded_bags, wait_exit};

/// Slack over a deadline for a loaded machine.
const MARGIN: Duration = Duration::from_secs(3);
/// How long a trickling peer or a silent master keeps at it, at most.
const GIVE_UP: Duration = Duration::from_secs(120);

/// A server that answers every connection, after reading its request, with `reply` one byte
/// every 0.5 s (until the peer goes or the flag is set). Its address.
fn trickler(reply: Vec<u8>) -> (SocketAddr, Arc<AtomicBool>) {
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
                c.set_read_timeout(Some(Duration::from_millis(300)))
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
                    std::thread::sleep(Duration::from_millis(500));
                }
            });
        }
    });
    (addr, done)
}

/// An HTTP answer to an XML-RPC call: `[1, "", value]`.
fn http_answer(value: &str) -> Vec<u8> {
    let body = format!(
        "<?xml version=\"1.0\"?><methodResponse><params><param><value><array><data>\
         <value><i4>1</i4></value><value><string></string></value>\
         <value><string>{value}</string></value></data></array></value></param>\
         </params></methodResponse>"
    );
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// A master that accepts every registration and tells `lookupService` callers the `service`
/// URI; while `silent`, it answers nothing (each call waits until it speaks again).
#[derive(Default)]
struct Master {
    silent: AtomicBool,
    uri: Mutex<String>,
    service: Mutex<Option<String>>,
}

impl Handler for Master {
    fn handle(&self, method: &str, _params: &[Value]) -> Result<Value, Fault> {
        let t = Instant::now();
        while self.silent.load(Ordering::SeqCst) && t.elapsed() < GIVE_UP {
            std::thread::sleep(Duration::from_millis(20));
        }
        let ok = |v: Value| Ok(Value::Array(vec![Value::Int(1), Value::from(""), v]));
        match method {
            "getUri" => ok(Value::from(self.uri.lock().unwrap().as_str())),
            "registerPublisher" => ok(Value::Array(Vec::new())),
            "getSystemState" => ok(Value::Array(vec![Value::Array(Vec::new()); 3])),
            "lookupService" => match self.service.lock().unwrap().clone() {
                Some(u) => ok(Value::from(u.as_str())),
                None => Ok(Value::Array(vec![
                    Value::Int(-1),
                    Value::from("no provider"),
                    Value::from(""),
                ])),
            },
            _ => ok(Value::Int(1)),
        }
    }
}

fn start_master() -> (Arc<Master>, xmlrpc::Server, String) {
    let master = Arc::new(Master::default());
    let server = xmlrpc::Server::start(
        SocketAddr::from(([127, 0, 0, 1], 0)),
        Arc::clone(&master) as Arc<dyn Handler>,
    )
    .unwrap();
    let uri = format!("http://{}/", server.local_addr());
    *master.uri.lock().unwrap() = uri.clone();
    (master, server, uri)
}

/// `bagscope ARGS` with the master at `master_uri`: exit code, stderr, time taken.
fn run(master_uri: &str, args: &[&str]) -> (Option<i32>, String, Duration) {
    let t = Instant::now();
    let out = common::bagscope()
        .args(args)
        .env("ROS_MASTER_URI", master_uri)
        .env("ROS_HOSTNAME", "127.0.0.1")
        .env_remove("ROS_NAMESPACE")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let took = t.elapsed();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    eprintln!("  {args:?}: {:?} in {took:?}: {err}", out.status.code());
    (out.status.code(), err, took)
}

#[test]
fn call_timeout_bounds_the_whole_call_when_the_bagserver_trickles() {
    // A "bagserver" whose connection header arrives one byte every 0.5 s (it would take a
    // minute and a half), then an answer.
    let mut reply = Header::new()
        .with("callerid", "/slowpoke")
        .with("md5sum", "458af331909da245a337f210e69c5572")
        .with("service", "/hist/play_interval")
        .with("type", "bagscope_msgs/PlayInterval")
        .encode();
    reply.push(1);
    let (addr, done) = trickler(reply);
    let (master, mut server, uri) = start_master();
    *master.service.lock().unwrap() = Some(format!("rosrpc://{addr}"));
    let (code, err, took) = run(&uri, &["call", "/hist", "+0", "+1", "--timeout", "2"]);
    done.store(true, Ordering::SeqCst);
    server.stop();
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("no answer within 2 s (--timeout)"), "{err}");
    assert!(took < Duration::from_secs(2) + MARGIN, "{took:?}");
}

#[test]
fn call_timeout_bounds_the_whole_call_when_the_master_trickles() {
    let (addr, done) = trickler(http_answer("rosrpc://127.0.0.1:1"));
    let uri = format!("http://{addr}/");
    let (code, err, took) = run(&uri, &["call", "/hist", "+0", "+1", "--timeout", "2"]);
    done.store(true, Ordering::SeqCst);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("no answer within 2 s (--timeout)"), "{err}");
    assert!(took < Duration::from_secs(2) + MARGIN, "{took:?}");
}

#[test]
fn play_gives_up_on_a_trickling_master() {
    let (addr, done) = trickler(http_answer("http://127.0.0.1:1/"));
    let uri = format!("http://{addr}/");
    let bag = common::fixtures_dir().join("recorded.bag");
    let (code, err, took) = run(&uri, &["play", bag.to_str().unwrap()]);
    done.store(true, Ordering::SeqCst);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("cannot reach the ROS master") && err.contains("no complete answer within"),
        "{err}"
    );
    // Each call to the master is bounded by 5 s as a whole.
    assert!(took < Duration::from_secs(5) + MARGIN, "{took:?}");
}

/// `bagscope serve`, its stderr lines sent to a channel.
fn spawn_serve(master_uri: &str, index: &str) -> (Child, mpsc::Receiver<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_bagscope"))
        .args(["serve", index, "--namespace", "/hist"])
        .env("ROS_MASTER_URI", master_uri)
        .env("ROS_HOSTNAME", "127.0.0.1")
        .env_remove("ROS_NAMESPACE")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let err = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines() {
            let Ok(line) = line else { break };
            eprintln!("  serve: {line}");
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    (child, rx)
}

fn wait_line(rx: &mpsc::Receiver<String>, what: &str, within: Duration) -> Option<Duration> {
    let t = Instant::now();
    while let Ok(line) = rx.recv_timeout(within.saturating_sub(t.elapsed())) {
        if line.contains(what) {
            return Some(t.elapsed());
        }
    }
    None
}

#[test]
fn serve_notices_a_master_that_stops_answering() {
    let work = tempfile::tempdir().unwrap();
    let index = work.path().join("two.idx");
    build_index(&index, &two_recorded_bags());
    let (master, mut server, uri) = start_master();
    let (serve, lines) = spawn_serve(&uri, index.to_str().unwrap());
    let mut serve = Proc(serve);
    assert!(
        wait_line(&lines, "Ctrl-C stops", Duration::from_secs(20)).is_some(),
        "serve did not start"
    );
    // The master still accepts connections but answers nothing from now on.
    master.silent.store(true, Ordering::SeqCst);
    let noticed = wait_line(
        &lines,
        "lost the ROS master",
        Duration::from_secs(6) + MARGIN,
    );
    let status = wait_exit(&mut serve.0, Duration::from_secs(5) + MARGIN);
    master.silent.store(false, Ordering::SeqCst);
    drop(serve);
    server.stop();
    assert!(
        noticed.is_some(),
        "a silent master was not noticed within 6 s (+3)"
    );
    assert_eq!(status.and_then(|s| s.code()), Some(1), "{status:?}");
}
