//! Bag version detection from the first bytes of a file.

use std::fmt;

use super::error::{ErrorKind, FormatError, Result};
use super::legacy::read_v11_message;
use super::op::RecordKind;

/// The on-disk layout of a bag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Version {
    /// No version line: messages as in 1.1 from the first byte.
    V0,
    /// `#ROSLOG V1.0`.
    V1_0,
    /// `#ROSRECORD V1.1` or `#ROSLOG V1.1`.
    V1_1,
    /// `#ROSRECORD V1.2`.
    V1_2,
    /// `#ROSBAG V2.0`.
    V2_0,
    /// An MCAP file (any profile), starting with its magic.
    Mcap,
}

impl Version {
    /// The version as `rosbag info` prints it (`2.0`, `1.2`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Version::V0 => "0",
            Version::V1_0 => "1.0",
            Version::V1_1 => "1.1",
            Version::V1_2 => "1.2",
            Version::V2_0 => "2.0",
            Version::Mcap => "mcap",
        }
    }

    /// The version line this layout starts with (empty for version 0).
    pub fn line(self) -> &'static [u8] {
        match self {
            Version::V0 => b"",
            Version::V1_0 => b"#ROSLOG V1.0\n",
            Version::V1_1 => b"#ROSRECORD V1.1\n",
            Version::V1_2 => b"#ROSRECORD V1.2\n",
            Version::V2_0 => b"#ROSBAG V2.0\n",
            Version::Mcap => super::mcap::MAGIC,
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

const KNOWN: [(&[u8], Version); 5] = [
    (b"#ROSBAG V2.0\n", Version::V2_0),
    (b"#ROSRECORD V1.2\n", Version::V1_2),
    (b"#ROSRECORD V1.1\n", Version::V1_1),
    (b"#ROSLOG V1.1\n", Version::V1_1),
    (b"#ROSLOG V1.0\n", Version::V1_0),
];

/// Detects the version of a bag from its first bytes; returns the version and the offset of
/// the first byte after the version line.
pub fn detect(buf: &[u8]) -> Result<(Version, usize)> {
    if buf.is_empty() {
        return Err(FormatError::new(
            0,
            RecordKind::VersionLine,
            ErrorKind::EmptyFile,
        ));
    }
    if super::mcap::is_mcap(buf) {
        return Ok((Version::Mcap, super::mcap::MAGIC.len()));
    }
    for (line, version) in KNOWN {
        if buf.starts_with(line) {
            return Ok((version, line.len()));
        }
    }
    for prefix in [&b"#ROSBAG V"[..], b"#ROSRECORD V", b"#ROSLOG V"] {
        if buf.starts_with(prefix) {
            let line = buf.split(|&b| b == b'\n').next().unwrap_or_default();
            let shown = line.get(..line.len().min(40)).unwrap_or_default();
            return Err(FormatError::new(
                0,
                RecordKind::VersionLine,
                ErrorKind::UnsupportedVersion(String::from_utf8_lossy(shown).into_owned()),
            ));
        }
    }
    if read_v11_message(buf, 0, 0).is_ok() {
        return Ok((Version::V0, 0));
    }
    Err(FormatError::new(
        0,
        RecordKind::VersionLine,
        ErrorKind::NotABag,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::legacy::encode_v11_message;
    use crate::time::RosTime;

    #[test]
    fn detects_every_version() {
        assert_eq!(detect(b"#ROSBAG V2.0\nxx").unwrap(), (Version::V2_0, 13));
        assert_eq!(detect(b"#ROSRECORD V1.2\n").unwrap(), (Version::V1_2, 16));
        assert_eq!(detect(b"#ROSLOG V1.1\n").unwrap(), (Version::V1_1, 13));
        assert_eq!(
            detect(b"#ROSLOG V1.0\n0000\n").unwrap(),
            (Version::V1_0, 13)
        );
        let mut v0 = Vec::new();
        encode_v11_message(
            &mut v0,
            "/a",
            "992ce8a1687cec8c8bd883ec73ca41d1",
            "std_msgs/String",
            RosTime::new(0, 0),
            b"",
        );
        assert_eq!(detect(&v0).unwrap(), (Version::V0, 0));
    }

    #[test]
    fn refuses_what_is_not_a_bag() {
        assert_eq!(detect(b"").unwrap_err().kind, ErrorKind::EmptyFile);
        assert_eq!(
            detect(b"hello world\n").unwrap_err().kind,
            ErrorKind::NotABag
        );
        assert!(matches!(
            detect(b"#ROSBAG V3.0\n").unwrap_err().kind,
            ErrorKind::UnsupportedVersion(v) if v == "#ROSBAG V3.0"
        ));
    }
}
