//! The bytes of an open bag: a read-only memory map of the file, or an owned buffer (tests,
//! fuzzing, stdin).

#![allow(unsafe_code)]

use std::fs::File;
use std::io;
use std::ops::Deref;
use std::path::Path;

/// The bytes of a bag file.
pub enum Source {
    /// A read-only memory map.
    Mapped(memmap2::Mmap),
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
        #[cfg(unix)]
        {
            // Only a hint: sequential scans read ahead, random access pays per page anyway.
            let _ = map.advise(memmap2::Advice::Normal);
        }
        Ok(Source::Mapped(map))
    }
}

impl Deref for Source {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Source::Mapped(m) => m,
            Source::Owned(v) => v,
        }
    }
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Mapped(m) => write!(f, "Mapped({} bytes)", m.len()),
            Source::Owned(v) => write!(f, "Owned({} bytes)", v.len()),
        }
    }
}
