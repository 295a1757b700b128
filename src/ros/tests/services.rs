//! Services: calls answered, slow handlers awaited.

use super::*;

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
    assert!(call_service(&uri, "/slow", "*", "/c", b"x", short, Some(short)).is_err());
    let r = call_service(&uri, "/slow", "*", "/c", b"y", short, None).unwrap();
    assert_eq!(r, Ok(b"y".to_vec()));
    let r = call_service(&uri, "/slow", "*", "/c", b"z", short, Some(short));
    assert!(r.is_err());
    // Shutting down lets a request being answered finish.
    let caller = {
        let uri = uri.clone();
        std::thread::spawn(move || call_service(&uri, "/slow", "*", "/c", b"w", short, None))
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
    let r = call_service(&uri, "/echo", &info.md5sum, "/c", b"abc", t, Some(t)).unwrap();
    assert_eq!(r, Ok(b"cba".to_vec()));
    let r = call_service(&uri, "/echo", "*", "/c", b"", t, Some(t)).unwrap();
    assert_eq!(r, Err("empty request".to_string()));
    assert!(
        call_service(
            &uri,
            "/echo",
            "ffffffffffffffffffffffffffffffff",
            "/c",
            b"x",
            t,
            Some(t)
        )
        .is_err()
    );
    assert!(call_service(&uri, "/nope", "*", "/c", b"x", t, Some(t)).is_err());
    assert_eq!(f.node.service_calls("/echo"), Some(2));
    // A probe gets the header only.
    let (mut s, h) = echo_client(&f, "probe");
    assert_eq!(h.get("type"), Some("bagscope/Echo"));
    assert_eq!(h.get("request_type"), Some("bagscope/EchoRequest"));
    let mut rest = Vec::new();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    assert_eq!(s.read_to_end(&mut rest).unwrap(), 0);
    // Persistent connections serve several requests.
    let (mut s, _) = echo_client(&f, "persistent");
    for req in [&b"12"[..], b"345"] {
        s.write_all(&frame(req).unwrap()).unwrap();
        let mut ok = [0u8; 1];
        s.read_exact(&mut ok).unwrap();
        assert_eq!(ok[0], 1);
        let body = read_frame(&mut s, 100).unwrap();
        assert_eq!(body, req.iter().rev().copied().collect::<Vec<_>>());
    }
}

/// Connects to the `/echo` service with `flag` set (`probe`, `persistent`); the stream and
/// the server's header.
fn echo_client(f: &Fixture, flag: &str) -> (TcpStream, Header) {
    let mut s = TcpStream::connect(f.addr()).unwrap();
    s.write_all(
        &Header::new()
            .with("callerid", "/p")
            .with("service", "/echo")
            .with("md5sum", "*")
            .with(flag, "1")
            .encode(),
    )
    .unwrap();
    let h = Header::read_from(&mut s, MAX_HEADER).unwrap();
    (s, h)
}
