//! Reading in full: `d` (the selected message's type definition, as `rosmsg show` prints it)
//! and `w` (the inspector's selected string, wrapped, to its end) in the text overlay.

use super::super::action::Action;
use super::super::model::text_view::TextView;
use super::{App, Mode};
use crate::msg::ValueRef;
use crate::msg::path::ParsedPath;
use crate::msg::render::definition;
use crate::printable::escape;

/// Bytes of a string shown by `w` (a larger one ends with a note).
const LONG_VALUE_BYTES: usize = 4 * 1024 * 1024;

impl App {
    /// Width of the text overlay's inside.
    fn text_width(&self) -> usize {
        self.area.width.saturating_sub(2) as usize
    }

    /// Rows of the text overlay's inside.
    pub(crate) fn text_rows(&self) -> usize {
        self.area.height.saturating_sub(3).max(1) as usize
    }

    /// `d`: the definition of the decoded message's type.
    pub(super) fn show_definition(&mut self) {
        let Some(data) = &self.views.inspector.tree.data else {
            self.flash("no message decoded: select one first", true);
            return;
        };
        let Ok(decoded) = &data.value else {
            self.flash(format!("{} could not be decoded", data.datatype), true);
            return;
        };
        let ty = decoded.ty();
        let lines = definition::show(ty)
            .lines()
            .map(|l| escape(l).into_owned())
            .collect();
        let title = format!("{} (rosmsg show)", escape(ty.name()));
        self.overlays.text = TextView::new(title, lines, self.text_width());
        self.overlays.mode = Mode::Text;
    }

    /// `w`: the inspector's selected string in full.
    pub(super) fn show_long_value(&mut self) {
        let Some(row) = self.views.inspector.tree.selected_row() else {
            self.flash("nothing selected in the inspector", true);
            return;
        };
        let path = row.path.clone();
        let Some(Ok(decoded)) = self.views.inspector.tree.data.as_ref().map(|d| &d.value) else {
            return;
        };
        let value = ParsedPath::parse(&path)
            .ok()
            .and_then(|p| p.resolve(decoded.ty()).ok())
            .and_then(|p| p.get(decoded.root()));
        let Some(ValueRef::String(bytes)) = value else {
            self.flash("w shows a string field in full: select one", true);
            return;
        };
        let cut = bytes.len() > LONG_VALUE_BYTES;
        let shown = bytes
            .get(..LONG_VALUE_BYTES.min(bytes.len()))
            .unwrap_or(bytes);
        let text = String::from_utf8_lossy(shown);
        let mut lines: Vec<String> = text.split('\n').map(|l| escape(l).into_owned()).collect();
        if cut {
            lines.push(format!(
                "… ({} bytes more not shown)",
                bytes.len() - LONG_VALUE_BYTES
            ));
        }
        let title = format!("{path} · {} bytes", bytes.len());
        self.overlays.text = TextView::new(title, lines, self.text_width());
        self.overlays.mode = Mode::Text;
    }

    /// Keys in the text overlay.
    pub(super) fn text_action(&mut self, action: Action) -> bool {
        if let Action::Resize(w, h) = action {
            self.resize(w, h);
            let width = self.text_width();
            self.overlays.text.wrap_to(width);
            self.overlays.text.scroll_by(0, self.text_rows());
            return true;
        }
        let mut ctx = self.handle_ctx(self.text_rows());
        let handled = self.overlays.text_handle(action, &mut ctx);
        self.apply_effects(handled, ctx.effects)
    }
}
