//! The node's life: registration and unregistration, the slave API, the TCPROS handshake,
//! an unreachable master.

use super::*;

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
fn slave_api_answers_about_the_node() {
    let f = Fixture::new();
    f.publication("/chatter", false, QueueLimits::default());
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
}

#[test]
fn slave_api_connections_and_shutdown() {
    let f = Fixture::new();
    let p = f.publication("/chatter", false, QueueLimits::default());
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
