//! What leaves the explorer: `E` exports the marked interval to a bag (asking where when the
//! directory it would go to cannot be written), `y` copies the decoded message as YAML to the
//! clipboard (OSC 52), `Y` saves it to a file.

use std::path::{Path, PathBuf};

use super::super::action::Action;
use super::super::jobs::worker::pending::RequestKind;
use super::super::jobs::worker::{ExportRequest, Request, YamlDone};
use super::super::text::bytes;
use super::{App, Mode};

impl App {
    /// `E`: writes the marked interval — the topics the topic list shows, as `p` publishes
    /// them — to a new bag (`BAG-START-END.bag`) in the background: beside the first bag, or in
    /// `--out-dir` (or the directory chosen since). When that directory cannot be written, a
    /// prompt asks where, offering the current directory (or `$HOME`).
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
            Some(d) if self.settings.output_dir == Path::new(".") && d.is_dir() => d.to_path_buf(),
            _ => self.settings.output_dir.clone(),
        };
        let dir = std::path::absolute(&dir).unwrap_or(dir);
        if !writable(&dir) {
            self.ask_export_dir(&dir);
            return;
        }
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

    /// Opens the prompt for the directory `E` writes to, `dir` being read-only: prefilled with
    /// the current directory, else `$HOME`, when it can be written.
    fn ask_export_dir(&mut self, dir: &Path) {
        let offer = std::env::current_dir()
            .ok()
            .into_iter()
            .chain(std::env::var_os("HOME").map(PathBuf::from))
            .find(|d| d != dir && writable(d));
        self.overlays.prompt = offer.map_or_else(String::new, |d| d.display().to_string());
        self.overlays.mode = Mode::ExportDir;
        let why = if dir.is_dir() {
            "cannot be written"
        } else {
            "is no directory"
        };
        self.flash(
            format!(
                "{} {why}: Enter writes there, Esc cancels",
                crate::printable::escape_line(&dir.display().to_string())
            ),
            false,
        );
    }

    /// Keys while the export directory is typed: `Enter` writes there (creating it when
    /// missing) and keeps it for the session, `Esc` cancels.
    pub(super) fn export_dir_action(&mut self, action: Action) -> bool {
        match action {
            _ if self.overlays.edit_prompt(action) => true,
            Action::Back => {
                self.overlays.mode = Mode::Normal;
                self.flash("nothing exported", false);
                true
            }
            Action::Enter => {
                self.overlays.mode = Mode::Normal;
                let text = std::mem::take(&mut self.overlays.prompt);
                let dir = expand_home(text.trim());
                if text.trim().is_empty() {
                    self.flash("no directory given: nothing exported", true);
                    return true;
                }
                if let Err(e) = std::fs::create_dir_all(&dir) {
                    self.flash(format!("{}: {e}", dir.display()), true);
                    return true;
                }
                if !writable(&dir) {
                    self.flash(format!("{} cannot be written either", dir.display()), true);
                    return true;
                }
                self.settings.output_dir = std::path::absolute(&dir).unwrap_or(dir);
                self.export_marked();
                true
            }
            Action::Resize(w, h) => self.resize(w, h),
            _ => false,
        }
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

/// Whether a new file can be made in `dir` (tried: permissions, ACLs and read-only mounts all
/// answer; the file has no name and is gone when closed).
fn writable(dir: &Path) -> bool {
    dir.is_dir() && tempfile::tempfile_in(dir).is_ok()
}

/// `~` and `~/…` in a typed path, from `$HOME`.
fn expand_home(text: &str) -> PathBuf {
    let home = || std::env::var_os("HOME").map(PathBuf::from);
    match text.strip_prefix('~') {
        Some("") => home().unwrap_or_else(|| PathBuf::from(text)),
        Some(rest) if rest.starts_with('/') => home().map_or_else(
            || PathBuf::from(text),
            |h| h.join(rest.trim_start_matches('/')),
        ),
        _ => PathBuf::from(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_only_directory_is_not_writable() {
        let dir = tempfile::tempdir().unwrap();
        assert!(writable(dir.path()));
        assert!(!writable(&dir.path().join("missing")));
        let mut perm = std::fs::metadata(dir.path()).unwrap().permissions();
        perm.set_readonly(true);
        std::fs::set_permissions(dir.path(), perm.clone()).unwrap();
        // root writes anywhere: the check then says so too.
        let root = tempfile::tempfile_in(dir.path()).is_ok();
        assert_eq!(writable(dir.path()), root);
        #[allow(clippy::permissions_set_readonly_false)]
        perm.set_readonly(false);
        std::fs::set_permissions(dir.path(), perm).unwrap();
    }

    #[test]
    fn a_tilde_is_home() {
        if let Some(home) = std::env::var_os("HOME") {
            assert_eq!(expand_home("~/x"), PathBuf::from(home).join("x"));
        }
        assert_eq!(expand_home("/tmp/x"), PathBuf::from("/tmp/x"));
    }
}
