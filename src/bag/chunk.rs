//! Where a run of messages lives: a 2.0 chunk, or the whole file for older layouts.

use crate::time::RosTime;

use super::connection::ConnId;
use super::counts::Counts;

/// How complete a chunk's data is on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChunkState {
    /// All declared bytes are present.
    Complete,
    /// The file ends inside the chunk: only some of the declared data bytes exist (how many:
    /// the chunk head's `compressed_size`).
    Truncated,
    /// A chunk the recorder never closed (header still says size 0); its records run to the
    /// end of what was written.
    Open,
}

/// How the bytes of a chunk are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChunkLayout {
    /// A 2.0 chunk: connection and message data records; index offsets are relative to its
    /// uncompressed data.
    V2,
    /// The whole file of a 1.2 bag: offsets are absolute, records are 1.2 records.
    V12,
    /// The whole file of a 1.1 / version-0 bag: offsets are absolute, messages start with
    /// topic/md5/type lines.
    V11,
    /// The whole file of a 1.0 bag: offsets are absolute, messages start with a topic line.
    V10,
    /// An MCAP chunk's records (index offsets relative to its uncompressed records), or a run
    /// of an MCAP file's top-level records holding loose messages (offsets from its start).
    Mcap,
}

/// One chunk of messages with its summary, as the chunk info (or a scan) says. What its
/// record header says (where the data is, its sizes and compression) is a
/// [`crate::bag::ChunkHead`], which may be read later: see [`crate::bag::Bag::chunk_head`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// Position in [`crate::bag::Bag::chunks`].
    pub index: u32,
    /// File offset of the chunk record (0 for whole-file pseudo-chunks).
    pub pos: u64,
    /// Record layout inside the data.
    pub layout: ChunkLayout,
    /// Completeness on disk.
    pub state: ChunkState,
    /// Earliest receive time (as the index or recovery scan says).
    pub start: RosTime,
    /// Latest receive time.
    pub end: RosTime,
    /// Messages per connection.
    pub counts: Counts,
}

impl Chunk {
    /// How many of `chunks` are complete on disk (a recovery report's count).
    pub(crate) fn complete_count(chunks: &[Chunk]) -> usize {
        chunks
            .iter()
            .filter(|c| c.state == ChunkState::Complete)
            .count()
    }

    /// Total messages in the chunk.
    pub fn message_count(&self) -> u64 {
        self.counts.iter().map(|&(_, n)| u64::from(n)).sum()
    }

    /// Messages of connection `conn` in the chunk.
    pub fn count_for(&self, conn: ConnId) -> u32 {
        self.counts
            .iter()
            .find(|&&(c, _)| c == conn)
            .map_or(0, |&(_, n)| n)
    }

    /// True for a real 2.0 chunk record (as opposed to a whole-file pseudo-chunk).
    pub fn is_record(&self) -> bool {
        matches!(self.layout, ChunkLayout::V2 | ChunkLayout::Mcap)
    }
}

/// The position of one message: which chunk, where in its uncompressed data, when, and on
/// which connection. Ordered by `(time, conn, chunk, offset)`, the order `rosbag` reads in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IndexEntry {
    /// Receive time.
    pub time: RosTime,
    /// Connection.
    pub conn: ConnId,
    /// Chunk index.
    pub chunk: u32,
    /// Offset of the message record in the chunk's uncompressed data (absolute file offset
    /// for whole-file pseudo-chunks).
    pub offset: u64,
}

#[cfg(test)]
mod tests {
    use super::Chunk;

    #[test]
    fn a_chunk_is_compact() {
        // A million chunks: what the chunk infos say, without the record header's fields
        // (`crate::bag::ChunkHead`, kept apart in 13 bytes a chunk).
        let size = std::mem::size_of::<Chunk>();
        println!("Chunk: {size} bytes");
        assert!(size <= 48, "{size}");
    }
}
