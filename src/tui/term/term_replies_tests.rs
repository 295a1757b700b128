use super::*;

/// Feeds `input` and returns the keys it gave.
fn sort(sorter: &mut Sorter, input: &[u8]) -> Vec<KeyEvent> {
    input.iter().filter_map(|&b| sorter.push(b)).collect()
}

fn key(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::empty())
}

/// The answers of a terminal with kitty graphics, sixel and its cell size, in the order
/// they come to ratatui-image's query.
const KITTY_AND_SIXEL: &[u8] = b"\x1b_Gi=31;OK\x1b\\\x1b[?62;4;22c\x1b[6;20;10t\x1b[0n";

#[test]
fn reads_every_answer() {
    let mut s = Sorter::default();
    assert!(
        sort(&mut s, KITTY_AND_SIXEL).is_empty(),
        "no key in answers"
    );
    assert_eq!(
        s.replies,
        Replies {
            kitty: true,
            sixel: true,
            cell: Some((10, 20)),
            status: true,
        }
    );
    assert!(!s.in_sequence());
}

#[test]
fn a_terminal_without_graphics_answers_only_attributes_and_status() {
    let mut s = Sorter::default();
    // xterm without sixel: DA1 without 4; kitty's query unanswered; no cell size.
    assert!(sort(&mut s, b"\x1b[?64;1;2;6;9;15;22c\x1b[0n").is_empty());
    assert_eq!(
        s.replies,
        Replies {
            status: true,
            ..Replies::default()
        }
    );
    // `4` must be an attribute of its own, not a digit of one.
    let mut s = Sorter::default();
    sort(&mut s, b"\x1b[?64;14;42c");
    assert!(!s.replies.sixel);
}

#[test]
fn a_kitty_error_or_another_image_id_is_not_kitty() {
    for answer in [
        &b"\x1b_Gi=31;ENOENT:no such image\x1b\\"[..],
        b"\x1b_Gi=7;OK\x1b\\",
        b"\x1b]11;rgb:0000/0000/0000\x07",
        b"\x1bPGi=31;OK\x1b\\",
    ] {
        let mut s = Sorter::default();
        assert!(sort(&mut s, answer).is_empty());
        assert!(!s.replies.kitty, "{answer:?}");
    }
}

#[test]
fn keys_typed_before_between_and_after_the_answers_reach_the_explorer() {
    let mut s = Sorter::default();
    let mut input = b"q".to_vec();
    input.extend_from_slice(b"\x1b_Gi=31;OK\x1b\\");
    input.extend_from_slice(b"\x1b[A"); // Up, between two answers
    input.extend_from_slice(b"\x1b[?62;4c\x1b[6;20;10t");
    input.extend_from_slice(b"G\r\t\x03");
    input.extend_from_slice(b"\x1b[0n");
    input.extend_from_slice(b"\x1b[5~\x1b[1;5C\x1bOB\x1b[Z\x7fj");
    assert_eq!(
        sort(&mut s, &input),
        vec![
            key('q'),
            KeyCode::Up.into(),
            KeyEvent::new(KeyCode::Char('G'), KeyModifiers::SHIFT),
            KeyCode::Enter.into(),
            KeyCode::Tab.into(),
            KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL),
            KeyCode::PageUp.into(),
            KeyEvent::new(KeyCode::Right, KeyModifiers::CONTROL),
            KeyCode::Down.into(),
            KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT),
            KeyCode::Backspace.into(),
            key('j'),
        ]
    );
    assert!(s.replies.kitty && s.replies.sixel && s.replies.status);
    assert_eq!(s.replies.cell, Some((10, 20)));
}

#[test]
fn escape_alone_alt_and_unicode() {
    let mut s = Sorter::default();
    assert_eq!(s.push(0x1b), None, "more may follow");
    assert!(s.in_sequence());
    assert_eq!(s.idle(), Some(KeyCode::Esc.into()), "nothing followed");
    assert_eq!(s.idle(), None);
    assert_eq!(
        sort(&mut s, b"\x1bx\x1b\x1b[B"),
        vec![
            KeyEvent::new(KeyCode::Char('x'), KeyModifiers::ALT),
            KeyCode::Esc.into(),
            KeyCode::Down.into(),
        ]
    );
    assert_eq!(sort(&mut s, "é→".as_bytes()), vec![key('é'), key('→')]);
    // A character cut short is dropped; the next byte still counts.
    assert_eq!(sort(&mut s, b"\xc3a"), vec![key('a')]);
    assert_eq!(sort(&mut s, b"\x80\xffb"), vec![key('b')], "stray bytes");
}

#[test]
fn mouse_reports_pastes_and_position_reports_are_not_keys() {
    let mut s = Sorter::default();
    let input = b"\x1b[<0;12;5M\x1b[<0;12;5m\x1b[200~\x1b[201~\x1b[12;40R\x1b[I\x1b[O\x1b[?1;2$y";
    assert!(sort(&mut s, input).is_empty());
    assert_eq!(s.replies, Replies::default());
    assert!(!s.in_sequence());
}

#[test]
fn cell_sizes_that_are_not_sizes_are_ignored() {
    for answer in [
        &b"\x1b[6;0;10t"[..],
        b"\x1b[6;20t",
        b"\x1b[4;960;1600t",
        b"\x1b[6;20;10;3t",
        b"\x1b[6;99999;10t",
    ] {
        let mut s = Sorter::default();
        assert!(sort(&mut s, answer).is_empty());
        assert_eq!(s.replies.cell, None, "{answer:?}");
    }
}

#[test]
fn an_endless_sequence_is_bounded_and_dropped() {
    let mut s = Sorter::default();
    let mut input = b"\x1b_Gi=31;OK".to_vec();
    input.extend(std::iter::repeat_n(b'A', 100_000));
    input.extend_from_slice(b"\x1b\\");
    assert!(sort(&mut s, &input).is_empty());
    assert!(!s.replies.kitty, "an overlong string is not an answer");
    assert!(s.seq.capacity() <= 2 * MAX_SEQUENCE, "kept bounded");
    // The same for a control sequence, and what follows is read again.
    let mut input = b"\x1b[".to_vec();
    input.extend(std::iter::repeat_n(b'1', 100_000));
    input.extend_from_slice(b"~q");
    assert_eq!(sort(&mut s, &input), vec![key('q')]);
}

#[test]
fn a_string_cut_short_by_a_new_sequence_still_lets_it_through() {
    let mut s = Sorter::default();
    // Kitty's answer loses its terminator; the status report right behind it counts.
    assert!(sort(&mut s, b"\x1b_Gi=31;OK\x1b[0n").is_empty());
    assert!(s.replies.status);
    assert!(!s.replies.kitty);
}

/// Whatever came before (a deterministic stream of random bytes, weighted to the bytes that
/// steer the sorter), a string terminator puts it back between sequences: the status report
/// after it is read. Nothing panics, and what is kept stays bounded.
#[test]
fn any_input_is_taken_and_a_terminator_resynchronises() {
    const STEER: &[u8] = b"\x1b\x1b[[__]P\\\x07;;0123456789?tcnO~ABZ\xc3\xa9\xe2\x80\xf0";
    let mut s = Sorter::default();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for round in 0..3000 {
        let len = next() % 600;
        for _ in 0..len {
            let r = next().to_le_bytes();
            let b = if r[0] % 3 == 0 {
                STEER[usize::from(r[1]) % STEER.len()]
            } else {
                r[2]
            };
            s.push(b);
            assert!(s.seq.len() <= MAX_SEQUENCE, "round {round}");
        }
        if next() % 4 == 0 {
            s.idle();
        }
        s.replies.status = false;
        sort(&mut s, b"\x1b\\\x1b[0n");
        assert!(
            s.replies.status,
            "round {round}: not read after the terminator"
        );
        assert!(!s.in_sequence(), "round {round}");
    }
}
