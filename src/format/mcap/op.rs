//! MCAP opcodes (<https://mcap.dev/spec>): the record kinds and their names. Imports
//! nothing, so that every file of `format/` can name them.

/// Header.
pub const HEADER: u8 = 0x01;
/// Footer.
pub const FOOTER: u8 = 0x02;
/// Schema.
pub const SCHEMA: u8 = 0x03;
/// Channel.
pub const CHANNEL: u8 = 0x04;
/// Message.
pub const MESSAGE: u8 = 0x05;
/// Chunk.
pub const CHUNK: u8 = 0x06;
/// Message index.
pub const MESSAGE_INDEX: u8 = 0x07;
/// Chunk index.
pub const CHUNK_INDEX: u8 = 0x08;
/// Attachment.
pub const ATTACHMENT: u8 = 0x09;
/// Attachment index.
pub const ATTACHMENT_INDEX: u8 = 0x0A;
/// Statistics.
pub const STATISTICS: u8 = 0x0B;
/// Metadata.
pub const METADATA: u8 = 0x0C;
/// Metadata index.
pub const METADATA_INDEX: u8 = 0x0D;
/// Summary offset.
pub const SUMMARY_OFFSET: u8 = 0x0E;
/// Data end.
pub const DATA_END: u8 = 0x0F;

/// True for the opcodes the MCAP specification defines (others are skipped by readers:
/// future or private records).
pub fn is_known(opcode: u8) -> bool {
    (HEADER..=DATA_END).contains(&opcode)
}

/// The name of an MCAP record kind, for messages.
pub fn name(op: u8) -> &'static str {
    match op {
        HEADER => "header",
        FOOTER => "footer",
        SCHEMA => "schema",
        CHANNEL => "channel",
        MESSAGE => "message",
        CHUNK => "chunk",
        MESSAGE_INDEX => "message index",
        CHUNK_INDEX => "chunk index",
        ATTACHMENT => "attachment",
        ATTACHMENT_INDEX => "attachment index",
        STATISTICS => "statistics",
        METADATA => "metadata",
        METADATA_INDEX => "metadata index",
        SUMMARY_OFFSET => "summary offset",
        DATA_END => "data end",
        _ => "unknown",
    }
}
