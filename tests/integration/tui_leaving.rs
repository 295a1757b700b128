//! Keys that leave: `q` closes the overlay or secondary view shown and quits only from the
//! main view; Ctrl-C quits from anywhere, prompts included.

use bagscope::tui::action::Action;
use bagscope::tui::app::Mode;
use bagscope::tui::term::event::AppEvent;
use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

use crate::common::tui::{Harness, select_topic};

fn key(code: KeyCode, modifiers: KeyModifiers) -> AppEvent {
    AppEvent::Input(Event::Key(KeyEvent::new(code, modifiers)))
}

fn q() -> AppEvent {
    key(KeyCode::Char('q'), KeyModifiers::NONE)
}

#[test]
fn q_closes_each_overlay_and_quits_only_from_the_main_view() {
    let mut h = Harness::demo(80, 24);
    h.scan();
    select_topic(&mut h, "/imu/data");
    for (open, mode) in [
        (Action::ToggleHelp, Mode::Help),
        (Action::ToggleHealth, Mode::Health),
        (Action::ShowDefinition, Mode::Text),
        (Action::ToggleLog, Mode::Log),
    ] {
        h.act(&[open]);
        h.pump();
        assert_eq!(h.app.overlays.mode, mode, "{open:?} opens its view");
        h.app.handle(q());
        assert_eq!(h.app.overlays.mode, Mode::Normal, "q closes {mode:?}");
        assert!(!h.app.quit, "q in {mode:?} does not quit");
    }
    // In a prompt, q is a letter.
    h.act(&[Action::StartFilter]);
    h.app.handle(q());
    assert!(
        h.app.overlays.prompt.ends_with('q'),
        "{}",
        h.app.overlays.prompt
    );
    assert!(!h.app.quit);
    h.act(&[Action::Back]);
    h.app.handle(q());
    assert!(h.app.quit, "q quits from the main view");
}

#[test]
fn ctrl_c_quits_from_every_prompt_and_view() {
    let ctrl_c = || key(KeyCode::Char('c'), KeyModifiers::CONTROL);
    for open in [
        Action::StartFilter,
        Action::StartJump,
        Action::StartFind,
        Action::ToggleHelp,
        Action::ToggleHealth,
        Action::ToggleLog,
    ] {
        let mut h = Harness::demo(80, 24);
        h.scan();
        h.act(&[open]);
        assert_ne!(h.app.overlays.mode, Mode::Normal, "{open:?}");
        h.app.handle(ctrl_c());
        assert!(h.app.quit, "Ctrl-C quits from {open:?}");
    }
    // The log view's own prompt.
    let mut h = Harness::demo(80, 24);
    h.scan();
    h.act(&[Action::ToggleLog, Action::LogTextFilter]);
    assert_eq!(h.app.overlays.mode, Mode::LogPrompt);
    h.app.handle(ctrl_c());
    assert!(h.app.quit, "Ctrl-C quits from the log view's prompt");
}
