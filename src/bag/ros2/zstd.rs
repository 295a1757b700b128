//! Bounded zstd decompression for rosbag2's two modes: a whole storage file (`FILE`,
//! `NAME.zstd`, streamed into a writer) and one message at a time (`MESSAGE`). Output past
//! the limit is refused with [`Ros2Error::TooLarge`], so a zstd bomb costs at most the limit
//! (plus the decoder's window), never all memory or disk. Also the sniffing of a file's
//! first bytes ([`Kind`]), so that a file is read as what it is whatever its name.

use std::io::{Read, Write};
use std::path::Path;

use super::error::Ros2Error;

/// What a storage file's first bytes say it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A zstd frame (`28 B5 2F FD`).
    Zstd,
    /// An SQLite database (`SQLite format 3\0`).
    Sqlite,
    /// An MCAP file (`\x89MCAP0\r\n`).
    Mcap,
    /// Something else (or too short to tell).
    Unknown,
}

/// Tells a file's kind from its first bytes.
pub fn sniff(head: &[u8]) -> Kind {
    if head.starts_with(&[0x28, 0xB5, 0x2F, 0xFD]) {
        Kind::Zstd
    } else if head.starts_with(b"SQLite format 3\0") {
        Kind::Sqlite
    } else if head.starts_with(b"\x89MCAP0\r\n") {
        Kind::Mcap
    } else {
        Kind::Unknown
    }
}

/// The first (up to) 16 bytes of a file, for [`sniff`].
pub fn head_of(path: &Path) -> Result<Vec<u8>, Ros2Error> {
    let file = std::fs::File::open(path).map_err(|e| Ros2Error::io(path, "opening", e))?;
    let mut head = Vec::with_capacity(16);
    file.take(16)
        .read_to_end(&mut head)
        .map_err(|e| Ros2Error::io(path, "reading", e))?;
    Ok(head)
}

/// Decompresses the zstd file `path` into `out`, refusing more than `limit` bytes. Returns
/// the bytes written.
pub fn decompress_file(path: &Path, out: &mut dyn Write, limit: u64) -> Result<u64, Ros2Error> {
    let file = std::fs::File::open(path).map_err(|e| Ros2Error::io(path, "opening", e))?;
    let decoder = zstd::stream::read::Decoder::new(std::io::BufReader::new(file))
        .map_err(|e| zstd_error(path, e))?;
    let mut bounded = decoder.take(limit.saturating_add(1));
    let mut buf = vec![0u8; 1 << 16];
    let mut total = 0u64;
    loop {
        let n = match bounded.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(zstd_error(path, e)),
        };
        total += n as u64;
        if total > limit {
            return Err(Ros2Error::TooLarge {
                path: path.to_path_buf(),
                what: "decompressing the file".into(),
                limit,
            });
        }
        let chunk = buf.get(..n).unwrap_or_default();
        out.write_all(chunk)
            .map_err(|e| Ros2Error::io(path, "writing the decompressed file", e))?;
    }
    Ok(total)
}

/// Decompresses one message's data (`MESSAGE` mode), refusing more than `limit` bytes;
/// `what` names the message in the error.
pub fn decompress_message(
    path: &Path,
    data: &[u8],
    limit: u64,
    what: impl FnOnce() -> String,
) -> Result<Vec<u8>, Ros2Error> {
    let decoder =
        zstd::stream::read::Decoder::with_buffer(data).map_err(|e| zstd_error(path, e))?;
    let mut out = Vec::new();
    decoder
        .take(limit.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| zstd_error(path, e))?;
    if out.len() as u64 > limit {
        return Err(Ros2Error::TooLarge {
            path: path.to_path_buf(),
            what: format!("decompressing {}", what()),
            limit,
        });
    }
    Ok(out)
}

fn zstd_error(path: &Path, source: std::io::Error) -> Ros2Error {
    Ros2Error::Zstd {
        path: path.to_path_buf(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_the_three_kinds() {
        assert_eq!(sniff(b"SQLite format 3\0rest"), Kind::Sqlite);
        assert_eq!(sniff(b"\x89MCAP0\r\n"), Kind::Mcap);
        assert_eq!(sniff(&[0x28, 0xB5, 0x2F, 0xFD, 0]), Kind::Zstd);
        assert_eq!(sniff(b"SQL"), Kind::Unknown);
        assert_eq!(sniff(b""), Kind::Unknown);
    }

    #[test]
    fn a_zstd_bomb_stops_at_the_limit() {
        // 64 MiB of zeros compress to a few KB; a 1 MiB limit refuses them early.
        let zeros = vec![0u8; 64 << 20];
        let packed = zstd::encode_all(&zeros[..], 3).unwrap();
        assert!(packed.len() < 100_000);
        let path = Path::new("bomb.zstd");
        let e = decompress_message(path, &packed, 1 << 20, || "message 1".into()).unwrap_err();
        assert!(
            e.line()
                .contains("decompressing message 1: over the limit of 1048576 bytes"),
            "{}",
            e.line()
        );
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("bomb.db3.zstd");
        std::fs::write(&file, &packed).unwrap();
        let mut sink = Vec::new();
        let e = decompress_file(&file, &mut sink, 1 << 20).unwrap_err();
        assert!(matches!(e, Ros2Error::TooLarge { .. }), "{e}");
        assert!(sink.len() <= (1 << 20) + (1 << 16));
        // Within the limit: the bytes come back.
        let mut sink = Vec::new();
        assert_eq!(
            decompress_file(&file, &mut sink, 64 << 20).unwrap(),
            64 << 20
        );
        assert_eq!(sink.len(), 64 << 20);
    }

    #[test]
    fn damaged_data_is_an_error() {
        let e = decompress_message(
            Path::new("x"),
            &[0x28, 0xB5, 0x2F, 0xFD, 1, 2, 3],
            100,
            String::new,
        )
        .unwrap_err();
        assert!(matches!(e, Ros2Error::Zstd { .. }), "{e}");
    }
}
