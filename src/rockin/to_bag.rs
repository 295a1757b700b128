//! RoCKIn YAML → V2.0 bag, streaming: each message is read, converted, serialized and
//! written before the next is read.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use crate::bag::writer::{BagWriter, WriteSummary, WriterOptions, ensure_distinct};
use crate::format::ConnectionHeader;
use crate::msg::Registry;

use super::Limits;
use super::error::{ConvertError, InputError, InputErrorKind};
use super::reader::MessageReader;

/// How a RoCKIn file is written as a bag.
#[derive(Clone, Debug)]
pub struct ToBagOptions {
    /// Compression and chunk size.
    pub writer: WriterOptions,
    /// The `callerid` of every connection header.
    pub callerid: String,
    /// Caps on the YAML read.
    pub limits: Limits,
}

impl Default for ToBagOptions {
    fn default() -> Self {
        ToBagOptions {
            writer: WriterOptions::default(),
            callerid: "/rockin".to_string(),
            limits: Limits::default(),
        }
    }
}

/// Messages on one topic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopicCount {
    /// The topic.
    pub topic: String,
    /// Its message type.
    pub datatype: String,
    /// Messages.
    pub messages: u64,
}

/// What a conversion to a bag wrote.
#[derive(Clone, Debug)]
pub struct ToBagReport {
    /// The bag written.
    pub summary: WriteSummary,
    /// Messages per topic, in order of first appearance.
    pub topics: Vec<TopicCount>,
}

/// Converts the RoCKIn file `input` into the bag `output` (which must not be `input`).
/// `progress` is called after each message with the bytes of YAML read so far.
pub fn yaml_to_bag(
    input: &Path,
    output: &Path,
    registry: &Registry,
    options: &ToBagOptions,
    progress: &mut dyn FnMut(u64),
) -> Result<ToBagReport, ConvertError> {
    ensure_distinct(output, &[input])?;
    let file = File::open(input).map_err(|source| ConvertError::Io {
        path: input.to_path_buf(),
        what: "cannot open",
        source,
    })?;
    yaml_reader_to_bag(
        BufReader::with_capacity(1 << 20, file),
        input,
        output,
        registry,
        options,
        progress,
    )
}

/// [`yaml_to_bag`] from any reader; `name` names the input in errors.
pub fn yaml_reader_to_bag<R: BufRead>(
    input: R,
    name: &Path,
    output: &Path,
    registry: &Registry,
    options: &ToBagOptions,
    progress: &mut dyn FnMut(u64),
) -> Result<ToBagReport, ConvertError> {
    let input_error = |error: InputError| ConvertError::Input {
        path: name.to_path_buf(),
        error: Box::new(error),
    };
    let mut items = MessageReader::new(input, registry, options.limits);
    let mut writer = BagWriter::create(output, options.writer)?;
    let mut conns: Vec<(TopicCount, u32)> = Vec::new();
    let mut payload = Vec::new();
    while let Some(item) = items.next_message().map_err(input_error)? {
        let slot = conns
            .iter()
            .position(|(c, _)| c.topic == item.topic && c.datatype == item.datatype);
        let slot = if let Some(s) = slot {
            s
        } else {
            {
                let header = ConnectionHeader::build(
                    &item.topic,
                    &item.datatype,
                    item.schema.md5sum(),
                    &item.schema.full_text(),
                    Some(&options.callerid),
                    Some("0"),
                );
                let id = writer.add_connection(&item.topic, &header)?;
                conns.push((
                    TopicCount {
                        topic: item.topic.clone(),
                        datatype: item.datatype.clone(),
                        messages: 0,
                    },
                    id,
                ));
                conns.len() - 1
            }
        };
        let Some((count, id)) = conns.get_mut(slot) else {
            continue;
        };
        payload.clear();
        crate::msg::encode_into(&item.schema, &item.value, &mut payload).map_err(|e| {
            input_error(InputError::new(
                item.mark,
                InputErrorKind::Encode(e.to_string()),
            ))
        })?;
        writer.write(*id, item.time, &payload)?;
        count.messages += 1;
        progress(items.bytes_read());
    }
    let summary = writer.finish()?;
    Ok(ToBagReport {
        summary,
        topics: conns.into_iter().map(|(c, _)| c).collect(),
    })
}
