//! The bag header record (op 0x03): where the index starts and how much it holds.

use super::error::{ErrorKind, FormatError, Result};
use super::header::{Header, write_field};
use super::op::{Op, RecordKind};
use super::record::Record;

/// The total size of the bag header record's header and data, as the official writer pads it.
pub const BAG_HEADER_PADDED_LEN: usize = 4096;

/// The fields of a bag header record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BagHeader {
    /// Offset of the index section (first connection record after the chunks in 2.0, first
    /// index record in 1.2). Zero while a recording is in progress.
    pub index_pos: u64,
    /// Number of connections (2.0 only).
    pub conn_count: Option<u32>,
    /// Number of chunks (2.0 only).
    pub chunk_count: Option<u32>,
}

impl BagHeader {
    /// Reads a bag header from a complete record; fails for encrypted bags.
    pub fn from_record(record: &Record<'_>) -> Result<Self> {
        record.expect_op(Op::BagHeader)?;
        Self::from_header(&record.header, record.offset)
    }

    /// Reads a bag header from the header of the record at `offset` (its padding may be cut
    /// off); fails for encrypted bags and for records of another kind.
    pub fn from_header(header: &Header<'_>, offset: u64) -> Result<Self> {
        let h = header.with_kind(RecordKind::BagHeader);
        let op = h.op()?;
        if op != Op::BagHeader.byte() {
            return Err(FormatError::new(
                offset,
                RecordKind::BagHeader,
                ErrorKind::UnexpectedOp {
                    found: op,
                    expected: RecordKind::BagHeader,
                },
            ));
        }
        if let Some(enc) = h.opt_string("encryptor") {
            return Err(FormatError::new(
                offset,
                RecordKind::BagHeader,
                ErrorKind::Encrypted(enc),
            ));
        }
        let optional = |name| match h.get(name) {
            None => Ok(None),
            Some(_) => h.u32(name).map(Some),
        };
        Ok(BagHeader {
            index_pos: h.u64("index_pos")?,
            conn_count: optional("conn_count")?,
            chunk_count: optional("chunk_count")?,
        })
    }

    /// Encodes the record, padded with spaces to 4096 bytes of header and data.
    pub fn encode(&self) -> Vec<u8> {
        let mut header = Vec::new();
        write_field(&mut header, "index_pos", &self.index_pos.to_le_bytes());
        if let Some(c) = self.conn_count {
            write_field(&mut header, "conn_count", &c.to_le_bytes());
        }
        if let Some(c) = self.chunk_count {
            write_field(&mut header, "chunk_count", &c.to_le_bytes());
        }
        write_field(&mut header, "op", &[Op::BagHeader.byte()]);
        let data_len = BAG_HEADER_PADDED_LEN.saturating_sub(header.len());
        let mut out = Vec::with_capacity(BAG_HEADER_PADDED_LEN + 8);
        out.extend_from_slice(&u32::try_from(header.len()).unwrap_or(0).to_le_bytes());
        out.extend_from_slice(&header);
        out.extend_from_slice(&u32::try_from(data_len).unwrap_or(0).to_le_bytes());
        out.resize(out.len() + data_len, b' ');
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::record::{read_record, write_record};

    #[test]
    fn encodes_to_4104_bytes_and_reads_back() {
        let h = BagHeader {
            index_pos: 123_456,
            conn_count: Some(3),
            chunk_count: Some(9),
        };
        let bytes = h.encode();
        assert_eq!(bytes.len(), 4104);
        let r = read_record(&bytes, 0, 13).unwrap();
        assert_eq!(BagHeader::from_record(&r).unwrap(), h);
    }

    #[test]
    fn encrypted_bags_are_refused() {
        let mut buf = Vec::new();
        write_record(
            &mut buf,
            &[
                ("op", &[3]),
                ("index_pos", &0u64.to_le_bytes()),
                ("encryptor", b"rosbag/AesCbcEncryptor"),
            ],
            b"",
        );
        let r = read_record(&buf, 0, 0).unwrap();
        assert!(matches!(
            BagHeader::from_record(&r).unwrap_err().kind,
            ErrorKind::Encrypted(_)
        ));
    }
}
