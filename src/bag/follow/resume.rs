//! Following a recording from where a recovery scan of it ended ([`Follower::resume`]): the
//! scan's connections, chunks, record headers and losses are taken as read, and only the last
//! chunk is read again (the recorder may still be writing it). Without this, following a
//! 100 GB `.bag.active` right after its scan would read the whole file a second time.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use crate::format::Version;

use super::super::chunk::{Chunk, ChunkLayout, ChunkState, IndexEntry};
use super::super::connection::{ConnId, Connection};
use super::super::handle::Bag;
use super::super::read::heads::ChunkHead;
use super::super::recovery::Loss;
use super::{FollowError, Follower};

impl Follower {
    /// Opens `path` for following, starting where `bag` (the same file, as a finished
    /// recovery scan read it) leaves off: its connections, every chunk but the last (with its
    /// counts and record header) and its losses before that chunk are kept; reading starts at
    /// the last chunk, which may still be open.
    ///
    /// Starts from the beginning, as [`Follower::open`], when `bag` cannot be resumed: not a
    /// 2.0 bag, not read by a finished scan (an indexed bag's chunk headers may be unread), no
    /// chunks, or chunks that are not 2.0 chunk records of this file.
    pub fn resume(path: impl AsRef<Path>, bag: &Bag) -> Result<Follower, FollowError> {
        Follower::resume_from(Follower::open(path)?, bag)
    }

    /// [`Follower::resume`] for a follower just opened (with its options set).
    pub fn resume_from(mut follower: Follower, bag: &Bag) -> Result<Follower, FollowError> {
        let Some(seed) = Seed::of(bag) else {
            return Ok(follower);
        };
        let len = follower.stat()?.0;
        if seed.pos > len || !follower.read_bag_header(len)? || seed.pos < follower.base {
            // The file is not (any more) what was scanned: read it from the start.
            let keep = follower.keep_entries;
            let fresh = Follower::open(&follower.path)?;
            return Ok(if keep { fresh.keep_entries() } else { fresh });
        }
        follower.base = seed.pos;
        follower.shared = seed.chunks.len();
        follower.closed.add(&seed.chunks, seed.connections.len());
        follower.chunks = seed.chunks;
        follower.heads = seed.heads;
        follower.conn_map = follower_map(&seed.connections);
        follower.connections = seed.connections;
        follower.losses = seed.losses;
        if follower.keep_entries {
            follower.kept_entries = seed.entries;
        } else {
            follower.kept_entries = vec![None; follower.shared];
        }
        follower.last_time = follower.chunks.iter().map(|c| c.end).max();
        Ok(follower)
    }
}

/// What a follower takes over from a scanned bag.
struct Seed {
    /// Where reading resumes: the last chunk's record.
    pos: u64,
    chunks: Vec<Chunk>,
    heads: Vec<ChunkHead>,
    connections: Vec<Connection>,
    losses: Vec<Loss>,
    /// The kept chunks' message lists the scan found (`None` where not in memory).
    entries: Vec<Option<Arc<[IndexEntry]>>>,
}

impl Seed {
    fn of(bag: &Bag) -> Option<Seed> {
        let recovery = bag.recovery()?;
        if bag.version() != Version::V2_0 || recovery.scanned.is_some() {
            return None;
        }
        // Reading resumes at the first chunk the scan did not find complete: the one the
        // recorder is writing. (A scan may take bytes of a compressed chunk still being
        // written for records after it: what follows that chunk is read again.)
        let all = bag.chunks();
        let first_open = all
            .iter()
            .position(|c| c.state != ChunkState::Complete)
            .unwrap_or(all.len().saturating_sub(1));
        let last = all.get(first_open)?;
        let kept = all.get(..first_open)?;
        if bag.chunks().iter().any(|c| c.layout != ChunkLayout::V2) {
            return None;
        }
        let heads = kept
            .iter()
            .map(|c| bag.chunk_head(c.index))
            .collect::<Option<Vec<ChunkHead>>>()?;
        // The chunks must be records of this file, in file order, before the last one.
        let ordered = kept
            .iter()
            .zip(kept.iter().skip(1).chain([last]))
            .all(|(a, b)| a.pos < b.pos);
        if !ordered || kept.iter().zip(&heads).any(|(c, h)| h.data_offset <= c.pos) {
            return None;
        }
        let mut connections = bag.connections().to_vec();
        for c in &mut connections {
            c.message_count = 0;
        }
        let mut chunks = Vec::with_capacity(kept.len());
        let entries = kept
            .iter()
            .enumerate()
            .map(|(i, c)| {
                (c.index as usize == i)
                    .then(|| bag.loaded_entries(c.index))
                    .flatten()
            })
            .collect();
        for (i, c) in kept.iter().enumerate() {
            for &(conn, n) in &c.counts {
                if let Some(conn) = connections.get_mut(conn as usize) {
                    conn.message_count += u64::from(n);
                }
            }
            let mut c = c.clone();
            c.index = u32::try_from(i).unwrap_or(u32::MAX);
            chunks.push(c);
        }
        let losses = recovery
            .losses
            .iter()
            .filter(|l| l.offset < last.pos)
            .take(super::MAX_LOSSES)
            .cloned()
            .collect();
        Some(Seed {
            pos: last.pos,
            chunks,
            heads,
            connections,
            losses,
            entries,
        })
    }
}

/// The follower's map from connection ids in the file to positions in its list.
fn follower_map(connections: &[Connection]) -> HashMap<u32, ConnId> {
    connections
        .iter()
        .enumerate()
        .filter_map(|(i, c)| Some((c.file_id, ConnId::try_from(i).ok()?)))
        .collect()
}
