//! What the file does under us never kills bagscope: a bag that shrinks while it is read ends
//! with a "changed on disk" error (not SIGBUS), a FIFO, directory or device is refused at once,
//! and decompression bombs stay within the decode budget.

use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use bagscope::bag::writer::{BagWriter, WriterOptions};
use bagscope::bag::{Bag, BagError, BagErrorKind, OpenOptions, Query};
use bagscope::format::Compression;
use bagscope::time::RosTime;

use crate::common;
use crate::common::bagscope;
use crate::common::synth::python_style_header;

const STRING_MD5: &str = "992ce8a1687cec8c8bd883ec73ca41d1";

/// A bag of `chunks` chunks of `per_chunk` std_msgs/String messages of `len` bytes.
fn string_bag(path: &Path, compression: Compression, chunks: usize, per_chunk: usize, len: usize) {
    let options = WriterOptions {
        compression,
        chunk_size: u32::try_from(per_chunk * (len + 40)).unwrap(),
    };
    let mut w = BagWriter::create(path, options).unwrap();
    let header = python_style_header("/text", "std_msgs/String", STRING_MD5, "string data\n");
    let conn = w.add_connection("/text", &header).unwrap();
    let mut t = 1_000_000_000u64;
    for i in 0..chunks * per_chunk {
        let text: Vec<u8> = (0..len).map(|j| b'a' + ((i + j) % 26) as u8).collect();
        let mut payload = u32::try_from(len).unwrap().to_le_bytes().to_vec();
        payload.extend(text);
        w.write(conn, RosTime::from_nanos(t), &payload).unwrap();
        t += 1_000_000;
    }
    w.finish().unwrap();
}

/// Waits for `child` at most `limit`; kills it and fails if it takes longer.
fn wait_bounded(child: &mut Child, limit: Duration, what: &str) -> std::process::ExitStatus {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {limit:?} (hung)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Copies `original` to `copy`, runs `bagscope CMD COPY`, cuts the copy to `len` bytes after
/// `delay_ms`, and waits (bounded) for it to end: it must end by itself, not by a signal, with
/// an exit code of 0 to 2. Returns the exit code and stderr.
fn cut_under(cmd: &str, original: &Path, copy: &Path, delay_ms: u64, len: u64) -> (i32, String) {
    std::fs::copy(original, copy).unwrap();
    let mut child = bagscope()
        .arg(cmd)
        .arg(copy)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(delay_ms));
    let f = std::fs::OpenOptions::new().write(true).open(copy).unwrap();
    f.set_len(len).unwrap();
    let status = wait_bounded(&mut child, Duration::from_secs(60), cmd);
    let err = common::read_stderr(&mut child);
    assert_eq!(
        status.signal(),
        None,
        "{cmd} {}: killed by a signal: {status:?}\n{err}",
        original.display()
    );
    let code = status.code().unwrap();
    assert!((0..=2).contains(&code), "{cmd}: {status:?}\n{err}");
    (code, err)
}

/// Reads 60 messages of `it`, cuts `path` (of `size` bytes) to its first 10 % — what is read
/// from then on is not there — and reads the rest: exactly one error, a `ChangedOnDisk` that
/// ends the iteration. Returns the rest and that error.
fn cut_while_iterating<M>(
    mut it: impl Iterator<Item = Result<M, BagError>>,
    path: &Path,
    size: u64,
    label: &str,
) -> (Vec<Result<M, BagError>>, BagError) {
    for _ in 0..60 {
        it.next().unwrap().unwrap();
    }
    let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.set_len(size / 10).unwrap();
    let mut rest: Vec<_> = it.collect();
    let errors = rest.iter().filter(|r| r.is_err()).count();
    assert_eq!(errors, 1, "{label}: {errors} errors");
    assert!(
        rest.last().unwrap().is_err(),
        "the error ends the iteration"
    );
    let e = rest.pop().unwrap().err().unwrap();
    assert!(
        matches!(*e.kind, BagErrorKind::ChangedOnDisk { .. }),
        "{label}: {e}"
    );
    (rest, e)
}

#[test]
fn a_bag_truncated_while_iterating_ends_with_changed_on_disk() {
    for compression in [Compression::None, Compression::Lz4] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shrinks.bag");
        string_bag(&path, compression, 40, 50, 2000);
        for parallel in [false, true] {
            let options = OpenOptions {
                threads: 2,
                ..OpenOptions::default()
            };
            let copy = dir.path().join("copy.bag");
            std::fs::copy(&path, &copy).unwrap();
            let bag = Bag::open_with(&copy, options).unwrap();
            assert!(bag.is_indexed());
            let total = bag.message_count();
            // An entry of the last chunk, for random access after the cut.
            let late = bag.chunk_entries(39)[0];
            let it = bag.messages(&Query::all().parallel(parallel));
            let (rest, e) = cut_while_iterating(
                it,
                &copy,
                bag.size(),
                &format!("{compression} parallel={parallel}"),
            );
            let text = e.to_string();
            assert!(
                text.starts_with(&format!(
                    "{}: changed on disk while it was read",
                    copy.display()
                )),
                "{text}"
            );
            assert!(text.contains("is now"), "{text}");
            assert!((rest.len() as u64 + 1) < total - 60);
            // Random access says the same, and so does the bag.
            assert!(bag.changed_on_disk().is_some());
            let err = bag.read(&late).map(|_| ()).unwrap_err();
            assert!(
                matches!(*err.kind, BagErrorKind::ChangedOnDisk { .. }),
                "{err}"
            );
        }
    }
}

#[test]
fn echo_on_a_bag_truncated_under_it_exits_1_with_one_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shrinks.bag");
    string_bag(&path, Compression::Lz4, 200, 50, 2000);
    let mut child = bagscope()
        .args(["echo", "--format", "json"])
        .arg(&path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    // A slow consumer: echo is blocked on the pipe while the file shrinks.
    let mut first = vec![0u8; 64 << 10];
    out.read_exact(&mut first).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.set_len(5000).unwrap();
    let mut rest = Vec::new();
    out.read_to_end(&mut rest).unwrap();
    let status = wait_bounded(&mut child, Duration::from_secs(60), "echo");
    let err = common::read_stderr(&mut child);
    assert_eq!(
        status.signal(),
        None,
        "killed by a signal: {status:?}\n{err}"
    );
    assert_eq!(status.code(), Some(1), "{err}");
    let expected = format!(
        "bagscope: error: {}: changed on disk while it was read",
        path.display()
    );
    assert_eq!(err.matches(&expected).count(), 1, "{err}");
    // Then how many messages were not read: all those not printed.
    let printed = [first, rest]
        .concat()
        .iter()
        .filter(|&&b| b == b'\n')
        .count() as u64;
    let total = 200 * 50;
    let unread = err.lines().nth(1).unwrap_or_default();
    assert_eq!(
        unread,
        format!(
            "bagscope: error: {}: {} message(s) could not be read",
            path.display(),
            total - printed
        ),
        "{err}"
    );
    assert_eq!(err.lines().count(), 2, "two error lines: {err}");
}

#[test]
fn verify_and_info_on_a_bag_truncated_under_them_end_cleanly() {
    // Whatever the moment of the cut (before, while opening, while reading), the process ends
    // by itself with a clear line: exit 0 is only possible when it finished first.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("orig.bag");
    string_bag(&path, Compression::Lz4, 300, 50, 2000);
    for (cmd, delay_ms) in [
        ("verify", 30u64),
        ("verify", 150),
        ("info", 0),
        ("echo", 100),
    ] {
        let (_, err) = cut_under(cmd, &path, &dir.path().join("copy.bag"), delay_ms, 3000);
        assert!(!err.contains("panicked"), "{cmd}: {err}");
    }
}

fn refused(path: &Path, args: &[&str]) {
    let mut child = bagscope()
        .args(args)
        .arg(path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let what = format!("{args:?} {}", path.display());
    let status = wait_bounded(&mut child, Duration::from_secs(20), &what);
    let err = common::read_stderr(&mut child);
    assert_eq!(status.code(), Some(2), "{what}: {err}");
    assert!(
        err.contains(&format!("{}: not a regular file", path.display())),
        "{what}: {err}"
    );
}

#[test]
fn fifos_directories_and_devices_are_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.bag");
    let made = Command::new("mkfifo").arg(&fifo).status();
    let mut paths: Vec<PathBuf> = vec![dir.path().to_path_buf(), PathBuf::from("/dev/null")];
    match made {
        Ok(s) if s.success() => paths.push(fifo.clone()),
        _ => common::skip("mkfifo is not available: the FIFO case is not checked"),
    }
    for p in &paths {
        for args in [&["info"][..], &["info", "--json"], &["echo"], &["verify"]] {
            refused(p, args);
        }
        // The explorer: no terminal here, but the bag is opened (and refused) first.
        refused(p, &[]);
        // The library says the same.
        let e = Bag::open(p).unwrap_err();
        assert!(e.to_string().ends_with("not a regular file"), "{e}");
    }
}

// ---- Decompression bombs ----------------------------------------------------------------

fn field(out: &mut Vec<u8>, name: &str, value: &[u8]) {
    out.extend(
        u32::try_from(name.len() + 1 + value.len())
            .unwrap()
            .to_le_bytes(),
    );
    out.extend(name.as_bytes());
    out.push(b'=');
    out.extend(value);
}

fn record(fields: &[(&str, Vec<u8>)], data: &[u8]) -> Vec<u8> {
    let mut header = Vec::new();
    for (n, v) in fields {
        field(&mut header, n, v);
    }
    let mut out = u32::try_from(header.len()).unwrap().to_le_bytes().to_vec();
    out.extend(header);
    out.extend(u32::try_from(data.len()).unwrap().to_le_bytes());
    out.extend(data);
    out
}

fn time_bytes(secs: u32) -> Vec<u8> {
    let mut v = secs.to_le_bytes().to_vec();
    v.extend(0u32.to_le_bytes());
    v
}

fn connection_record() -> Vec<u8> {
    let mut data = Vec::new();
    field(&mut data, "topic", b"/zeros");
    field(&mut data, "type", b"std_msgs/String");
    field(&mut data, "md5sum", STRING_MD5.as_bytes());
    field(&mut data, "message_definition", b"string data\n");
    record(
        &[
            ("op", vec![7]),
            ("conn", 0u32.to_le_bytes().to_vec()),
            ("topic", b"/zeros".to_vec()),
        ],
        &data,
    )
}

/// One bz2 chunk holding a connection record and one std_msgs/String message whose `size`
/// bytes are zeros: (compressed data, uncompressed size, offset of the message record).
fn bomb_chunk(size: u32) -> (Vec<u8>, u32, u32) {
    let conn = connection_record();
    let msg_header = {
        let mut r = record(
            &[
                ("op", vec![2]),
                ("conn", 0u32.to_le_bytes().to_vec()),
                ("time", time_bytes(100)),
            ],
            &[],
        );
        r.truncate(r.len() - 4);
        r.extend((size + 4).to_le_bytes());
        r
    };
    let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    enc.write_all(&conn).unwrap();
    enc.write_all(&msg_header).unwrap();
    enc.write_all(&size.to_le_bytes()).unwrap();
    let zeros = vec![0u8; 1 << 20];
    let mut left = size as usize;
    while left > 0 {
        let n = left.min(zeros.len());
        enc.write_all(&zeros[..n]).unwrap();
        left -= n;
    }
    let packed = enc.finish().unwrap();
    let total = conn.len() + msg_header.len() + 4 + size as usize;
    (
        packed,
        u32::try_from(total).unwrap(),
        u32::try_from(conn.len()).unwrap(),
    )
}

/// A 2.0 bag of `chunks` copies of `bomb_chunk(size)`; with `indexed` false the recording was
/// never closed (index_pos 0, no index data): opening it walks every chunk.
fn bomb_bag(path: &Path, chunks: u32, size: u32, indexed: bool) -> u64 {
    let (packed, total, offset) = bomb_chunk(size);
    let mut body = Vec::new();
    let mut infos = Vec::new();
    let start = 13 + 4096;
    for _ in 0..chunks {
        let pos = (start + body.len()) as u64;
        body.extend(record(
            &[
                ("op", vec![5]),
                ("compression", b"bz2".to_vec()),
                ("size", total.to_le_bytes().to_vec()),
            ],
            &packed,
        ));
        if indexed {
            let mut entry = time_bytes(100);
            entry.extend(offset.to_le_bytes());
            body.extend(record(
                &[
                    ("op", vec![4]),
                    ("ver", 1u32.to_le_bytes().to_vec()),
                    ("conn", 0u32.to_le_bytes().to_vec()),
                    ("count", 1u32.to_le_bytes().to_vec()),
                ],
                &entry,
            ));
        }
        let mut counts = 0u32.to_le_bytes().to_vec();
        counts.extend(1u32.to_le_bytes());
        infos.push(record(
            &[
                ("op", vec![6]),
                ("ver", 1u32.to_le_bytes().to_vec()),
                ("chunk_pos", pos.to_le_bytes().to_vec()),
                ("start_time", time_bytes(100)),
                ("end_time", time_bytes(100)),
                ("count", 1u32.to_le_bytes().to_vec()),
            ],
            &counts,
        ));
    }
    let index_pos = (start + body.len()) as u64;
    let mut file = b"#ROSBAG V2.0\n".to_vec();
    let mut head = record(
        &[
            ("op", vec![3]),
            (
                "index_pos",
                if indexed { index_pos } else { 0 }.to_le_bytes().to_vec(),
            ),
            ("conn_count", u32::from(indexed).to_le_bytes().to_vec()),
            (
                "chunk_count",
                if indexed { chunks } else { 0 }.to_le_bytes().to_vec(),
            ),
        ],
        &[],
    );
    let pad = 4096 - head.len();
    head.truncate(head.len() - 4);
    head.extend(u32::try_from(pad).unwrap().to_le_bytes());
    head.extend(vec![b' '; pad]);
    file.extend(head);
    file.extend(body);
    if indexed {
        file.extend(connection_record());
        for i in infos {
            file.extend(i);
        }
    }
    std::fs::write(path, &file).unwrap();
    file.len() as u64
}

const MIB: u64 = 1 << 20;

/// Three chunks of a few hundred bytes of bz2, each declaring and decoding to 300 MiB: the
/// old reader held one per thread plus the cached last one (~900 MB on two threads, and one
/// more per core). Within the 512 MiB decode budget only one is decoded at a time.
#[test]
fn bz2_bombs_are_decoded_one_at_a_time() {
    if std::env::var_os("BAGSCOPE_SKIP_BOMBS").is_some() {
        common::skip("BAGSCOPE_SKIP_BOMBS is set");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let size = 300 * MIB as u32;
    for indexed in [true, false] {
        let path = dir.path().join(format!("bomb_{indexed}.bag"));
        let bytes = bomb_bag(&path, 3, size, indexed);
        assert!(bytes < 64 << 10, "a bomb: {bytes} bytes");
        for args in [&["verify"][..], &["info"]] {
            if indexed && args == ["info"] {
                // An indexed bag's info decompresses nothing.
                continue;
            }
            let crate::common::watched::Watched {
                status,
                output: err,
                peak,
                secs,
            } = crate::common::watched::run_watched(args, &path, Duration::from_secs(240));
            eprintln!(
                "{args:?} indexed={indexed}: exit {status:?}, peak {} MiB, {secs:.1} s\n{err}",
                peak / MIB
            );
            assert_eq!(status.signal(), None, "{err}");
            assert_eq!(status.code(), Some(0), "{err}");
            // One chunk at a time, plus the program: never two chunks.
            assert!(
                peak < u64::from(size) + 200 * MIB,
                "{args:?} indexed={indexed}: peak {} MiB",
                peak / MIB
            );
        }
    }
}

#[test]
fn recovery_tells_its_progress() {
    use bagscope::bag::{ProgressFn, RecoveryProgress};
    use std::sync::{Arc, Mutex};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.bag");
    string_bag(&path, Compression::Lz4, 40, 50, 2000);
    let mut bytes = std::fs::read(&path).unwrap();
    // Cut right after the last chunk: the index is gone, and so are the last chunk's index
    // data records: it must be decoded and walked. (A compressed chunk cut short is not
    // decoded from part of its data.)
    let bag = Bag::open(&path).unwrap();
    let last = bag.head(bag.chunks().last().unwrap().index).unwrap();
    bytes.truncate((last.data_offset + last.compressed_size) as usize);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let options = OpenOptions {
        progress: Some(ProgressFn(Arc::new(move |p| sink.lock().unwrap().push(p)))),
        ..OpenOptions::default()
    };
    let total = bytes.len() as u64;
    let cut = Bag::from_bytes("cut.bag", bytes, options).unwrap();
    assert!(!cut.is_indexed());
    let seen = seen.lock().unwrap().clone();
    let scans: Vec<u64> = seen
        .iter()
        .filter_map(|p| match p {
            RecoveryProgress::Scanning { done, total: t } => {
                assert_eq!(*t, total);
                Some(*done)
            }
            RecoveryProgress::Decoding { .. } => None,
        })
        .collect();
    assert!(
        scans.len() >= 10 && scans.len() <= 300,
        "{} calls",
        scans.len()
    );
    assert!(scans.windows(2).all(|w| w[0] <= w[1]), "monotonic");
    assert_eq!(*scans.last().unwrap(), total, "ends at the end of the file");
    // The last chunk was decoded while the walk went on (the pipeline): no decoding stage
    // after the walk.
    assert_eq!(
        cut.message_count(),
        bag.message_count(),
        "{:?}",
        cut.recovery()
    );
    assert!(
        !seen
            .iter()
            .any(|p| matches!(p, RecoveryProgress::Decoding { .. })),
        "{seen:?}"
    );
}

/// `path` without its index section (as a recording that crashed before closing): the file is
/// cut where the bag header's `index_pos` points, so that opening it runs the recovery walk.
fn drop_index(path: &Path) {
    let bytes = std::fs::read(path).unwrap();
    let at = bytes.windows(10).position(|w| w == b"index_pos=").unwrap();
    let pos = u64::from_le_bytes(bytes[at + 10..at + 18].try_into().unwrap());
    let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.set_len(pos).unwrap();
}

#[test]
fn an_unindexed_bag_truncated_during_the_recovery_walk_ends_with_changed_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("active.bag");
    string_bag(&path, Compression::Lz4, 300, 50, 2000);
    drop_index(&path);
    let cut_path = path.clone();
    let cut = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = std::sync::Arc::clone(&cut);
    let progress = bagscope::bag::ProgressFn(std::sync::Arc::new(move |p| {
        if let bagscope::bag::RecoveryProgress::Scanning { done, total } = p {
            if done > total / 4 && !flag.swap(true, std::sync::atomic::Ordering::SeqCst) {
                let f = std::fs::OpenOptions::new()
                    .write(true)
                    .open(&cut_path)
                    .unwrap();
                f.set_len(total / 10).unwrap();
            }
        }
    }));
    let options = OpenOptions {
        progress: Some(progress),
        ..OpenOptions::default()
    };
    let err = Bag::open_with(&path, options).map(|_| ()).unwrap_err();
    assert!(cut.load(std::sync::atomic::Ordering::SeqCst), "never cut");
    assert!(
        matches!(*err.kind, BagErrorKind::ChangedOnDisk { .. }),
        "{err}"
    );
    assert!(
        err.to_string().starts_with(&format!(
            "{}: changed on disk while it was read",
            path.display()
        )),
        "{err}"
    );
}

#[test]
fn an_unindexed_bag_truncated_while_iterating_ends_with_changed_on_disk() {
    for compression in [Compression::None, Compression::Lz4] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("active.bag");
        string_bag(&path, compression, 40, 50, 2000);
        drop_index(&path);
        let bag = Bag::open_with(&path, OpenOptions::default()).unwrap();
        assert!(!bag.is_indexed());
        assert!(bag.recovery().is_some());
        let total = bag.message_count();
        assert_eq!(total, 2000, "{compression}");
        let it = bag.messages(&Query::all());
        cut_while_iterating(it, &path, bag.size(), &compression.to_string());
    }
}

#[test]
fn info_and_echo_on_an_unindexed_bag_truncated_under_them_end_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("orig.bag");
    string_bag(&path, Compression::Lz4, 300, 50, 2000);
    drop_index(&path);
    for (cmd, delay_ms) in [("info", 0u64), ("info", 20), ("echo", 0), ("echo", 100)] {
        // 0 (finished before the cut), 1 (the cut reported as a loss or a change on disk), 2.
        cut_under(cmd, &path, &dir.path().join("copy.bag"), delay_ms, 3000);
    }
}

/// A 1.2 and a 1.1 bag (from the shared corpus) cut while iterated: read from a copy taken at
/// open, so iteration either goes on with the bag as opened or ends with `ChangedOnDisk`;
/// never SIGBUS. `echo` on them, cut under it, ends by itself.
#[test]
fn pre_2_0_bags_truncated_while_iterating_end_cleanly() {
    let Some(corpus) = common::corpus_dir() else {
        common::skip("no shared corpus");
        return;
    };
    for name in [
        "ccny-rosrecord-v1.2-gpsd-2010-06-v3.bag",
        "gen-v12_unindexed.bag",
        "gen-v11.bag",
    ] {
        let src = corpus.join(name);
        if !src.exists() {
            common::skip(&format!("{name} missing"));
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("old.bag");
        std::fs::copy(&src, &copy).unwrap();
        let bag = Bag::open_with(&copy, OpenOptions::default()).unwrap();
        let expected: Vec<_> = bag
            .messages(&Query::all())
            .map(|m| m.unwrap().data.to_vec())
            .collect();
        assert!(expected.len() > 2, "{name}");
        let mut it = bag.messages(&Query::all());
        it.next().unwrap().unwrap();
        let f = std::fs::OpenOptions::new().write(true).open(&copy).unwrap();
        f.set_len(bag.size() / 10).unwrap();
        let rest: Vec<_> = it.collect();
        for (i, r) in rest.iter().enumerate() {
            match r {
                Ok(m) => assert_eq!(m.data.to_vec(), expected[i + 1], "{name}: message {i}"),
                Err(e) => assert!(
                    matches!(*e.kind, BagErrorKind::ChangedOnDisk { .. }),
                    "{name}: {e}"
                ),
            }
        }
        for delay_ms in [0u64, 30] {
            cut_under("echo", &src, &copy, delay_ms, 100);
        }
    }
}
