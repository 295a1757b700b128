//! The values a ROS 2 bag directory opens to: what `metadata.yaml` says ([`Metadata`],
//! [`TopicInfo`], [`FileInfo`]), the storage files made ready for the MCAP reader
//! ([`Storage`], [`StorageContent`]), what each storage file holds by its own account
//! ([`StorageFacts`]), and the whole directory ([`Ros2Bag`]).

use std::collections::BTreeMap;
use std::path::PathBuf;

/// What `metadata.yaml` says (`rosbag2_bagfile_information`, versions 1 to 9). Fields a
/// version does not have keep their defaults.
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
    /// `files` (version 5 and later): per storage file, its start, duration and count.
    pub files: Vec<FileInfo>,
    /// `custom_data` (version 6 and later), key to value.
    pub custom_data: BTreeMap<String, String>,
}

impl Metadata {
    /// The starting time, or `None` where rosbag2 wrote `INT64_MAX` (a bag with no messages)
    /// or a negative value.
    pub fn start_ns(&self) -> Option<u64> {
        if self.starting_time_ns == i64::MAX {
            None
        } else {
            u64::try_from(self.starting_time_ns).ok()
        }
    }
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

/// One entry of the metadata's `files` list (version 5 and later).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileInfo {
    /// `path`, relative to the directory.
    pub path: String,
    /// `starting_time.nanoseconds_since_epoch`.
    pub starting_time_ns: i64,
    /// `duration.nanoseconds`.
    pub duration_ns: i64,
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
    /// What the file holds by its own account (exact for converted files; from the summary
    /// for an `.mcap` opened in place).
    pub facts: StorageFacts,
}

/// Where a storage file's MCAP is.
#[derive(Debug)]
pub enum StorageContent {
    /// An `.mcap` file, opened in place.
    McapFile(PathBuf),
    /// An MCAP written from the storage file (a `.db3`, a compressed file, per-message
    /// compression), open: a cache entry, or an unlinked temporary file that is gone once
    /// closed.
    Converted(std::fs::File),
}

/// What one storage file holds, as far as known without reading its messages again.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StorageFacts {
    /// Its topics (channels), in the order the file defines them.
    pub topics: Vec<TopicFacts>,
    /// Messages in all, when known.
    pub message_count: Option<u64>,
    /// Earliest and latest message time (ns), when the file has messages and says so.
    pub span_ns: Option<(u64, u64)>,
}

/// One topic of a storage file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TopicFacts {
    /// Topic name.
    pub name: String,
    /// Message type, as the storage names it.
    pub datatype: String,
    /// Serialization format (the MCAP channel's message encoding).
    pub serialization_format: String,
    /// `offered_qos_profiles` as stored (empty when the file has none).
    pub offered_qos_profiles: String,
    /// Messages on the topic, when known.
    pub message_count: Option<u64>,
}

/// A ROS 2 bag directory ready to open.
#[derive(Debug)]
pub struct Ros2Bag {
    /// The directory.
    pub dir: PathBuf,
    /// Its metadata (made up from the storage files, with a note, when the directory has
    /// no `metadata.yaml`).
    pub metadata: Metadata,
    /// Its storage files, in the metadata's order.
    pub storage: Vec<Storage>,
    /// What opening noticed that did not stop it: storage files listed but missing, present
    /// but not listed, no `metadata.yaml`, messages that could not be converted. One line
    /// each; [`Ros2Bag::disagreements`] repeats them first.
    pub notes: Vec<String>,
}
