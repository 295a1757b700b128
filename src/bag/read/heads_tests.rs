//! Tests of the chunk record headers read by batches: slots, batches, checks.

use super::*;
use crate::bag::chunk::{ChunkLayout, ChunkState};
use crate::time::RosTime;

fn chunk(pos: u64) -> Chunk {
    Chunk {
        index: 0,
        pos,
        layout: ChunkLayout::V2,
        state: ChunkState::Complete,
        start: RosTime::MIN,
        end: RosTime::MIN,
        counts: crate::bag::counts::Counts::default(),
    }
}

#[test]
fn nearby_chunks_in_file_order_share_a_batch() {
    let near = NEAR - 1;
    let chunks: Vec<_> = [100, 100 + near, 100 + 2 * near, 1 << 30, 1000, 1000 + NEAR]
        .into_iter()
        .map(chunk)
        .collect();
    let g = GUESS as u64;
    let got: Vec<(usize, usize, u64)> = batches(&chunks, 0, chunks.len())
        .into_iter()
        .map(|(a, b, span)| (a, b, span as u64))
        .collect();
    assert_eq!(
        got,
        vec![(0, 3, 2 * near + g), (3, 4, g), (4, 5, g), (5, 6, g)]
    );
    // From the middle, up to a limit.
    assert_eq!(batches(&chunks, 1, 2), vec![(1, 2, GUESS)]);
    // A batch never spans more than BATCH_BYTES.
    let many: Vec<_> = (0..1000u64).map(|i| chunk(i * (NEAR - 1))).collect();
    for (a, b, span) in batches(&many, 0, many.len()) {
        assert!(span as u64 <= BATCH_BYTES);
        assert!(b > a);
    }
    assert!(batches(&[], 0, 0).is_empty());
    assert!(batches(&many, 5000, 6000).is_empty());
}

#[test]
fn a_slot_is_known_once_set_returns_whichever_thread_set_it() {
    let h = Heads::pending_for(20_000);
    let head = |i: usize| ChunkHead {
        data_offset: 100 + i as u64,
        compressed_size: 5,
        uncompressed_size: 7,
        compression: Compression::None,
        index_data_pos: Some(105 + i as u64),
    };
    std::thread::scope(|s| {
        for _ in 0..3 {
            s.spawn(|| {
                for i in 0..20_000 {
                    h.set(i, head(i));
                    assert_eq!(h.get(i), Some(head(i)), "slot {i}");
                }
            });
        }
    });
    assert_eq!(h.pending(), 0);
}

#[test]
fn slots_are_set_once_and_read_back() {
    let h = Heads::pending_for(3);
    assert_eq!(h.pending(), 3);
    assert_eq!(h.state(0), HeadState::Pending);
    let head = ChunkHead {
        data_offset: 4000,
        compressed_size: 1 << 33,
        uncompressed_size: 77,
        compression: Compression::Lz4,
        index_data_pos: Some(4000 + (1 << 33)),
    };
    h.set(0, head);
    h.set(
        0,
        ChunkHead {
            data_offset: 5,
            ..head
        },
    );
    assert_eq!(h.get(0), Some(head));
    let odd = ChunkHead {
        index_data_pos: Some(9),
        ..head
    };
    let k = Heads::known(
        [
            odd,
            ChunkHead {
                index_data_pos: None,
                ..head
            },
        ]
        .into_iter(),
    );
    assert_eq!(
        (k.get(0), k.get(1).unwrap().index_data_pos),
        (Some(odd), None)
    );
    h.set_bad(2, "not a chunk".into());
    h.set_bad(1, "first".into());
    h.set(1, head);
    assert_eq!(h.pending(), 0);
    assert_eq!(h.state(2), HeadState::Bad("not a chunk".into()));
    assert_eq!(h.get(1), None);
    assert_eq!(h.first_bad(), Some((1, "first".into())));
    assert!(matches!(h.state(3), HeadState::Bad(_)));
    let k = Heads::known([head].into_iter());
    assert_eq!((k.pending(), k.get(0)), (0, Some(head)));
}
