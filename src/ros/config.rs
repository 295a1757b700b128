//! Where a node finds the master and how it names and binds itself: `ROS_MASTER_URI`,
//! `ROS_HOSTNAME`, `ROS_IP` and `ROS_NAMESPACE`, as rospy reads them.

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use super::error::RosError;
use super::limits::NodeLimits;
use super::names;
use super::uri;

/// The master URI used when `ROS_MASTER_URI` is not set.
pub const DEFAULT_MASTER_URI: &str = "http://localhost:11311/";

/// How a node is set up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeConfig {
    /// The node's global name (`/bagscope_play_...`), also its `callerid`.
    pub name: String,
    /// The namespace relative names are resolved in (`ROS_NAMESPACE`, default `/`).
    pub namespace: String,
    /// The master's XML-RPC URI.
    pub master_uri: String,
    /// The host name or address other nodes use to reach us (in our URIs).
    pub host: String,
    /// The address our servers listen on: loopback when `host` is a loopback name or
    /// address, otherwise every interface (rospy's rule).
    pub bind: IpAddr,
    /// Bounds each whole call to the master (connecting, sending, the answer) and the
    /// connecting, handshake and request of a service call.
    pub call_timeout: Duration,
    /// What the node's servers grant peers (deadlines, connection caps, memory); the node
    /// fits the caps to the file descriptors there are when it starts.
    pub limits: NodeLimits,
}

/// The master URI `ROS_MASTER_URI` names (trimmed), as given by `var`, or
/// [`DEFAULT_MASTER_URI`] when it is unset or blank. Not validated.
pub fn master_uri_from(var: impl Fn(&str) -> Option<String>) -> String {
    var("ROS_MASTER_URI")
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| DEFAULT_MASTER_URI.to_string())
}

impl NodeConfig {
    /// The configuration from the process environment; `name` is resolved in
    /// `ROS_NAMESPACE`.
    pub fn from_env(name: &str) -> Result<NodeConfig, RosError> {
        Self::from_vars(name, |k| std::env::var(k).ok())
    }

    /// The configuration from variables given by `var` (tests pass their own).
    pub fn from_vars(
        name: &str,
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<NodeConfig, RosError> {
        let present = |k: &str| var(k).filter(|v| !v.trim().is_empty());
        let namespace = match present("ROS_NAMESPACE") {
            Some(ns) => {
                let ns = names::resolve("/", ns.trim());
                names::validate_global(&ns).map_err(|e| RosError::Environment {
                    variable: "ROS_NAMESPACE",
                    value: ns.clone(),
                    why: e.to_string(),
                })?;
                ns
            }
            None => "/".to_string(),
        };
        let master_uri = master_uri_from(&var);
        if uri::host_port(&master_uri, "http").is_none() {
            return Err(RosError::Environment {
                variable: "ROS_MASTER_URI",
                value: master_uri,
                why: "expected http://HOST:PORT/".into(),
            });
        }
        let host = if let Some(h) = present("ROS_HOSTNAME") {
            h.trim().to_string()
        } else if let Some(ip) = present("ROS_IP") {
            let ip = ip.trim().to_string();
            if ip.parse::<IpAddr>().is_err() {
                return Err(RosError::Environment {
                    variable: "ROS_IP",
                    value: ip,
                    why: "not an IP address".into(),
                });
            }
            ip
        } else {
            system_hostname()
        };
        let resolved = names::resolve(&namespace, name);
        names::validate_global(&resolved)?;
        Ok(NodeConfig {
            name: resolved,
            namespace,
            master_uri,
            bind: bind_address(&host),
            host,
            call_timeout: Duration::from_secs(5),
            limits: NodeLimits::default(),
        })
    }
}

/// Loopback for loopback hosts, every interface otherwise.
pub fn bind_address(host: &str) -> IpAddr {
    match host.parse::<IpAddr>() {
        Ok(ip) if ip.is_loopback() => ip,
        Err(_) if host == "localhost" => IpAddr::V4(Ipv4Addr::LOCALHOST),
        _ => IpAddr::V4(Ipv4Addr::UNSPECIFIED),
    }
}

/// The machine's host name (Linux: the kernel's; elsewhere `/etc/hostname`), or
/// `localhost`.
fn system_hostname() -> String {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|p| {
            let s = std::fs::read_to_string(p).ok()?;
            let s = s.trim();
            (!s.is_empty()).then(|| s.to_string())
        })
        .unwrap_or_else(|| "localhost".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn cfg(vars: &[(&str, &str)]) -> Result<NodeConfig, RosError> {
        let m: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect();
        NodeConfig::from_vars("bagscope_play", |k| m.get(k).cloned())
    }

    #[test]
    fn environment() {
        let c = cfg(&[
            ("ROS_MASTER_URI", "http://127.0.0.1:1234/"),
            ("ROS_HOSTNAME", "127.0.0.1"),
            ("ROS_IP", "10.1.1.1"),
        ])
        .unwrap();
        assert_eq!(c.name, "/bagscope_play");
        assert_eq!(c.master_uri, "http://127.0.0.1:1234/");
        assert_eq!(c.host, "127.0.0.1"); // ROS_HOSTNAME wins over ROS_IP
        assert!(c.bind.is_loopback());
        let c = cfg(&[("ROS_IP", "10.1.1.1"), ("ROS_NAMESPACE", "robot")]).unwrap();
        assert_eq!(c.host, "10.1.1.1");
        assert!(c.bind.is_unspecified());
        assert_eq!(c.master_uri, DEFAULT_MASTER_URI);
        assert_eq!(c.name, "/robot/bagscope_play");
        assert_eq!(
            cfg(&[("ROS_HOSTNAME", "localhost")]).unwrap().bind,
            IpAddr::V4(Ipv4Addr::LOCALHOST)
        );
        assert!(cfg(&[("ROS_IP", "nope")]).is_err());
        assert!(cfg(&[("ROS_MASTER_URI", "localhost:11311")]).is_err());
        assert!(cfg(&[("ROS_NAMESPACE", "/a-b")]).is_err());
        assert!(!cfg(&[]).unwrap().host.is_empty());
    }
}
