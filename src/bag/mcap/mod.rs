//! MCAP files as bags: channels become connections, chunks chunks (their message indexes
//! the per-chunk entry lists), loose messages of unchunked files pseudo-chunks of the file.
//!
//! `summary` opens a file from its footer and summary section alone (a handful of reads:
//! footer, summary, the metadata records the summary indexes); `scan` walks a file that has
//! none, or a damaged one, front to back as `mcap recover` does (handing out the file as
//! found so far at the pace `scan_pace` sets); `index` reads a chunk's
//! message index records (no decompression) or walks its records. What the file holds besides
//! messages — its profile and library, attachments and metadata — is an [`McapInfo`].
//! `extras` finds the attachments and metadata records a summary does not index; `crc` checks
//! a chunk's records against the CRC its record keeps (for `verify`) and the data section
//! against the data end record's (for a scan); `live` tells a file being written from one cut
//! off.

pub(crate) mod crc;
pub(crate) mod extras;
pub(crate) mod index;
pub(crate) mod live;
pub(crate) mod scan;
pub(crate) mod scan_pace;
pub(crate) mod scan_window;
pub(crate) mod summary;

use std::collections::BTreeMap;

use mcap::records::Channel;

use crate::bag::connection::{ConnId, Connection};
use crate::format::ConnectionHeader;

/// What an MCAP file holds besides messages.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct McapInfo {
    /// The header's profile (`ros1`, `ros2`, or empty).
    pub profile: String,
    /// The header's library (the writer).
    pub library: String,
    /// Attachments, in file order.
    pub attachments: Vec<Attachment>,
    /// Metadata records, in file order.
    pub metadata: Vec<MetadataRecord>,
    /// Where the information came from: true when from the summary section.
    pub from_summary: bool,
    /// Each channel's metadata (QoS profiles, type hashes, ...), by channel id.
    pub channel_metadata: BTreeMap<u32, BTreeMap<String, String>>,
}

/// One attachment, as the summary's attachment index or the record says (its data is not
/// read).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attachment {
    /// File offset of the attachment record.
    pub offset: u64,
    /// Its name.
    pub name: String,
    /// Its media type.
    pub media_type: String,
    /// Bytes of data.
    pub size: u64,
    /// Log time (ns).
    pub log_time: u64,
    /// Creation time (ns).
    pub create_time: u64,
}

/// One metadata record: a name and string pairs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetadataRecord {
    /// Its name.
    pub name: String,
    /// Its keys and values.
    pub entries: BTreeMap<String, String>,
}

/// A schema as an MCAP file declares it.
#[derive(Clone, Debug, Default)]
pub(crate) struct SchemaDef {
    pub name: String,
    pub encoding: String,
    pub data: Vec<u8>,
}

/// The connection for an MCAP channel (with its schema, if any): the topic, the schema name as
/// the type, the schema text as the definition, the md5sum and caller id a `ros1` channel's
/// metadata carries (`*` when absent; `latching` as a bag writes it, `1`/`0`). The connection header is built from them, so that a
/// `ros1` MCAP converts to a bag.
pub(crate) fn connection(
    id: ConnId,
    channel: &Channel,
    schema: Option<&SchemaDef>,
    message_count: u64,
) -> Connection {
    let datatype = schema.map(|s| s.name.clone()).unwrap_or_default();
    let definition = schema
        .map(|s| String::from_utf8_lossy(&s.data).into_owned())
        .unwrap_or_default();
    // A ros1 channel without its md5sum gets the one its definition gives (what a bag
    // written from it must carry); other encodings have none.
    let md5sum = channel.metadata.get("md5sum").cloned().unwrap_or_else(|| {
        let ros1 = schema.is_some_and(|s| s.encoding == "ros1msg");
        ros1.then(|| crate::msg::Schema::from_definition(&datatype, &definition).ok())
            .flatten()
            .map_or_else(|| "*".to_string(), |s| s.md5sum().to_string())
    });
    let callerid = channel.metadata.get("callerid").cloned();
    // The ros1 profile writes `true`/`false` (bagscope's export too); bags say `1`/`0`.
    let latching = channel.metadata.get("latching").map(|l| match l.as_str() {
        "true" => "1".to_string(),
        "false" => "0".to_string(),
        other => other.to_string(),
    });
    let header = ConnectionHeader::build(
        &channel.topic,
        &datatype,
        &md5sum,
        &definition,
        callerid.as_deref(),
        latching.as_deref(),
    );
    Connection {
        id,
        file_id: u32::from(channel.id),
        topic: channel.topic.clone(),
        datatype,
        md5sum,
        message_definition: definition,
        callerid,
        latching,
        header,
        message_count,
        message_encoding: channel.message_encoding.clone(),
        schema_encoding: schema.map(|s| s.encoding.clone()).unwrap_or_default(),
    }
}
