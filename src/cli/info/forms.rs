//! The YAML (`rosbag info --yaml` keys) and JSON forms of the `info` summary.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::bag::Bag;
use crate::format::Compression;
use crate::time::RosTime;

use super::summary::Summary;
use crate::cli::json::Json;

impl Summary {
    /// The `rosbag info --yaml` form.
    pub(super) fn yaml(&self, bag: &Bag, shown: &str) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "path: {shown}");
        let _ = writeln!(s, "version: {}", Self::version_text(bag));
        if self.empty {
            let _ = writeln!(s, "size: {}", bag.size());
            let _ = writeln!(s, "indexed: False");
            return s;
        }
        let (start, end) = self
            .info_range
            .map_or((0.0, 0.0), |(a, b)| (a.as_secs_f64(), b.as_secs_f64()));
        let _ = writeln!(s, "duration: {:.6}", end - start);
        let _ = writeln!(s, "start: {start:.6}");
        let _ = writeln!(s, "end: {end:.6}");
        let _ = writeln!(s, "size: {}", bag.size());
        let _ = writeln!(s, "messages: {}", bag.message_count());
        let _ = writeln!(
            s,
            "indexed: {}",
            if bag.is_indexed() { "True" } else { "False" }
        );
        let stats = bag.compression_stats();
        match stats.iter().max_by_key(|c| (c.chunks, c.compression)) {
            None => {
                let _ = writeln!(s, "compression: none");
            }
            Some(main) => {
                let _ = writeln!(s, "compression: {}", main.compression);
                if stats.iter().any(|c| c.compression != Compression::None) {
                    let _ = writeln!(
                        s,
                        "uncompressed: {}",
                        stats.iter().map(|c| c.uncompressed).sum::<u64>()
                    );
                    let _ = writeln!(
                        s,
                        "compressed: {}",
                        stats.iter().map(|c| c.compressed).sum::<u64>()
                    );
                }
            }
        }
        let _ = writeln!(s, "types:");
        for (t, md5) in Self::types(bag) {
            let _ = writeln!(s, "    - type: {t}\n      md5: {md5}");
        }
        let _ = writeln!(s, "topics:");
        for (t, f) in self.topics.iter().zip(&self.freqs) {
            let _ = writeln!(
                s,
                "    - topic: {}\n      type: {}\n      messages: {}",
                t.topic, t.datatype, t.message_count
            );
            if t.connections.len() > 1 {
                let _ = writeln!(s, "      connections: {}", t.connections.len());
            }
            if let Some(f) = f {
                let _ = writeln!(s, "      frequency: {f:.4}");
            }
        }
        s
    }

    /// The JSON form (docs/JSON.md).
    pub(super) fn json(&self, bag: &Bag, shown: &str) -> Json {
        let time = |t: Option<RosTime>| {
            t.map_or(Json::Null, |t| {
                Json::obj([
                    ("sec", Json::Int(t.sec.into())),
                    ("nsec", Json::Int(t.nsec.into())),
                ])
            })
        };
        let (start, end) = (self.range.map(|r| r.0), self.range.map(|r| r.1));
        let duration = self.range.map_or(Json::Null, |(s, e)| {
            Json::Num(e.nanos_since(s) as f64 / 1e9)
        });
        let compression = Json::Obj(
            bag.compression_stats()
                .iter()
                .map(|c| (c.compression.to_string(), Json::Int(c.chunks.into())))
                .collect(),
        );
        let mut types: Vec<(String, String)> = bag
            .connections()
            .iter()
            .map(|c| (c.datatype.clone(), c.md5sum.clone()))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        types.sort();
        let topics = self
            .topics
            .iter()
            .zip(&self.freqs)
            .map(|(t, f)| {
                let first = t.connections.first().and_then(|&c| bag.connection(c));
                Json::obj([
                    ("topic", Json::str(&t.topic)),
                    ("type", Json::str(&t.datatype)),
                    (
                        "md5sum",
                        Json::str(first.map(|c| c.md5sum.clone()).unwrap_or_default()),
                    ),
                    ("messages", Json::Int(t.message_count.into())),
                    ("connections", Json::Int(t.connections.len() as i128)),
                    ("frequency", f.map_or(Json::Null, Json::Num)),
                    ("conflicting_types", Json::Bool(t.conflicting_types)),
                ])
            })
            .collect();
        let mut pairs = vec![
            ("path", Json::str(shown)),
            ("version", Json::str(bag.version().as_str())),
            ("size", Json::Int(bag.size().into())),
            ("indexed", Json::Bool(bag.is_indexed())),
            ("start", time(start)),
            ("end", time(end)),
            ("duration", duration),
            ("messages", Json::Int(bag.message_count().into())),
            (
                "chunks",
                Json::Int(bag.chunks().iter().filter(|c| c.is_record()).count() as i128),
            ),
            ("compression", compression),
            (
                "types",
                Json::Arr(
                    types
                        .into_iter()
                        .map(|(t, m)| Json::obj([("type", Json::Str(t)), ("md5sum", Json::Str(m))]))
                        .collect(),
                ),
            ),
            ("topics", Json::Arr(topics)),
            ("info_start", time(self.info_range.map(|r| r.0))),
            ("info_end", time(self.info_range.map(|r| r.1))),
        ];
        if let Some(r) = bag.recovery() {
            pairs.push((
                "recovery",
                Json::obj([
                    ("reason", Json::str(&r.reason)),
                    ("complete_chunks", Json::Int(r.complete_chunks.into())),
                    ("partial_chunks", Json::Int(r.partial_chunks.into())),
                    (
                        "losses",
                        Json::Arr(
                            r.losses
                                .iter()
                                .map(|l| {
                                    Json::obj([
                                        ("offset", Json::Int(l.offset.into())),
                                        ("bytes", Json::Int(l.bytes.into())),
                                        (
                                            "messages",
                                            l.messages.map_or(Json::Null, |m| Json::Int(m.into())),
                                        ),
                                        ("reason", Json::str(&l.reason)),
                                    ])
                                })
                                .collect(),
                        ),
                    ),
                    (
                        "unfinished",
                        r.unfinished.as_ref().map_or(Json::Null, |u| {
                            Json::obj([
                                ("offset", Json::Int(u.offset.into())),
                                ("bytes", Json::Int(u.bytes.into())),
                                ("note", Json::str(u.to_string())),
                            ])
                        }),
                    ),
                ]),
            ));
        }
        pairs.push((
            "warnings",
            Json::Arr(
                bag.warnings()
                    .iter()
                    .map(|w| {
                        Json::obj([
                            (
                                "offset",
                                w.offset.map_or(Json::Null, |o| Json::Int(o.into())),
                            ),
                            ("message", Json::str(&w.message)),
                        ])
                    })
                    .collect(),
            ),
        ));
        Json::obj(pairs)
    }
}
