//! The plot pane's legends, focus and keys, and the `P` prompt: two series named both at
//! 80×24, numbers in six significant digits (float32 values as float32), time ticks in the
//! bottom border; the focused pane's selected series (`▸`), `x`/`X` removing, `]`/`[` moving
//! the cursor to the maximum/minimum; `P` prefilled with the inspector's field, Enter plotting
//! it, a wrong spec explained under the prompt.

use std::time::Duration;

use bagscope::tui::action::{Action, Pane};
use bagscope::tui::model::plot::Precision;

use crate::common::tui::{Harness, select_topic};

const LIN: &str = "/imu/data/linear_acceleration/z";
const ANG: &str = "/imu/data/angular_velocity/z";

/// Two float32-valued series over the demo bag, named by their /imu/data fields.
fn two_series(h: &mut Harness) {
    let (start, end) = h.app.views.timeline.timeline.bounds();
    let (a, b) = (start.as_nanos() as i64, end.as_nanos() as i64);
    for (label, f) in [
        (
            LIN,
            (|x: f64| 9.81 + (x * 15.0).sin() * 0.7) as fn(f64) -> f64,
        ),
        (ANG, |x: f64| (x * 7.0).cos() * 0.031_4),
    ] {
        let mut col = bagscope::catalog::series::Column::new();
        for i in 0..800 {
            let x = f64::from(i) / 799.0;
            col.times.push(a + ((b - a) as f64 * x) as i64);
            col.values.push(f64::from(f(x) as f32));
        }
        let s = bagscope::tui::model::plot::PlotSeries::new(col);
        assert!(h.app.add_plot(label, s, None));
        h.app.views.plot.plots.set_topic(label, "/imu/data");
        h.app.views.plot.plots.set_precision(label, Precision::F32);
    }
}

#[test]
fn two_series_legends_name_both_in_six_digits() {
    for (w, hh) in [(80, 24), (160, 48)] {
        let mut h = Harness::demo(w, hh);
        h.scan();
        two_series(&mut h);
        let screen = h.screen();
        assert!(screen.contains("● linear_acceleration/z"), "{screen}");
        assert!(screen.contains("■ angular_velocity/z"), "{screen}");
        // No number of the plot has more than six significant digits.
        assert!(!screen.contains("9.8100000"), "{screen}");
        // Time ticks in the bottom border.
        assert!(screen.contains("┴+5 s"), "{screen}");
        insta::assert_snapshot!(format!("plot_two_legends_{w}x{hh}"), screen);
    }
}

#[test]
fn the_focused_pane_selects_removes_and_finds_the_extremes() {
    for (w, hh) in [(80, 24), (160, 48)] {
        let mut h = Harness::demo(w, hh);
        h.scan();
        // Nothing plotted: no plot pane to focus.
        h.act(&[Action::Focus(Pane::Plot)]);
        assert_ne!(h.app.focus, Pane::Plot);
        two_series(&mut h);
        h.act(&[Action::Focus(Pane::Plot), Action::Up]);
        assert_eq!(h.app.focus, Pane::Plot);
        assert_eq!(h.app.views.plot.plots.selected, 0);
        // The cursor to the selected series' maximum: said exactly in the status bar.
        h.act(&[Action::PlotMax]);
        let bar = h.status_bar();
        assert!(bar.contains("linear_acceleration/z: max 10.51"), "{bar}");
        let screen = h.screen();
        assert!(screen.contains("▸● linear_acceleration/z"), "{screen}");
        assert!(screen.contains(" ■ angular_velocity/z"), "{screen}");
        insta::assert_snapshot!(format!("plot_focused_{w}x{hh}"), screen);
        h.act(&[Action::PlotMin]);
        assert!(h.status_bar().contains("min 9.11"), "{}", h.status_bar());
        // Tab goes round the panes, the plot included.
        h.act(&[Action::FocusNext]);
        assert_eq!(h.app.focus, Pane::Topics);
        h.act(&[Action::FocusPrev]);
        assert_eq!(h.app.focus, Pane::Plot);
        // x removes the selected series, X the rest; the focus goes back to the topics.
        h.act(&[Action::RemovePlotSeries]);
        assert_eq!(h.app.views.plot.plots.entries.len(), 1);
        assert_eq!(h.app.views.plot.plots.entries[0].label, ANG);
        assert!(h.status_bar().contains("removed"), "{}", h.status_bar());
        h.act(&[Action::ClearPlot]);
        assert!(h.app.views.plot.plots.is_empty());
        assert_eq!(h.app.focus, Pane::Topics);
        h.act(&[Action::FocusPrev]);
        assert_eq!(h.app.focus, Pane::Inspector, "no plot pane to go to");
    }
}

#[test]
fn p_opens_a_prompt_with_the_field_and_enter_plots_it() {
    for (w, hh) in [(80, 24), (160, 48)] {
        let mut h = Harness::demo(w, hh);
        h.scan();
        select_topic(&mut h, "imu/data");
        h.act(&[
            Action::Focus(Pane::Messages),
            Action::Enter,
            Action::Focus(Pane::Inspector),
        ]);
        let rows = h.app.views.inspector.tree.rows().to_vec();
        h.app.views.inspector.tree.selected = rows
            .iter()
            .position(|r| r.path == "linear_acceleration.z")
            .unwrap();
        h.act(&[Action::PlotPrompt]);
        assert_eq!(h.app.overlays.prompt, "/imu/data: linear_acceleration.z");
        let screen = h.screen();
        assert!(
            screen.contains("plot /imu/data: linear_acceleration.z█"),
            "{screen}"
        );
        insta::assert_snapshot!(format!("plot_prompt_{w}x{hh}"), screen);
        // A field the type does not have: said under the prompt, `^` under it.
        h.act(&[Action::Backspace, Action::Input('w'), Action::Enter]);
        let error = h.app.views.plot.prompt_error.clone().expect("an error");
        assert_eq!(error.column, "/imu/data: linear_acceleration.w".len());
        let screen = h.screen();
        assert!(screen.contains("has no field 'w'"), "{screen}");
        insta::assert_snapshot!(format!("plot_prompt_error_{w}x{hh}"), screen);
        // Fixed, Enter plots it (the plain path form names the same series).
        h.act(&[Action::Backspace, Action::Input('z'), Action::Enter]);
        assert!(h.app.views.plot.prompt_error.is_none());
        h.wait_until("the series", Duration::from_secs(30), |a| {
            a.views.plot.plots.entries.len() == 1 && a.views.plot.plots.progress().is_none()
        });
        assert_eq!(h.app.views.plot.plots.entries[0].label, LIN);
        assert_eq!(h.app.views.plot.plots.entries[0].series.len(), 2400);
        // In the focused plot pane, P edits the selected series' spec.
        h.act(&[Action::Focus(Pane::Plot), Action::PlotPrompt]);
        assert_eq!(h.app.overlays.prompt, "/imu/data: linear_acceleration.z");
        h.act(&[Action::ClearInput]);
        h.type_text("/imu/data/angular_velocity/z");
        h.act(&[Action::Enter]);
        h.wait_until("two series", Duration::from_secs(30), |a| {
            a.views.plot.plots.entries.len() == 2 && a.views.plot.plots.progress().is_none()
        });
        let screen = h.screen();
        assert!(screen.contains("linear_acceleration/z"), "{screen}");
        assert!(screen.contains("angular_velocity/z"), "{screen}");
        // An unknown topic is said at the start; Esc closes the prompt, nothing added.
        h.act(&[Action::PlotPrompt, Action::ClearInput]);
        h.type_text("/nope: x");
        h.act(&[Action::Enter]);
        let error = h.app.views.plot.prompt_error.clone().expect("an error");
        assert_eq!(error.column, 1, "{error:?}");
        h.act(&[Action::Back]);
        assert_eq!(h.app.views.plot.plots.entries.len(), 2);
        assert!(h.app.views.plot.prompt_error.is_none());
    }
}

#[test]
fn a_float32_field_reads_as_float32_and_a_float64_one_exactly() {
    let mut h = Harness::demo(160, 48);
    h.scan();
    h.app.plot_field("/battery/voltage").unwrap();
    h.app.plot_field("/imu/data/linear_acceleration/z").unwrap();
    h.wait_until("both series", Duration::from_secs(30), |a| {
        a.views.plot.plots.entries.len() == 2 && a.views.plot.plots.progress().is_none()
    });
    let plots = &h.app.views.plot.plots;
    assert_eq!(plots.entries[0].precision, Precision::F32);
    assert_eq!(plots.entries[1].precision, Precision::F64);
    // The first battery message's voltage, as the inspector prints it (float32).
    let (start, _) = h.app.views.timeline.timeline.bounds();
    let first = plots.entries[0].series.point(0).unwrap();
    h.app
        .views
        .timeline
        .timeline
        .set_cursor(bagscope::time::RosTime::from_nanos(first.0 as u64));
    assert!(first.0 as u64 >= start.as_nanos());
    h.act(&[Action::Focus(Pane::Plot), Action::Up]);
    let screen = h.screen();
    assert!(
        screen.contains("▸● battery/voltage  now 22.284"),
        "{screen}"
    );
    assert!(!screen.contains("22.28400"), "{screen}");
}
