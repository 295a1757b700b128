//! The MCAP conformance suite (foxglove/mcap `tests/conformance/data`; the selection in
//! `../shared/corpus-mcap/conformance/`): every case, opened through [`Bag::open`], gives the
//! *indexed read* its `.json` implies (README there, "How a reader is checked"): the channels
//! as connections (topic, message encoding, schema name, encoding and data, the channel id as
//! the file id), every message in log-time order (ties in file order) with its log time,
//! channel and bytes, the statistics' counts, and the attachments and metadata records of
//! [`Bag::mcap`]. A case with a usable summary opens without a scan; every other case opens by
//! a scan that loses nothing. Every failing case is listed, not only the first.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use bagscope::bag::{Bag, Query};
use serde_json::Value;

use crate::common::skip;

/// `../shared/corpus-mcap` (or `$BAGSCOPE_CORPUS_MCAP`), if present.
pub(crate) fn corpus_mcap() -> Option<PathBuf> {
    let dir = std::env::var_os("BAGSCOPE_CORPUS_MCAP")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus-mcap"));
    dir.is_dir().then_some(dir)
}

/// Every conformance case: `(NAME.mcap, NAME.json)`, sorted.
pub(crate) fn cases() -> Vec<(PathBuf, PathBuf)> {
    let Some(dir) = corpus_mcap() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let Ok(families) = std::fs::read_dir(dir.join("conformance")) else {
        return out;
    };
    for family in families.flatten() {
        let Ok(files) = std::fs::read_dir(family.path()) else {
            continue;
        };
        for f in files.flatten() {
            let p = f.path();
            if p.extension().is_some_and(|x| x == "mcap") {
                let json = p.with_extension("json");
                if json.exists() {
                    out.push((p, json));
                }
            }
        }
    }
    out.sort();
    out
}

/// A channel as the `.json` lists it.
#[derive(Debug)]
struct Chan {
    topic: String,
    encoding: String,
    schema_id: u16,
    metadata: BTreeMap<String, String>,
}

/// An attachment as the `.json` lists it: name, media type, size, log and create time.
type Att = (String, String, u64, u64, u64);

/// The indexed read a case's `.json` implies.
#[derive(Debug, Default)]
struct Expected {
    schemas: BTreeMap<u16, (String, String, Vec<u8>)>,
    channels: BTreeMap<u16, Chan>,
    /// `(log time, channel id, data)` in log-time order, ties in file order.
    messages: Vec<(u64, u16, Vec<u8>)>,
    /// The statistics' message count and per-channel counts.
    statistics: Option<(u64, BTreeMap<u16, u64>)>,
    attachments: Vec<Att>,
    metadata: Vec<(String, BTreeMap<String, String>)>,
    summary_start: u64,
    features: Vec<String>,
}

fn field<'a>(record: &'a Value, name: &str) -> &'a Value {
    record["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f[0] == name)
        .map(|f| &f[1])
        .unwrap_or_else(|| panic!("no field {name} in {record}"))
}

fn int(v: &Value) -> u64 {
    v.as_str().unwrap().parse().unwrap()
}

fn bytes(v: &Value) -> Vec<u8> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|b| u8::try_from(int(b)).unwrap())
        .collect()
}

fn strings(v: &Value) -> BTreeMap<String, String> {
    v.as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
        .collect()
}

fn expected(json: &Path) -> Expected {
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    let mut e = Expected {
        features: doc["meta"]["variant"]["features"]
            .as_array()
            .map(|a| a.iter().map(|f| f.as_str().unwrap().to_string()).collect())
            .unwrap_or_default(),
        ..Expected::default()
    };
    for r in doc["records"].as_array().unwrap() {
        match r["type"].as_str().unwrap() {
            "Schema" => {
                let id = int(field(r, "id")) as u16;
                e.schemas.entry(id).or_insert((
                    field(r, "name").as_str().unwrap().to_string(),
                    field(r, "encoding").as_str().unwrap().to_string(),
                    bytes(field(r, "data")),
                ));
            }
            "Channel" => {
                let id = int(field(r, "id")) as u16;
                e.channels.entry(id).or_insert(Chan {
                    topic: field(r, "topic").as_str().unwrap().to_string(),
                    encoding: field(r, "message_encoding").as_str().unwrap().to_string(),
                    schema_id: int(field(r, "schema_id")) as u16,
                    metadata: strings(field(r, "metadata")),
                });
            }
            "Message" => e.messages.push((
                int(field(r, "log_time")),
                int(field(r, "channel_id")) as u16,
                bytes(field(r, "data")),
            )),
            "Statistics" => {
                let per = field(r, "channel_message_counts")
                    .as_object()
                    .unwrap()
                    .iter()
                    .map(|(k, v)| (k.parse().unwrap(), int(v)))
                    .collect();
                e.statistics = Some((int(field(r, "message_count")), per));
            }
            "Attachment" => e.attachments.push((
                field(r, "name").as_str().unwrap().to_string(),
                field(r, "media_type").as_str().unwrap().to_string(),
                bytes(field(r, "data")).len() as u64,
                int(field(r, "log_time")),
                int(field(r, "create_time")),
            )),
            "Metadata" => e.metadata.push((
                field(r, "name").as_str().unwrap().to_string(),
                strings(field(r, "metadata")),
            )),
            "Footer" => e.summary_start = int(field(r, "summary_start")),
            _ => {}
        }
    }
    // Log-time order, ties in file order (a stable sort).
    e.messages.sort_by_key(|m| m.0);
    e
}

impl Expected {
    fn has(&self, feature: &str) -> bool {
        self.features.iter().any(|f| f == feature)
    }

    /// True when the summary alone can open the file: it has one, and every message is in
    /// a chunk that the chunk index lists with its message indexes, the summary repeating
    /// the channels and their schemas (else they are inside the chunks) — or the statistics
    /// say there are no messages.
    fn summary_usable(&self) -> bool {
        if self.summary_start == 0 {
            return false;
        }
        if self.messages.is_empty() {
            return self.statistics.is_some() || self.has("chx");
        }
        let schemaless = self.channels.values().all(|c| c.schema_id == 0);
        self.has("ch")
            && self.has("chx")
            && self.has("mx")
            && self.has("rch")
            && (schemaless || self.has("rsh"))
    }
}

/// The channels as connections.
fn check_channels(bag: &Bag, e: &Expected, bad: &mut Vec<String>) {
    // Channels: one connection per channel, the channel id as its file id.
    let conns = bag.connections();
    if conns.len() != e.channels.len() {
        bad.push(format!(
            "{} connections, {} channels",
            conns.len(),
            e.channels.len()
        ));
    }
    for (&id, ch) in &e.channels {
        let Some(c) = conns.iter().find(|c| c.file_id == u32::from(id)) else {
            bad.push(format!("channel {id} ({}) missing", ch.topic));
            continue;
        };
        let (name, encoding, data) = e.schemas.get(&ch.schema_id).cloned().unwrap_or_default();
        if ch.schema_id != 0 && !e.schemas.contains_key(&ch.schema_id) {
            bad.push(format!("channel {id}: schema {} not listed", ch.schema_id));
        }
        let got = (
            c.topic.as_str(),
            c.message_encoding.as_str(),
            c.datatype.as_str(),
            c.schema_encoding.as_str(),
            c.message_definition.as_bytes(),
        );
        let want = (
            ch.topic.as_str(),
            ch.encoding.as_str(),
            name.as_str(),
            encoding.as_str(),
            data.as_slice(),
        );
        if got != want {
            bad.push(format!("channel {id}: got {got:?}, want {want:?}"));
        }
        // The channel metadata bagscope keeps: a ros1 channel's md5sum, callerid, latching.
        for (key, kept) in [
            ("md5sum", Some(c.md5sum.as_str())),
            ("callerid", c.callerid.as_deref()),
            ("latching", c.latching.as_deref()),
        ] {
            if let Some(v) = ch.metadata.get(key) {
                if kept != Some(v.as_str()) {
                    bad.push(format!("channel {id}: metadata {key}={v}, kept {kept:?}"));
                }
            }
        }
    }
}

/// Attachments and metadata records.
fn check_extras(bag: &Bag, e: &Expected, bad: &mut Vec<String>) {
    // Attachments and metadata.
    match bag.mcap() {
        None => bad.push("no McapInfo".into()),
        Some(info) => {
            let atts: Vec<Att> = info
                .attachments
                .iter()
                .map(|a| {
                    (
                        a.name.clone(),
                        a.media_type.clone(),
                        a.size,
                        a.log_time,
                        a.create_time,
                    )
                })
                .collect();
            if atts != e.attachments {
                bad.push(format!("attachments {atts:?}, want {:?}", e.attachments));
            }
            let meta: Vec<(String, BTreeMap<String, String>)> = info
                .metadata
                .iter()
                .map(|m| (m.name.clone(), m.entries.clone()))
                .collect();
            if meta != e.metadata {
                bad.push(format!("metadata {meta:?}, want {:?}", e.metadata));
            }
        }
    }
}

/// What differs between the case and our reading of it (empty: it passes).
fn check(mcap: &Path, e: &Expected) -> Vec<String> {
    let mut bad = Vec::new();
    let bag = match Bag::open(mcap) {
        Ok(b) => b,
        Err(err) => return vec![format!("does not open: {err}")],
    };
    check_channels(&bag, e, &mut bad);
    // Messages, in our order: it must be log-time order, ties in file order.
    let mut got = Vec::new();
    for m in bag.messages(&Query::all()) {
        match m {
            Ok(m) => {
                let ch = bag.connection(m.entry.conn).map_or(u32::MAX, |c| c.file_id);
                got.push((m.entry.time.as_nanos(), ch as u16, m.data.to_vec()));
            }
            Err(err) => bad.push(format!("a message does not read: {err}")),
        }
    }
    if got != e.messages {
        bad.push(format!("messages: got {got:?}, want {:?}", e.messages));
    }
    // Statistics (or, without them, the messages the file holds).
    let (total, per) = e.statistics.clone().unwrap_or_else(|| {
        let mut per = BTreeMap::new();
        for m in &e.messages {
            *per.entry(m.1).or_default() += 1;
        }
        (e.messages.len() as u64, per)
    });
    if bag.message_count() != total {
        bad.push(format!(
            "message count {}, statistics {total}",
            bag.message_count()
        ));
    }
    for c in bag.connections() {
        let want = per.get(&(c.file_id as u16)).copied().unwrap_or(0);
        if c.message_count != want {
            bad.push(format!(
                "channel {}: {} messages counted, {want} in the statistics",
                c.file_id, c.message_count
            ));
        }
    }
    check_extras(&bag, e, &mut bad);
    // From the summary without a scan, or by a scan that loses nothing.
    match bag.recovery() {
        None if !e.summary_usable() => {
            bad.push("opened without a scan, but the summary cannot be enough".into());
        }
        Some(r) if e.summary_usable() => {
            bad.push(format!("scanned despite a usable summary: {}", r.reason));
        }
        Some(r) if !r.losses.is_empty() => {
            let losses: Vec<String> = r.losses.iter().map(ToString::to_string).collect();
            bad.push(format!("the scan lost: {losses:?} ({})", r.reason));
        }
        _ => {}
    }
    let warnings = bag.warnings();
    if !warnings.is_empty() {
        bad.push(format!("warnings on a valid file: {warnings:?}"));
    }
    bad
}

#[test]
fn every_conformance_case_reads_as_its_json_says() {
    let cases = cases();
    if cases.is_empty() {
        skip("../shared/corpus-mcap/conformance absent (or $BAGSCOPE_CORPUS_MCAP unset)");
        return;
    }
    let mut failures = Vec::new();
    let (mut from_summary, mut scanned) = (0, 0);
    for (mcap, json) in &cases {
        let e = expected(json);
        let bad = check(mcap, &e);
        if e.summary_usable() {
            from_summary += 1;
        } else {
            scanned += 1;
        }
        if !bad.is_empty() {
            let name = mcap.file_stem().unwrap().to_string_lossy().into_owned();
            failures.push(format!("{name}:\n  {}", bad.join("\n  ")));
        }
    }
    println!(
        "{} conformance cases: {from_summary} open from their summary, {scanned} by a scan",
        cases.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} cases fail:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn ten_messages_keep_file_order_on_a_tie() {
    // TenMessages logs 0,2,1,3,3,5,4,7,8,9: the two at 3 are sequences 3 and 4, in that order.
    let Some(dir) = corpus_mcap() else {
        skip("../shared/corpus-mcap absent");
        return;
    };
    for name in [
        "TenMessages",
        "TenMessages-ch-chx-mx-st-sum",
        "TenMessages-ch",
    ] {
        let path = dir.join(format!("conformance/TenMessages/{name}.mcap"));
        if !path.exists() {
            continue;
        }
        let bag = Bag::open(&path).unwrap();
        // (time, chunk, offset): chunks and offsets grow in file order.
        let sequences: Vec<(u64, u32, u64)> = bag
            .messages(&Query::all())
            .map(|m| {
                let m = m.unwrap();
                (m.entry.time.as_nanos(), m.entry.chunk, m.entry.offset)
            })
            .collect();
        let times: Vec<u64> = sequences.iter().map(|s| s.0).collect();
        assert_eq!(times, [0, 1, 2, 3, 3, 4, 5, 7, 8, 9], "{name}");
        // File order on the tie: the first of the two at 3 lies before the second.
        let ties: Vec<(u32, u64)> = sequences
            .iter()
            .filter(|s| s.0 == 3)
            .map(|s| (s.1, s.2))
            .collect();
        assert!(ties[0] < ties[1], "{name}: {ties:?}");
    }
}

/// Messages of two channels at the same log time: bagscope's order is (time, channel id,
/// place in the file) — the order it reads bags in — so the tie goes by channel, not by file
/// order (which the conformance suite, with one channel, cannot tell apart).
#[test]
fn ties_across_channels_go_by_channel_then_file_order() {
    fn record(out: &mut Vec<u8>, op: u8, body: &[u8]) {
        out.push(op);
        out.extend((body.len() as u64).to_le_bytes());
        out.extend(body);
    }
    fn string(b: &mut Vec<u8>, s: &str) {
        b.extend((s.len() as u32).to_le_bytes());
        b.extend(s.as_bytes());
    }
    let mut f = b"\x89MCAP0\r\n".to_vec();
    let mut h = Vec::new();
    string(&mut h, "");
    string(&mut h, "");
    record(&mut f, 0x01, &h);
    for (id, topic) in [(2u16, "/b"), (1, "/a")] {
        let mut c = Vec::new();
        c.extend(id.to_le_bytes());
        c.extend(0u16.to_le_bytes());
        string(&mut c, topic);
        string(&mut c, "text");
        c.extend(0u32.to_le_bytes());
        record(&mut f, 0x04, &c);
    }
    // In the file: /b at 5, /a at 5, /b at 5, /a at 4.
    for (ch, time, data) in [
        (2u16, 5u64, b"b1"),
        (1, 5, b"a1"),
        (2, 5, b"b2"),
        (1, 4, b"a0"),
    ] {
        let mut m = Vec::new();
        m.extend(ch.to_le_bytes());
        m.extend(0u32.to_le_bytes());
        m.extend(time.to_le_bytes());
        m.extend(time.to_le_bytes());
        m.extend(data);
        record(&mut f, 0x05, &m);
    }
    record(&mut f, 0x0F, &0u32.to_le_bytes());
    record(&mut f, 0x02, &[0; 20]);
    f.extend(b"\x89MCAP0\r\n");
    let bag = Bag::from_bytes("ties.mcap", f, bagscope::bag::OpenOptions::default()).unwrap();
    let order: Vec<Vec<u8>> = bag
        .messages(&Query::all())
        .map(|m| m.unwrap().data.to_vec())
        .collect();
    assert_eq!(order, [&b"a0"[..], b"a1", b"b1", b"b2"]);
}
