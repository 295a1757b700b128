//! The connection record (op 0x07): a connection id and topic in the record header, and the
//! publisher's connection header (type, md5sum, definition, callerid, latching) as its data.

use super::error::Result;
use super::header::{FieldIter, Header, write_field};
use super::op::{Op, RecordKind};
use super::record::Record;

/// The connection header a publisher sent, as stored in a connection record's data.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConnectionHeader {
    /// `topic` field of the data (may differ from the record's topic; the record's wins).
    pub topic: Option<String>,
    /// `type`, e.g. `sensor_msgs/Imu` (empty when absent).
    pub datatype: String,
    /// `md5sum` of the type (empty when absent).
    pub md5sum: String,
    /// Full `message_definition` text (empty when absent).
    pub message_definition: String,
    /// `callerid` of the publishing node, when recorded.
    pub callerid: Option<String>,
    /// `latching` ("1"/"0"), when recorded.
    pub latching: Option<String>,
    /// The raw field bytes, kept to write the header back unchanged.
    pub raw: Vec<u8>,
}

impl ConnectionHeader {
    /// Parses a connection header (a field list without outer length).
    pub fn parse(bytes: &[u8], base: u64) -> Result<Self> {
        let h = Header::parse(bytes, base, RecordKind::ConnectionHeader)?;
        Ok(Self::from_header(&h))
    }

    /// Builds the connection header from parsed fields; missing fields stay empty.
    pub fn from_header(h: &Header<'_>) -> Self {
        ConnectionHeader {
            topic: h.opt_string("topic"),
            datatype: h.opt_string("type").unwrap_or_default(),
            md5sum: h.opt_string("md5sum").unwrap_or_default(),
            message_definition: h.opt_string("message_definition").unwrap_or_default(),
            callerid: h.opt_string("callerid"),
            latching: h.opt_string("latching"),
            raw: h.bytes().to_vec(),
        }
    }

    /// Builds a connection header from its parts, with the fields in the order the C++
    /// recorder writes them (alphabetical).
    pub fn build(
        topic: &str,
        datatype: &str,
        md5sum: &str,
        message_definition: &str,
        callerid: Option<&str>,
        latching: Option<&str>,
    ) -> Self {
        let mut raw = Vec::new();
        if let Some(c) = callerid {
            write_field(&mut raw, "callerid", c.as_bytes());
        }
        if let Some(l) = latching {
            write_field(&mut raw, "latching", l.as_bytes());
        }
        write_field(&mut raw, "md5sum", md5sum.as_bytes());
        write_field(
            &mut raw,
            "message_definition",
            message_definition.as_bytes(),
        );
        write_field(&mut raw, "topic", topic.as_bytes());
        write_field(&mut raw, "type", datatype.as_bytes());
        ConnectionHeader {
            topic: Some(topic.to_string()),
            datatype: datatype.to_string(),
            md5sum: md5sum.to_string(),
            message_definition: message_definition.to_string(),
            callerid: callerid.map(str::to_string),
            latching: latching.map(str::to_string),
            raw,
        }
    }

    /// True when the publisher latched the topic.
    pub fn is_latching(&self) -> bool {
        self.latching.as_deref() == Some("1")
    }

    /// The value of any field, raw.
    pub fn field(&self, name: &str) -> Option<Vec<u8>> {
        FieldIter::new(&self.raw, 0, RecordKind::ConnectionHeader)
            .filter_map(std::result::Result::ok)
            .filter(|f| f.name == name.as_bytes())
            .last()
            .map(|f| f.value.to_vec())
    }
}

/// A connection record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectionRecord {
    /// Connection id, unique within the bag.
    pub conn: u32,
    /// The topic from the record header.
    pub topic: String,
    /// The publisher's connection header.
    pub header: ConnectionHeader,
}

impl ConnectionRecord {
    /// Reads a connection record.
    pub fn from_record(record: &Record<'_>) -> Result<Self> {
        record.expect_op(Op::Connection)?;
        let h = record.header.with_kind(RecordKind::Connection);
        let conn = h.u32("conn")?;
        let topic = h.string("topic")?;
        let header = ConnectionHeader::parse(record.data, record.data_offset)?;
        Ok(ConnectionRecord {
            conn,
            topic,
            header,
        })
    }

    /// Appends the encoded record to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        encode_record(out, self.conn, &self.topic, &self.header.raw);
    }
}

/// Appends a connection record for connection `conn` on `topic` whose data is the raw
/// connection header `raw` (fields in the C++ recorder's order: `conn`, `op`, `topic`).
pub fn encode_record(out: &mut Vec<u8>, conn: u32, topic: &str, raw: &[u8]) {
    super::record::write_record(
        out,
        &[
            ("conn", &conn.to_le_bytes()),
            ("op", &[Op::Connection.byte()]),
            ("topic", topic.as_bytes()),
        ],
        raw,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::record::read_record;

    #[test]
    fn round_trips_a_connection() {
        let c = ConnectionRecord {
            conn: 4,
            topic: "/imu".into(),
            header: ConnectionHeader::build(
                "/imu",
                "sensor_msgs/Imu",
                "6a62c6daae103f4ff57a132d6f95cec2",
                "Header header\n",
                Some("/driver"),
                Some("0"),
            ),
        };
        let mut buf = Vec::new();
        c.encode(&mut buf);
        let back = ConnectionRecord::from_record(&read_record(&buf, 0, 0).unwrap()).unwrap();
        assert_eq!(back, c);
        assert!(!back.header.is_latching());
        assert_eq!(back.header.field("callerid").unwrap(), b"/driver");
    }
}
