//! Reading content in the explorer: the message list's preview column, `d` (definition as
//! `rosmsg show` prints it), `w` (a long string to its end at 80×24), `m`/`D` (changes since a
//! marked message). Snapshots at 80×24 and 160×48.

use bagscope::bag::Bag;
use bagscope::catalog::Catalog;
use bagscope::time::RosTime;
use bagscope::tui::action::{Action, Pane};
use bagscope::tui::app::Mode;

use crate::common::synth::{plain_writer, string_header, string_msg};
use crate::common::tui::{Harness, select_topic};

/// A bag with `/status` strings: a short one, then a long one of numbered words.
fn long_string_bag(dir: &std::path::Path) -> Catalog {
    let path = dir.join("long.bag");
    let mut w = plain_writer(&path);
    let header = string_header("/status", "/node");
    let c = w.add_connection("/status", &header).unwrap();
    w.write(c, RosTime::new(100, 0), &string_msg("short"))
        .unwrap();
    let long: Vec<String> = (0..300).map(|i| format!("word{i}")).collect();
    let mut text = long.join(" ");
    text.push_str(" THE-END");
    w.write(c, RosTime::new(101, 0), &string_msg(&text))
        .unwrap();
    w.finish().unwrap();
    Catalog::new(vec![Bag::open(&path).unwrap()])
}

#[test]
fn preview_column_shows_field_values() {
    // At 80 columns the preview column is narrow (tests/integration/tui_truths.rs).
    for (w, hh) in [(160u16, 48u16)] {
        let mut h = Harness::demo(w, hh);
        select_topic(&mut h, "/cmd_vel");
        let screen = h.screen();
        assert!(screen.contains("preview"), "{screen}");
        assert!(
            screen.contains("lin ") && screen.contains(" · ang "),
            "{screen}"
        );
        insta::assert_snapshot!(format!("preview_cmd_vel_{w}x{hh}"), screen);
        select_topic(&mut h, "/rosout");
        let screen = h.screen();
        assert!(
            screen.contains("INFO /") && screen.contains(": Connected"),
            "{screen}"
        );
        insta::assert_snapshot!(format!("preview_rosout_{w}x{hh}"), screen);
    }
}

#[test]
fn definition_overlay() {
    for (w, hh) in [(80u16, 24u16), (160, 48)] {
        let mut h = Harness::demo(w, hh);
        select_topic(&mut h, "/odom");
        h.act(&[Action::ShowDefinition]);
        assert_eq!(h.app.overlays.mode, Mode::Text);
        let screen = h.screen();
        assert!(
            screen.contains("nav_msgs/Odometry (rosmsg show)"),
            "{screen}"
        );
        assert!(screen.contains("std_msgs/Header header"), "{screen}");
        assert!(
            screen.contains("    geometry_msgs/Point position"),
            "{screen}"
        );
        insta::assert_snapshot!(format!("definition_odom_{w}x{hh}"), screen);
        h.act(&[Action::Bottom]);
        insta::assert_snapshot!(format!("definition_odom_end_{w}x{hh}"), h.screen());
        h.act(&[Action::Back]);
        assert_eq!(h.app.overlays.mode, Mode::Normal);
    }
}

#[test]
fn long_string_read_to_its_end_at_80x24() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = Harness::new(long_string_bag(dir.path()), 80, 24);
    select_topic(&mut h, "/status");
    h.act(&[
        Action::Focus(Pane::Messages),
        Action::Down,
        Action::Focus(Pane::Inspector),
    ]);
    h.act(&[Action::ShowLongValue]);
    assert_eq!(h.app.overlays.mode, Mode::Text, "{}", h.screen());
    let screen = h.screen();
    assert!(screen.contains("word0 word1"), "{screen}");
    insta::assert_snapshot!("long_value_start_80x24", screen);
    h.act(&[Action::Bottom]);
    let screen = h.screen();
    assert!(screen.contains("THE-END"), "{screen}");
    assert!(screen.contains("(end)"), "{screen}");
    insta::assert_snapshot!("long_value_end_80x24", screen);
    // Every word is somewhere in the wrapped rows.
    let all = h.app.overlays.text.rows.join(" ");
    for i in [0, 1, 150, 299] {
        assert!(all.contains(&format!("word{i} ")), "word{i}");
    }
}

#[test]
fn marked_message_diff() {
    for (w, hh) in [(80u16, 24u16), (160, 48)] {
        let mut h = Harness::demo(w, hh);
        select_topic(&mut h, "/odom");
        h.act(&[Action::Focus(Pane::Messages), Action::MarkForDiff]);
        assert!(h.app.views.inspector.diff_mark.is_some());
        h.act(&[Action::Down, Action::Down]);
        assert!(!h.app.views.inspector.tree.changed.is_empty());
        assert!(h.app.views.inspector.tree.changed.contains("header.seq"));
        assert!(h.app.views.inspector.tree.changed.contains("header"));
        insta::assert_snapshot!(format!("diff_highlight_{w}x{hh}"), h.screen());
        h.act(&[Action::ShowDiff]);
        let screen = h.screen();
        assert!(screen.contains("header.seq: "), "{screen}");
        assert!(screen.contains(" → "), "{screen}");
        insta::assert_snapshot!(format!("diff_list_{w}x{hh}"), screen);
    }
}
