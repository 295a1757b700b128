//! An MCAP file being written, told from one cut off: a scan that ends at a record cut by the
//! end of the file (or without the data end record) reports a loss; when a process holds the
//! file open for writing, that end is the record the writer is writing — unfinished, not
//! lost (as the end of a `.bag.active` is). MCAP files have no `.active` name to tell them by.

use crate::bag::follow::{Writer, find_writer};
use crate::bag::opened::Opened;
use crate::bag::recovery::{Unfinished, Writing};
use crate::bag::source::Source;

/// Turns the scan's loss at the end of `source` into the unfinished end of a recording when a
/// process holds the file open for writing. Looks in `/proc` only when the scan's last loss
/// is at the end of the file.
pub(crate) fn note_being_written(source: &Source, opened: &mut Opened) {
    let len = source.len();
    let Some(stamp) = source.stamp() else {
        return;
    };
    let Some(recovery) = opened.recovery.as_mut() else {
        return;
    };
    let at_end = recovery
        .losses
        .last()
        .is_some_and(|l| l.offset.saturating_add(l.bytes) >= len && l.messages.is_none());
    if !at_end || find_writer((stamp.dev, stamp.ino)) != Writer::Found {
        return;
    }
    let Some(last) = recovery.losses.pop() else {
        return;
    };
    recovery.unfinished = Some(Unfinished {
        offset: last.offset.min(len),
        bytes: len.saturating_sub(last.offset),
        what: Writing::Record,
    });
    recovery.reason = format!(
        "{}; it is being written (a process holds it open for writing)",
        recovery.reason
    );
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use crate::bag::handle::Bag;

    /// A file cut before its data end: lost when nobody writes it, unfinished while this
    /// process holds it open for writing.
    #[test]
    fn a_file_held_open_for_writing_is_unfinished_not_lost() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = mcap::WriteOptions::new()
            .use_chunks(false)
            .create(std::io::Cursor::new(Vec::new()))
            .unwrap();
        let ch = w
            .add_channel(0, "/a", "json", &std::collections::BTreeMap::new())
            .unwrap();
        for i in 0..5u32 {
            let h = mcap::records::MessageHeader {
                channel_id: ch,
                sequence: i,
                log_time: u64::from(i),
                publish_time: 0,
            };
            w.write_to_known_channel(&h, b"{}").unwrap();
        }
        w.finish().unwrap();
        let full = w.into_inner().into_inner();
        let cut = &full[..full.len() / 2];
        let path = dir.path().join("cut.mcap");
        std::fs::write(&path, cut).unwrap();
        let bag = Bag::open(&path).unwrap();
        let r = bag.recovery().unwrap();
        assert!(!r.losses.is_empty() && r.unfinished.is_none(), "{r:?}");

        // The same bytes, in a file another process holds open for writing (`/proc` is looked
        // through for other processes only).
        let live = dir.path().join("live.mcap");
        let mut child = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("exec 3>>'{}'; sleep 30", live.display()))
            .spawn()
            .unwrap();
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&live)
            .unwrap();
        f.write_all(cut).unwrap();
        drop(f);
        let start = std::time::Instant::now();
        let mut seen = false;
        while start.elapsed() < std::time::Duration::from_secs(10) {
            let bag = Bag::open(&live).unwrap();
            let r = bag.recovery().unwrap();
            if r.unfinished.is_some() {
                assert!(r.losses.is_empty(), "{r:?}");
                assert!(r.reason.contains("being written"), "{r:?}");
                seen = true;
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
        assert!(
            seen,
            "the shell holding the file open was not seen as its writer"
        );
    }
}
