//! zstd and lz4 bombs: `info` and `verify` stay within the memory the chunk declares.

use super::*;

/// Chunks that decode to more than 1 GiB (zstd and lz4) from a small declared size, and one
/// that declares more than the cap: `info` and `verify` stay within the declared sizes (a few
/// MiB of program besides), read the good part and exit 1.
#[test]
fn zstd_and_lz4_bombs_cost_what_the_chunk_declares() {
    if std::env::var_os("BAGSCOPE_SKIP_BOMBS").is_some() {
        skip("BAGSCOPE_SKIP_BOMBS is set");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let head = msg(3);
    let zstd = build::zstd_bomb(&head, (1 << 30) + (256 << 20));
    let lz4 = build::lz4_bomb(&head, 300);
    // They are bombs: more than 1 GiB each, from a few KiB or MiB.
    for (name, data, method) in [
        ("zstd", &zstd, Compression::Zstd),
        ("lz4", &lz4, Compression::Lz4),
    ] {
        let mut out = Vec::new();
        let r = bagscope::format::compression::decompress(method, data, 0, 16 << 20, &mut out);
        assert!(r.is_err(), "{name}");
        assert_eq!(&out[..head.len()], &head[..], "{name}");
    }
    let decoded = std::io::copy(
        &mut zstd::stream::read::Decoder::new(&zstd[..]).unwrap(),
        &mut std::io::sink(),
    )
    .unwrap();
    assert!(decoded > 1 << 30, "{decoded}");
    let decoded = std::io::copy(
        &mut lz4_flex::frame::FrameDecoder::new(&lz4[..]),
        &mut std::io::sink(),
    )
    .unwrap();
    assert!(decoded > 1 << 30, "{decoded}");
    println!(
        "bombs: zstd {} KiB, lz4 {} KiB, each > 1 GiB",
        zstd.len() >> 10,
        lz4.len() >> 10
    );
    let declared_small = head.len() as u64 + 4096;
    let declared_big = 200 * MIB;
    let cases = [
        ("zstd", zstd.clone(), declared_small),
        ("lz4", lz4.clone(), declared_small),
        ("zstd", zstd, declared_big),
        ("lz4", lz4, declared_big),
        ("zstd-huge", b"\x28\xb5\x2f\xfd".to_vec(), 1 << 62),
    ];
    for (name, data, declared) in cases {
        let compression = if name.starts_with("zstd") {
            "zstd"
        } else {
            "lz4"
        };
        for summary in [true, false] {
            let f = with_bad_chunk(
                ChunkSpec {
                    compression,
                    data: data.clone(),
                    uncompressed_size: declared,
                    crc: 0,
                    messages: vec![(3, 0)],
                },
                summary,
            );
            // In process: the good part, and what the bomb cost reported.
            let bag = Bag::from_bytes("bomb.mcap", f.clone(), options()).unwrap();
            assert_eq!(good_part(&bag), [1, 2], "{name} summary={summary}");
            let read = read_all(&bag);
            assert!(
                read.reported(),
                "{name} summary={summary}: nothing reported"
            );
            let path = tmp.path().join(format!("{name}-{declared}-{summary}.mcap"));
            std::fs::write(&path, &f).unwrap();
            for cmd in ["info", "verify"] {
                let crate::common::watched::Watched {
                    status,
                    output: err,
                    peak,
                    ..
                } = crate::common::watched::run_watched(&[cmd], &path, Duration::from_secs(300));
                println!(
                    "{name} declared {declared} summary={summary} {cmd}: exit {:?}, peak {} MiB",
                    status.code(),
                    peak / MIB
                );
                assert_eq!(status.signal(), None, "{err}");
                assert!(!err.contains("panicked"), "{err}");
                // An indexed file's info decodes nothing: all is well as far as it can tell.
                let want = if summary && cmd == "info" { 0 } else { 1 };
                assert_eq!(
                    status.code(),
                    Some(want),
                    "{name} {cmd} summary={summary}: {err}"
                );
                let bound = declared.min(1 << 30) + 200 * MIB;
                assert!(
                    peak < bound,
                    "{name} {cmd} summary={summary}: peak {} MiB",
                    peak / MIB
                );
            }
        }
    }
}
