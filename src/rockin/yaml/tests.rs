//! The event streams of the constructs RoCKIn files use, and where errors point.

use super::*;

/// Events in the yaml-test-suite notation: `+SEQ`, `+MAP`, `=VAL :text` (`'`/`"`/`|`/`>`
/// for quoted and block styles, `<!!tag>` before), `-MAP`, `-SEQ`; `@L:C` after starts.
fn events(text: &str) -> Vec<String> {
    let mut p = Parser::new(text.as_bytes(), Limits::default());
    let mut out = Vec::new();
    loop {
        let e = p.next_event().unwrap_or_else(|e| panic!("{e}\n{text}"));
        let tag = |t: &Option<Tag>| {
            t.as_ref()
                .map(|t| format!("<{}> ", t.text))
                .unwrap_or_default()
        };
        out.push(match &e {
            Event::SeqStart { mark, tag: t } => {
                format!("+SEQ {}@{}:{}", tag(t), mark.line, mark.column)
            }
            Event::MapStart { mark, tag: t } => {
                format!("+MAP {}@{}:{}", tag(t), mark.line, mark.column)
            }
            Event::SeqEnd { .. } => "-SEQ".to_string(),
            Event::MapEnd { .. } => "-MAP".to_string(),
            Event::Scalar(s) => {
                let style = match s.style {
                    Style::Plain => ':',
                    Style::SingleQuoted => '\'',
                    Style::DoubleQuoted => '"',
                    Style::Literal => '|',
                    Style::Folded => '>',
                };
                format!(
                    "={} {}{}{}",
                    s.mark.line * 1000 + s.mark.column,
                    tag(&s.tag),
                    style,
                    s.text
                )
            }
            Event::StreamEnd { .. } => break,
        });
    }
    out
}

fn error(text: &str) -> (Mark, String) {
    let mut p = Parser::new(text.as_bytes(), Limits::default());
    loop {
        match p.next_event() {
            Ok(Event::StreamEnd { .. }) => panic!("no error in\n{text}"),
            Ok(_) => {}
            Err(e) => return (e.mark, e.kind.to_string()),
        }
    }
}

#[test]
fn the_spec_example() {
    let text = "- topic: pose2d\n  secs: 1\n  message:\n   x: 5.5\n   data:\n     !!binary JaU8\n     JY0k\n- topic: image\n";
    assert_eq!(
        events(text),
        [
            "+SEQ @1:1",
            "+MAP @1:3",
            "=1003 :topic",
            "=1010 :pose2d",
            "=2003 :secs",
            "=2009 :1",
            "=3003 :message",
            "+MAP @4:4",
            "=4004 :x",
            "=4007 :5.5",
            "=5004 :data",
            "=6015 <!!binary> :JaU8 JY0k",
            "-MAP",
            "-MAP",
            "+MAP @8:3",
            "=8003 :topic",
            "=8010 :image",
            "-MAP",
            "-SEQ",
        ]
    );
}

#[test]
fn sequences_under_keys_at_either_indentation() {
    let indented = "poses:\n  - a: 1\n    b: 2\n  - a: 3\nnext: x\n";
    let indentless = "poses:\n- a: 1\n  b: 2\n- a: 3\nnext: x\n";
    let expected = [
        "+MAP @1:1",
        "=1001 :poses",
        "+SEQ @2:3",
        "+MAP @2:5",
        "=2005 :a",
        "=2008 :1",
        "=3005 :b",
        "=3008 :2",
        "-MAP",
        "+MAP @4:5",
        "=4005 :a",
        "=4008 :3",
        "-MAP",
        "-SEQ",
        "=5001 :next",
        "=5007 :x",
        "-MAP",
    ];
    assert_eq!(events(indented), expected);
    let got = events(indentless);
    assert_eq!(got.len(), expected.len());
    assert_eq!(got[2], "+SEQ @2:1");
    assert_eq!(got[got.len() - 3], "=5001 :next");
}

#[test]
fn flow_collections_over_lines() {
    assert_eq!(
        events("data: [0, 128,\n  63]  # bytes\nt: {secs: 1, nsecs: 2}\ne: []\nm: {a, b: }\n"),
        [
            "+MAP @1:1",
            "=1001 :data",
            "+SEQ @1:7",
            "=1008 :0",
            "=1011 :128",
            "=2003 :63",
            "-SEQ",
            "=3001 :t",
            "+MAP @3:4",
            "=3005 :secs",
            "=3011 :1",
            "=3014 :nsecs",
            "=3021 :2",
            "-MAP",
            "=4001 :e",
            "+SEQ @4:4",
            "-SEQ",
            "=5001 :m",
            "+MAP @5:4",
            "=5005 :a",
            "=5006 :",
            "=5008 :b",
            "=5011 :",
            "-MAP",
            "-MAP",
        ]
    );
    assert_eq!(
        events("[\"a, b\", 'c''d', !!str 5, [x]]"),
        [
            "+SEQ @1:1",
            "=1002 \"a, b",
            "=1010 'c'd",
            "=1024 <!!str> :5",
            "+SEQ @1:27",
            "=1028 :x",
            "-SEQ",
            "-SEQ"
        ]
    );
}

#[test]
fn plain_scalars_continue_inside_flow_collections() {
    assert_eq!(
        events("[{data: it's\n    here, b: x}, two\n\n  words\n  , 3]\n"),
        [
            "+SEQ @1:1",
            "+MAP @1:2",
            "=1003 :data",
            "=1009 :it's here",
            "=2011 :b",
            "=2014 :x",
            "-MAP",
            "=2018 :two\nwords",
            "=5005 :3",
            "-SEQ",
        ]
    );
}

#[test]
fn quoted_scalars_escape_and_fold() {
    let text = "a: \"x\\ty\\u00e9\\x41\\\"\\\\ \\U0001F600\"\nb: 'it''s'\nc: \"one\n  two\n\n  three \\\n  four\"\nd: ''\ne: \"# not a comment\" # comment\n";
    assert_eq!(
        events(text),
        [
            "+MAP @1:1",
            "=1001 :a",
            "=1004 \"x\ty\u{e9}A\"\\ \u{1F600}",
            "=2001 :b",
            "=2004 'it's",
            "=3001 :c",
            "=3004 \"one two\nthree four",
            "=8001 :d",
            "=8004 '",
            "=9001 :e",
            "=9004 \"# not a comment",
            "-MAP",
        ]
    );
}

#[test]
fn block_scalars_and_plain_continuations() {
    let text = "lit: |\n  ab\n   c\n\n  d\nfold: >-\n  a\n  b\n\n  c\nkeep: |+\n  x\n\nplain: one\n  two\n\n  three\nlast: !!binary |\n  QUJD\n  REVG\n";
    assert_eq!(
        events(text),
        [
            "+MAP @1:1",
            "=1001 :lit",
            "=2003 |ab\n c\n\nd\n",
            "=6001 :fold",
            "=7003 >a b\nc",
            "=11001 :keep",
            "=12003 |x\n\n",
            "=14001 :plain",
            "=14008 :one two\nthree",
            "=18001 :last",
            "=19003 <!!binary> |QUJD\nREVG\n",
            "-MAP",
        ]
    );
}

#[test]
fn documents_comments_and_empty_values() {
    assert_eq!(
        events("%YAML 1.1\n---\n# c\n- a:   # c\n  b: ~\n...\n# after\n"),
        [
            "+SEQ @4:1",
            "+MAP @4:3",
            "=4003 :a",
            "=4008 :",
            "=5003 :b",
            "=5006 :~",
            "-MAP",
            "-SEQ"
        ]
    );
    assert_eq!(events(""), ["=1001 :"]);
    assert_eq!(events("[]\n"), ["+SEQ @1:1", "-SEQ"]);
    assert_eq!(
        events("- \n- x"),
        ["+SEQ @1:1", "=1003 :", "=2003 :x", "-SEQ"]
    );
}

#[test]
fn scalar_marks_inside_multi_line_text() {
    let text = "d: |\n  QUJD\n  RE*G\n";
    let mut p = Parser::new(text.as_bytes(), Limits::default());
    let s = loop {
        if let Event::Scalar(s) = p.next_event().unwrap() {
            if s.text.starts_with('Q') {
                break s;
            }
        }
    };
    let star = s.text.find('*').unwrap();
    assert_eq!(s.mark_at(star), Mark::new(3, 5));
    assert_eq!(s.mark_at(0), Mark::new(2, 3));
}

#[test]
fn errors_point_at_the_problem() {
    let cases: &[(&str, (u64, u64), &str)] = &[
        ("a: 1\n b: 2\n", (2, 3), "multi-line plain scalar"),
        ("a:\n    b: 1\n  c: 2\n", (3, 3), "bad indentation"),
        ("- a\nb: 1\n", (2, 1), "expected a list item"),
        (
            "a: [1, 2\n",
            (2, 1),
            "the file ends inside the flow sequence that starts at line 1, column 4",
        ),
        (
            "a: \"abc\n  def\n",
            (3, 1),
            "ends inside a double-quoted string",
        ),
        ("a: {x: \"1\" y}\n", (1, 12), "expected ',' or '}'"),
        (
            "a: b: c\n",
            (1, 5),
            "a mapping cannot start on the line of its key",
        ),
        ("a: &x 1\n", (1, 4), "anchors"),
        ("a: *x\n", (1, 4), "aliases"),
        ("a: \"\\q\"\n", (1, 5), "unknown escape"),
        ("- a\n---\n- b\n", (2, 1), "a second YAML document"),
        ("a: 1\n\tb: 2\n", (2, 1), "tab"),
        (
            "a: [1, [2]] x\n",
            (1, 13),
            "unexpected text after a flow collection",
        ),
        ("x: 'a'b\n", (1, 7), "unexpected text after a quoted scalar"),
        ("x: |z\n", (1, 5), "block scalar header"),
        ("x: [a: 1]\n", (1, 6), "not supported"),
        ("x: a\n  b: 1\n", (2, 4), "multi-line plain scalar"),
    ];
    for (text, (line, column), what) in cases {
        let (mark, msg) = error(text);
        assert_eq!(
            (mark.line, mark.column),
            (*line, *column),
            "{text:?}: {msg}"
        );
        assert!(msg.contains(what), "{text:?}: {msg}");
    }
}

#[test]
fn nesting_is_capped() {
    let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
    assert!(error(&deep).1.contains("nesting"));
    let mut block = String::new();
    for i in 0..200 {
        block.push_str(&" ".repeat(i));
        block.push_str("- \n");
    }
    assert!(error(&block).1.contains("nesting"));
}

#[test]
fn long_flow_lists_stream() {
    let n = 100_000;
    let text = format!("[{}]", vec!["255"; n].join(", "));
    let mut p = Parser::new(text.as_bytes(), Limits::default());
    let mut count = 0;
    let mut max_queue = 0;
    loop {
        match p.next_event().unwrap() {
            Event::Scalar(_) => count += 1,
            Event::StreamEnd { .. } => break,
            _ => {}
        }
        max_queue = max_queue.max(p.queue.len());
    }
    assert_eq!(count, n);
    assert!(
        max_queue <= 2,
        "events are produced one by one, not queued: {max_queue}"
    );
}
