//! The content search of the explorer (`f`, `n`, `N`) on the demo bag: the expression checked
//! in the background (the prompt stays open meanwhile), a wrong one shown under the prompt,
//! the matches found in the background and the stretches they form, counted, timed and
//! marked (bars for stretches), `n` / `N` going from stretch to stretch (and their topic),
//! wrapping at the ends; snapshots at 80×24 and 160×48; and end to end in tmux.

use std::time::Duration;

use bagscope::time::RosTime;
use bagscope::tui::action::Action;
use bagscope::tui::app::Mode;

use crate::common;
use crate::common::tmux::{Session, have_tmux};
use crate::common::tui::{Harness, select_topic};

/// Types `expr` into the `f` prompt, presses Enter and waits for the expression's check.
fn find(h: &mut Harness, expr: &str) {
    h.act(&[Action::StartFind, Action::ClearInput]);
    h.type_text(expr);
    enter(h);
}

/// Presses Enter in the prompt and waits until the expression is checked.
fn enter(h: &mut Harness) {
    h.act(&[Action::Enter]);
    h.wait_until("the check", Duration::from_secs(30), |app| {
        !app.search_checking()
    });
}

fn wait_done(h: &mut Harness) {
    h.wait_until("the search", Duration::from_secs(30), |app| {
        app.views.search.search.done
    });
}

fn selected_topic(h: &Harness) -> String {
    h.app
        .views
        .topics
        .list
        .selected_row()
        .map(|r| r.topic.clone())
        .unwrap_or_default()
}

#[test]
fn finds_counts_and_goes_to_the_matches() {
    let mut h = Harness::demo(80, 24);
    select_topic(&mut h, "/rosout");
    find(&mut h, "level >= WARN");
    assert_eq!(h.app.overlays.mode, Mode::Normal, "the prompt closes");
    wait_done(&mut h);
    // The two warnings and the error (as the log view counts them): the first two are
    // consecutive /rosout messages, one stretch; the error another.
    let matches = h.app.views.search.search.matches.clone();
    assert_eq!(matches.len(), 3);
    assert!(matches.windows(2).all(|w| w[0].time <= w[1].time));
    let stretches = h.app.views.search.search.stretches.clone();
    let runs: Vec<(RosTime, RosTime, u64)> = stretches
        .iter()
        .map(|s| (s.start, s.end, s.count))
        .collect();
    assert_eq!(
        runs,
        [
            (matches[0].time, matches[1].time, 2),
            (matches[2].time, matches[2].time, 1)
        ]
    );
    assert!(stretches.iter().all(|s| &*s.topic == "/rosout"));
    let total = matches[1].time.nanos_since(matches[0].time) as f64 / 1e9;
    let want = format!("f: 2 stretches, {total:.1} s in total (3 matches)");
    assert!(h.status_bar().contains(&want), "{want}: {}", h.status_bar());
    // Away to another topic at the start: `n` selects /rosout and the first stretch's start.
    select_topic(&mut h, "/battery");
    h.act(&[Action::Top]);
    h.act(&[Action::NextMatch]);
    assert_eq!(selected_topic(&h), "/rosout");
    assert_eq!(h.app.views.timeline.timeline.cursor(), matches[0].time);
    let sel = h.app.views.messages.selected_ref().unwrap();
    assert_eq!(sel.entry.time, matches[0].time);
    let want = format!("f: stretch 1/2, {total:.1} s (2 matches)");
    assert!(h.status_bar().contains(&want), "{want}: {}", h.status_bar());
    // `n` skips the rest of the stretch: the next one starts at the error.
    h.act(&[Action::NextMatch]);
    assert_eq!(h.app.views.timeline.timeline.cursor(), matches[2].time);
    assert!(
        h.status_bar().contains("f: stretch 2/2"),
        "{}",
        h.status_bar()
    );
    // Past the last: back to the first, and the status says so.
    h.act(&[Action::NextMatch]);
    assert_eq!(h.app.views.timeline.timeline.cursor(), matches[0].time);
    assert!(
        h.status_bar().contains("wrapped to the first stretch"),
        "{}",
        h.status_bar()
    );
    h.act(&[Action::PrevMatch]);
    assert_eq!(h.app.views.timeline.timeline.cursor(), matches[2].time);
    assert!(
        h.status_bar().contains("wrapped to the last stretch"),
        "{}",
        h.status_bar()
    );
    h.act(&[Action::PrevMatch]);
    assert_eq!(h.app.views.timeline.timeline.cursor(), matches[0].time);
    let sel = h.app.views.messages.selected_ref().unwrap();
    assert_eq!(sel.entry.time, matches[0].time);
}

#[test]
fn a_wrong_expression_is_shown_under_the_prompt() {
    let mut h = Harness::demo(80, 24);
    select_topic(&mut h, "/rosout");
    find(&mut h, "levl >= WARN");
    assert_eq!(h.app.overlays.mode, Mode::Find, "the prompt stays open");
    let e = h.app.views.search.search.prompt_error.clone().unwrap();
    assert_eq!(e.column, 1);
    assert!(e.message.contains("'levl'"), "{}", e.message);
    assert!(
        e.message.contains("level"),
        "the fields are listed: {}",
        e.message
    );
    assert!(!h.app.views.search.search.is_active(), "nothing searched");
    // A syntax error points at its column.
    h.act(&[Action::ClearInput]);
    h.type_text("level >= ");
    h.act(&[Action::Enter]);
    assert!(!h.app.search_checking(), "a syntax error needs no check");
    let e = h.app.views.search.search.prompt_error.clone().unwrap();
    assert!(e.column >= 9, "{e:?}");
    // Typing clears the error; Esc closes the prompt without searching.
    h.type_text("W");
    assert_eq!(h.app.views.search.search.prompt_error, None);
    h.act(&[Action::Back]);
    assert_eq!(h.app.overlays.mode, Mode::Normal);
    assert!(!h.app.views.search.search.is_active());
    // `n` without a search says how to start one.
    h.act(&[Action::NextMatch]);
    assert!(h.status_bar().contains("f to find"), "{}", h.status_bar());
}

#[test]
fn with_the_topic_filter_set_every_shown_topic_is_searched() {
    let mut h = Harness::demo(80, 24);
    // `/` filter "o": several topics shown; a bare "text" searches their string fields.
    h.act(&[Action::StartFilter]);
    h.type_text("rosout");
    h.act(&[Action::Enter]);
    find(&mut h, "\"VIDIOC\"");
    wait_done(&mut h);
    assert_eq!(h.app.views.search.search.scope, "/rosout");
    assert_eq!(h.app.views.search.search.matches.len(), 1, "the error line");
    // A new search replaces the previous one; an empty one clears it.
    find(&mut h, "level >= WARN");
    wait_done(&mut h);
    assert_eq!(h.app.views.search.search.matches.len(), 3);
    find(&mut h, "");
    assert!(!h.app.views.search.search.is_active());
    assert!(!h.status_bar().contains("f:"), "{}", h.status_bar());
}

#[test]
fn the_expression_is_checked_in_the_background_and_replaces_the_search_once_it_fits() {
    let mut h = Harness::demo(80, 24);
    select_topic(&mut h, "/rosout");
    find(&mut h, "level >= WARN");
    wait_done(&mut h);
    assert_eq!(h.app.views.search.search.matches.len(), 3);
    // Enter returns at once: the key handler compiles nothing, a thread does; the prompt
    // stays open and says so, the previous search stays until the new one is checked.
    h.act(&[Action::StartFind, Action::ClearInput]);
    h.type_text(r#"msg =~ "\w{20}" or name ~ "x""#);
    h.act(&[Action::Enter]);
    assert!(h.app.search_checking());
    assert_eq!(h.app.overlays.mode, Mode::Find);
    assert!(h.screen().contains("(checking…"), "{}", h.screen());
    assert_eq!(h.app.views.search.search.expr, "level >= WARN");
    assert_eq!(h.app.views.search.search.matches.len(), 3);
    h.wait_until("the check", Duration::from_secs(30), |app| {
        !app.search_checking()
    });
    assert_eq!(h.app.overlays.mode, Mode::Normal, "the prompt closes");
    assert_eq!(
        h.app.views.search.search.expr,
        r#"msg =~ "\w{20}" or name ~ "x""#
    );
    wait_done(&mut h);
    // Typing while a check runs drops it; Esc too.
    h.act(&[Action::StartFind]);
    h.type_text(" or level == 1");
    h.act(&[Action::Enter]);
    assert!(h.app.search_checking());
    h.act(&[Action::Backspace]);
    assert!(!h.app.search_checking());
    h.act(&[Action::Enter, Action::Back]);
    assert!(!h.app.search_checking());
    assert_eq!(h.app.overlays.mode, Mode::Normal);
    h.drain_events();
    assert_eq!(
        h.app.overlays.mode,
        Mode::Normal,
        "the dropped check changes nothing"
    );
    assert!(h.app.views.search.search.expr.starts_with("msg =~"));
}

#[test]
fn search_snapshots() {
    for (w, hh) in [(80u16, 24u16), (160, 48)] {
        let mut h = Harness::demo(w, hh);
        h.scan();
        select_topic(&mut h, "/imu/data");
        h.act(&[Action::StartFind]);
        h.type_text("angular_velocity.zz > 0.1");
        enter(&mut h);
        insta::assert_snapshot!(format!("search_error_{w}x{hh}"), h.screen());
        h.act(&[Action::ClearInput]);
        h.type_text("linear_acceleration.x > 0.3");
        enter(&mut h);
        wait_done(&mut h);
        h.act(&[Action::NextMatch]);
        insta::assert_snapshot!(format!("search_marks_{w}x{hh}"), h.screen());
    }
}

#[test]
fn search_in_tmux() {
    if !have_tmux() {
        common::skip("tmux is not installed");
        return;
    }
    let cmd = format!(
        "{}; echo EXITED:$?; sleep 30",
        env!("CARGO_BIN_EXE_bagscope")
    );
    let s = Session::start("search", 80, 24, &cmd);
    s.wait("the demo bag", |t| {
        t.contains("Topics") && t.contains("/rosout")
    });
    s.keys(&["/"]);
    s.keys(&["rosout"]);
    s.keys(&["Enter"]);
    s.wait("/rosout selected", |t| t.contains("Timeline · /rosout"));
    s.keys(&["f"]);
    s.wait("the prompt", |t| t.contains("Esc: cancel"));
    s.keys(&["level >= WARN"]);
    s.keys(&["Enter"]);
    s.wait("the count", |t| t.contains("(3 matches)"));
    s.keys(&["n"]);
    s.wait("the first stretch", |t| {
        t.contains("f: stretch 1/2") && t.contains("rosgraph_msgs/Log")
    });
    s.keys(&["n"]);
    s.wait("the second stretch", |t| t.contains("f: stretch 2/2"));
    s.keys(&["N", "N"]);
    s.wait("wrapped to the last", |t| {
        t.contains("wrapped to the last stretch")
    });
    s.keys(&["q"]);
    s.wait("the shell", |t| t.contains("EXITED:0"));
}
