//! A bag's chunk record headers as they become known: the ones of a bag opened from its
//! index section alone are read when first needed (a batch from that chunk on), or all at
//! once on several threads ([`Bag::read_heads`]).
//!
//! A header that does not match its chunk info (no chunk record where the chunk info points,
//! a chunk running past the end of the file) makes that chunk unreadable: loading it gives an
//! error naming the chunk info's `chunk_pos`, its messages are counted as not found, and
//! [`Bag::warnings`] lists it. (A bag whose headers are read while it is opened is scanned
//! instead, as before.)

use crate::format::{ErrorKind, FormatError, RecordKind};

use crate::bag::chunk::Chunk;
use crate::bag::error::BagError;
use crate::bag::error::{BagErrorKind, Warning};
use crate::bag::handle::Bag;
use crate::bag::read::heads::{self, ChunkHead, HeadState};
use crate::bag::read::load::{LoadedChunk, Within, load_chunk, load_chunk_within};
use crate::bag::source::Changed;

/// The error for a chunk whose header is not what its chunk info says.
fn bad_head(pos: u64, why: String) -> FormatError {
    FormatError::new(
        pos,
        RecordKind::ChunkInfo,
        ErrorKind::BadValue {
            name: "chunk_pos",
            reason: why,
        },
    )
}

impl Bag {
    /// What the record header of chunk `chunk` says, if it is known (never reads the file:
    /// for the explorer's thread). See [`Bag::head`].
    pub fn chunk_head(&self, chunk: u32) -> Option<ChunkHead> {
        self.inner.heads.get(chunk as usize)
    }

    /// What is known of the record header of chunk `chunk` (never reads the file).
    pub fn head_state(&self, chunk: u32) -> HeadState {
        self.inner.heads.state(chunk as usize)
    }

    /// Chunks whose record header has not been read yet (0 once [`Bag::read_heads`] ran, and
    /// for bags of few chunks, whose headers are read when they are opened).
    pub fn pending_heads(&self) -> usize {
        self.inner.heads.pending()
    }

    /// Reads every record header not read yet, in large sequential batches on the bag's
    /// threads (for compression statistics and health reports over all chunks).
    pub fn read_heads(&self) {
        heads::read_all(
            &self.inner.source,
            &self.inner.chunks,
            &self.inner.heads,
            self.inner.options.threads,
        );
    }

    /// What the record header of chunk `chunk` says, read with those of the chunks that
    /// follow it closely when it is not known yet. An error when the chunk record is not what
    /// its chunk info says, or the file changed.
    pub fn head(&self, chunk: u32) -> Result<ChunkHead, BagError> {
        match self.head_of(chunk) {
            Ok(Ok(h)) => Ok(h),
            Ok(Err(e)) => Err(self.error(e.into())),
            Err(changed) => Err(self.error(BagErrorKind::ChangedOnDisk { changed, unread: 0 })),
        }
    }

    /// [`Bag::head`] with the error as the loaders report it.
    pub(in crate::bag) fn head_of(
        &self,
        chunk: u32,
    ) -> Result<Result<ChunkHead, FormatError>, Changed> {
        let i = chunk as usize;
        let pos = self.inner.chunks.get(i).map_or(0, |c| c.pos);
        if self.inner.heads.state(i) == HeadState::Pending {
            heads::read_from(&self.inner.source, &self.inner.chunks, &self.inner.heads, i);
        }
        if self.inner.source.changed() {
            return Err(self.inner.source.short_read());
        }
        Ok(match self.inner.heads.state(i) {
            HeadState::Known(h) => Ok(h),
            HeadState::Pending => Err(bad_head(pos, "its chunk record header was not read".into())),
            HeadState::Bad(why) => Err(bad_head(pos, why)),
        })
    }

    /// The warnings about chunk record headers read after the bag was opened.
    pub(in crate::bag) fn head_warnings(&self) -> Vec<Warning> {
        self.inner
            .heads
            .all_bad()
            .into_iter()
            .map(|(i, why)| {
                Warning::at(
                    self.inner.chunks.get(i as usize).map_or(0, |c| c.pos),
                    format!("{why}: the messages its chunk info lists cannot be read"),
                )
            })
            .collect()
    }

    /// Reads and decompresses a chunk, holding it against the decode budget (the permit in
    /// the result) and bypassing the cache. A chunk whose header is bad loads as nothing,
    /// with the error.
    pub(crate) fn load_chunk_uncached(&self, chunk: &Chunk) -> Result<LoadedChunk, Changed> {
        match self.head_of(chunk.index)? {
            Ok(head) => load_chunk(
                &self.inner.source,
                chunk,
                &head,
                self.inner.options.max_chunk_size,
                &self.inner.budget,
            ),
            Err(e) => Ok(LoadedChunk::failed(e)),
        }
    }

    /// Like [`Bag::load_chunk_uncached`], never decoding past the declared size (see
    /// [`load_chunk_within`]).
    pub(crate) fn load_chunk_within(&self, chunk: &Chunk) -> Within {
        match self.head_of(chunk.index) {
            Ok(Ok(head)) => load_chunk_within(
                &self.inner.source,
                chunk,
                &head,
                self.inner.options.max_chunk_size,
                &self.inner.budget,
            ),
            Ok(Err(e)) => Within::Done(Ok(LoadedChunk::failed(e))),
            Err(c) => Within::Done(Err(c)),
        }
    }
}
