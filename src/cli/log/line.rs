//! One log message as `bagscope log` prints it: a line of text as rosconsole prints it
//! (`[ WARN] [1700000000.123456789] [/planner]: no path`, coloured by level on a terminal; a
//! ROS 2 message alike, its logger name as written: `[talker]`) or one JSON object with every
//! field of its type. Everything from the bag is escaped, newlines included,
//! so that each message is one line.

use std::fmt::Write as _;

use crate::catalog::log::LogLevel;
use crate::catalog::log_record::{LogKind, LogRecord};
use crate::cli::json::write_string;
use crate::printable::{escape_bytes, escape_line};
use crate::time::RosTime;

use super::args::LogFormat;

/// How the lines look.
#[derive(Clone, Copy, Debug)]
pub struct LineStyle {
    /// Text or JSON.
    pub format: LogFormat,
    /// With `file:line (function)` and the node's topics (text; JSON always has them).
    pub verbose: bool,
    /// Colour by level (text on a terminal without `NO_COLOR`).
    pub colour: bool,
}

/// Whether `log` colours its text: standard output is a terminal and `NO_COLOR` is unset or
/// empty (<https://no-color.org>).
pub fn colour_wanted() -> bool {
    std::io::IsTerminal::is_terminal(&std::io::stdout())
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// The level as rosconsole prints it between brackets, five wide: `DEBUG`, ` INFO`, ` WARN`,
/// `ERROR`, `FATAL`.
fn padded(level: LogLevel) -> &'static str {
    match level {
        LogLevel::Debug => "DEBUG",
        LogLevel::Info => " INFO",
        LogLevel::Warn => " WARN",
        LogLevel::Error => "ERROR",
        LogLevel::Fatal => "FATAL",
    }
}

/// The colour of a level's lines, as rosconsole's (FATAL bold); `None` for INFO.
fn colour(level: LogLevel) -> Option<&'static str> {
    match level {
        LogLevel::Debug => Some("\x1b[32m"),
        LogLevel::Info => None,
        LogLevel::Warn => Some("\x1b[33m"),
        LogLevel::Error => Some("\x1b[31m"),
        LogLevel::Fatal => Some("\x1b[1;31m"),
    }
}

/// Appends `bytes` escaped for one line: control characters, bidirectional overrides and
/// newlines escaped (`\u{1b}`, `\n`), bytes that are not UTF-8 as `\xNN`.
fn push_line(out: &mut String, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(s) => out.push_str(&escape_line(s)),
        // The escapes of `escape_bytes` hold no newline: the raw ones left are the text's.
        Err(_) => out.push_str(&escape_bytes(bytes).replace('\n', "\\n")),
    }
}

/// Appends a `{"sec":…,"nsec":…}` object.
fn push_time(out: &mut String, t: RosTime) {
    let _ = write!(out, "{{\"sec\":{},\"nsec\":{}}}", t.sec, t.nsec);
}

/// Appends a JSON string of `bytes` (not UTF-8: U+FFFD, as every JSON output).
fn push_json_str(out: &mut String, bytes: &[u8]) {
    write_string(out, &String::from_utf8_lossy(bytes));
}

impl LineStyle {
    /// Appends the line of `record`, received at `time` on `topic`, newline included.
    pub fn push(self, out: &mut String, topic: &str, time: RosTime, record: &LogRecord<'_>) {
        match self.format {
            LogFormat::Text => self.push_text(out, record),
            LogFormat::Json => push_json(out, topic, time, record),
        }
        out.push('\n');
    }

    fn push_text(self, out: &mut String, r: &LogRecord<'_>) {
        let level = LogLevel::of(r);
        let colour = colour(level).filter(|_| self.colour);
        if let Some(c) = colour {
            out.push_str(c);
        }
        let _ = write!(out, "[{}] [{}] [", padded(level), r.stamp);
        push_line(out, r.name);
        out.push(']');
        if self.verbose {
            let origin = r.origin();
            if !origin.is_empty() {
                out.push_str(" [");
                out.push_str(&escape_line(&origin));
                out.push(']');
            }
            if !r.topics.is_empty() {
                out.push_str(" [");
                for (i, t) in r.topics.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    push_line(out, t);
                }
                out.push(']');
            }
        }
        out.push_str(": ");
        push_line(out, r.msg);
        if colour.is_some() {
            out.push_str("\x1b[0m");
        }
    }
}

/// Appends the JSON object of a record: `topic`, `time` (receive time), `stamp`, `seq`,
/// `frame_id`, `level` (the name), `level_number` (as written), `node`, `msg`, `file`,
/// `function`, `line`, `topics`; a ROS 2 record has no `seq`, `frame_id` or `topics` (its
/// type has none).
fn push_json(out: &mut String, topic: &str, time: RosTime, r: &LogRecord<'_>) {
    out.push_str("{\"topic\":");
    write_string(out, topic);
    out.push_str(",\"time\":");
    push_time(out, time);
    out.push_str(",\"stamp\":");
    push_time(out, r.stamp);
    if r.kind == LogKind::Ros1 {
        let _ = write!(out, ",\"seq\":{},\"frame_id\":", r.seq);
        push_json_str(out, r.frame_id);
    }
    let _ = write!(
        out,
        ",\"level\":\"{}\",\"level_number\":{},\"node\":",
        LogLevel::of(r).name(),
        r.level
    );
    push_json_str(out, r.name);
    out.push_str(",\"msg\":");
    push_json_str(out, r.msg);
    out.push_str(",\"file\":");
    push_json_str(out, r.file);
    out.push_str(",\"function\":");
    push_json_str(out, r.function);
    let _ = write!(out, ",\"line\":{}", r.line);
    if r.kind == LogKind::Ros1 {
        out.push_str(",\"topics\":[");
        for (i, t) in r.topics.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_json_str(out, t);
        }
        out.push(']');
    }
    out.push('}');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> LogRecord<'static> {
        LogRecord {
            kind: LogKind::Ros1,
            seq: 7,
            stamp: RosTime::new(1_700_000_000, 123_456_789),
            frame_id: b"",
            level: 4,
            name: b"/planner",
            msg: b"no path\nto \x1b[2Jgoal \xe2\x80\xae!",
            file: b"planner.cpp",
            function: b"plan",
            line: 42,
            topics: vec![b"/rosout", b"/path"],
        }
    }

    fn text(style: LineStyle) -> String {
        let mut out = String::new();
        style.push(&mut out, "/rosout", RosTime::new(5, 6), &record());
        out
    }

    #[test]
    fn text_lines_are_escaped_one_liners() {
        let plain = LineStyle {
            format: LogFormat::Text,
            verbose: false,
            colour: false,
        };
        assert_eq!(
            text(plain),
            "[ WARN] [1700000000.123456789] [/planner]: no path\\nto \\u{1b}[2Jgoal \\u{202e}!\n"
        );
        let verbose = LineStyle {
            verbose: true,
            colour: true,
            ..plain
        };
        assert_eq!(
            text(verbose),
            "\x1b[33m[ WARN] [1700000000.123456789] [/planner] [planner.cpp:42 (plan)] \
             [/rosout, /path]: no path\\nto \\u{1b}[2Jgoal \\u{202e}!\x1b[0m\n"
        );
        let mut out = String::new();
        let mut r = record();
        r.msg = b"bad \xff\nutf8";
        r.level = 2;
        plain.push(&mut out, "/rosout", RosTime::new(0, 0), &r);
        assert_eq!(
            out,
            "[ INFO] [1700000000.123456789] [/planner]: bad \\xff\\nutf8\n"
        );
    }

    #[test]
    fn json_has_every_field() {
        let json = LineStyle {
            format: LogFormat::Json,
            verbose: false,
            colour: true,
        };
        assert_eq!(
            text(json),
            concat!(
                r#"{"topic":"/rosout","time":{"sec":5,"nsec":6},"stamp":{"sec":1700000000,"nsec":123456789},"#,
                r#""seq":7,"frame_id":"","level":"WARN","level_number":4,"node":"/planner","#,
                r#""msg":"no path\nto \u001b[2Jgoal \u202e!","file":"planner.cpp","function":"plan","#,
                r#""line":42,"topics":["/rosout","/path"]}"#,
                "\n"
            )
        );
    }

    #[test]
    fn levels_pad_as_rosconsole() {
        let names: Vec<&str> = LogLevel::ALL.iter().map(|l| padded(*l)).collect();
        assert_eq!(names, ["DEBUG", " INFO", " WARN", "ERROR", "FATAL"]);
    }

    /// A ROS 2 `rcl_interfaces/msg/Log`: its levels (10 … 50) shown as ROS1's, its logger
    /// name as written, and in JSON only the fields its type has.
    #[test]
    fn ros2_records_keep_their_fields() {
        let r = LogRecord {
            kind: LogKind::Ros2,
            stamp: RosTime::new(1_700_000_000, 5),
            level: 30,
            name: b"talker",
            msg: b"Publishing: 'Hello'",
            file: b"talker.cpp",
            function: b"on_timer",
            line: 7,
            ..LogRecord::default()
        };
        let mut out = String::new();
        let plain = LineStyle {
            format: LogFormat::Text,
            verbose: true,
            colour: false,
        };
        plain.push(&mut out, "/rosout", RosTime::new(5, 6), &r);
        assert_eq!(
            out,
            "[ WARN] [1700000000.000000005] [talker] [talker.cpp:7 (on_timer)]: Publishing: 'Hello'\n"
        );
        out.clear();
        let json = LineStyle {
            format: LogFormat::Json,
            ..plain
        };
        json.push(&mut out, "/rosout", RosTime::new(5, 6), &r);
        assert_eq!(
            out,
            concat!(
                r#"{"topic":"/rosout","time":{"sec":5,"nsec":6},"stamp":{"sec":1700000000,"nsec":5},"#,
                r#""level":"WARN","level_number":30,"node":"talker","msg":"Publishing: 'Hello'","#,
                r#""file":"talker.cpp","function":"on_timer","line":7}"#,
                "\n"
            )
        );
        for (level, name) in [
            (10, "DEBUG"),
            (20, "INFO"),
            (40, "ERROR"),
            (50, "FATAL"),
            (0, "DEBUG"),
        ] {
            out.clear();
            json.push(
                &mut out,
                "/rosout",
                RosTime::new(0, 0),
                &LogRecord { level, ..r.clone() },
            );
            assert!(
                out.contains(&format!(r#""level":"{name}","level_number":{level},"#)),
                "{out}"
            );
        }
    }
}
