//! Why a bagserver could not start.

use crate::catalog::index::IndexError;
use crate::ros::RosError;

/// What kept the bagserver from starting.
#[derive(Debug, thiserror::Error)]
pub enum BagserverError {
    /// The indexed bags could not be opened.
    #[error("{0}")]
    Index(#[from] IndexError),
    /// Advertising the topics or the service failed.
    #[error("{0}")]
    Ros(#[from] RosError),
}
