//! Chunk compression: `none`, `bz2` (a bzip2 stream) and `lz4` (LZ4 frames, see [`super::lz4`]). Output is capped: a declared or actual size above the limit is an error, never an
//! allocation.

use super::error::ErrorKind;

/// A chunk's compression method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Compression {
    /// Stored as is.
    None,
    /// A bzip2 stream.
    Bz2,
    /// One or more LZ4 frames.
    Lz4,
    /// A Zstandard stream (MCAP chunks).
    Zstd,
}

impl Compression {
    /// Parses the `compression` header value.
    pub fn parse(value: &[u8]) -> Option<Compression> {
        match value {
            b"none" => Some(Compression::None),
            b"bz2" => Some(Compression::Bz2),
            b"lz4" => Some(Compression::Lz4),
            b"zstd" => Some(Compression::Zstd),
            _ => None,
        }
    }

    /// The name used in the bag and by `rosbag info`.
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Bz2 => "bz2",
            Compression::Lz4 => "lz4",
            Compression::Zstd => "zstd",
        }
    }
}

impl std::fmt::Display for Compression {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The default cap on one chunk's uncompressed size (1 GiB); real recorders write 768 KiB.
pub const DEFAULT_MAX_CHUNK_SIZE: u64 = 1 << 30;

/// The most we reserve up front, whatever the header declares.
const MAX_PREALLOCATION: usize = 64 << 20;

/// Decompresses `src` into `out` (which is cleared first).
///
/// `declared` is the uncompressed size from the chunk header, `limit` the most output
/// accepted. On error `out` holds whatever could be decoded before the problem, so that a
/// damaged chunk can still give up the records it does contain. A successful decode whose size
/// differs from `declared` is reported as [`ErrorKind::SizeMismatch`] with the full output in
/// `out`.
pub fn decompress(
    method: Compression,
    src: &[u8],
    declared: u32,
    limit: u64,
    out: &mut Vec<u8>,
) -> Result<(), ErrorKind> {
    out.clear();
    if u64::from(declared) > limit {
        return Err(ErrorKind::TooLarge {
            declared: u64::from(declared),
            limit,
        });
    }
    let reserve = usize::try_from(declared)
        .unwrap_or(usize::MAX)
        .min(MAX_PREALLOCATION);
    out.reserve(reserve);
    match method {
        Compression::None => {
            let take = src.len().min(usize::try_from(limit).unwrap_or(usize::MAX));
            out.extend_from_slice(src.get(..take).unwrap_or_default());
            if take < src.len() {
                return Err(ErrorKind::TooLarge {
                    declared: src.len() as u64,
                    limit,
                });
            }
        }
        Compression::Bz2 => bz2(src, limit, out)?,
        Compression::Lz4 => super::lz4::decompress(src, limit, out)?,
        Compression::Zstd => zstd_stream(src, limit, out)?,
    }
    if out.len() as u64 == u64::from(declared) {
        Ok(())
    } else {
        Err(ErrorKind::SizeMismatch {
            declared: u64::from(declared),
            actual: out.len() as u64,
        })
    }
}

/// Decodes a Zstandard stream into `out`, never past `limit` bytes: the stream is read up to
/// the limit, then one more byte is asked for (a bomb costs at most the limit, and `out` never
/// grows past it).
fn zstd_stream(src: &[u8], limit: u64, out: &mut Vec<u8>) -> Result<(), ErrorKind> {
    use std::io::Read;
    let error = |reason: String| ErrorKind::Decompress {
        method: "zstd",
        reason,
    };
    let mut decoder =
        zstd::stream::read::Decoder::with_buffer(src).map_err(|e| error(e.to_string()))?;
    (&mut decoder)
        .take(limit)
        .read_to_end(out)
        .map_err(|e| error(e.to_string()))?;
    let mut probe = [0u8; 1];
    match decoder.read(&mut probe) {
        Ok(0) => Ok(()),
        Ok(_) => Err(ErrorKind::TooLarge {
            declared: limit.saturating_add(1),
            limit,
        }),
        Err(e) => Err(error(e.to_string())),
    }
}

fn bz2_error(reason: &(impl ToString + ?Sized)) -> ErrorKind {
    ErrorKind::Decompress {
        method: "bz2",
        reason: reason.to_string(),
    }
}

fn bz2(src: &[u8], limit: u64, out: &mut Vec<u8>) -> Result<(), ErrorKind> {
    let mut d = bzip2::Decompress::new(false);
    loop {
        if out.len() == out.capacity() {
            if out.len() as u64 >= limit {
                return Err(ErrorKind::TooLarge {
                    declared: out.len() as u64 + 1,
                    limit,
                });
            }
            let room = usize::try_from(limit - out.len() as u64).unwrap_or(usize::MAX);
            out.reserve(room.min(out.len().max(64 << 10)));
        }
        let consumed = usize::try_from(d.total_in()).unwrap_or(usize::MAX);
        let input = src.get(consumed..).unwrap_or_default();
        let before = (d.total_in(), d.total_out());
        match d.decompress_vec(input, out) {
            Ok(bzip2::Status::StreamEnd) => return Ok(()),
            Ok(_) => {
                if (d.total_in(), d.total_out()) == before && out.len() < out.capacity() {
                    return Err(bz2_error(
                        "the compressed stream ends before its end marker",
                    ));
                }
            }
            Err(e) => return Err(bz2_error(&e)),
        }
    }
}

/// Compresses `src` with `method` (used by the writer). `none` copies. Only bz2 can fail (the
/// library's error, e.g. out of memory).
pub fn compress(method: Compression, src: &[u8]) -> std::io::Result<Vec<u8>> {
    match method {
        Compression::None => Ok(src.to_vec()),
        Compression::Bz2 => {
            use std::io::Write;
            let mut enc = bzip2::write::BzEncoder::new(
                Vec::with_capacity(src.len() / 4 + 64),
                bzip2::Compression::best(),
            );
            enc.write_all(src)?;
            enc.finish()
        }
        Compression::Lz4 => Ok(super::lz4::compress(src)),
        Compression::Zstd => zstd::bulk::compress(src, 3),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<u8> {
        (0..200_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect()
    }

    #[test]
    fn round_trips_every_method() {
        let data = sample();
        for m in [
            Compression::None,
            Compression::Bz2,
            Compression::Lz4,
            Compression::Zstd,
        ] {
            let packed = compress(m, &data).unwrap();
            let mut out = Vec::new();
            decompress(
                m,
                &packed,
                u32::try_from(data.len()).unwrap(),
                1 << 30,
                &mut out,
            )
            .unwrap();
            assert_eq!(out, data, "{m}");
        }
    }

    #[test]
    fn concatenated_lz4_frames_decode_whole() {
        let data = sample();
        let (a, b) = data.split_at(12345);
        let mut packed = compress(Compression::Lz4, a).unwrap();
        packed.extend(compress(Compression::Lz4, b).unwrap());
        let mut out = Vec::new();
        decompress(
            Compression::Lz4,
            &packed,
            u32::try_from(data.len()).unwrap(),
            1 << 30,
            &mut out,
        )
        .unwrap();
        assert_eq!(out, data);
    }

    #[test]
    fn limits_and_lies_are_errors() {
        let data = sample();
        let packed = compress(Compression::Bz2, &data).unwrap();
        let mut out = Vec::new();
        let err = decompress(Compression::Bz2, &packed, u32::MAX, 1 << 20, &mut out).unwrap_err();
        assert!(matches!(err, ErrorKind::TooLarge { .. }));
        // Declared size small, real output large: the cap still holds.
        let err = decompress(Compression::Bz2, &packed, 10, 1 << 16, &mut out).unwrap_err();
        assert!(matches!(err, ErrorKind::TooLarge { .. }), "{err:?}");
        let err = decompress(
            Compression::Lz4,
            &compress(Compression::Lz4, &data).unwrap(),
            10,
            1 << 16,
            &mut out,
        )
        .unwrap_err();
        assert!(matches!(err, ErrorKind::TooLarge { .. }), "{err:?}");
        // A wrong declared size within the limit is a mismatch, with the data kept.
        let err = decompress(Compression::Bz2, &packed, 10, 1 << 30, &mut out).unwrap_err();
        assert!(matches!(err, ErrorKind::SizeMismatch { .. }));
        assert_eq!(out, data);
    }

    #[test]
    fn truncated_streams_keep_what_decoded() {
        let data = sample();
        let declared = u32::try_from(data.len()).unwrap();
        for m in [Compression::Bz2, Compression::Lz4] {
            let packed = compress(m, &data).unwrap();
            for cut in [0, 1, 7, packed.len() / 2, packed.len() - 1] {
                let mut out = Vec::new();
                let r = decompress(m, &packed[..cut], declared, 1 << 30, &mut out);
                assert!(r.is_err(), "{m} cut at {cut}");
                assert!(
                    data.starts_with(&out),
                    "{m} cut at {cut}: output is a prefix"
                );
            }
            let mut garbage = packed.clone();
            for b in garbage.iter_mut().skip(20).step_by(7) {
                *b ^= 0x5a;
            }
            let mut out = Vec::new();
            assert!(decompress(m, &garbage, declared, 1 << 30, &mut out).is_err());
        }
    }
}
