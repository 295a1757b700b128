//! Records specific to `#ROSRECORD V1.2`: message definition (op 0x01) and the 1.2 message
//! data header (op 0x02 with topic, md5, type and time).

use super::cursor::le_u32;
use super::error::{ErrorKind, FormatError, Result};
use super::header::Header;
use super::op::RecordKind;
use crate::time::RosTime;

/// A 1.2 message definition record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MessageDefinition12 {
    /// Topic the definition belongs to.
    pub topic: String,
    /// md5sum of the type.
    pub md5sum: String,
    /// Type name.
    pub datatype: String,
    /// Full definition text (empty when absent).
    pub definition: String,
}

impl MessageDefinition12 {
    /// Reads the fields of a message definition header.
    pub fn from_header(h: &Header<'_>) -> Result<Self> {
        let h = h.with_kind(RecordKind::MessageDefinition);
        Ok(MessageDefinition12 {
            topic: h.string("topic")?,
            md5sum: h.opt_string("md5").unwrap_or_default(),
            datatype: h.opt_string("type").unwrap_or_default(),
            definition: h.opt_string("def").unwrap_or_default(),
        })
    }
}

/// The header of a 1.2 message data record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MessageData12 {
    /// Topic.
    pub topic: String,
    /// md5sum, when present.
    pub md5sum: Option<String>,
    /// Type, when present.
    pub datatype: Option<String>,
    /// Receive time, from `sec`/`nsec` or a `time` field.
    pub time: RosTime,
    /// `latching`, when present.
    pub latching: Option<String>,
    /// `callerid`, when present.
    pub callerid: Option<String>,
}

impl MessageData12 {
    /// Reads the fields of a 1.2 message data header.
    pub fn from_header(h: &Header<'_>) -> Result<Self> {
        let h = h.with_kind(RecordKind::MessageData);
        let time = if h.get("sec").is_some() || h.get("time").is_none() {
            let sec = h.u32("sec")?;
            let nsec = h.u32("nsec")?;
            RosTime::new(sec, nsec)
        } else {
            h.time("time")?
        };
        Ok(MessageData12 {
            topic: h.string("topic")?,
            md5sum: h.opt_string("md5"),
            datatype: h.opt_string("type"),
            time,
            latching: h.opt_string("latching"),
            callerid: h.opt_string("callerid"),
        })
    }
}

/// Reads only the receive time of a 1.2 message data header (the hot path of iteration).
pub fn message_time_12(h: &Header<'_>) -> Result<RosTime> {
    match (h.get("sec"), h.get("nsec"), h.get("time")) {
        (Some(s), Some(n), _) => match (le_u32(s.value), le_u32(n.value)) {
            (Some(sec), Some(nsec)) => Ok(RosTime::new(sec, nsec)),
            _ => Err(FormatError::new(
                s.offset,
                RecordKind::MessageData,
                ErrorKind::FieldSize {
                    name: "sec",
                    len: s.value.len(),
                    expected: 4,
                },
            )),
        },
        _ => h.with_kind(RecordKind::MessageData).time("time"),
    }
}
