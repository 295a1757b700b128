//! `.mcap` storage files: what one holds by its summary ([`summary_facts`], a handful of
//! reads at the end of the file), and the rewrite of a file whose messages are each
//! zstd-compressed (`compression_mode: MESSAGE`, the file read into memory) into an MCAP
//! with plain messages written into a file ([`decompress_messages`]).

use std::collections::BTreeMap;
use std::io::{Read, Seek, Write};
use std::path::Path;

use mcap::sans_io::summary_reader::{SummaryReadEvent, SummaryReader, SummaryReaderOptions};

use super::convert::{McapBuilder, SchemaText, mcap_error};
use super::error::Ros2Error;
use super::types::{StorageFacts, TopicFacts};
use super::zstd::decompress_message;

/// The largest summary record read (a channel or schema record is far smaller).
const MAX_SUMMARY_RECORD: usize = 256 << 20;

/// The summary of the MCAP file `path`, `None` when it has none (a recording cut off).
pub fn read_summary(path: &Path) -> Result<Option<mcap::Summary>, Ros2Error> {
    let mut file = std::fs::File::open(path).map_err(|e| Ros2Error::io(path, "opening", e))?;
    read_summary_of(&mut file, path)
}

/// The summary of the MCAP in the open file `file` (standing for `path` in errors).
pub fn read_summary_of(
    file: &mut std::fs::File,
    path: &Path,
) -> Result<Option<mcap::Summary>, Ros2Error> {
    let size = file
        .metadata()
        .map_err(|e| Ros2Error::io(path, "reading", e))?
        .len();
    let options = SummaryReaderOptions::default()
        .with_file_size(size)
        .with_record_length_limit(MAX_SUMMARY_RECORD);
    let mut reader = SummaryReader::new_with_options(options);
    while let Some(event) = reader.next_event() {
        match event.map_err(|e| mcap_error(path, e))? {
            SummaryReadEvent::ReadRequest(need) => {
                let n = file
                    .read(reader.insert(need))
                    .map_err(|e| Ros2Error::io(path, "reading", e))?;
                reader.notify_read(n);
            }
            SummaryReadEvent::SeekRequest(to) => {
                let at = file
                    .seek(to)
                    .map_err(|e| Ros2Error::io(path, "reading", e))?;
                reader.notify_seeked(at);
            }
        }
    }
    Ok(reader.finish())
}

/// What a summary says: topics by channel id (type = schema name), counts and span from the
/// statistics record where there is one.
pub fn summary_facts(summary: Option<&mcap::Summary>) -> StorageFacts {
    let Some(summary) = summary else {
        return StorageFacts::default();
    };
    let stats = summary.stats.as_ref();
    let mut ids: Vec<u16> = summary.channels.keys().copied().collect();
    ids.sort_unstable();
    let topics = ids
        .iter()
        .filter_map(|id| summary.channels.get(id))
        .map(|c| TopicFacts {
            name: c.topic.clone(),
            datatype: c
                .schema
                .as_ref()
                .map(|s| s.name.clone())
                .unwrap_or_default(),
            serialization_format: c.message_encoding.clone(),
            offered_qos_profiles: c
                .metadata
                .get("offered_qos_profiles")
                .cloned()
                .unwrap_or_default(),
            message_count: stats.map(|s| s.channel_message_counts.get(&c.id).copied().unwrap_or(0)),
        })
        .collect();
    StorageFacts {
        topics,
        message_count: stats.map(|s| s.message_count),
        span_ns: stats
            .filter(|s| s.message_count > 0)
            .map(|s| (s.message_start_time, s.message_end_time)),
    }
}

/// Rewrites the MCAP `bytes` (the storage file `path`) into `out` with each message's data
/// zstd-decompressed: same schemas, channels (with their metadata), times and sequence
/// numbers, in file order.
pub fn decompress_messages<W: Write + Seek>(
    path: &Path,
    bytes: &[u8],
    max_message: u64,
    max_total: u64,
    out: W,
) -> Result<(W, StorageFacts), Ros2Error> {
    let mut builder = McapBuilder::new(path, out)?;
    let mut topics: BTreeMap<u16, usize> = BTreeMap::new();
    let mut total = 0u64;
    // Every channel first, in id order (also those without messages), where the file has a
    // summary; the others as their first message comes.
    if let Ok(Some(summary)) = mcap::Summary::read(bytes) {
        let mut ids: Vec<u16> = summary.channels.keys().copied().collect();
        ids.sort_unstable();
        for channel in ids.iter().filter_map(|id| summary.channels.get(id)) {
            let t = add_channel(&mut builder, channel)?;
            topics.insert(channel.id, t);
        }
    }
    let stream = mcap::MessageStream::new(bytes).map_err(|e| mcap_error(path, e))?;
    for (n, message) in stream.enumerate() {
        let message = message.map_err(|e| mcap_error(path, e))?;
        let topic = if let Some(&t) = topics.get(&message.channel.id) {
            t
        } else {
            let t = add_channel(&mut builder, &message.channel)?;
            topics.insert(message.channel.id, t);
            t
        };
        let limit = max_message.min(max_total.saturating_sub(total));
        let plain =
            decompress_message(path, &message.data, limit, || format!("message {}", n + 1))?;
        total += plain.len() as u64;
        builder.write(
            topic,
            message.log_time,
            message.publish_time,
            message.sequence,
            &plain,
        )?;
    }
    builder.finish()
}

/// Adds `channel` (its schema, encoding and metadata as they are) to `builder`.
fn add_channel<W: Write + Seek>(
    builder: &mut McapBuilder<W>,
    channel: &mcap::Channel<'_>,
) -> Result<usize, Ros2Error> {
    let schema = channel.schema.as_ref();
    let facts = TopicFacts {
        name: channel.topic.clone(),
        datatype: schema.map(|s| s.name.clone()).unwrap_or_default(),
        serialization_format: channel.message_encoding.clone(),
        offered_qos_profiles: channel
            .metadata
            .get("offered_qos_profiles")
            .cloned()
            .unwrap_or_default(),
        message_count: None,
    };
    let text = schema.map(|s| SchemaText {
        encoding: &s.encoding,
        data: &s.data,
    });
    builder.add_topic(facts, text, &channel.metadata)
}
