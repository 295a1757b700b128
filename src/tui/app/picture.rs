//! The picture preview: `i` toggles it; the selected message is drawn on the worker at the
//! size of the inspector pane whenever the selection, the pane or the setting changes.

use super::super::jobs::worker::Request;
use super::super::jobs::worker::pending::{RequestId, RequestKind};
use super::super::model::picture::{Shown, header_rows};
use super::App;
use crate::catalog::MsgRef;
use crate::picture::{Fit, Picture, is_scatter_type};
use crate::tui::term::graphics::{Graphic, Graphics};

impl App {
    /// The datatype of the selected topic.
    fn selected_datatype(&self) -> Option<String> {
        self.views
            .topics
            .list
            .selected_row()
            .map(|r| r.datatype.clone())
    }

    /// True when the inspector shows a picture for the selection.
    pub fn picture_on(&self) -> bool {
        self.selected_datatype()
            .is_some_and(|d| self.views.inspector.picture.enabled_for(&d))
    }

    /// `i`: the preview on or off.
    pub(super) fn toggle_picture(&mut self) {
        if let Some(d) = self.selected_datatype() {
            self.views.inspector.picture.toggle(&d);
            self.request_picture();
        }
    }

    /// The cells a picture of `datatype` gets in the inspector (columns, rows).
    fn picture_cells(&self, datatype: &str) -> (u16, u16) {
        let r = self.layout.inspector;
        let rows = r
            .height
            .saturating_sub(2)
            .saturating_sub(header_rows(datatype));
        (r.width.saturating_sub(2), rows)
    }

    /// The size a picture of `datatype` gets in the inspector, in pixels: the terminal's
    /// pixels with a graphics protocol, braille dots' for a scatter (2×4 a cell), else
    /// half-blocks' (two pixels a cell, one across).
    fn picture_fit(&self, datatype: &str) -> Fit {
        let (cols, rows) = self.picture_cells(datatype);
        if let Some(g) = self.views.inspector.picture.protocol_for(datatype) {
            return g.fit(cols, rows);
        }
        if is_scatter_type(datatype) {
            let (w, h) = crate::tui::view::dots::CELL;
            return Fit::new(u32::from(cols) * w, u32::from(rows) * h);
        }
        Fit::new(u32::from(cols), u32::from(rows) * 2)
    }

    /// Asks the worker for the selected message's picture when the preview is on and it is
    /// not already shown or coming.
    pub(super) fn request_picture(&mut self) {
        let (Some(datatype), Some(msg)) =
            (self.selected_datatype(), self.views.messages.selected_ref())
        else {
            return;
        };
        if !self.views.inspector.picture.enabled_for(&datatype) {
            return;
        }
        let fit = self.picture_fit(&datatype);
        if !self.views.inspector.picture.needs(msg, fit) {
            return;
        }
        let id = self.jobs.requests.issue(RequestKind::Picture);
        self.views.inspector.picture.loading = Some((msg, fit));
        let encode = self
            .views
            .inspector
            .picture
            .protocol_for(&datatype)
            .map(|g| {
                let (cols, rows) = self.picture_cells(&datatype);
                (g.clone(), cols, rows)
            });
        self.jobs.worker.send(Request::Picture {
            id,
            msg,
            fit,
            encode,
        });
    }

    /// The terminal's graphics protocol became known: the picture shown is drawn again
    /// with it.
    pub(in crate::tui) fn set_graphics(&mut self, graphics: Option<Graphics>) -> bool {
        let same = self.views.inspector.picture.graphics.is_none() && graphics.is_none();
        self.views.inspector.picture.graphics = graphics;
        if same {
            return false;
        }
        self.views.inspector.picture.shown = None;
        self.views.inspector.picture.loading = None;
        self.request_picture();
        true
    }

    /// A picture from the worker (dropped when stale).
    pub(super) fn picture_reply(
        &mut self,
        id: RequestId,
        msg: MsgRef,
        result: Result<Picture, String>,
        graphic: Option<Graphic>,
    ) -> bool {
        if !self.jobs.requests.is_current(RequestKind::Picture, id) {
            return false;
        }
        let Some((_, fit)) = self.views.inspector.picture.loading.take() else {
            return false;
        };
        let dots = graphic.is_none()
            && self
                .selected_datatype()
                .is_some_and(|d| is_scatter_type(&d));
        self.views.inspector.picture.shown = Some(Shown {
            msg,
            fit,
            result,
            graphic,
            dots,
        });
        true
    }
}
