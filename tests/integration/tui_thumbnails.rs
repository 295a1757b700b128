//! Camera thumbnails and ERROR/FATAL ticks on the timeline's lanes: frames of an image topic
//! under its density row when the lane has room (the selected camera lane makes room), made in
//! the background and cached; a frame that cannot be drawn marked `×` (no error in the status
//! bar); ERROR (`E`) and FATAL (`F`) log lines on the log topic's lane. Screens in the
//! `NO_COLOR` theme with frames in the colourless ramp, as every snapshot.

use std::path::Path;
use std::time::Duration;

use bagscope::bag::Bag;
use bagscope::catalog::Catalog;
use bagscope::format::ConnectionHeader;
use bagscope::msg::{Registry, Schema};
use bagscope::picture::Fit;
use bagscope::time::RosTime;
use bagscope::tui::action::{Action, Pane};
use bagscope::tui::app::App;
use bagscope::tui::jobs::thumbnailer::{Frames, LaneAsk, ThumbNews, ThumbRequest};
use bagscope::tui::model::picture::ColorDepth;
use bagscope::tui::model::thumbs::{self, Shown, ThumbCache};

use crate::common::pictures::{IMAGE_H, IMAGE_W, rgb8_frame};
use crate::common::synth::plain_writer;
use crate::common::tui::Harness;

const LONG: Duration = Duration::from_secs(60);

fn header(topic: &str, datatype: &str) -> ConnectionHeader {
    let s = Schema::from_registry(datatype, None, &Registry::bundled()).unwrap();
    ConnectionHeader::build(
        topic,
        datatype,
        s.md5sum(),
        &s.full_text(),
        Some("/node"),
        Some("0"),
    )
}

fn push_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&u32::try_from(s.len()).unwrap().to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// A `rosgraph_msgs/Log` payload.
fn log_bytes(level: u8, text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&[0; 8]);
    push_str(&mut out, "");
    out.push(level);
    push_str(&mut out, "/camera_driver");
    push_str(&mut out, text);
    push_str(&mut out, "driver.cpp");
    push_str(&mut out, "grab");
    out.extend_from_slice(&7u32.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out
}

/// Frames that cannot be drawn (their data cut short), by index.
const BROKEN: [u32; 2] = [3, 6];

/// A camera (ten `rgb8` frames a second apart from t = 100, brighter each time; frames 3 and
/// 6 cut short) and its driver's log (INFO at 101, ERROR at 104, FATAL at 107).
fn write_bag(path: &Path) {
    let mut w = plain_writer(path);
    let cam = w
        .add_connection(
            "/camera/image_raw",
            &header("/camera/image_raw", "sensor_msgs/Image"),
        )
        .unwrap();
    let log = w
        .add_connection("/rosout", &header("/rosout", "rosgraph_msgs/Log"))
        .unwrap();
    for i in 0..10u32 {
        let t = RosTime::new(100 + i, 0);
        let level = 40 + i * 20;
        let mut frame = rgb8_frame(IMAGE_W, IMAGE_H, |x, _| {
            let v = u8::try_from(level.min(255)).unwrap();
            if x < IMAGE_W / 2 {
                [v, v, v]
            } else {
                [v / 4, v / 4, v / 4]
            }
        });
        if BROKEN.contains(&i) {
            frame.truncate(frame.len() - 100);
        }
        w.write(cam, t, &frame).unwrap();
        let line = match i {
            1 => Some((2, "capture started")),
            4 => Some((8, "VIDIOC_DQBUF error 11")),
            7 => Some((16, "device lost")),
            _ => None,
        };
        if let Some((level, text)) = line {
            w.write(log, t.saturating_add_nanos(1000), &log_bytes(level, text))
                .unwrap();
        }
    }
    w.finish().unwrap();
}

fn harness(path: &Path, w: u16, h: u16) -> Harness {
    let bag = Bag::open(path).unwrap();
    let mut h = Harness::new(Catalog::new(vec![bag]), w, h);
    h.app.views.inspector.picture.depth = ColorDepth::Grey;
    h
}

/// Opens the lanes (`a` twice) and waits for the ticks and for every slot's frame.
fn open_lanes(h: &mut Harness) {
    h.act(&[Action::ToggleHistogramScope, Action::ToggleHistogramScope]);
    wait_frames(h);
}

fn settled(app: &App) -> bool {
    let ticks_done = app.jobs.lanes.ticks.as_ref().is_some_and(|t| t.done);
    let loaded = app.views.timeline.lanes.as_ref().is_some_and(|l| {
        l.lanes
            .iter()
            .flat_map(|l| &l.slots)
            .all(|s| s.shown != Shown::Loading)
    });
    ticks_done && loaded
}

fn wait_frames(h: &mut Harness) {
    h.wait_until("the thumbnails and ticks", LONG, settled);
}

/// What the slots of `topic`'s lane show.
fn slots(h: &Harness, topic: &str) -> Vec<Shown> {
    h.app
        .views
        .timeline
        .lanes
        .as_ref()
        .unwrap()
        .lanes
        .iter()
        .find(|l| l.topic == topic)
        .map(|l| l.slots.iter().map(|s| s.shown.clone()).collect())
        .unwrap_or_default()
}

fn frames(shown: &[Shown]) -> usize {
    shown
        .iter()
        .filter(|s| matches!(s, Shown::Frame { .. }))
        .count()
}

/// The screen line of `topic`'s lane.
fn lane_line(screen: &str, topic: &str) -> String {
    screen
        .lines()
        .find(|l| l.contains(&format!("│{topic}")))
        .unwrap_or_else(|| panic!("no lane of {topic}: {screen}"))
        .to_string()
}

#[test]
fn the_selected_camera_lane_shows_frames_at_their_times() {
    let mut h = Harness::demo(160, 48);
    h.scan();
    h.app.views.inspector.picture.depth = ColorDepth::Grey;
    // The camera topic is the third: selected, its lane makes room for frames.
    h.act(&[Action::Down, Action::Down]);
    assert_eq!(
        h.app.views.topics.list.selected_row().unwrap().topic,
        "/camera/image_raw"
    );
    open_lanes(&mut h);
    let l = h.app.views.timeline.lanes.as_ref().unwrap();
    let cam = l
        .lanes
        .iter()
        .find(|l| l.topic == "/camera/image_raw")
        .unwrap();
    assert_eq!(cam.rows, 1 + thumbs::MIN_ROWS, "room made in a full pane");
    assert_eq!(l.rows(), 10, "the pane's lane rows, no more");
    let shown = slots(&h, "/camera/image_raw");
    assert_eq!(shown.len(), 7, "{shown:?}");
    // The camera's 2 s drop-out (12–14 s) leaves a slot empty; every other one has its frame,
    // taken inside the slot's times.
    assert!(frames(&shown) >= 5, "{shown:?}");
    for slot in &cam.slots {
        if let Shown::Frame { time, raster } = &slot.shown {
            assert!(*time >= slot.span.0 && *time < slot.span.1);
            assert!(raster.width <= 8 && raster.height <= 6);
        }
    }
    let screen = h.screen();
    assert!(!screen.contains('░'), "nothing left loading: {screen}");
    insta::assert_snapshot!("lanes_thumbnails_160x48", screen);
    // Moving on to another topic gives the rows back.
    h.act(&[Action::Down]);
    wait_frames(&mut h);
    assert!(slots(&h, "/camera/image_raw").is_empty());
}

#[test]
fn a_small_terminal_shows_frames_on_the_focused_timeline() {
    // 80×24: three lane rows, too few for frames; the compact layout (narrower than 70
    // columns) gives the focused timeline the whole screen.
    let mut h = Harness::demo(80, 24);
    h.scan();
    h.act(&[Action::Down, Action::Down]);
    open_lanes(&mut h);
    assert!(
        slots(&h, "/camera/image_raw").is_empty(),
        "too low at 80×24"
    );
    h.app.views.inspector.picture.depth = ColorDepth::Grey;
    h.act(&[Action::Resize(64, 24), Action::Focus(Pane::Histogram)]);
    wait_frames(&mut h);
    let shown = slots(&h, "/camera/image_raw");
    assert!(frames(&shown) >= 2, "{shown:?}");
    insta::assert_snapshot!("lanes_thumbnails_compact_64x24", h.screen());
}

#[test]
fn errors_and_fatals_tick_on_the_log_lane() {
    for (w, hh) in [(80u16, 24u16), (160, 48)] {
        let mut h = Harness::demo(w, hh);
        h.scan();
        // `/rosout` selected: its lane is on screen at 80×24 too.
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
        open_lanes(&mut h);
        let ticks = h.app.jobs.lanes.ticks.as_ref().unwrap();
        // The demo's one ERROR (13.24 s, the camera driver).
        assert_eq!(ticks.ticks.len(), 1, "{ticks:?}");
        let screen = h.screen();
        let rosout = lane_line(&screen, "/rosout");
        assert_eq!(rosout.matches('E').count(), 1, "{screen}");
        assert!(!rosout.contains('F'));
        insta::assert_snapshot!(format!("lanes_error_ticks_{w}x{hh}"), screen);
    }
}

#[test]
fn undecodable_frames_are_marked_not_reported() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("camera.bag");
    write_bag(&path);
    let mut h = harness(&path, 160, 48);
    h.scan();
    open_lanes(&mut h);
    let shown = slots(&h, "/camera/image_raw");
    assert_eq!(shown.len(), 5, "{shown:?}");
    let failed: Vec<&Shown> = shown
        .iter()
        .filter(|s| matches!(s, Shown::Failed(_)))
        .collect();
    assert_eq!(failed.len(), 2, "frames 3 and 6: {shown:?}");
    assert_eq!(frames(&shown), 3, "{shown:?}");
    assert!(h.app.flash.is_none(), "no error in the status bar");
    let screen = h.screen();
    assert!(screen.contains("× 2 not drawn"), "{screen}");
    let rosout = lane_line(&screen, "/rosout");
    assert_eq!(
        (rosout.matches('E').count(), rosout.matches('F').count()),
        (1, 1),
        "{screen}"
    );
    insta::assert_snapshot!("lanes_undecodable_frames_160x48", screen);
    // Zooming asks again: the frames stay within their slots, and nothing is reported.
    h.act(&[Action::ZoomIn]);
    wait_frames(&mut h);
    assert!(h.app.flash.is_none());
}

#[test]
fn frames_come_from_the_cache_within_its_budget() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("camera.bag");
    write_bag(&path);
    let bag = Bag::open(&path).unwrap();
    let catalog = Catalog::new(vec![bag]);
    let connections: Vec<_> = catalog
        .bags()
        .iter()
        .enumerate()
        .flat_map(|(b, bag)| {
            bag.connections()
                .iter()
                .filter(|c| c.topic == "/camera/image_raw")
                .map(move |c| bagscope::catalog::BagConn::new(b, c.id))
        })
        .collect();
    let fit = Fit::new(8, 6);
    let one = thumbs::frame_bytes(fit);
    // Room for three frames: serving ten slots (one frame each) keeps at most three.
    let mut maker = Frames::with_cache(Registry::bundled(), ThumbCache::new(3 * one));
    let slots: Vec<(usize, (RosTime, RosTime))> = (0..10u32)
        .map(|i| {
            let from = RosTime::new(100 + i, 0).saturating_add_nanos(-400_000_000);
            (i as usize, (from, from.saturating_add_nanos(800_000_000)))
        })
        .collect();
    let request = ThumbRequest {
        generation: 1,
        catalog: catalog.clone(),
        lanes: vec![LaneAsk {
            topic: "/camera/image_raw".into(),
            connections,
            fit,
            slots,
        }],
    };
    let mut got = Vec::new();
    maker.serve(
        &request,
        || false,
        |n| {
            got.push(n);
            true
        },
    );
    assert_eq!(got.len(), 10);
    let failed = got
        .iter()
        .filter(|n| {
            matches!(
                n,
                ThumbNews::Slot {
                    shown: Shown::Failed(_),
                    ..
                }
            )
        })
        .count();
    assert_eq!(failed, BROKEN.len());
    assert!(maker.cache().used() <= 3 * one, "{}", maker.cache().used());
    assert!(maker.cache().len() <= 3 + BROKEN.len());
    // A newer request stops the one served at its next slot.
    let n = std::cell::Cell::new(0);
    maker.serve(
        &request,
        || n.get() > 0,
        |_| {
            n.set(n.get() + 1);
            true
        },
    );
    assert_eq!(n.get(), 1);
}

#[test]
fn tmux_lanes_show_frames_and_ticks() {
    if !crate::common::tmux::have_tmux() {
        crate::common::skip("tmux is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bag = dir.path().join("camera.bag");
    write_bag(&bag);
    let cmd = format!(
        "env -u NO_COLOR COLORTERM=truecolor {} {}; sleep 30",
        env!("CARGO_BIN_EXE_bagscope"),
        bag.display()
    );
    let s = crate::common::tmux::Session::start("lanes-thumbs", 160, 48, &cmd);
    s.wait("the topic list", |t| t.contains("/camera/image_raw"));
    s.keys(&["a", "a"]);
    let screen = s.wait("the frames and ticks", |t| {
        t.contains("Timeline · lanes") && t.contains('▀') && t.contains("× 2 not drawn")
    });
    let rosout = lane_line(&screen, "/rosout");
    assert!(rosout.contains('E') && rosout.contains('F'), "{screen}");
}

/// The cost of the thumbnails of one view on a long recording: 20 000 camera frames (64×48,
/// 30 Hz, one chunk each), seven slots over the whole bag and over 1 % of it, cold and from the
/// cache: seven frames each time. Prints the times (docs/performance.md measures with
/// `THUMBNAIL_FRAMES=20000 cargo test --test integration thumbnails_cost -- --nocapture`; the
/// suite runs 2 000 frames and asserts no time).
#[test]
fn thumbnails_cost() {
    use std::time::Instant;
    let n: u32 = std::env::var("THUMBNAIL_FRAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.bag");
    {
        let mut w = plain_writer(&path);
        let cam = w
            .add_connection(
                "/camera/image_raw",
                &header("/camera/image_raw", "sensor_msgs/Image"),
            )
            .unwrap();
        let frame = rgb8_frame(IMAGE_W, IMAGE_H, crate::common::pictures::frame_pixel);
        for i in 0..n {
            let t = RosTime::new(100, 0).saturating_add_nanos(i128::from(i) * 33_333_333);
            w.write(cam, t, &frame).unwrap();
        }
        w.finish().unwrap();
    }
    let start = Instant::now();
    let catalog = Catalog::new(vec![Bag::open(&path).unwrap()]);
    println!("open: {:?}", start.elapsed());
    let connections = vec![bagscope::catalog::BagConn::new(0, 0)];
    let (t0, t1) = (catalog.start_time().unwrap(), catalog.end_time().unwrap());
    let fit = thumbs::fit(3);
    let ask = |window: (RosTime, RosTime)| {
        let slots = thumbs::slots(window, 64, 3);
        LaneAsk {
            topic: "/camera/image_raw".into(),
            connections: connections.clone(),
            fit,
            slots: slots.iter().enumerate().map(|(i, s)| (i, s.span)).collect(),
        }
    };
    let mut maker = Frames::new(Registry::bundled());
    let mut serve = |what: &str, window: (RosTime, RosTime)| {
        let request = ThumbRequest {
            generation: 1,
            catalog: catalog.clone(),
            lanes: vec![ask(window)],
        };
        let start = Instant::now();
        let mut n = 0;
        maker.serve(
            &request,
            || false,
            |news| {
                n += usize::from(matches!(
                    news,
                    ThumbNews::Slot {
                        shown: Shown::Frame { .. },
                        ..
                    }
                ));
                true
            },
        );
        println!("{what}: {n} frames in {:?}", start.elapsed());
        n
    };
    assert_eq!(serve("whole bag, cold", (t0, t1)), 7);
    assert_eq!(serve("whole bag, cached", (t0, t1)), 7);
    let span = t1.nanos_since(t0) / 100;
    let zoom = (
        t0.saturating_add_nanos(span * 50),
        t0.saturating_add_nanos(span * 51),
    );
    assert_eq!(serve("1 % of it, cold", zoom), 7);
    println!("cache: {} bytes", maker.cache().used());
}
