//! Getting ready to play and cleaning up afterwards, shared by `bagscope play` and the
//! explorer: the namespace checked, the node started (the master must answer), the selection
//! advertised; at the end, queued messages flushed and everything unregistered.

use std::sync::Arc;
use std::time::Duration;

use crate::catalog::{Catalog, Selection};
use crate::ros::{Node, NodeConfig, QueueLimits, RosError, names};

use super::outlet::Outlet;

/// Why a [`Session`] could not be started.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The master did not answer (or the node's sockets could not be opened).
    #[error("cannot reach the ROS master at {master}: {source}")]
    Unreachable {
        /// The master's URI.
        master: String,
        /// What failed.
        source: RosError,
    },
    /// Nothing of the selection could be advertised.
    #[error("{0}")]
    Advertise(RosError),
}

impl StartError {
    /// The innermost cause, briefly (`Connection refused`, without the OS error number).
    pub fn cause(&self) -> String {
        let mut e: &(dyn std::error::Error + 'static) = match self {
            StartError::Unreachable { source, .. } | StartError::Advertise(source) => source,
        };
        while let Some(inner) = e.source() {
            e = inner;
        }
        let text = e.to_string();
        match text.find(" (os error ") {
            Some(at) => text.get(..at).unwrap_or(&text).to_string(),
            None => text,
        }
    }
}

/// `given` (`--namespace`; `/` when absent) as a global name, checked.
pub fn namespace(given: Option<&str>) -> Result<String, RosError> {
    let ns = names::resolve("/", given.unwrap_or("/"));
    names::validate_global(&ns)?;
    Ok(ns)
}

/// A started node with a selection advertised under a namespace: ready for a
/// [`Player`](super::Player).
pub struct Session {
    /// The node (also held by the outlet).
    pub node: Arc<Node>,
    /// The selection's publications.
    pub outlet: Outlet,
}

impl Session {
    /// Starts a node with `config` and advertises every topic `selection` picks from
    /// `catalog`, relocated under `namespace`. Blocks on calls to the master (each bounded
    /// by `config.call_timeout`).
    pub fn start(
        config: NodeConfig,
        namespace: &str,
        limits: QueueLimits,
        catalog: &Catalog,
        selection: &Selection,
    ) -> Result<Session, StartError> {
        let master = config.master_uri.clone();
        let node = Node::start(config)
            .map(Arc::new)
            .map_err(|source| StartError::Unreachable { master, source })?;
        let mut outlet = Outlet::new(Arc::clone(&node), namespace, limits);
        outlet
            .advertise_selection(catalog, selection)
            .map_err(StartError::Advertise)?;
        Ok(Session { node, outlet })
    }

    /// Waits at most `flush` for queued messages to reach the subscribers, then unregisters
    /// everything from the master and closes every connection.
    pub fn finish(&self, flush: Duration) -> Result<(), RosError> {
        self.node.flush(flush);
        self.node.shutdown()
    }
}
