//! A minimal native ROS1 node: no ROS library needed on the machine.
//!
//! * [`xmlrpc`] — XML-RPC over HTTP/1.1, client and server, written for untrusted peers.
//! * [`MasterClient`] — the master API (register/unregister publishers and services,
//!   lookups, `getSystemState`).
//! * [`Node`] — a node: the slave API server (`requestTopic`, `getPid`, `shutdown`,
//!   `getBusStats`, `getBusInfo`, ...), one TCPROS server socket for topics and services,
//!   [`Publication`]s and service servers, all unregistered on shutdown or drop.
//! * [`Publication`] — a topic: handshake checks (md5sum, type), one bounded queue and
//!   writer thread per subscriber (oldest dropped and counted when full), latching;
//!   subscribers capped per address and in total, within the file descriptors there are.
//! * [`StallBudget`] — how long lossless publishing may wait for subscribers that do not
//!   keep up, one budget for a whole run.
//! * [`Header`] — TCPROS connection headers and message framing.
//!
//! This layer knows nothing of bags: it publishes bytes with a [`TopicInfo`].
//! See `docs/ros.md`.

mod accept;
mod config;
mod error;
mod fds;
mod header;
mod limits;
mod link;
mod master;
pub mod names;
mod node;
mod publication;
mod seats;
mod service;
mod slave;
mod stall;
mod tcpros;
pub mod uri;
pub mod xmlrpc;

pub use accept::AdmissionStats;
pub use config::{DEFAULT_MASTER_URI, NodeConfig, bind_address, master_uri_from};
pub use error::RosError;
pub use fds::{FD_RESERVE, open_count, raise_limit};
pub use header::{Header, HeaderError, MAX_HEADER, frame, read_frame};
pub use limits::{FrameBudget, NodeLimits, Reservation};
pub use link::{Frame, LinkStats, QueueLimits, WRITE_TIMEOUT};
pub use master::{MasterClient, SystemState, call_api};
pub use node::{Advertised, Node, NodeLoad};
pub use publication::{Publication, PublicationStats, PublishError, TopicInfo, check_subscriber};
pub use service::{
    Cancel, MAX_SERVICE_MESSAGE, REQUEST_TIMEOUT, ServiceCall, ServiceHandler, ServiceInfo,
    call_service, call_service_with_header, check_client,
};
pub use stall::{PACE, StallBudget};
pub use tcpros::HANDSHAKE_TIMEOUT;

#[cfg(test)]
mod tests;
