//! XML-RPC parsing and serialising: documents as Python's `xmlrpc.client` and XmlRpc++
//! (roscpp) write them, round trips, malformed input, and a loopback server.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use super::*;

/// `xmlrpc.client.dumps(('/rosnode', '/chatter', [['TCPROS']]), 'requestTopic')`.
const PY_CALL: &str = "<?xml version='1.0'?>\n<methodCall>\n<methodName>requestTopic</methodName>\n<params>\n<param>\n<value><string>/rosnode</string></value>\n</param>\n<param>\n<value><string>/chatter</string></value>\n</param>\n<param>\n<value><array><data>\n<value><array><data>\n<value><string>TCPROS</string></value>\n</data></array></value>\n</data></array></value>\n</param>\n</params>\n</methodCall>\n";

/// `xmlrpc.client.dumps(([1, 'ready on ...', ['TCPROS', '127.0.0.1', 1234]],), methodresponse=True)`.
const PY_RESPONSE: &str = "<?xml version='1.0'?>\n<methodResponse>\n<params>\n<param>\n<value><array><data>\n<value><int>1</int></value>\n<value><string>ready on 127.0.0.1:1234</string></value>\n<value><array><data>\n<value><string>TCPROS</string></value>\n<value><string>127.0.0.1</string></value>\n<value><int>1234</int></value>\n</data></array></value>\n</data></array></value>\n</param>\n</params>\n</methodResponse>\n";

/// `xmlrpc.client.dumps(xmlrpc.client.Fault(1, 'no <method> & co'), methodresponse=True)`.
const PY_FAULT: &str = "<?xml version='1.0'?>\n<methodResponse>\n<fault>\n<value><struct>\n<member>\n<name>faultCode</name>\n<value><int>1</int></value>\n</member>\n<member>\n<name>faultString</name>\n<value><string>no &lt;method&gt; &amp; co</string></value>\n</member>\n</struct></value>\n</fault>\n</methodResponse>\n";

/// A struct with a double, a boolean and base64, as Python writes it.
const PY_STRUCT: &str = "<?xml version='1.0'?>\n<methodResponse>\n<params>\n<param>\n<value><struct>\n<member>\n<name>a</name>\n<value><double>1.5</double></value>\n</member>\n<member>\n<name>b</name>\n<value><boolean>1</boolean></value>\n</member>\n<member>\n<name>c</name>\n<value><base64>\nAAFoaQ==\n</base64></value>\n</member>\n</struct></value>\n</param>\n</params>\n</methodResponse>\n";

fn s(v: &str) -> Value {
    Value::Str(v.to_string())
}

#[test]
fn python_documents() {
    let call = parse_call(PY_CALL.as_bytes()).unwrap();
    assert_eq!(call.method, "requestTopic");
    assert_eq!(
        call.params,
        vec![
            s("/rosnode"),
            s("/chatter"),
            Value::Array(vec![Value::Array(vec![s("TCPROS")])])
        ]
    );
    let r = parse_response(PY_RESPONSE.as_bytes()).unwrap().unwrap();
    assert_eq!(
        r,
        Value::Array(vec![
            Value::Int(1),
            s("ready on 127.0.0.1:1234"),
            Value::Array(vec![s("TCPROS"), s("127.0.0.1"), Value::Int(1234)])
        ])
    );
    let f = parse_response(PY_FAULT.as_bytes()).unwrap().unwrap_err();
    assert_eq!(
        f,
        Fault {
            code: 1,
            message: "no <method> & co".into()
        }
    );
    let st = parse_response(PY_STRUCT.as_bytes()).unwrap().unwrap();
    assert_eq!(st.member("a"), Some(&Value::Double(1.5)));
    assert_eq!(st.member("b"), Some(&Value::Bool(true)));
    assert_eq!(st.member("c"), Some(&Value::Base64(vec![0, 1, b'h', b'i'])));
}

#[test]
fn xmlrpcpp_style_and_untyped_values() {
    // roscpp's XmlRpc++ writes <i4>, untyped strings and no whitespace.
    let doc = "<?xml version=\"1.0\"?>\r\n<methodResponse><params><param>\r\n\t<value><array><data><value><i4>1</i4></value><value></value><value>pid &#x41;&#66;</value><value/><value><string/></value><value><array><data/></array></value><value><struct/></value><value><nil/></value><value><i8>-5</i8></value></data></array></value>\r\n</param></params></methodResponse>\r\n";
    let v = parse_response(doc.as_bytes()).unwrap().unwrap();
    assert_eq!(
        v,
        Value::Array(vec![
            Value::Int(1),
            s(""),
            s("pid AB"),
            s(""),
            s(""),
            Value::Array(vec![]),
            Value::Struct(vec![]),
            Value::Nil,
            Value::Int(-5),
        ])
    );
    // Untyped values keep their whitespace; CR LF inside text becomes LF.
    let doc =
        "<methodResponse><params><param><value> a\r\nb </value></param></params></methodResponse>";
    assert_eq!(
        parse_response(doc.as_bytes()).unwrap().unwrap(),
        s(" a\nb ")
    );
    // Comments, CDATA and attributes are accepted.
    let doc = "<!-- hi --><methodCall a='1'><methodName>x</methodName><params><param><value><string><![CDATA[<raw>&]]></string></value></param></params></methodCall>";
    let c = parse_call(doc.as_bytes()).unwrap();
    assert_eq!(c.params, vec![s("<raw>&")]);
    // No <params> at all.
    let c = parse_call(b"<methodCall><methodName>getPid</methodName></methodCall>").unwrap();
    assert!(c.params.is_empty());
}

#[test]
fn round_trip() {
    let v = Value::Array(vec![
        Value::Int(i32::MIN),
        Value::Int(i32::MAX),
        Value::Bool(false),
        s("a<b>&c\r\n\"'\u{e9}\u{1F600}"),
        s(""),
        Value::Double(-0.125),
        Value::Double(1e300),
        Value::Base64(vec![0, 255, 10]),
        Value::Struct(vec![("k<".into(), Value::Array(vec![]))]),
        Value::Nil,
    ]);
    let doc = response_document(&v);
    assert_eq!(parse_response(doc.as_bytes()).unwrap().unwrap(), v);
    let doc = call_document("m&", std::slice::from_ref(&v));
    let c = parse_call(doc.as_bytes()).unwrap();
    assert_eq!(c.method, "m&");
    assert_eq!(c.params, vec![v]);
    let f = Fault {
        code: -1,
        message: "x".into(),
    };
    assert_eq!(
        parse_response(fault_document(&f).as_bytes()).unwrap(),
        Err(f)
    );
    // Non-finite doubles have no XML-RPC spelling; they are sent as 0.
    let doc = response_document(&Value::Double(f64::NAN));
    assert_eq!(
        parse_response(doc.as_bytes()).unwrap().unwrap(),
        Value::Double(0.0)
    );
}

#[test]
fn malformed_documents_are_errors() {
    let wrap = |inner: &str| {
        format!("<methodResponse><params><param>{inner}</param></params></methodResponse>")
    };
    let bad: Vec<Vec<u8>> = vec![
        b"".to_vec(),
        b"<".to_vec(),
        b"<methodResponse>".to_vec(),
        b"<methodResponse><params><param><value>".to_vec(),
        b"<methodCall><methodName>x</methodName>".to_vec(),
        b"<methodCall><methodName>x</methodName></methodCall><extra/>".to_vec(),
        b"<methodCall><methodName>x</methodCall>".to_vec(),
        b"<!DOCTYPE x [<!ENTITY a 'b'>]><methodCall><methodName>x</methodName></methodCall>"
            .to_vec(),
        b"<methodCall><methodName>\xff</methodName></methodCall>".to_vec(),
        b"<methodCall><methodName>x</methodName><params><param>text</param></params></methodCall>"
            .to_vec(),
        b"<methodResponse></methodResponse>".to_vec(),
        b"<methodResponse><fault></fault></methodResponse>".to_vec(),
        wrap("<value><i4>12x</i4></value>").into_bytes(),
        wrap("<value><i4>99999999999</i4></value>").into_bytes(),
        wrap("<value><boolean>2</boolean></value>").into_bytes(),
        wrap("<value><double>one</double></value>").into_bytes(),
        wrap("<value><base64>!!!</base64></value>").into_bytes(),
        wrap("<value><dateTime.iso8601>20240101T00:00:00</dateTime.iso8601></value>").into_bytes(),
        wrap("<value><string>&bogus;</string></value>").into_bytes(),
        wrap("<value><string>&#xD800;</string></value>").into_bytes(),
        wrap("<value><string>a & b</string></value>").into_bytes(),
        wrap("<value>x<i4>1</i4></value>").into_bytes(),
        wrap("<value><i4>1</i4><i4>2</i4></value>").into_bytes(),
        wrap("<value><array><value/></array></value>").into_bytes(),
        wrap("<value><array><data><i4>1</i4></data></array></value>").into_bytes(),
        wrap("<value><struct><member><value/></member></struct></value>").into_bytes(),
        wrap("<value><struct><member><name>a</name></member></struct></value>").into_bytes(),
        wrap("<value><string><b/></string></value>").into_bytes(),
        wrap("<value><string>x</value>").into_bytes(),
        wrap("<value><a b='>").into_bytes(),
        wrap("<value><!-- x</value>").into_bytes(),
        wrap("<value></ value x>").into_bytes(),
        wrap("<value><></value>").into_bytes(),
    ];
    for doc in &bad {
        let r = parse_response(doc);
        let c = parse_call(doc);
        assert!(
            matches!(r, Err(XmlRpcError::Xml { .. })) && c.is_err(),
            "accepted {:?}: {r:?}",
            String::from_utf8_lossy(doc)
        );
    }
}

#[test]
fn nesting_is_bounded() {
    let deep = |n: usize| {
        let mut v = String::new();
        for _ in 0..n {
            v.push_str("<value><array><data>");
        }
        for _ in 0..n {
            v.push_str("</data></array></value>");
        }
        format!("<methodResponse><params><param>{v}</param></params></methodResponse>")
    };
    assert!(parse_response(deep(MAX_DEPTH).as_bytes()).is_ok());
    assert!(matches!(
        parse_response(deep(MAX_DEPTH + 2).as_bytes()),
        Err(XmlRpcError::Xml { .. })
    ));
    // Far deeper than any stack would allow without the bound.
    assert!(parse_response(deep(100_000).as_bytes()).is_err());
}

#[test]
fn truncations_never_panic() {
    for doc in [PY_CALL, PY_RESPONSE, PY_FAULT, PY_STRUCT] {
        for cut in 0..doc.len() {
            let part = &doc.as_bytes()[..cut];
            let _ = parse_call(part);
            let _ = parse_response(part);
        }
    }
}

struct Echo;

impl Handler for Echo {
    fn handle(&self, method: &str, params: &[Value]) -> Result<Value, Fault> {
        match method {
            "echo" => Ok(Value::Array(params.to_vec())),
            _ => Err(Fault {
                code: 7,
                message: format!("no method {method}"),
            }),
        }
    }
}

fn server() -> Server {
    Server::start(
        SocketAddr::from(([127, 0, 0, 1], 0)),
        Arc::new(Echo) as Arc<dyn Handler>,
    )
    .unwrap()
}

fn raw_exchange(addr: SocketAddr, request: &[u8]) -> String {
    let mut c = TcpStream::connect(addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    c.write_all(request).unwrap();
    let _ = c.shutdown(std::net::Shutdown::Write);
    let mut out = Vec::new();
    let _ = c.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn loopback_client_and_server() {
    let srv = server();
    let uri = format!("http://{}/RPC2", srv.local_addr());
    let t = Duration::from_secs(5);
    let got = call(&uri, "echo", &[Value::Int(3), s("x&y")], t).unwrap();
    assert_eq!(got, Value::Array(vec![Value::Int(3), s("x&y")]));
    match call(&uri, "nope", &[], t) {
        Err(XmlRpcError::Fault(f)) => assert_eq!(f.code, 7),
        other => panic!("{other:?}"),
    }
    // A Python client's exact request.
    let req = format!(
        "POST /RPC2 HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\nContent-Type: text/xml\r\nUser-Agent: Python-xmlrpc/3.11\r\nContent-Length: {}\r\n\r\n{}",
        PY_CALL.len(),
        PY_CALL
    );
    let out = raw_exchange(srv.local_addr(), req.as_bytes());
    assert!(out.starts_with("HTTP/1.1 200 OK\r\n"), "{out}");
    assert!(out.contains("<string>requestTopic</string>") || out.contains("fault"));
    // Chunked request bodies are read.
    let body = call_document("echo", &[Value::Int(1)]);
    let (a, b) = body.split_at(10);
    let req = format!(
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{a}\r\n{:x};ext=1\r\n{b}\r\n0\r\n\r\n",
        a.len(),
        b.len()
    );
    let out = raw_exchange(srv.local_addr(), req.as_bytes());
    assert!(out.contains("<i4>1</i4>"), "{out}");
}

#[test]
fn server_refuses_malformed_requests() {
    let srv = server();
    let addr = srv.local_addr();
    let body = "<methodCall><methodName>echo</methodName><params><param><value><i4>x";
    let cases: Vec<(String, &str)> = vec![
        ("GET / HTTP/1.1\r\n\r\n".into(), "400"),
        ("POST / HTTP/1.1\r\nbroken header\r\n\r\n".into(), "400"),
        ("POST / HTTP/1.1\r\n\r\n".into(), "400"),
        (
            format!(
                "POST / HTTP/1.1\r\nContent-Length: {}\r\n\r\n",
                MAX_REQUEST + 1
            ),
            "413",
        ),
        (
            format!("POST / HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(20_000)),
            "413",
        ),
        (
            format!(
                "POST / HTTP/1.1\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            ),
            "fault",
        ),
        (
            "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n".into(),
            "400",
        ),
        (
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n".into(),
            "400",
        ),
    ];
    for (req, want) in cases {
        let out = raw_exchange(addr, req.as_bytes());
        if want == "fault" {
            assert!(
                out.starts_with("HTTP/1.1 200") && out.contains("<fault>"),
                "{out}"
            );
        } else {
            assert!(
                out.starts_with(&format!("HTTP/1.1 {want}")),
                "{req:?} -> {out}"
            );
        }
    }
    // A body cut short: the server gives up without answering, and keeps serving.
    let out = raw_exchange(
        addr,
        b"POST / HTTP/1.1\r\nContent-Length: 100\r\n\r\n<method",
    );
    assert!(out.is_empty(), "{out}");
    let uri = format!("http://{addr}/");
    assert!(call(&uri, "echo", &[], Duration::from_secs(5)).is_ok());
}

#[test]
fn client_refuses_bad_answers() {
    use std::net::TcpListener;
    let answers: Vec<&[u8]> = vec![
        b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n<meth",
        b"HTTP/1.1 200 OK\r\n\r\n<methodResponse>",
        b"garbage",
        b"",
    ];
    for a in answers {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let a = a.to_vec();
        let t = std::thread::spawn(move || {
            let (mut c, _) = l.accept().unwrap();
            let mut buf = [0u8; 4096];
            let _ = c.read(&mut buf);
            let _ = c.write_all(&a);
        });
        let r = call(&format!("http://{addr}/"), "m", &[], Duration::from_secs(5));
        assert!(r.is_err());
        t.join().unwrap();
    }
    // Nobody listening; and a URI that is not http.
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    drop(l);
    assert!(matches!(
        call(&format!("http://{addr}/"), "m", &[], Duration::from_secs(2)),
        Err(XmlRpcError::Io { .. })
    ));
    assert!(matches!(
        call("rosrpc://x:1", "m", &[], Duration::from_secs(2)),
        Err(XmlRpcError::BadUri(_))
    ));
}

#[test]
fn client_times_out_on_a_silent_server() {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    let start = std::time::Instant::now();
    let r = call(
        &format!("http://{addr}/"),
        "m",
        &[],
        Duration::from_millis(300),
    );
    assert!(matches!(r, Err(XmlRpcError::TimedOut { .. })), "{r:?}");
    assert!(start.elapsed() < Duration::from_secs(5));
    drop(l);
}
