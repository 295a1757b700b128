//! The LZ4 frame format, as ROS writes it in `lz4` chunks (roslz4: one frame per chunk,
//! independent 1 MiB blocks, content checksum, no content size). Decoding accepts what the
//! spec allows — several concatenated frames (rosbag-standalone writes one per write call),
//! skippable frames, linked blocks, block and content checksums — and reports a frame cut short
//! as an error, keeping the blocks decoded before the cut.

use twox_hash::XxHash32;

use super::error::ErrorKind;

const MAGIC: u32 = 0x184D_2204;
const SKIPPABLE_MASK: u32 = 0xFFFF_FFF0;
const SKIPPABLE: u32 = 0x184D_2A50;
const WINDOW: usize = 64 << 10;
/// Block size used when writing (the `BD` id 6 that roslz4 uses).
const WRITE_BLOCK: usize = 1 << 20;

fn error(reason: impl Into<String>) -> ErrorKind {
    ErrorKind::Decompress {
        method: "lz4",
        reason: reason.into(),
    }
}

/// Reads `n` bytes at `*pos`, advancing it.
fn take<'a>(src: &'a [u8], pos: &mut usize, n: usize, what: &str) -> Result<&'a [u8], ErrorKind> {
    let end = pos
        .checked_add(n)
        .ok_or_else(|| error(format!("{what}: length overflow")))?;
    let bytes = src
        .get(*pos..end)
        .ok_or_else(|| error(format!("the data ends inside {what}")))?;
    *pos = end;
    Ok(bytes)
}

/// Reads `N` bytes at `*pos` as an array, advancing it.
fn array<const N: usize>(src: &[u8], pos: &mut usize, what: &str) -> Result<[u8; N], ErrorKind> {
    let mut a = [0u8; N];
    a.copy_from_slice(take(src, pos, N, what)?);
    Ok(a)
}

fn u32_at(src: &[u8], pos: &mut usize, what: &str) -> Result<u32, ErrorKind> {
    Ok(u32::from_le_bytes(array(src, pos, what)?))
}

/// Decodes all frames of `src` into `out` (appending), producing at most about `limit` bytes.
/// On error, `out` holds the output of every block decoded before the problem.
pub fn decompress(src: &[u8], limit: u64, out: &mut Vec<u8>) -> Result<(), ErrorKind> {
    let mut pos = 0usize;
    if src.is_empty() {
        return Err(error("no data"));
    }
    while pos < src.len() {
        let magic = u32_at(src, &mut pos, "a frame's magic number")?;
        if magic & SKIPPABLE_MASK == SKIPPABLE {
            let size = u32_at(src, &mut pos, "a skippable frame's size")?;
            take(src, &mut pos, size as usize, "a skippable frame")?;
            continue;
        }
        if magic != MAGIC {
            return Err(error(format!(
                "bad frame magic number 0x{magic:08x} at byte {}",
                pos - 4
            )));
        }
        frame(src, &mut pos, limit, out)?;
    }
    Ok(())
}

fn frame(src: &[u8], pos: &mut usize, limit: u64, out: &mut Vec<u8>) -> Result<(), ErrorKind> {
    let descriptor_start = *pos;
    let [flg, bd] = array::<2>(src, pos, "a frame descriptor")?;
    if flg >> 6 != 1 {
        return Err(error(format!("unsupported frame version {}", flg >> 6)));
    }
    let independent = flg & 0x20 != 0;
    let block_checksum = flg & 0x10 != 0;
    let has_content_size = flg & 0x08 != 0;
    let content_checksum = flg & 0x04 != 0;
    if flg & 0x01 != 0 {
        return Err(error("frames with a dictionary id are not supported"));
    }
    let block_max = match (bd >> 4) & 0x07 {
        4 => 64 << 10,
        5 => 256 << 10,
        6 => 1 << 20,
        7 => 4 << 20,
        id => return Err(error(format!("invalid block size id {id}"))),
    };
    let content_size = if has_content_size {
        Some(u64::from_le_bytes(array(
            src,
            pos,
            "the frame's content size",
        )?))
    } else {
        None
    };
    let descriptor = src.get(descriptor_start..*pos).unwrap_or_default();
    let [hc] = array::<1>(src, pos, "the frame header checksum")?;
    let expected_hc = ((XxHash32::oneshot(0, descriptor) >> 8) & 0xFF) as u8;
    if hc != expected_hc {
        return Err(error("frame header checksum mismatch"));
    }
    let frame_start = out.len();
    loop {
        let word = u32_at(src, pos, "a block header (the frame is cut short)")?;
        if word == 0 {
            break;
        }
        let stored = word & 0x8000_0000 != 0;
        let size = (word & 0x7FFF_FFFF) as usize;
        if size > block_max {
            return Err(error(format!(
                "block of {size} bytes exceeds the frame's maximum of {block_max}"
            )));
        }
        let data = take(src, pos, size, "a block (the frame is cut short)")?;
        if block_checksum {
            let sum = u32_at(src, pos, "a block checksum")?;
            if XxHash32::oneshot(0, data) != sum {
                return Err(error("block checksum mismatch"));
            }
        }
        if out.len() as u64 >= limit {
            return Err(ErrorKind::TooLarge {
                declared: out.len() as u64 + 1,
                limit,
            });
        }
        let start = out.len();
        if stored {
            out.extend_from_slice(data);
        } else {
            out.resize(start + block_max, 0);
            let (before, dst) = out.split_at_mut(start);
            let result = if independent || start == frame_start {
                lz4_flex::block::decompress_into(data, dst)
            } else {
                let dict_from = start.saturating_sub(WINDOW).max(frame_start);
                lz4_flex::block::decompress_into_with_dict(
                    data,
                    dst,
                    before.get(dict_from..).unwrap_or_default(),
                )
            };
            match result {
                Ok(n) => out.truncate(start + n),
                Err(e) => {
                    out.truncate(start);
                    return Err(error(format!("corrupt block: {e}")));
                }
            }
        }
        if out.len() as u64 > limit {
            return Err(ErrorKind::TooLarge {
                declared: out.len() as u64,
                limit,
            });
        }
    }
    let produced = out.get(frame_start..).unwrap_or_default();
    if content_checksum {
        let sum = u32_at(src, pos, "the content checksum")?;
        if XxHash32::oneshot(0, produced) != sum {
            return Err(error("content checksum mismatch"));
        }
    }
    if let Some(n) = content_size {
        if n != produced.len() as u64 {
            return Err(error(format!(
                "frame declares {n} bytes of content, decoded {}",
                produced.len()
            )));
        }
    }
    Ok(())
}

/// Encodes `src` as one frame the way roslz4 does (independent 1 MiB blocks, content
/// checksum, no content size), so that every ROS reader accepts it.
pub fn compress(src: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(src.len() / 2 + 64);
    out.extend_from_slice(&MAGIC.to_le_bytes());
    let descriptor = [0x64u8, 0x60]; // version 1, independent blocks, content checksum; 1 MiB blocks
    out.extend_from_slice(&descriptor);
    out.push(((XxHash32::oneshot(0, &descriptor) >> 8) & 0xFF) as u8);
    let mut scratch = vec![0u8; lz4_flex::block::get_maximum_output_size(WRITE_BLOCK)];
    for block in src.chunks(WRITE_BLOCK) {
        match lz4_flex::block::compress_into(block, &mut scratch) {
            Ok(n) if n < block.len() => {
                out.extend_from_slice(&u32::try_from(n).unwrap_or(0).to_le_bytes());
                out.extend_from_slice(scratch.get(..n).unwrap_or_default());
            }
            _ => {
                let word = u32::try_from(block.len()).unwrap_or(0) | 0x8000_0000;
                out.extend_from_slice(&word.to_le_bytes());
                out.extend_from_slice(block);
            }
        }
    }
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&XxHash32::oneshot(0, src).to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(n: usize) -> Vec<u8> {
        (0..n)
            .map(|i| u8::try_from((i * 7) % 251).unwrap() ^ u8::try_from((i / 1000) % 256).unwrap())
            .collect()
    }

    #[test]
    fn round_trips_and_reads_lz4_flex_frames() {
        use std::io::Write;
        for n in [0, 1, 1000, WRITE_BLOCK, 3 * WRITE_BLOCK + 17] {
            let data = sample(n);
            let mut out = Vec::new();
            decompress(&compress(&data), 1 << 30, &mut out).unwrap();
            assert_eq!(out, data);
        }
        // Frames written by another encoder (linked blocks, content size) read too.
        let data = sample(300_000);
        let mut info = lz4_flex::frame::FrameInfo::new();
        info.block_mode = lz4_flex::frame::BlockMode::Linked;
        info.content_size = Some(data.len() as u64);
        info.block_checksums = true;
        info.block_size = lz4_flex::frame::BlockSize::Max64KB;
        let mut enc = lz4_flex::frame::FrameEncoder::with_frame_info(info, Vec::new());
        enc.write_all(&data).unwrap();
        let packed = enc.finish().unwrap();
        let mut out = Vec::new();
        decompress(&packed, 1 << 30, &mut out).unwrap();
        assert_eq!(out, data);
    }

    #[test]
    fn a_frame_cut_at_a_block_boundary_is_an_error() {
        let data = sample(3 * WRITE_BLOCK);
        let packed = compress(&data);
        // Drop the end mark and checksum: the frame is cut after its last block.
        let cut = &packed[..packed.len() - 8];
        let mut out = Vec::new();
        assert!(decompress(cut, 1 << 30, &mut out).is_err());
        assert_eq!(out, data, "every whole block is kept");
        // Only the frame header: nothing decoded, still an error.
        let mut out = Vec::new();
        assert!(decompress(&packed[..7], 1 << 30, &mut out).is_err());
        assert!(out.is_empty());
    }

    #[test]
    fn corruption_is_detected() {
        let data = sample(100_000);
        let mut packed = compress(&data);
        let mid = packed.len() / 2;
        packed[mid] ^= 0x40;
        let mut out = Vec::new();
        assert!(decompress(&packed, 1 << 30, &mut out).is_err());
        let mut skippable = vec![0x50, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 1, 2, 3];
        skippable.extend(compress(&data));
        let mut out = Vec::new();
        decompress(&skippable, 1 << 30, &mut out).unwrap();
        assert_eq!(out, data);
    }
}
