//! The timeline's lanes (`a` three times… twice from the selected topic): one row per shown
//! topic, estimated from chunk infos until the index scan is done, the `/` filter applied,
//! scrolling with the topic selection. Screens in the `NO_COLOR` theme, as every snapshot.

use bagscope::tui::action::{Action, Pane};

use crate::common::tui::{Harness, select_topic};

fn lanes_of(h: &Harness) -> Vec<String> {
    let l = h
        .app
        .views
        .timeline
        .lanes
        .as_ref()
        .expect("lanes are shown");
    l.lanes.iter().map(|l| l.topic.clone()).collect()
}

#[test]
fn a_cycles_selected_all_lanes() {
    let mut h = Harness::demo(160, 48);
    assert!(h.app.views.timeline.lanes.is_none() && !h.app.views.timeline.hist_all);
    h.act(&[Action::ToggleHistogramScope]);
    assert!(h.app.views.timeline.hist_all && h.app.views.timeline.lanes.is_none());
    h.act(&[Action::ToggleHistogramScope]);
    assert!(!h.app.views.timeline.hist_all && h.app.views.timeline.lanes.is_some());
    h.act(&[Action::ToggleHistogramScope]);
    assert!(!h.app.views.timeline.hist_all && h.app.views.timeline.lanes.is_none());
}

#[test]
fn lanes_estimated_then_exact_every_topic() {
    for (w, hh) in [(80, 24), (160, 48)] {
        let mut h = Harness::demo(w, hh);
        h.act(&[Action::ToggleHistogramScope, Action::ToggleHistogramScope]);
        let screen = h.screen();
        assert!(screen.contains("Timeline · lanes"), "{screen}");
        assert!(screen.contains("(est.)"), "before the scan: {screen}");
        h.scan();
        let screen = h.screen();
        assert!(!screen.contains("(est.)"), "after the scan: {screen}");
        let l = h.app.views.timeline.lanes.as_ref().unwrap();
        assert!(l.exact);
        // One bin per drawn column (the pane's inside less the name column).
        let inner = (h.app.layout.histogram.width - 2) as usize;
        let bars = inner - bagscope::tui::model::lanes::name_width(inner);
        assert!(l.lanes.iter().all(|l| l.hist.bins.len() == bars));
        // Every lane's count is the topic's count (the whole bag is visible).
        for lane in &l.lanes {
            let row = h
                .app
                .views
                .topics
                .list
                .rows()
                .iter()
                .find(|r| r.topic == lane.topic)
                .unwrap();
            assert_eq!(
                lane.hist.total().round() as u64,
                row.count,
                "{}",
                lane.topic
            );
        }
        insta::assert_snapshot!(format!("lanes_{w}x{hh}"), screen);
    }
}

#[test]
fn lanes_follow_the_filter_and_scroll_with_the_selection() {
    let mut h = Harness::demo(80, 24);
    h.scan();
    h.act(&[Action::ToggleHistogramScope, Action::ToggleHistogramScope]);
    let total = h.app.views.topics.list.visible().len();
    let rows = lanes_of(&h).len();
    assert!(
        rows < total,
        "80x24 shows fewer lanes ({rows}) than topics ({total})"
    );
    // Moving down the topics past the last lane scrolls the lanes.
    h.act(&[Action::Focus(Pane::Histogram)]);
    for _ in 0..total {
        h.act(&[Action::Down]);
    }
    let selected = h
        .app
        .views
        .topics
        .list
        .selected_row()
        .unwrap()
        .topic
        .clone();
    assert_eq!(lanes_of(&h).last(), Some(&selected));
    let screen = h.screen();
    assert!(
        screen.contains(&format!("{}–{} of {total} topics", total - rows + 1, total)),
        "{screen}"
    );
    insta::assert_snapshot!("lanes_scrolled_80x24", screen);
    // The filter applies.
    select_topic(&mut h, "cam");
    let shown: Vec<String> = lanes_of(&h);
    assert!(!shown.is_empty());
    assert!(shown.iter().all(|t| t.contains("cam")), "{shown:?}");
    // Zoom and marks are the timeline's.
    h.act(&[Action::ZoomIn, Action::MarkStart]);
    let screen = h.screen();
    assert!(h.app.views.timeline.timeline.is_zoomed(), "zoomed");
    assert!(
        screen.contains("marking…") && screen.contains("zoo"),
        "{screen}"
    );
}

#[test]
fn a_click_on_a_lane_moves_the_cursor_on_the_lanes_time_axis() {
    use bagscope::tui::model::lanes;
    let mut h = Harness::demo(160, 48);
    h.scan();
    h.act(&[Action::ToggleHistogramScope, Action::ToggleHistogramScope]);
    let r = h.app.layout.histogram;
    let inner = (r.width - 2) as usize;
    let names = lanes::name_width(inner);
    let bars = inner - names;
    let x = r.x + 1 + (names + bars / 2) as u16;
    h.act(&[Action::Click(x, r.y + 2)]);
    assert_eq!(
        h.app.views.timeline.timeline.cursor(),
        h.app.views.timeline.timeline.time_of_bin(bars / 2, bars),
        "the column under the click, not counting the names"
    );
}

#[test]
fn a_search_marks_the_lane_of_the_topic_it_matched_on() {
    for (w, hh) in [(80u16, 24u16), (160, 48)] {
        let mut h = Harness::demo(w, hh);
        h.scan();
        select_topic(&mut h, "/rosout");
        h.act(&[Action::StartFind, Action::ClearInput]);
        h.type_text("level >= WARN");
        h.act(&[Action::Enter]);
        h.wait_until("the search", std::time::Duration::from_secs(30), |app| {
            app.views.search.search.done
        });
        assert_eq!(h.app.views.search.search.matches.len(), 3);
        // Every topic shown again: the marks stay on the lane of the topic they matched on.
        h.act(&[Action::StartFilter, Action::ClearInput, Action::Enter]);
        h.act(&[Action::ToggleHistogramScope, Action::ToggleHistogramScope]);
        h.act(&[Action::Focus(Pane::Topics)]);
        while h
            .app
            .views
            .topics
            .list
            .selected_row()
            .is_some_and(|r| r.topic != "/rosout")
        {
            h.act(&[Action::Down]);
        }
        assert!(lanes_of(&h).len() > 2, "{:?}", lanes_of(&h));
        assert!(lanes_of(&h).contains(&"/rosout".to_string()));
        let screen = h.screen();
        let marked: Vec<&str> = screen.lines().filter(|l| l.contains('▼')).collect();
        assert_eq!(marked.len(), 1, "only the /rosout lane: {screen}");
        assert!(marked[0].contains("/rosout"), "{screen}");
        insta::assert_snapshot!(format!("lanes_search_{w}x{hh}"), screen);
    }
}
