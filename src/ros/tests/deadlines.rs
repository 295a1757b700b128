//! Outgoing calls are bounded as a whole, not per read: a master or a service that trickles
//! its answer a byte at a time is given up on at the deadline, and a master that stops
//! answering is noticed after the watch's periods, not after as many call timeouts. The
//! bounds asserted are the deadlines plus a generous margin (the property is that the
//! deadline holds, not a speed).

use super::*;

/// Slack over a deadline for a loaded machine.
const MARGIN: Duration = Duration::from_secs(3);

fn http_reply() -> Vec<u8> {
    let body = "<?xml version=\"1.0\"?><methodResponse><params><param><value><array><data>\
                <value><i4>1</i4></value><value><string></string></value>\
                <value><string>http://x:1/</string></value></data></array></value></param>\
                </params></methodResponse>";
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

#[test]
fn a_trickling_xmlrpc_server_is_given_up_on_at_the_deadline() {
    let (addr, done) = trickler(http_reply(), Duration::from_millis(50));
    let timeout = Duration::from_millis(600);
    let t = Instant::now();
    let r = xmlrpc::call(&format!("http://{addr}/"), "getUri", &[], timeout);
    let took = t.elapsed();
    done.store(true, Ordering::SeqCst);
    assert!(
        matches!(r, Err(xmlrpc::XmlRpcError::TimedOut { .. })),
        "{r:?} after {took:?}"
    );
    assert!(took < timeout + MARGIN, "{took:?}");
    // The master client reports it as a call that timed out.
    let (addr, done) = trickler(http_reply(), Duration::from_millis(50));
    let master = MasterClient::new(&format!("http://{addr}/"), "/c", timeout);
    let e = master.get_uri().unwrap_err().to_string();
    done.store(true, Ordering::SeqCst);
    assert!(e.contains("no complete answer within 0.6 s"), "{e}");
}

#[test]
fn a_trickling_service_is_given_up_on_at_the_deadline() {
    let header = Header::new()
        .with("callerid", "/slowpoke")
        .with("md5sum", "*")
        .with("service", "/s")
        .with("type", "bagscope/Slow")
        .encode();
    let mut reply = header.clone();
    reply.push(1);
    reply.extend_from_slice(&frame(&[7u8; 64]).unwrap());
    // The handshake trickles: bounded by `timeout` even without an answer timeout.
    let (addr, done) = trickler(reply.clone(), Duration::from_millis(50));
    let uri = format!("rosrpc://{addr}");
    let setup = Duration::from_millis(600);
    let t = Instant::now();
    let r = call_service(&uri, "/s", "*", "/c", b"x", setup, None);
    let took = t.elapsed();
    done.store(true, Ordering::SeqCst);
    match r {
        Err(RosError::Io { source, .. }) => {
            assert_eq!(source.kind(), std::io::ErrorKind::TimedOut, "{source}");
        }
        other => panic!("{other:?} after {took:?}"),
    }
    assert!(took < setup + MARGIN, "{took:?}");
    // The answer timeout bounds the whole call, handshake included.
    let (addr, done) = trickler(reply, Duration::from_millis(50));
    let uri = format!("rosrpc://{addr}");
    let whole = Duration::from_secs(1);
    let t = Instant::now();
    let r = call_service(
        &uri,
        "/s",
        "*",
        "/c",
        b"x",
        Duration::from_secs(30),
        Some(whole),
    );
    let took = t.elapsed();
    done.store(true, Ordering::SeqCst);
    let e = r.unwrap_err().to_string();
    assert!(e.contains("no answer within 1.0 s"), "{e}");
    assert!(took < whole + MARGIN, "{took:?}");
}

#[test]
fn a_master_that_stops_answering_is_noticed_after_the_watch_periods() {
    let f = Fixture::new();
    let (tx, rx) = std::sync::mpsc::channel();
    let period = Duration::from_millis(300);
    f.node.watch_master(period, 3, move |why| {
        let _ = tx.send(why.to_string());
    });
    // While the master answers, nothing is reported.
    assert!(rx.recv_timeout(period * 2).is_err());
    // It still accepts connections but answers nothing: each check gives up within its
    // period, and three periods without an answer are enough (not three call timeouts).
    f.silence_master(true);
    let t = Instant::now();
    let why = rx.recv_timeout(period * 4 + MARGIN);
    let took = t.elapsed();
    f.silence_master(false);
    let why = why.unwrap_or_else(|_| panic!("not noticed within {took:?}"));
    assert!(why.contains("getUri"), "{why}");
    assert!(why.contains("no complete answer"), "{why}");
}
