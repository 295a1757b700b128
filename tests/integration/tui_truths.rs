//! Small truths of the explorer at 80×24 and 160×48: errors stay in the status bar until
//! dismissed and `!` lists them; `E` asks where to write when it cannot write where it would;
//! the message list keeps a preview column at 80 columns, and previews name what they show;
//! counts take the number of their noun.

use bagscope::tui::action::{Action, Pane};
use bagscope::tui::app::Mode;

use crate::common::tui::{Harness, select_topic};

/// Three `--plot` errors at start: the last is shown with the count of the others; keys do
/// not clear it, `!` lists all three (and dismisses them), and so does `Esc`.
#[test]
fn errors_stay_until_dismissed_and_are_listed_in_the_health_view() {
    for (w, hh) in [(80, 24), (160, 48)] {
        let mut h = Harness::demo(w, hh);
        h.scan();
        let specs: Vec<String> = ["/nope/x", "/imu/data/no_such_field", "/battery/voltag"]
            .iter()
            .map(|s| (*s).to_string())
            .collect();
        h.app.plot_all(&specs);
        h.pump();
        insta::assert_snapshot!(format!("errors_three_{w}x{hh}"), h.screen());
        let bar = h.status_bar();
        assert!(bar.contains("+2 more"), "{bar}");
        h.act(&[Action::Down, Action::Down, Action::Focus(Pane::Messages)]);
        assert!(
            h.status_bar().contains("+2 more"),
            "keys do not dismiss errors"
        );
        h.act(&[Action::ToggleHealth]);
        let screen = h.screen();
        insta::assert_snapshot!(format!("errors_listed_{w}x{hh}"), screen);
        for s in &specs {
            assert!(
                screen.contains(&format!("--plot {s}")),
                "{s} not listed:\n{screen}"
            );
        }
        h.act(&[Action::Back]);
        assert!(!h.status_bar().contains("--plot"), "{}", h.status_bar());
        // Esc dismisses too, and a message (not an error) goes at the next key.
        h.app.plot_all(&specs[..1]);
        h.pump();
        assert!(h.status_bar().contains("--plot /nope/x"));
        h.act(&[Action::Back]);
        assert!(!h.status_bar().contains("--plot"), "{}", h.status_bar());
        h.act(&[Action::CycleTimeFormat]);
        assert!(h.status_bar().contains("times shown as"));
        h.act(&[Action::Down]);
        assert!(!h.status_bar().contains("times shown as"));
    }
}

/// `E` where the directory cannot be written: a prompt, prefilled with the current directory;
/// `Enter` on another directory (created when missing) writes the bag there and keeps it.
#[test]
fn export_asks_where_to_write_when_it_cannot_write() {
    for (w, hh) in [(80, 24), (160, 48)] {
        let mut h = Harness::demo(w, hh);
        h.scan();
        h.app.settings.output_dir = "/nonexistent/bagscope-out".into();
        select_topic(&mut h, "/imu/data");
        h.act(&[Action::Focus(Pane::Histogram)]);
        h.mark("+5", "+8");
        h.act(&[Action::ExportMarked]);
        assert_eq!(h.app.overlays.mode, Mode::ExportDir);
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(h.app.overlays.prompt, cwd.display().to_string());
        h.act(&[Action::ClearInput]);
        h.type_text("~/exports");
        insta::assert_snapshot!(format!("export_where_{w}x{hh}"), h.screen());
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("new").join("dir");
        h.act(&[Action::ClearInput]);
        h.type_text(&target.display().to_string());
        h.act(&[Action::Enter]);
        assert_eq!(h.app.overlays.mode, Mode::Normal);
        let written: Vec<_> = std::fs::read_dir(&target)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        assert_eq!(written.len(), 1, "{written:?}");
        assert_eq!(h.app.settings.output_dir, target);
        assert!(h.status_bar().contains("wrote"), "{}", h.status_bar());
        // Esc cancels.
        h.app.settings.output_dir = "/nonexistent/bagscope-out".into();
        h.act(&[Action::ExportMarked, Action::Back]);
        assert_eq!(h.app.overlays.mode, Mode::Normal);
        assert!(h.status_bar().contains("nothing exported"));
    }
}

/// At 80 columns the message list keeps a preview column (sizes compact), and previews name
/// what they show; one message is `1 msg`.
#[test]
fn previews_stay_at_80_columns_and_name_what_they_show() {
    for (w, hh) in [(80, 24), (160, 48)] {
        let mut h = Harness::demo(w, hh);
        h.scan();
        select_topic(&mut h, "/imu/data");
        h.act(&[Action::Focus(Pane::Messages)]);
        let screen = h.screen();
        insta::assert_snapshot!(format!("preview_imu_{w}x{hh}"), screen);
        assert!(screen.contains("preview"), "{screen}");
        assert!(screen.contains("acc "), "{screen}");
        select_topic(&mut h, "/odom");
        let screen = h.screen();
        insta::assert_snapshot!(format!("preview_odom_{w}x{hh}"), screen);
        assert!(screen.contains("pos "), "{screen}");
        select_topic(&mut h, "/tf_static");
        let screen = h.screen();
        assert!(screen.contains("1 msg in view"), "{screen}");
        assert!(!screen.contains("1 msgs"), "{screen}");
    }
}
