//! The master's XML-RPC API, as a client. Every ROS API call answers
//! `[code, statusMessage, value]`; code 1 is success.

use std::time::Duration;

use super::error::RosError;
use super::xmlrpc::{self, Value};

/// Calls a ROS XML-RPC API method (master or slave) and returns the value of a successful
/// `[1, message, value]` answer.
pub fn call_api(
    uri: &str,
    method: &str,
    params: &[Value],
    timeout: Duration,
) -> Result<Value, RosError> {
    let answer = xmlrpc::call(uri, method, params, timeout).map_err(|source| RosError::Call {
        method: method.to_string(),
        uri: uri.to_string(),
        source,
    })?;
    let bad = |what: &str| RosError::BadAnswer {
        method: method.to_string(),
        uri: uri.to_string(),
        what: what.to_string(),
    };
    let Value::Array(mut parts) = answer else {
        return Err(bad("not an array"));
    };
    if parts.len() != 3 {
        return Err(bad("not [code, message, value]"));
    }
    let value = parts.pop().unwrap_or(Value::Nil);
    let message = parts
        .pop()
        .and_then(|m| m.as_str().map(str::to_string))
        .unwrap_or_default();
    let code = parts
        .pop()
        .and_then(|c| c.as_int())
        .ok_or_else(|| bad("the code is not an integer"))?;
    if code != 1 {
        return Err(RosError::Refused {
            method: method.to_string(),
            uri: uri.to_string(),
            code,
            message,
        });
    }
    Ok(value)
}

/// The graph as the master sees it (`getSystemState`): for each topic or service, the nodes
/// publishing, subscribing or providing it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SystemState {
    /// Topic → publisher node names.
    pub publishers: Vec<(String, Vec<String>)>,
    /// Topic → subscriber node names.
    pub subscribers: Vec<(String, Vec<String>)>,
    /// Service → provider node names.
    pub services: Vec<(String, Vec<String>)>,
}

impl SystemState {
    /// The publishers of `topic`.
    pub fn publishers_of(&self, topic: &str) -> &[String] {
        find(&self.publishers, topic)
    }

    /// The subscribers of `topic`.
    pub fn subscribers_of(&self, topic: &str) -> &[String] {
        find(&self.subscribers, topic)
    }

    /// The providers of `service`.
    pub fn providers_of(&self, service: &str) -> &[String] {
        find(&self.services, service)
    }
}

fn find<'a>(list: &'a [(String, Vec<String>)], name: &str) -> &'a [String] {
    list.iter()
        .find(|(n, _)| n == name)
        .map_or(&[], |(_, v)| v.as_slice())
}

/// A client of the master, calling as `caller_id`.
#[derive(Clone, Debug)]
pub struct MasterClient {
    uri: String,
    caller_id: String,
    timeout: Duration,
}

impl MasterClient {
    /// A client of the master at `uri`; `timeout` bounds each whole call (connecting,
    /// sending, the answer).
    pub fn new(uri: &str, caller_id: &str, timeout: Duration) -> Self {
        MasterClient {
            uri: uri.to_string(),
            caller_id: caller_id.to_string(),
            timeout,
        }
    }

    /// The same client with calls bounded by `timeout` (each whole call).
    #[must_use]
    pub fn with_timeout(&self, timeout: Duration) -> MasterClient {
        MasterClient {
            timeout,
            ..self.clone()
        }
    }

    /// The master's URI.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    fn call(&self, method: &str, args: &[&str]) -> Result<Value, RosError> {
        let mut params = vec![Value::from(self.caller_id.as_str())];
        params.extend(args.iter().map(|a| Value::from(*a)));
        call_api(&self.uri, method, &params, self.timeout)
    }

    fn bad(&self, method: &str, what: &str) -> RosError {
        RosError::BadAnswer {
            method: method.to_string(),
            uri: self.uri.clone(),
            what: what.to_string(),
        }
    }

    /// `registerPublisher`: the XML-RPC URIs of the topic's current subscribers.
    pub fn register_publisher(
        &self,
        topic: &str,
        datatype: &str,
        caller_api: &str,
    ) -> Result<Vec<String>, RosError> {
        let v = self.call("registerPublisher", &[topic, datatype, caller_api])?;
        strings(&v).ok_or_else(|| self.bad("registerPublisher", "not a list of URIs"))
    }

    /// `unregisterPublisher`: how many registrations were removed (0 or 1).
    pub fn unregister_publisher(&self, topic: &str, caller_api: &str) -> Result<i32, RosError> {
        let v = self.call("unregisterPublisher", &[topic, caller_api])?;
        Ok(v.as_int().unwrap_or(0))
    }

    /// `registerService` with the service's `rosrpc://` URI.
    pub fn register_service(
        &self,
        service: &str,
        service_api: &str,
        caller_api: &str,
    ) -> Result<(), RosError> {
        self.call("registerService", &[service, service_api, caller_api])
            .map(|_| ())
    }

    /// `unregisterService`: how many registrations were removed (0 or 1).
    pub fn unregister_service(&self, service: &str, service_api: &str) -> Result<i32, RosError> {
        let v = self.call("unregisterService", &[service, service_api])?;
        Ok(v.as_int().unwrap_or(0))
    }

    /// `lookupNode`: a node's XML-RPC URI.
    pub fn lookup_node(&self, node: &str) -> Result<String, RosError> {
        let v = self.call("lookupNode", &[node])?;
        v.as_str()
            .map(str::to_string)
            .ok_or_else(|| self.bad("lookupNode", "not a URI"))
    }

    /// `lookupService`: a service's `rosrpc://` URI.
    pub fn lookup_service(&self, service: &str) -> Result<String, RosError> {
        let v = self.call("lookupService", &[service])?;
        v.as_str()
            .map(str::to_string)
            .ok_or_else(|| self.bad("lookupService", "not a URI"))
    }

    /// `getUri`: the master's own idea of its URI (a cheap way to check it is reachable).
    pub fn get_uri(&self) -> Result<String, RosError> {
        let v = self.call("getUri", &[])?;
        v.as_str()
            .map(str::to_string)
            .ok_or_else(|| self.bad("getUri", "not a URI"))
    }

    /// `getSystemState`.
    pub fn system_state(&self) -> Result<SystemState, RosError> {
        let v = self.call("getSystemState", &[])?;
        let bad = || self.bad("getSystemState", "not [publishers, subscribers, services]");
        let parts = v.as_array().ok_or_else(bad)?;
        let [p, s, sv] = parts else {
            return Err(bad());
        };
        let list = |v: &Value| -> Option<Vec<(String, Vec<String>)>> {
            v.as_array()?
                .iter()
                .map(|e| match e.as_array()? {
                    [name, nodes] => Some((name.as_str()?.to_string(), strings(nodes)?)),
                    _ => None,
                })
                .collect()
        };
        Ok(SystemState {
            publishers: list(p).ok_or_else(bad)?,
            subscribers: list(s).ok_or_else(bad)?,
            services: list(sv).ok_or_else(bad)?,
        })
    }

    /// `getTopicTypes`: (topic, type) of every published topic.
    pub fn topic_types(&self) -> Result<Vec<(String, String)>, RosError> {
        let v = self.call("getTopicTypes", &[])?;
        v.as_array()
            .and_then(|a| {
                a.iter()
                    .map(|e| match e.as_array()? {
                        [t, ty] => Some((t.as_str()?.to_string(), ty.as_str()?.to_string())),
                        _ => None,
                    })
                    .collect()
            })
            .ok_or_else(|| self.bad("getTopicTypes", "not a list of [topic, type]"))
    }
}

/// A list of strings, if `v` is one.
fn strings(v: &Value) -> Option<Vec<String>> {
    v.as_array()?
        .iter()
        .map(|s| s.as_str().map(str::to_string))
        .collect()
}
