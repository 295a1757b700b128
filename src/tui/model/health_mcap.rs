//! The health view's lines about MCAP files: per file its profile and writer, each attachment
//! (name, media type, size, log time) and each metadata record (its name, then its keys and
//! values), as many as the report keeps (the others are counted), every text from the file
//! escaped. Laid out here, wrapped and styled by [`super::health`].

use crate::catalog::health::{HealthReport, McapFacts};
use crate::printable::escape_line;
use crate::time::RosTime;
use crate::tui::text::bytes;
use crate::wording::count;

use super::timefmt::TimeFormat;

/// What a line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A file's first line.
    File,
    /// A heading or an item.
    Item,
    /// A metadata record's key and value, or how many were left out.
    Detail,
}

/// One line before wrapping: its text (indented), its role, the indentation of its
/// continuation lines.
pub type FactLine = (String, Role, usize);

/// How times are shown: the format and the catalog's start.
pub type Times = (TimeFormat, RosTime);

/// The lines about every MCAP file of `report`; `bags` are the bags' paths (`#1`, `#2`, …).
pub fn lines(report: &HealthReport, bags: &[String], times: Times) -> Vec<FactLine> {
    let mut out = Vec::new();
    for f in &report.mcap {
        file_lines(&mut out, f, bags, times);
    }
    out
}

fn file_lines(out: &mut Vec<FactLine>, f: &McapFacts, bags: &[String], (tf, start): Times) {
    let path = bags
        .get(f.bag as usize)
        .map_or(String::new(), |p| format!(" {}", escape_line(p)));
    let profile = if f.profile.is_empty() {
        "no profile".to_string()
    } else {
        format!("profile {}", escape_line(&f.profile))
    };
    let library = if f.library.is_empty() {
        "no writer named".to_string()
    } else {
        format!("written by {}", escape_line(&f.library))
    };
    out.push((
        format!("#{}{path}: MCAP {profile} · {library}", f.bag + 1),
        Role::File,
        4,
    ));
    if f.attachment_count == 0 && f.metadata_count == 0 {
        out.push((
            "    no attachments, no metadata records".to_string(),
            Role::Detail,
            6,
        ));
        return;
    }
    if f.attachment_count > 0 {
        out.push((
            format!("    {}", count(f.attachment_count as u64, "attachment")),
            Role::Item,
            6,
        ));
    }
    for a in &f.attachments {
        let when = a.log_time.map_or(String::new(), |t| {
            format!(" · logged at {}", tf.format(t, start))
        });
        let media = if a.media_type.is_empty() {
            "no media type".to_string()
        } else {
            escape_line(&a.media_type).into_owned()
        };
        out.push((
            format!(
                "      {} · {media} · {}{when}",
                escape_line(&a.name),
                size(a.size)
            ),
            Role::Item,
            8,
        ));
    }
    more(
        out,
        f.attachment_count,
        f.attachments.len(),
        "attachment",
        6,
    );
    if f.metadata_count > 0 {
        out.push((
            format!("    {}", count(f.metadata_count as u64, "metadata record")),
            Role::Item,
            6,
        ));
    }
    for m in &f.metadata {
        let name = if m.name.is_empty() {
            "(no name)".to_string()
        } else {
            escape_line(&m.name).into_owned()
        };
        let pairs = match m.pair_count {
            0 => ": no keys".to_string(),
            _ => String::new(),
        };
        out.push((format!("      {name}{pairs}"), Role::Item, 8));
        for (k, v) in &m.pairs {
            out.push((
                format!("        {}: {}", escape_line(k), escape_line(v)),
                Role::Detail,
                10,
            ));
        }
        more(out, m.pair_count, m.pairs.len(), "key", 8);
    }
    more(
        out,
        f.metadata_count,
        f.metadata.len(),
        "metadata record",
        6,
    );
}

/// `… and N more THINGs (bagscope info lists them all)` when `kept` of `all` were listed.
fn more(out: &mut Vec<FactLine>, all: usize, kept: usize, what: &str, indent: usize) {
    if all > kept {
        out.push((
            format!(
                "{}… and {} (bagscope info lists them all)",
                " ".repeat(indent),
                count((all - kept) as u64, &format!("more {what}"))
            ),
            Role::Detail,
            indent + 2,
        ));
    }
}

/// A size: bytes below 1 KiB, else the short form.
fn size(n: u64) -> String {
    if n < 1024 { count(n, "byte") } else { bytes(n) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::health::{AttachmentFacts, MetadataFacts};

    #[test]
    fn lists_escapes_and_counts_what_is_left_out() {
        let facts = McapFacts {
            bag: 0,
            profile: "ros2".into(),
            library: "evil\u{1b}[2J".into(),
            attachments: vec![AttachmentFacts {
                name: "calib\u{202e}.yaml".into(),
                media_type: "application/yaml".into(),
                size: 2048,
                log_time: None,
            }],
            attachment_count: 3,
            metadata: vec![MetadataFacts {
                name: "rosbag2".into(),
                pairs: vec![("ros_distro".into(), "humble\nx".into())],
                pair_count: 1,
            }],
            metadata_count: 1,
        };
        let report = HealthReport {
            mcap: vec![facts],
            ..HealthReport::default()
        };
        let got = lines(
            &report,
            &["a.mcap".to_string()],
            (TimeFormat::Offset, RosTime::MIN),
        );
        let texts: Vec<&str> = got.iter().map(|l| l.0.as_str()).collect();
        assert_eq!(
            texts,
            [
                "#1 a.mcap: MCAP profile ros2 · written by evil\\u{1b}[2J",
                "    3 attachments",
                "      calib\\u{202e}.yaml · application/yaml · 2.0 KiB",
                "      … and 2 more attachments (bagscope info lists them all)",
                "    1 metadata record",
                "      rosbag2",
                "        ros_distro: humble\\nx",
            ]
        );
    }
}
