//! Text from a bag never reaches the explorer's screen raw: topic names, types, log lines
//! and string values holding a right-to-left override (U+202E), escape sequences or C1
//! controls are escaped in every pane and title (timeline, lanes, messages, inspector,
//! log, plot legend, health, status bar), as the command line escapes them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use bagscope::bag::OpenOptions;
use bagscope::catalog::Catalog;
use bagscope::format::ConnectionHeader;
use bagscope::time::RosTime;
use bagscope::tui::action::{Action, Pane};

use crate::common;
use crate::common::tui::{Harness, select_topic};

/// Reverses what follows, clears the screen, a C1 CSI.
const EVIL: &str = "\u{202e}\u{1b}[2J\u{9b}1m";

fn string(out: &mut Vec<u8>, s: &str) {
    out.extend(u32::try_from(s.len()).unwrap().to_le_bytes());
    out.extend(s.as_bytes());
}

fn connection(topic: &str, datatype: &str, md5: &str, def: &str) -> ConnectionHeader {
    ConnectionHeader::build(topic, datatype, md5, def, Some("/n"), None)
}

/// A bag whose topics, a type, log lines and strings carry [`EVIL`].
fn evil_bag(dir: &Path) -> PathBuf {
    let path = dir.join("evil\u{202e}gab.bag");
    let mut w = common::synth::plain_writer(&path);
    let text = format!("/gnp{EVIL}exe");
    let s = w
        .add_connection(
            &text,
            &connection(
                &text,
                "std_msgs/String",
                "992ce8a1687cec8c8bd883ec73ca41d1",
                "string data\n",
            ),
        )
        .unwrap();
    let log_topic = format!("/rosout{EVIL}");
    let log = w
        .add_connection(
            &log_topic,
            &connection(
                &log_topic,
                "rosgraph_msgs/Log",
                "acffd30cd6b6de30f120938c17c593fb",
                "",
            ),
        )
        .unwrap();
    let num_topic = format!("/num{EVIL}");
    let num = w
        .add_connection(
            &num_topic,
            &connection(
                &num_topic,
                "std_msgs/Float64",
                "fdb28210bfa9d7c91146260178d9a584",
                "float64 data\n",
            ),
        )
        .unwrap();
    let pt_topic = format!("/pt{EVIL}");
    let pt = w
        .add_connection(
            &pt_topic,
            &connection(
                &pt_topic,
                "geometry_msgs/Point",
                "4a842b65f413084dc2b10fb484ea7f17",
                "float64 x\nfloat64 y\nfloat64 z\n",
            ),
        )
        .unwrap();
    let ty = format!("pkg/Typed{EVIL}");
    let typed = w
        .add_connection("/typed", &connection("/typed", &ty, "*", "int32 x\n"))
        .unwrap();
    for k in 0..5u32 {
        let t = RosTime::new(1_700_000_000 + k, 0);
        let mut p = Vec::new();
        string(&mut p, &format!("hi{EVIL}there"));
        w.write(s, t, &p).unwrap();
        // rosgraph_msgs/Log: header, level, name, msg, file, function, line, topics.
        let mut p = Vec::new();
        p.extend(k.to_le_bytes());
        p.extend((1_700_000_000 + k).to_le_bytes());
        p.extend(0u32.to_le_bytes());
        string(&mut p, &format!("frame{EVIL}"));
        p.push(8);
        string(&mut p, &format!("/node{EVIL}"));
        string(&mut p, &format!("it failed{EVIL}"));
        string(&mut p, &format!("f{EVIL}.cpp"));
        string(&mut p, &format!("fn{EVIL}"));
        p.extend(7u32.to_le_bytes());
        p.extend(1u32.to_le_bytes());
        string(&mut p, &num_topic);
        w.write(log, t, &p).unwrap();
        w.write(num, t, &f64::from(k).to_le_bytes()).unwrap();
        w.write(typed, t, &(k as i32).to_le_bytes()).unwrap();
        let mut p = Vec::new();
        for v in [f64::from(k), f64::from(k * k), 0.0] {
            p.extend(v.to_le_bytes());
        }
        w.write(pt, t, &p).unwrap();
    }
    w.finish().unwrap();
    path
}

/// The rows of the screen where a character that must be escaped is shown raw.
fn raw_on_screen(h: &Harness) -> Vec<String> {
    let buf = h.buffer();
    let area = buf.area;
    let mut rows = Vec::new();
    for y in area.top()..area.bottom() {
        let raw = (area.left()..area.right()).any(|x| {
            buf[(x, y)]
                .symbol()
                .chars()
                .any(bagscope::printable::is_unsafe)
        });
        if raw {
            let row: String = (area.left()..area.right())
                .map(|x| buf[(x, y)].symbol().escape_debug().to_string())
                .collect();
            rows.push(format!("row {y}: {row}"));
        }
    }
    rows
}

fn assert_escaped(h: &Harness, what: &str) {
    let rows = raw_on_screen(h);
    assert!(rows.is_empty(), "{what}: raw in\n{}", rows.join("\n"));
}

fn harness(path: &Path, w: u16, hh: u16) -> Harness {
    let (catalog, errors) = Catalog::open(&[path.to_path_buf()], &OpenOptions::default());
    assert!(errors.is_empty(), "{errors:?}");
    Harness::new(catalog, w, hh)
}

#[test]
fn no_pane_or_title_shows_a_bags_control_characters_raw() {
    let dir = tempfile::tempdir().unwrap();
    let path = evil_bag(dir.path());
    for (w, hh) in [(80u16, 24u16), (160, 48)] {
        let mut h = harness(&path, w, hh);
        h.wait_until("the log lines", Duration::from_secs(20), |app| {
            app.views.log.view.done
        });
        assert_escaped(&h, "the first screen");
        for topic in ["gnp", "rosout", "num", "pt", "typed"] {
            select_topic(&mut h, topic);
            assert!(
                h.screen().contains("\\u{202e}"),
                "{topic}: the override is shown escaped\n{}",
                h.screen()
            );
            assert_escaped(&h, &format!("{topic}: timeline and messages"));
            h.act(&[Action::Focus(Pane::Messages), Action::Enter]);
            assert_escaped(&h, &format!("{topic}: a message in the inspector"));
            h.act(&[Action::ToggleHistogramScope]);
            assert_escaped(&h, &format!("{topic}: every topic"));
            h.act(&[Action::ToggleHistogramScope]);
            assert_escaped(&h, &format!("{topic}: lanes"));
            h.act(&[Action::ToggleHistogramScope]);
        }
        // The plot's legend.
        select_topic(&mut h, "num");
        h.act(&[
            Action::Focus(Pane::Messages),
            Action::Enter,
            Action::Focus(Pane::Inspector),
        ]);
        let row = h
            .app
            .views
            .inspector
            .tree
            .rows()
            .iter()
            .position(|r| r.path == "data")
            .unwrap();
        h.app.views.inspector.tree.selected = row;
        h.act(&[Action::PlotPrompt, Action::Enter]);
        h.wait_until("the series", Duration::from_secs(30), |a| {
            a.views.plot.plots.entries.len() == 1 && a.views.plot.plots.progress().is_none()
        });
        assert_escaped(&h, "the plot");
        // The log view, the health pane.
        h.act(&[Action::ToggleLog]);
        assert!(h.screen().contains("it failed"), "{}", h.screen());
        assert_escaped(&h, "the log");
        h.act(&[Action::Enter]);
        assert_escaped(&h, "a log line");
        h.act(&[Action::Back, Action::Back]);
        h.scan();
        h.act(&[Action::ToggleHealth]);
        assert_escaped(&h, "the health pane");
    }
}

/// The file's name (`evil\u{202e}gab.bag`) in the status bar.
#[test]
fn the_bag_file_name_never_reaches_the_status_bar_raw() {
    let dir = tempfile::tempdir().unwrap();
    let path = evil_bag(dir.path());
    let h = harness(&path, 120, 30);
    assert_escaped(&h, "the status bar");
}

/// Two fields of a topic so named drawn against each other: the XY title.
#[test]
fn the_xy_plot_names_its_topic_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let path = evil_bag(dir.path());
    let mut h = harness(&path, 120, 40);
    h.app.plot_field(&format!("/pt{EVIL}/x")).unwrap();
    h.app.plot_field(&format!("/pt{EVIL}/y")).unwrap();
    h.wait_until("both series", Duration::from_secs(30), |a| {
        a.views.plot.plots.entries.len() == 2 && a.views.plot.plots.progress().is_none()
    });
    assert_escaped(&h, "the plot's legend");
    h.act(&[Action::TogglePlotXy]);
    assert!(h.app.views.plot.plots.xy, "{}", h.status_bar());
    h.wait_until("the XY picture", Duration::from_secs(30), |a| {
        !a.xy_pending()
    });
    assert!(h.screen().contains("XY · /pt\\u{202e}"), "{}", h.screen());
    assert_escaped(&h, "the XY plot");
}
