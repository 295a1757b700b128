//! Tests of opening an indexed 2.0 bag from its index section alone.

use super::*;
use crate::format::ChunkInfo;
use crate::format::header::write_field;
use crate::time::RosTime;

fn conn(out: &mut Vec<u8>, id: u32) {
    let mut raw = Vec::new();
    for (name, value) in [
        ("topic", "/t"),
        ("type", "std_msgs/UInt64"),
        ("md5sum", "1b2a79973e8bf53d7b53acb71299cb57"),
        ("message_definition", "uint64 data\n"),
    ] {
        write_field(&mut raw, name, value.as_bytes());
    }
    crate::format::connection::encode_record(out, id, "/t", &raw);
}

fn info(out: &mut Vec<u8>, i: u64) {
    ChunkInfo {
        offset: 0,
        chunk_pos: 4117 + i * 300,
        start_time: RosTime::new(u32::try_from(i).unwrap(), 5),
        end_time: RosTime::new(u32::try_from(i).unwrap(), 9),
        counts: (0..(i % 3) as u32).map(|c| (c, 7 + c)).collect(),
        end: 0,
    }
    .encode(out);
}

/// An index section of `all` chunk infos: two connection records first, a third after
/// the first `first` infos.
fn section(first: u64, all: u64) -> Vec<u8> {
    let mut out = Vec::new();
    conn(&mut out, 0);
    conn(&mut out, 1);
    for i in 0..first {
        info(&mut out, i);
    }
    conn(&mut out, 2);
    for i in first..all {
        info(&mut out, i);
    }
    out
}

/// Chunks (with their count ranges), counts table, connections, warnings.
type Read = (Vec<(Chunk, (usize, usize))>, Vec<(u32, u32)>, usize, usize);

/// What the section read says, comparable.
fn read(bytes: &[u8], threads: usize) -> Result<Read, Fallback> {
    let source = Source::owned(bytes.to_vec());
    read_section(&source, 0, 0, threads).map(|i| {
        let chunks = i.chunks.into_iter().map(|c| {
            let span = c.counts.span();
            (c, span)
        });
        (chunks.collect(), i.table, i.conns.len(), i.warnings.len())
    })
}

#[test]
fn runs_on_several_threads_read_what_one_thread_reads() {
    // Connection records first and between runs; windows cut records; 100 000 infos.
    let ok = section(60_000, 100_000);
    assert!(ok.len() > 2 * WINDOW);
    let one = read(&ok, 1).unwrap();
    assert_eq!(one.0.len(), 100_000);
    assert_eq!(one.2, 3);
    for threads in [2, 3, 8] {
        assert_eq!(read(&ok, threads).unwrap(), one, "{threads} threads");
    }
    // Damage in the middle of a run (a count the data does not hold; a cut header) is
    // reported as one thread reports it.
    let at = ok.len() / 2;
    let mut bad_count = ok.clone();
    let start = (0..at)
        .rev()
        .find(|&p| bad_count[p..].starts_with(b"count="))
        .unwrap();
    bad_count[start + 6] ^= 0x40;
    let mut bad_len = ok.clone();
    bad_len.splice(at..at + 3, []);
    for bad in [bad_count, bad_len] {
        let one = read(&bad, 1);
        assert!(one.is_err() || one.as_ref().unwrap().0.len() < 100_000);
        for threads in [2, 4] {
            assert_eq!(read(&bad, threads), one, "{threads} threads");
        }
    }
}

#[test]
fn a_short_section_read_in_small_windows_reads_as_one_record_at_a_time() {
    // Too short for two threads' runs: small windows, cut records, runs straight into the
    // index's lists; a connection record between runs; damage near the end.
    let ok = section(3000, 5000);
    assert!(ok.len() > 2 * SMALL_WINDOW && ok.len() < 2 * PER_THREAD * MIN_CHUNK_INFO);
    let one = read(&ok, 1).unwrap();
    assert_eq!(one.0.len(), 5000);
    assert_eq!(read(&ok, 2).unwrap(), one);
    let mut bad = ok.clone();
    let at = ok.len() - 3000;
    bad.splice(at..at + 3, []);
    assert_eq!(read(&bad, 2), read(&bad, 1));
}

#[test]
fn runs_read_what_the_slow_parser_reads_record_by_record() {
    // The reference: every chunk info of the section read alone by the full parser.
    let ok = section(20_000, 50_000);
    let mut expected = Vec::new();
    let mut at = 0;
    while let Some(end) = record_end(&ok, at) {
        if let Ok(info) = ChunkInfo::read(&ok, at, 0) {
            expected.push((info.chunk_pos, info.start_time, info.end_time, info.counts));
        }
        at = end;
    }
    assert_eq!(expected.len(), 50_000);
    for threads in [1, 2, 3] {
        let (chunks, table, _, _) = read(&ok, threads).unwrap();
        let got: Vec<_> = chunks
            .iter()
            .map(|(c, (start, len))| {
                let counts = table[*start..start + len].to_vec();
                (c.pos, c.start, c.end, counts)
            })
            .collect();
        assert_eq!(got, expected, "{threads} threads");
        let numbered = chunks.iter().enumerate();
        assert!(numbered.clone().all(|(i, (c, _))| c.index as usize == i));
        // The table holds the counts of every chunk, in order, and nothing else.
        let spans: Vec<_> = chunks.iter().map(|(_, s)| *s).collect();
        assert!(spans.windows(2).all(|w| w[0].0 + w[0].1 == w[1].0));
        assert_eq!(
            table.len(),
            expected.iter().map(|e| e.3.len()).sum::<usize>()
        );
    }
}

#[test]
fn a_run_of_chunk_infos_is_taken_whole_on_each_thread_count() {
    // The fast path itself (the one-at-a-time path reads the same, only slower).
    let mut run = Vec::new();
    for i in 0..20_000 {
        info(&mut run, i);
    }
    for threads in [1, 2, 3] {
        let mut index = Index::new(0);
        let nothing = Source::owned(Vec::new());
        let mut window = Window::new(&nothing, 16);
        let took = index.take_run(&run, 1000, threads, window.split(0, 0).1);
        assert!(matches!(took, Run::Took(end) if end == 1000 + run.len() as u64));
        assert_eq!(index.chunks.len(), 20_000, "{threads} threads");
        // Cut in the middle of a record: the run stops at that record, keeping those before.
        let mut index = Index::new(0);
        let mut cut = run.clone();
        let at = (0..run.len() / 2)
            .rev()
            .find(|&p| cut[p..].starts_with(b"op="))
            .unwrap();
        cut[at + 3] = 0x05;
        match index.take_run(&cut, 0, threads, window.split(0, 0).1) {
            Run::StoppedAt(p) => {
                assert!(p < at as u64 && p + 200 > at as u64, "{threads} threads");
                assert_eq!(
                    index.chunks.len(),
                    index.chunks.last().unwrap().index as usize + 1
                );
                assert!(index.chunks.len() < 10_000);
                let (start, len) = index.chunks.last().unwrap().counts.span();
                assert_eq!(index.table.len(), start + len);
            }
            _ => panic!("a damaged run is taken whole"),
        }
    }
}

#[test]
fn shares_cover_every_record_once_the_first_half_the_others() {
    assert_eq!(shares(10, 1), vec![0, 10]);
    assert_eq!(shares(30_000, 2), vec![0, 10_000, 30_000]);
    assert_eq!(shares(70_000, 4), vec![0, 10_000, 30_000, 50_000, 70_000]);
    for n in [0, 1, 5, 4096, 12_345] {
        for threads in 1..6 {
            let cuts = shares(n, threads);
            assert_eq!((cuts[0], *cuts.last().unwrap()), (0, n));
            assert!(cuts.windows(2).all(|w| w[0] <= w[1]));
            assert_eq!(cuts.len(), threads + 1);
        }
    }
}

#[test]
fn the_records_of_the_window_read_ahead_are_found_by_the_thread_that_read_it() {
    let mut run = Vec::new();
    for i in 0..60_000 {
        info(&mut run, i);
    }
    assert!(run.len() > WINDOW + AHEAD);
    let source = Source::owned(run.clone());
    let mut window = Window::new(&source, WINDOW);
    let mut index = Index::new(0);
    let (buf, ahead) = window.split(0, AHEAD);
    let Run::Took(next) = index.take_run(buf, 0, 2, ahead) else {
        panic!("a clean run is taken whole")
    };
    let (buf, ahead) = window.split(next, AHEAD);
    assert_eq!(index.ahead.window, Some((next, buf.len())));
    // The list found on the way is the one the next run takes: cut short, the run is too.
    let (cut, pairs) = index.ahead.list[MIN_RUN];
    index.ahead.list.truncate(MIN_RUN);
    (index.ahead.end, index.ahead.pairs) = (cut, pairs);
    let before = index.chunks.len();
    let Run::Took(end) = index.take_run(buf, next, 2, ahead) else {
        panic!("a clean run is taken whole")
    };
    assert_eq!(
        (end, index.chunks.len() - before),
        (next + cut as u64, MIN_RUN)
    );
}
