//! Comparing messages: `m` marks the decoded message; while another message of the same type
//! is selected, the inspector highlights the fields that differ from it, and `D` lists them
//! alone (`path: old → new`) in the text overlay.

use super::super::model::diff;
use super::super::model::text_view::TextView;
use super::{App, Mode};
use crate::printable::escape;

impl App {
    /// `m`: marks the decoded message for comparison (`m` on the marked one unmarks it).
    pub(super) fn mark_for_diff(&mut self) {
        let Some(data) = self.views.inspector.tree.decoded() else {
            self.flash("no decoded message to mark: select one first", true);
            return;
        };
        if self
            .views
            .inspector
            .diff_mark
            .as_ref()
            .is_some_and(|m| m.msg == data.msg)
        {
            self.views.inspector.diff_mark = None;
            self.flash("comparison mark removed", false);
        } else {
            let text = format!(
                "marked {} at {} for comparison: select another message (D lists the changes)",
                escape(&data.topic),
                self.settings.time_format.short(data.time, self.start())
            );
            self.views.inspector.diff_mark = Some(data.clone());
            self.flash(text, false);
        }
        self.refresh_diff();
    }

    /// The changes from the marked message to the decoded one (empty when either is missing,
    /// they are the same message or of different types).
    fn diff_changes(&self) -> Option<Vec<diff::Change>> {
        let mark = self.views.inspector.diff_mark.as_ref()?;
        let data = self.views.inspector.tree.data.as_ref()?;
        if mark.msg == data.msg || mark.datatype != data.datatype {
            return None;
        }
        let (Ok(old), Ok(new)) = (&mark.value, &data.value) else {
            return None;
        };
        Some(diff::changes(old, new))
    }

    /// Recomputes which inspector rows differ from the marked message.
    pub(crate) fn refresh_diff(&mut self) {
        self.views.inspector.tree.changed = self
            .diff_changes()
            .map(|c| diff::changed_paths(&c))
            .unwrap_or_default();
    }

    /// `D`: the changed fields alone, `path: old → new`.
    pub(super) fn show_diff(&mut self) {
        let Some(mark) = &self.views.inspector.diff_mark else {
            self.flash("nothing marked: m marks a message to compare with", true);
            return;
        };
        let when = self.settings.time_format.short(mark.time, self.start());
        let Some(changes) = self.diff_changes() else {
            self.flash(
                "select another message of the marked one's type to compare",
                true,
            );
            return;
        };
        let mut lines = diff::lines(&changes);
        if lines.is_empty() {
            lines.push("no field differs".into());
        }
        let title = format!(
            "{} change(s) since the marked message ({when})",
            changes.len()
        );
        self.overlays.text =
            TextView::new(title, lines, self.area.width.saturating_sub(2) as usize);
        self.overlays.mode = Mode::Text;
    }
}
