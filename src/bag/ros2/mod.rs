//! ROS 2 bag directories (rosbag2): `metadata.yaml` and its storage files, `.mcap` or
//! SQLite `.db3`, split and zstd-compressed as the metadata says. (Contract: the ROS 2
//! helper fills it.)
//!
//! A directory opens as one recording: [`open_dir`] reads the metadata and prepares each
//! storage file in order as an MCAP the bag layer opens ([`Storage`]): an `.mcap` file as it
//! is, a `.db3` file (read-only, through the bundled SQLite) or a zstd-compressed file turned
//! into an MCAP in memory. The storage files are the truth; what the metadata says that they
//! contradict is a [`Ros2Bag::disagreements`] note.

use std::path::{Path, PathBuf};

use super::error::BagError;
use super::handle::Bag;

/// What `metadata.yaml` says (`rosbag2_bagfile_information`, versions 1 to 9).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Metadata {
    /// `version`.
    pub version: u32,
    /// `storage_identifier`: `sqlite3` or `mcap`.
    pub storage_identifier: String,
    /// `relative_file_paths`, in order.
    pub relative_file_paths: Vec<String>,
    /// `starting_time.nanoseconds_since_epoch` (`i64::MAX` in empty bags).
    pub starting_time_ns: i64,
    /// `duration.nanoseconds`.
    pub duration_ns: i64,
    /// `message_count`.
    pub message_count: u64,
    /// `topics_with_message_count`.
    pub topics: Vec<TopicInfo>,
    /// `compression_format` (`""` or `zstd`).
    pub compression_format: String,
    /// `compression_mode` (`""`, `FILE` or `MESSAGE`).
    pub compression_mode: String,
    /// `ros_distro` (version 8 and later).
    pub ros_distro: Option<String>,
}

/// One topic of the metadata.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TopicInfo {
    /// Topic name.
    pub name: String,
    /// Message type (`pkg/msg/Type`).
    pub datatype: String,
    /// `serialization_format` (`cdr`).
    pub serialization_format: String,
    /// `offered_qos_profiles`, the YAML text as stored.
    pub offered_qos_profiles: String,
    /// `type_description_hash` (version 7 and later).
    pub type_description_hash: Option<String>,
    /// `message_count`.
    pub message_count: u64,
}

/// One storage file made ready for the MCAP reader.
#[derive(Debug)]
pub struct Storage {
    /// The file as the directory holds it (`name.db3`, `name.mcap.zstd`, ...).
    pub path: PathBuf,
    /// Where its MCAP is.
    pub content: StorageContent,
}

/// Where a storage file's MCAP is.
#[derive(Debug)]
pub enum StorageContent {
    /// An `.mcap` file, opened in place.
    McapFile(PathBuf),
    /// An MCAP made in memory (from a `.db3`, a compressed file, or per-message compression).
    McapBytes(Vec<u8>),
}

/// A ROS 2 bag directory ready to open.
#[derive(Debug)]
pub struct Ros2Bag {
    /// The directory.
    pub dir: PathBuf,
    /// Its metadata.
    pub metadata: Metadata,
    /// Its storage files, in the metadata's order.
    pub storage: Vec<Storage>,
}

/// True when `path` is a directory holding a `metadata.yaml` (a rosbag2 bag).
pub fn is_ros2_dir(path: &Path) -> bool {
    path.is_dir() && path.join("metadata.yaml").is_file()
}

/// Reads a ROS 2 bag directory's metadata and prepares its storage files.
pub fn open_dir(dir: &Path) -> Result<Ros2Bag, BagError> {
    Err(BagError::new(
        &std::sync::Arc::from(dir),
        super::error::BagErrorKind::Io(std::io::Error::other("ROS 2 bags are not read yet")),
    ))
}

impl Ros2Bag {
    /// What the metadata says that the opened storage files (`bags`, in order) contradict:
    /// start, duration, message counts per topic and in all, types, serialization formats.
    /// One line per disagreement, for the health view; the storage is the truth.
    pub fn disagreements(&self, bags: &[Bag]) -> Vec<String> {
        let _ = bags;
        Vec::new()
    }
}
