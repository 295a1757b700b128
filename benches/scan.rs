//! Unindexed giants (issue 17, item 3): a bag without index section AND without index data
//! records, so a recovery scan must decompress and walk every chunk.
//!
//! ```sh
//! cargo bench --bench scan                      # lz4 (1 GB) and bz2 (200 MB) bags, 768 KiB chunks
//! cargo bench --bench scan -- --lz4-mb 4000     # another size
//! cargo bench --bench scan -- --chunks 130000   # the snapshot cost on 130 000 tiny chunks
//! cargo bench --bench scan -- --chunks 130000 --slow-ms 8   # …with a disk so slow that the
//!                                               # partial results come all along the scan
//! ```
//!
//! For each bag (written once into `bench-data/`, warm page cache): the time to the first
//! partial result and to the explorer's first frame over it (`App::new` and a draw into a
//! 160×48 `TestBackend`, as the event loop does), against the time of the whole scan, and the
//! scan's throughput with 1 thread and with all cores; then the whole scan without partial
//! results, so that their cost shows (and how many there were).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::pedantic
)]

mod common;

use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bagscope::bag::writer::{BagWriter, WriterOptions};
use bagscope::bag::{Bag, OpenOptions, PartialFn, default_threads};
use bagscope::catalog::Catalog;
use bagscope::format::{Compression, ConnectionHeader};
use bagscope::time::RosTime;
use bagscope::tui::app::App;
use bagscope::tui::jobs::worker::Worker;
use bagscope::tui::theme::Theme;
use bagscope::tui::ui;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

/// Writes a closed bag of about `mb` MB (messages of 16 KiB, half noise, half zeros: about
/// 2:1 compressible) in chunks of `chunk` bytes, or of `tiny` 8-byte messages one per chunk.
fn write_closed(path: &Path, compression: Compression, mb: u64, chunk: u32, tiny: Option<u64>) {
    let mut w = BagWriter::create(
        path,
        WriterOptions {
            compression,
            chunk_size: chunk,
        },
    )
    .unwrap();
    let conns: Vec<u32> = ["/lidar", "/camera", "/imu"]
        .iter()
        .map(|topic| {
            let h = ConnectionHeader::build(
                topic,
                "std_msgs/UInt8MultiArray",
                "82373f1612381bb6ee473b5cd6f5d89c",
                "std_msgs/MultiArrayLayout layout\nuint8[] data\n",
                Some("/bench"),
                Some("0"),
            );
            w.add_connection(topic, &h).unwrap()
        })
        .collect();
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let (n, size) = match tiny {
        Some(n) => (n, 8),
        None => (mb * 1_000_000 / 16_384, 16_384),
    };
    let mut data = vec![0u8; size];
    for i in 0..n {
        for b in data.iter_mut().take(size / 2) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            *b = seed as u8;
        }
        let t = RosTime::new(
            1_700_000_000 + (i / 100) as u32,
            (i % 100) as u32 * 10_000_000,
        );
        w.write(conns[(i % 3) as usize], t, &data).unwrap();
    }
    w.finish().unwrap();
}

fn read_u32(r: &mut impl Read) -> Option<u32> {
    let mut b = [0u8; 4];
    r.read_exact(&mut b).ok()?;
    Some(u32::from_le_bytes(b))
}

/// Copies the closed bag `from` to `to` as a crashed recorder would leave it, minus the
/// index data records: no index section, index position 0, no index data after the chunks.
fn strip(from: &Path, to: &Path) {
    let mut r = BufReader::with_capacity(8 << 20, std::fs::File::open(from).unwrap());
    let mut w = BufWriter::with_capacity(8 << 20, std::fs::File::create(to).unwrap());
    let mut version = [0u8; 13];
    r.read_exact(&mut version).unwrap();
    w.write_all(&version).unwrap();
    let mut at = 13u64;
    let mut index_pos = u64::MAX;
    while at < index_pos {
        let Some(hlen) = read_u32(&mut r) else { break };
        let mut header = vec![0u8; hlen as usize];
        r.read_exact(&mut header).unwrap();
        let dlen = read_u32(&mut r).unwrap();
        let mut data = vec![0u8; dlen as usize];
        r.read_exact(&mut data).unwrap();
        at += 8 + u64::from(hlen) + u64::from(dlen);
        let mut op = 0;
        let mut i = 0;
        while i + 4 <= header.len() {
            let len = u32::from_le_bytes(header[i..i + 4].try_into().unwrap()) as usize;
            let field = &header[i + 4..i + 4 + len];
            let eq = field.iter().position(|&b| b == b'=').unwrap();
            let (name, from, to) = (&field[..eq], i + 4 + eq + 1, i + 4 + len);
            if name == b"op" {
                op = header[from];
            }
            if name == b"index_pos" {
                index_pos = u64::from_le_bytes(header[from..to].try_into().unwrap());
            }
            if matches!(name, b"index_pos" | b"conn_count" | b"chunk_count") {
                header[from..to].fill(0);
            }
            i += 4 + len;
        }
        if op == 0x04 {
            continue;
        }
        w.write_all(&hlen.to_le_bytes()).unwrap();
        w.write_all(&header).unwrap();
        w.write_all(&dlen.to_le_bytes()).unwrap();
        w.write_all(&data).unwrap();
    }
    w.flush().unwrap();
}

/// `bench-data/NAME.bag.active`, written once.
fn giant(name: &str, compression: Compression, mb: u64, chunk: u32, tiny: Option<u64>) -> PathBuf {
    let path = PathBuf::from(format!("bench-data/{name}.bag.active"));
    if !path.exists() {
        std::fs::create_dir_all("bench-data").unwrap();
        let closed = PathBuf::from(format!("bench-data/{name}.closed.bag"));
        let t = Instant::now();
        write_closed(&closed, compression, mb, chunk, tiny);
        strip(&closed, &path);
        std::fs::remove_file(&closed).unwrap();
        println!(
            "wrote {} in {:.0} s",
            path.display(),
            t.elapsed().as_secs_f64()
        );
    }
    // Warm the page cache (the figures are for a file read at disk speed from memory).
    let mut f = std::fs::File::open(&path).unwrap();
    let mut buf = vec![0u8; 8 << 20];
    while f.read(&mut buf).unwrap() > 0 {}
    path
}

/// What one scan measured.
struct Scan {
    total: Duration,
    /// CPU seconds of the process (all threads) during the scan.
    cpu: f64,
    first_partial: Option<Duration>,
    first_frame: Option<Duration>,
    first_chunks: usize,
    partials: usize,
    chunks: usize,
}

fn scan(path: &Path, threads: usize, partial: bool) -> Scan {
    let cpu0 = common::cpu_seconds();
    let t0 = Instant::now();
    // Partial results, time of the first and of the first frame, chunks in the first.
    type Seen = (usize, Option<Duration>, Option<Duration>, usize);
    let seen: Arc<Mutex<Seen>> = Arc::default();
    let mut options = OpenOptions {
        threads,
        ..OpenOptions::default()
    };
    if let Some(ms) = arg("--slow-ms") {
        // A slow disk: each of the scan's 256 progress reports waits (the snapshots then
        // come at every stage of the scan, the late ones over all the chunks).
        options.progress = Some(bagscope::bag::ProgressFn(Arc::new(move |_| {
            std::thread::sleep(Duration::from_millis(ms));
        })));
    }
    if partial {
        let sink = Arc::clone(&seen);
        options.partial = Some(PartialFn(Arc::new(move |p| {
            let mut s = sink.lock().unwrap();
            s.0 += 1;
            if s.1.is_none() {
                s.1 = Some(t0.elapsed());
                s.3 = p.bag.chunks().len();
                // The explorer's first frame over it (done on the UI thread in the app).
                let app = App::new(Catalog::new(vec![p.bag]), Worker::none(), 160, 48);
                let mut term = Terminal::new(TestBackend::new(160, 48)).unwrap();
                term.draw(|f| ui::draw(f, &app, Theme::from_env())).unwrap();
                s.2 = Some(t0.elapsed());
            }
            true
        })));
    }
    let bag = Bag::open_with(path, options).unwrap();
    let total = t0.elapsed();
    let cpu = common::cpu_seconds() - cpu0;
    let s = seen.lock().unwrap();
    Scan {
        total,
        cpu,
        first_partial: s.1,
        first_frame: s.2,
        first_chunks: s.3,
        partials: s.0,
        chunks: bag.chunks().len(),
    }
}

fn ms(d: Option<Duration>) -> String {
    d.map_or("–".into(), |d| {
        format!("{:.0} ms", d.as_secs_f64() * 1000.0)
    })
}

fn report(path: &Path) {
    let size = std::fs::metadata(path).unwrap().len();
    let mb = size as f64 / 1e6;
    let all = default_threads();
    println!(
        "\n{} ({:.0} MB), load {}",
        path.display(),
        mb,
        common::load()
    );
    for (threads, partial) in [(1, true), (all, true), (1, false), (all, false)] {
        let s = scan(path, threads, partial);
        println!(
            "  {threads} thread(s), partial results {}: whole scan {:.2} s, CPU {:.2} s ({:.0} MB/s, \
             {} chunks); first partial {} ({} chunks), first frame {}; {} partial results; load {}",
            if partial { "on " } else { "off" },
            s.total.as_secs_f64(),
            s.cpu,
            mb / s.total.as_secs_f64(),
            s.chunks,
            ms(s.first_partial),
            s.first_chunks,
            ms(s.first_frame),
            s.partials,
            common::load(),
        );
    }
}

fn arg(name: &str) -> Option<u64> {
    let args: Vec<String> = std::env::args().collect();
    let i = args.iter().position(|a| a == name)?;
    args.get(i + 1)?.parse().ok()
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    println!("cores: {}, load {}", default_threads(), common::load());
    if let Some(n) = arg("--chunks") {
        let path = giant(&format!("scan_tiny_{n}"), Compression::Lz4, 0, 0, Some(n));
        report(&path);
        return;
    }
    let lz4 = arg("--lz4-mb").unwrap_or(1000);
    let bz2 = arg("--bz2-mb").unwrap_or(200);
    report(&giant(
        &format!("scan_lz4_{lz4}mb"),
        Compression::Lz4,
        lz4,
        768 * 1024,
        None,
    ));
    report(&giant(
        &format!("scan_bz2_{bz2}mb"),
        Compression::Bz2,
        bz2,
        768 * 1024,
        None,
    ));
}
