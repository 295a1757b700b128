//! What leaves the explorer: `E` exports the marked interval to a bag, `y` copies the decoded
//! message as YAML to the clipboard (OSC 52), `Y` saves it to a file.

use std::path::PathBuf;

use super::super::jobs::worker::pending::RequestKind;
use super::super::jobs::worker::{ExportRequest, Request, YamlDone};
use super::super::text::bytes;
use super::App;

impl App {
    /// `E`: writes the marked interval — the topics the topic list shows, as `p` publishes
    /// them — to a new bag beside the first bag (`BAG-START-END.bag`), in the background.
    pub(super) fn export_marked(&mut self) {
        let (Some(a), Some(b)) = self.views.timeline.marks else {
            self.flash("mark an interval first: [ at its start, ] at its end", true);
            return;
        };
        if self.still_filtering() {
            return;
        }
        let topics = match self.views.topics.list.filtered_topics() {
            None => Vec::new(),
            Some(shown) if shown.is_empty() => {
                self.flash("no topic matches the filter: nothing to export", true);
                return;
            }
            Some(shown) => shown,
        };
        let first = self.catalog.bags().first().map(|b| b.path().to_path_buf());
        let stem = first
            .as_ref()
            .and_then(|p| p.file_stem())
            .map_or_else(|| "bag".to_string(), |s| s.to_string_lossy().to_string());
        // Beside the first bag, unless another directory was set (or the bag has none: the
        // bundled demo).
        let dir = match first.as_ref().and_then(|p| p.parent()) {
            Some(d) if self.settings.output_dir == std::path::Path::new(".") && d.is_dir() => {
                d.to_path_buf()
            }
            _ => self.settings.output_dir.clone(),
        };
        let dir = std::path::absolute(&dir).unwrap_or(dir);
        let base = format!(
            "{stem}-{}.{:03}-{}.{:03}",
            a.sec,
            a.nsec / 1_000_000,
            b.sec,
            b.nsec / 1_000_000
        );
        let mut path = dir.join(format!("{base}.bag"));
        let mut n = 1;
        while path.exists() {
            n += 1;
            path = dir.join(format!("{base}-{n}.bag"));
        }
        let id = self.jobs.requests.issue(RequestKind::Export);
        self.flash(format!("writing {}…", path.display()), false);
        self.jobs.worker.send(Request::Export(ExportRequest {
            id,
            start: a,
            end: b,
            topics,
            path,
        }));
    }

    pub(super) fn copy_yaml(&mut self) {
        self.request_yaml(None);
    }

    pub(super) fn save_yaml(&mut self) {
        let Some(d) = self.views.inspector.tree.data.as_ref() else {
            self.flash("no decoded message to save", true);
            return;
        };
        let name: String = d
            .topic
            .trim_start_matches('/')
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let path = self
            .settings
            .output_dir
            .join(format!("{name}-{}.{:09}.yaml", d.time.sec, d.time.nsec));
        self.request_yaml(Some(path));
    }

    /// YAML is rendered (and saved) by the worker: a big message must not stall the UI.
    pub(super) fn request_yaml(&mut self, save_to: Option<PathBuf>) {
        let Some(msg) = self.views.inspector.tree.decoded().map(|d| d.msg) else {
            self.flash("no decoded message", true);
            return;
        };
        let id = self.jobs.requests.issue(RequestKind::Yaml);
        self.flash(
            if save_to.is_some() {
                "saving…"
            } else {
                "copying…"
            },
            false,
        );
        self.jobs.worker.send(Request::Yaml { id, msg, save_to });
    }

    pub(super) fn yaml_done(&mut self, _topic: &str, result: Result<YamlDone, String>) {
        const CLIPBOARD_LIMIT: usize = 1 << 20;
        match result {
            Err(e) => self.flash(e, true),
            Ok(YamlDone::Saved(path, n)) => self.flash(
                format!("saved {} ({})", path.display(), bytes(n as u64)),
                false,
            ),
            Ok(YamlDone::Text(text)) if text.len() > CLIPBOARD_LIMIT => self.flash(
                format!(
                    "message is {} as YAML, too large for the clipboard: Y saves it to a file",
                    bytes(text.len() as u64)
                ),
                true,
            ),
            Ok(YamlDone::Text(text)) => {
                use base64::Engine;
                let b64 = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
                self.outbox.push(format!("\x1b]52;c;{b64}\x07"));
                // The terminal gives no answer: say where the text went and where it works.
                self.flash(
                    format!(
                        "YAML {} sent via OSC 52 (tmux: set-clipboard on); Y saves",
                        bytes(text.len() as u64)
                    ),
                    false,
                );
            }
        }
    }
}
