//! The slave XML-RPC API other nodes and tools call on us: `requestTopic`, `getPid`,
//! `shutdown`, `getBusStats`, `getBusInfo`, `getMasterUri`, `getSubscriptions`,
//! `getPublications`, `publisherUpdate` and `paramUpdate`.

use std::sync::Weak;

use super::publication::Publication;
use super::xmlrpc::{Fault, Handler, Value};

/// What the slave API reads of the node it answers for (and the one thing it does to it).
pub(crate) trait SlaveState: Send + Sync {
    /// The master's URI (`getMasterUri`).
    fn master_uri(&self) -> &str;
    /// The host name or address other nodes reach us at.
    fn host(&self) -> &str;
    /// The TCPROS server's port.
    fn tcpros_port(&self) -> u16;
    /// Every topic published.
    fn publications(&self) -> Vec<Publication>;
    /// The publication of `topic`, if any.
    fn publication(&self, topic: &str) -> Option<Publication>;
    /// `shutdown` was called: tell the owner.
    fn request_shutdown(&self, why: &str);
}

/// Answers slave API calls for a node (without keeping it alive).
pub(crate) struct SlaveApi<N> {
    pub(crate) node: Weak<N>,
}

fn ok(message: &str, value: impl Into<Value>) -> Value {
    Value::Array(vec![Value::Int(1), Value::from(message), value.into()])
}

fn error(code: i32, message: &str) -> Value {
    Value::Array(vec![Value::Int(code), Value::from(message), Value::Int(0)])
}

/// The string parameter at `i`.
fn text(params: &[Value], i: usize) -> Option<&str> {
    params.get(i).and_then(Value::as_str)
}

impl<N: SlaveState + 'static> Handler for SlaveApi<N> {
    fn handle(&self, method: &str, params: &[Value]) -> Result<Value, Fault> {
        let Some(node) = self.node.upgrade() else {
            return Ok(error(-1, "node is shutting down"));
        };
        if text(params, 0).is_none() {
            return Ok(error(-1, "the first parameter must be the caller_id"));
        }
        Ok(match method {
            "getPid" => ok(
                "",
                Value::Int(i32::try_from(std::process::id()).unwrap_or(0)),
            ),
            "getMasterUri" => {
                let uri = node.master_uri();
                ok(uri, uri)
            }
            "getSubscriptions" => ok("subscriptions", Value::Array(Vec::new())),
            "getPublications" => {
                let list: Vec<Value> = node
                    .publications()
                    .iter()
                    .map(|p| {
                        Value::Array(vec![
                            Value::from(p.topic()),
                            Value::from(p.info().datatype.as_str()),
                        ])
                    })
                    .collect();
                ok("publications", Value::Array(list))
            }
            "getBusStats" => {
                let pubs: Vec<Value> = node
                    .publications()
                    .iter()
                    .map(|p| {
                        let s = p.stats();
                        let conns: Vec<Value> = s
                            .subscribers
                            .iter()
                            .map(|l| {
                                Value::Array(vec![
                                    Value::saturating_int(u64::from(l.id)),
                                    Value::saturating_int(l.bytes),
                                    Value::saturating_int(l.messages),
                                    Value::Bool(l.connected),
                                ])
                            })
                            .collect();
                        Value::Array(vec![
                            Value::from(s.topic),
                            Value::saturating_int(s.bytes),
                            Value::Array(conns),
                        ])
                    })
                    .collect();
                ok(
                    "",
                    Value::Array(vec![
                        Value::Array(pubs),
                        Value::Array(Vec::new()),
                        Value::Array(Vec::new()),
                    ]),
                )
            }
            "getBusInfo" => {
                let mut conns = Vec::new();
                for p in node.publications() {
                    for l in p.stats().subscribers.iter().filter(|l| l.connected) {
                        conns.push(Value::Array(vec![
                            Value::saturating_int(u64::from(l.id)),
                            Value::from(l.callerid.as_str()),
                            Value::from("o"),
                            Value::from("TCPROS"),
                            Value::from(p.topic()),
                            Value::Bool(true),
                            Value::from(format!(
                                "TCPROS connection on port {} to [{}:{} on socket {}]",
                                l.local_port,
                                l.remote.ip(),
                                l.remote.port(),
                                l.socket
                            )),
                        ]));
                    }
                }
                ok("bus info", Value::Array(conns))
            }
            "shutdown" => {
                let why = text(params, 1).unwrap_or_default().to_string();
                node.request_shutdown(&why);
                ok("shutdown", Value::Int(0))
            }
            "publisherUpdate" | "paramUpdate" => ok("", Value::Int(0)),
            "requestTopic" => request_topic(node.as_ref(), params),
            other => {
                return Err(Fault {
                    code: 1,
                    message: format!("method \"{other}\" is not supported"),
                });
            }
        })
    }
}

/// `requestTopic(caller_id, topic, protocols)`: where to connect with TCPROS.
fn request_topic(node: &impl SlaveState, params: &[Value]) -> Value {
    let Some(topic) = text(params, 1) else {
        return error(-1, "the topic must be a string");
    };
    if node.publication(topic).is_none() {
        return Value::Array(vec![
            Value::Int(-1),
            Value::from(format!("Not a publisher of [{topic}]")),
            Value::Array(Vec::new()),
        ]);
    }
    let tcpros = params
        .get(2)
        .and_then(Value::as_array)
        .is_some_and(|protocols| {
            protocols.iter().any(|p| {
                p.as_array().and_then(|a| a.first()).and_then(Value::as_str) == Some("TCPROS")
            })
        });
    if !tcpros {
        return Value::Array(vec![
            Value::Int(0),
            Value::from("no supported protocol implementations"),
            Value::Array(Vec::new()),
        ]);
    }
    let host = node.host().to_string();
    let port = node.tcpros_port();
    ok(
        &format!("ready on {host}:{port}"),
        Value::Array(vec![
            Value::from("TCPROS"),
            Value::from(host),
            Value::Int(i32::from(port)),
        ]),
    )
}
