//! The bytes of an open bag: a read-only memory map of the file, or an owned buffer (tests,
//! fuzzing, stdin).

#![allow(unsafe_code)]

use std::borrow::Cow;
use std::fs::File;
use std::io;
use std::ops::Deref;
use std::path::Path;

/// The bytes of a bag file.
pub enum Source {
    /// A read-only memory map, and the file for small positioned reads.
    Mapped(memmap2::Mmap, File),
    /// Bytes held in memory.
    Owned(Vec<u8>),
}

impl Source {
    /// Maps `path` read-only. Empty files are held as an empty buffer (they cannot be mapped).
    pub fn map(path: &Path) -> io::Result<Source> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        if len == 0 {
            return Ok(Source::Owned(Vec::new()));
        }
        // SAFETY: the map is read-only and private to this process. Another process
        // truncating or rewriting the file while we read it would change the bytes under us
        // (or raise SIGBUS on truncation); bagscope never writes to its inputs, and every byte
        // read from the map is treated as untrusted and bounds-checked, so changed contents can
        // only produce parse errors, not undefined behaviour in our code. This is the one
        // unsafe block of the crate.
        let map = unsafe { memmap2::MmapOptions::new().map(&file)? };
        Ok(Source::Mapped(map, file))
    }

    /// Up to `len` bytes at `offset` (fewer at the end of the file).
    ///
    /// Small scattered reads — the index section, chunk headers, a chunk's index data — go
    /// through `pread` rather than the map: touching the map faults in (and later unmaps) 64 KiB
    /// around every page, which made opening a 1 GB bag ten times slower than it needs to be.
    pub fn read_at(&self, offset: u64, len: usize) -> Cow<'_, [u8]> {
        let total = self.len() as u64;
        let start = offset.min(total);
        let len = usize::try_from((total - start).min(len as u64)).unwrap_or(0);
        let start_usize = usize::try_from(start).unwrap_or(usize::MAX);
        match self {
            #[cfg(unix)]
            Source::Mapped(_, file) => {
                use std::os::unix::fs::FileExt;
                let mut buf = vec![0u8; len];
                let mut done = 0;
                while done < len {
                    match file.read_at(buf.get_mut(done..).unwrap_or_default(), start + done as u64)
                    {
                        Ok(0) | Err(_) => break,
                        Ok(n) => done += n,
                    }
                }
                if done == len {
                    return Cow::Owned(buf);
                }
                // The file changed under us or the read failed: fall back to the map.
                Cow::Borrowed(self.get(start_usize..start_usize + len).unwrap_or_default())
            }
            _ => Cow::Borrowed(self.get(start_usize..start_usize + len).unwrap_or_default()),
        }
    }
}

impl Deref for Source {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Source::Mapped(m, _) => m,
            Source::Owned(v) => v,
        }
    }
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Mapped(m, _) => write!(f, "Mapped({} bytes)", m.len()),
            Source::Owned(v) => write!(f, "Owned({} bytes)", v.len()),
        }
    }
}
