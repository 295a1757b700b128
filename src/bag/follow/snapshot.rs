//! A followed recording as a [`Bag`](super::super::handle::Bag) value: what the explorer and
//! `info --follow` show. The closed chunks' counts, totals and message lists are shared from
//! snapshot to snapshot; only the chunks after them are passed over again.

use std::sync::Arc;

use crate::format::Version;

use super::super::chunk::{Chunk, IndexEntry};
use super::super::read::entries::finish;
use super::Follower;

impl Follower {
    /// Chunks that no later poll changes: every chunk but the last (a new chunk record
    /// closes the one before). A snapshot's chunks before this many are the same in every
    /// later snapshot (what an index carried from snapshot to snapshot relies on).
    pub fn closed_chunks(&self) -> usize {
        self.shared
    }

    /// The message lists a snapshot carries: shared for the closed chunks, copied (and
    /// sorted) for the open ones; `None` where they are not kept (read from the file when
    /// first asked for).
    fn snapshot_entries(&self) -> Vec<Option<Arc<[IndexEntry]>>> {
        let mut all = Vec::with_capacity(self.chunks.len());
        all.extend(self.kept_entries.iter().cloned());
        let keep = self.keep_entries;
        all.extend(
            self.open_entries
                .iter()
                .map(|e| keep.then(|| Arc::from(finish(e.clone())))),
        );
        all
    }

    /// What the recording holds so far as a [`Bag`](super::super::handle::Bag) value (connections
    /// with their counts, chunks with their times and record headers — the open chunk's
    /// extent as far as its whole records go, so that its messages are read like any
    /// other). Read through the follower's own open file. Copies the connection and chunk
    /// lists: meant for an occasional refresh, not per message. Only the chunks after the
    /// closed ones are passed over for the totals.
    pub fn snapshot(&self) -> super::super::handle::Bag {
        let path = super::super::error::path_arc(&self.path);
        let source = self
            .file
            .try_clone()
            .and_then(super::super::source::Source::of_file)
            .unwrap_or_else(|_| super::super::source::Source::owned(Vec::new()));
        let options = super::super::handle::OpenOptions::default();
        let budget = super::super::budget::Budget::new(options.decode_budget);
        let open = self.chunks.get(self.shared..).unwrap_or_default();
        let mut totals = self.closed.totals.clone();
        totals.widen_to(self.connections.len());
        totals.add(open);
        let complete = self.closed.complete + Chunk::complete_count(open);
        let opened = super::super::opened::Opened {
            connections: self.connections.clone(),
            conn_map: self.conn_map.clone(),
            chunks: self.chunks.clone(),
            heads: super::super::read::heads::Heads::known(self.heads.iter().copied()),
            entries: self.snapshot_entries(),
            warnings: Vec::new(),
            recovery: Some(super::super::recovery::Recovery {
                reason: "the recording is still being written".into(),
                complete_chunks: complete as u64,
                partial_chunks: self.chunks.len().saturating_sub(complete) as u64,
                // The damage found so far: a snapshot must not look healthier than the file.
                losses: self.losses.clone(),
                scanned: None,
                // What the writer has not finished is the follower's status, not the bag's.
                unfinished: None,
            }),
            totals: None,
            mcap: self.mcap.as_ref().map(|m| Arc::new(m.info.clone())),
        };
        let version = if self.mcap.is_some() {
            Version::Mcap
        } else {
            Version::V2_0
        };
        super::super::handle::Bag::assemble_with(
            path,
            Arc::new(source),
            version,
            opened,
            totals,
            options,
            budget,
        )
    }
}
