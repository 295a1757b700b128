//! XY mode of the plot: `/odom` x against y from the demo bag (computed in the background
//! like any series), equal aspect, the point at the cursor marked; `x` back to time mode;
//! `x` with series that are not two fields of one topic says what XY needs.

use std::time::Duration;

use bagscope::tui::action::Action;

use crate::common::tui::Harness;

const X: &str = "/odom/pose/pose/position/x";
const Y: &str = "/odom/pose/pose/position/y";

#[test]
fn xy_mode_draws_odom_x_against_y() {
    for (w, hh) in [(80, 24), (160, 48)] {
        let mut h = Harness::demo(w, hh);
        h.scan();
        h.app.plot_field(X).unwrap();
        // One series: XY says what it needs and stays off.
        h.act(&[Action::TogglePlotXy]);
        assert!(!h.app.views.plot.plots.xy);
        let bar = h.status_bar();
        assert!(
            bar.contains("XY needs two fields of one topic: 1 plotted"),
            "{bar}"
        );
        h.app.plot_field(Y).unwrap();
        h.wait_until("both series are complete", Duration::from_secs(30), |a| {
            a.views.plot.plots.entries.len() == 2 && a.views.plot.plots.progress().is_none()
        });
        h.act(&[Action::TogglePlotXy]);
        assert!(h.app.views.plot.plots.xy);
        // The picture is made in the background; until it arrives the title says so.
        assert!(h.app.xy_pending());
        assert!(h.screen().contains("… · XY · /odom"), "{}", h.screen());
        h.wait_until("the XY picture", Duration::from_secs(30), |a| {
            !a.xy_pending()
        });
        // The cursor 10 s in.
        let (start, _) = h.app.views.timeline.timeline.bounds();
        h.app
            .views
            .timeline
            .timeline
            .set_cursor(bagscope::time::RosTime::from_nanos(
                start.as_nanos() + 10_000_000_000,
            ));
        // Every /odom message pairs (1200), and the title says equal aspect.
        let screen = h.screen();
        assert!(
            screen.contains("XY · /odom · equal aspect · 1200 points"),
            "{screen}"
        );
        if w >= 160 {
            assert!(screen.contains("x pose/pose/position/x  y …/y"), "{screen}");
        }
        assert!(screen.contains('◉'), "the point at the cursor: {screen}");
        insta::assert_snapshot!(format!("xy_odom_{w}x{hh}"), screen);
        // A cursor step keeps the picture (only the point at the cursor is looked up).
        h.app
            .views
            .timeline
            .timeline
            .set_cursor(bagscope::time::RosTime::from_nanos(
                start.as_nanos() + 20_000_000_000,
            ));
        assert!(!h.app.xy_pending());
        assert_ne!(h.screen(), screen, "the cursor's point moved");
        // Zooming in asks for a new picture: the old one stays until it arrives, with fewer
        // points (the visible range only).
        h.act(&[Action::ZoomIn]);
        assert!(h.app.xy_pending());
        h.wait_until("the zoomed XY picture", Duration::from_secs(30), |a| {
            !a.xy_pending()
        });
        let points = h.app.xy_raster().unwrap().points;
        assert!(points > 0 && points < 1200, "{points}");
        assert!(
            h.screen()
                .contains(&format!("equal aspect · {points} points")),
            "{}",
            h.screen()
        );
        h.act(&[Action::ZoomReset]);
        // `x` again: time mode.
        h.act(&[Action::TogglePlotXy]);
        let screen = h.screen();
        assert!(screen.contains("Plot · 2 series"), "{screen}");
    }
}

#[test]
fn xy_needs_one_topic() {
    let mut h = Harness::demo(80, 24);
    h.scan();
    h.app.plot_field(X).unwrap();
    h.app.plot_field("/imu/data/linear_acceleration/z").unwrap();
    h.act(&[Action::TogglePlotXy]);
    assert!(!h.app.views.plot.plots.xy);
    assert!(
        h.status_bar().contains("of two topics"),
        "{}",
        h.status_bar()
    );
}
