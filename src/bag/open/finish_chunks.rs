//! The last step of opening an indexed 2.0 bag: one pass over its chunk list that points each
//! chunk's counts into the shared counts table, checks where the chunks are, and sums the
//! totals and each connection's messages. At a million chunks each pass over the list costs
//! ~5 ms on its own (48 MB read from memory); four of them in turn were a fifth of the time
//! to the explorer's first frame. Split across threads, one pass does all four.

use std::sync::Arc;

use crate::bag::chunk::Chunk;
use crate::bag::connection::{ConnId, Connection};
use crate::bag::counts::TableHandle;
use crate::bag::totals::Tally;

/// Why the index cannot be used; the caller scans the file instead.
pub(crate) type Fallback = String;

/// The fewest chunks worth another thread (starting one costs ~0.1 ms).
const PER_THREAD: usize = 64 << 10;

/// What a part of the pass found besides its tally.
#[derive(Default)]
struct Part {
    tally: Tally,
    /// True when the part's chunks are in file order, each after the one before.
    in_order: bool,
    /// The positions of its first and last chunks.
    ends: Option<(u64, u64)>,
    /// True when one of its chunks is at or beyond the end of the file.
    beyond: bool,
}

/// Points every chunk's counts into `table`, checks that the chunks are inside the file of
/// `len` bytes and that no two are at the same place, and tallies them for `connections`,
/// on up to `threads` threads. The errors are those of the checks made one at a time: two
/// chunk infos pointing to the same chunk first, then the first chunk beyond the end.
pub(crate) fn finish_chunks(
    chunks: &mut [Chunk],
    table: &Arc<Vec<(ConnId, u32)>>,
    len: u64,
    connections: &[Connection],
    threads: usize,
) -> Result<Tally, Fallback> {
    let threads = threads.min(chunks.len() / PER_THREAD).max(1);
    let per = chunks.len().div_ceil(threads).max(1);
    let pass = |slice: &mut [Chunk]| one_part(slice, table, len, connections);
    let parts: Option<Vec<Part>> = std::thread::scope(|s| {
        let mut slices = chunks.chunks_mut(per);
        let first = slices.next();
        let others: Vec<_> = slices.map(|c| s.spawn(move || pass(c))).collect();
        let mut parts = vec![first.map(pass).unwrap_or_default()];
        for h in others {
            parts.push(h.join().ok()?);
        }
        Some(parts)
    });
    let parts = parts.ok_or("a thread checking the chunk list failed")?;
    let in_order = parts.iter().all(|p| p.in_order)
        && parts
            .iter()
            .filter_map(|p| p.ends)
            .collect::<Vec<_>>()
            .windows(2)
            .all(|w| matches!(w, [a, b] if a.1 < b.0));
    if !in_order {
        same_place(chunks)?;
    }
    if parts.iter().any(|p| p.beyond) {
        let at = chunks.iter().find(|c| c.pos >= len).map_or(len, |c| c.pos);
        return Err(format!(
            "a chunk info points to byte {at} beyond the end of the file"
        ));
    }
    let mut parts = parts.into_iter();
    let mut tally = parts.next().map(|p| p.tally).unwrap_or_default();
    for p in parts {
        tally.merge(&p.tally);
    }
    Ok(tally)
}

/// The pass over one part of the list.
fn one_part(
    chunks: &mut [Chunk],
    table: &Arc<Vec<(ConnId, u32)>>,
    len: u64,
    connections: &[Connection],
) -> Part {
    let mut part = Part {
        tally: Tally::new(connections),
        in_order: true,
        ends: chunks
            .first()
            .zip(chunks.last())
            .map(|(a, b)| (a.pos, b.pos)),
        beyond: false,
    };
    // This thread's own handle on the table (see `counts.rs`).
    let handle = TableHandle::new(table);
    let mut last = None;
    for c in chunks {
        c.counts.attach(&handle);
        part.in_order &= last.is_none_or(|l| l < c.pos);
        part.beyond |= c.pos >= len;
        last = Some(c.pos);
        part.tally.add(c);
    }
    part
}

/// Fails when two of `chunks` (not in file order) are at the same place.
fn same_place(chunks: &[Chunk]) -> Result<(), Fallback> {
    let mut positions: Vec<u64> = chunks.iter().map(|c| c.pos).collect();
    positions.sort_unstable();
    match positions.windows(2).find(|w| w.first() == w.get(1)) {
        Some(w) => Err(format!(
            "two chunk info records point to the same chunk at byte {}",
            w.first().copied().unwrap_or_default()
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bag::chunk::{ChunkLayout, ChunkState};
    use crate::bag::counts::Counts;
    use crate::time::RosTime;

    #[allow(clippy::cast_possible_truncation)]
    fn chunks(positions: &[u64]) -> (Vec<Chunk>, Arc<Vec<(ConnId, u32)>>) {
        let table: Vec<(ConnId, u32)> = (0..positions.len())
            .map(|i| ((i % 3) as ConnId, (i % 5) as u32))
            .collect();
        let chunks = positions
            .iter()
            .enumerate()
            .map(|(i, &pos)| Chunk {
                index: i as u32,
                pos,
                layout: ChunkLayout::V2,
                state: ChunkState::Complete,
                start: RosTime::new(1000 - (i % 7) as u32, 0),
                end: RosTime::new(2000 + (i % 11) as u32, 0),
                counts: Counts::range(i, 1),
            })
            .collect();
        (chunks, Arc::new(table))
    }

    fn connections() -> Vec<Connection> {
        (0..3)
            .map(|id| Connection {
                id,
                file_id: id,
                topic: String::new(),
                datatype: String::new(),
                md5sum: String::new(),
                message_definition: String::new(),
                callerid: None,
                latching: None,
                header: crate::format::ConnectionHeader::default(),
                message_count: 0,
                message_encoding: "ros1".into(),
                schema_encoding: "ros1msg".into(),
            })
            .collect()
    }

    #[test]
    fn one_pass_on_threads_sums_what_the_passes_one_at_a_time_sum() {
        let n = 3 * PER_THREAD + 17;
        let positions: Vec<u64> = (0..n as u64).map(|i| 4117 + i * 100).collect();
        let (mut reference, table) = chunks(&positions);
        let handle = TableHandle::new(&table);
        for c in &mut reference {
            c.counts.attach(&handle);
        }
        let mut conns = connections();
        for c in &reference {
            for &(conn, n) in &c.counts {
                if let Some(k) = conns.get_mut(conn as usize) {
                    k.message_count += u64::from(n);
                }
            }
        }
        let totals = crate::bag::totals::Totals::of(&reference, 3);
        for threads in [1, 2, 4] {
            let (mut list, table) = chunks(&positions);
            let tally = finish_chunks(&mut list, &table, u64::MAX, &connections(), threads);
            let tally = tally.unwrap();
            assert_eq!(tally.totals, totals, "{threads} threads");
            let mut got = connections();
            tally.set_message_counts(&mut got);
            let counts = |c: &[Connection]| c.iter().map(|c| c.message_count).collect::<Vec<_>>();
            assert_eq!(counts(&got), counts(&conns), "{threads} threads");
            assert!(
                list.iter()
                    .zip(&reference)
                    .all(|(a, b)| a.counts == b.counts)
            );
        }
    }

    #[test]
    fn chunks_in_one_place_or_beyond_the_end_fail_as_before() {
        let n = 2 * PER_THREAD + 5;
        let mut positions: Vec<u64> = (0..n as u64).map(|i| 4117 + i * 100).collect();
        let len = positions[n - 1] + 100;
        // Out of order across the parts but all different: fine.
        positions.swap(3, n - 3);
        let (mut list, table) = chunks(&positions);
        assert!(finish_chunks(&mut list, &table, len, &connections(), 2).is_ok());
        // Each part in order, the second starting where the first ends.
        let mut seam: Vec<u64> = (0..n as u64).map(|i| 4117 + i * 100).collect();
        let per = n.div_ceil(2);
        seam[per] = seam[per - 1];
        let (mut list, table) = chunks(&seam);
        let err = finish_chunks(&mut list, &table, len, &connections(), 2).unwrap_err();
        assert!(err.contains("same chunk"), "{err}");
        // The same chunk twice, in different parts.
        positions[n - 2] = positions[1];
        let (mut list, table) = chunks(&positions);
        let err = finish_chunks(&mut list, &table, len, &connections(), 2).unwrap_err();
        assert!(err.contains("same chunk at byte 4217"), "{err}");
        // Beyond the end, in the second part: the first such chunk is named.
        positions[n - 2] = len + 7;
        positions[n - 1] = len;
        let (mut list, table) = chunks(&positions);
        let err = finish_chunks(&mut list, &table, len, &connections(), 2).unwrap_err();
        assert!(err.contains(&format!("byte {} beyond", len + 7)), "{err}");
    }
}
