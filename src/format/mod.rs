//! Bytes → records. Pure: every function takes byte slices and returns typed records or a
//! [`FormatError`] naming the byte offset and record kind. No I/O, no knowledge of bags as a
//! whole, of message definitions or of the UI.
//!
//! See `docs/format.md` for the layouts; the official reader's quirks (index records whose
//! data length lies, concatenated LZ4 frames, 1.2 `sec`/`nsec` vs `time`) are handled here.

pub mod bag_header;
pub mod chunk;
pub mod chunk_info;
pub mod compression;
pub mod connection;
pub mod cursor;
pub mod error;
pub mod header;
pub mod index_data;
pub mod legacy;
pub mod lz4;
pub mod mcap;
pub mod message_data;
pub mod op;
pub mod record;
pub mod shape;
pub mod v12;
pub mod version;

pub use bag_header::BagHeader;
pub use chunk::ChunkHeader;
pub use chunk_info::{ChunkInfo, ChunkInfoHead};
pub use compression::Compression;
pub use connection::{ConnectionHeader, ConnectionRecord};
pub use error::{ErrorKind, FormatError};
pub use header::Header;
pub use index_data::IndexData;
pub use message_data::MessageDataHeader;
pub use op::{Op, RecordKind};
pub use record::{Record, RecordHead, read_head, read_record, record_end};
pub use version::{Version, detect};
