//! The picture preview's state: whether it is on, the picture shown (for which message and
//! at which size), the one being drawn, and how many colours the terminal shows.

use crate::catalog::MsgRef;
use crate::picture::{Fit, Picture, is_image_type, is_map_type, is_picture_type};
use crate::tui::term::graphics::{Graphic, Graphics};

/// How pictures are coloured on this terminal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorDepth {
    /// 24-bit colour (`COLORTERM=truecolor` or `24bit`).
    TrueColor,
    /// The xterm 256-colour palette.
    Palette,
    /// No colour (`NO_COLOR`): a ramp of characters by brightness.
    Grey,
}

impl ColorDepth {
    /// From `NO_COLOR` and `COLORTERM`.
    pub fn from_env() -> ColorDepth {
        let var = |n: &str| std::env::var(n).unwrap_or_default();
        Self::from_vars(&var("NO_COLOR"), &var("COLORTERM"))
    }

    /// From the values of `NO_COLOR` and `COLORTERM`.
    pub fn from_vars(no_color: &str, colorterm: &str) -> ColorDepth {
        if !no_color.is_empty() {
            ColorDepth::Grey
        } else if matches!(colorterm, "truecolor" | "24bit") {
            ColorDepth::TrueColor
        } else {
            ColorDepth::Palette
        }
    }
}

/// A picture drawn for a message.
#[derive(Clone, Debug, PartialEq)]
pub struct Shown {
    /// Which message.
    pub msg: MsgRef,
    /// The size it was drawn for.
    pub fit: Fit,
    /// The picture, or why not.
    pub result: Result<Picture, String>,
    /// The picture encoded for the terminal's graphics protocol, when it is drawn that way.
    pub graphic: Option<Graphic>,
    /// A scatter, drawn in braille dots (2×4 pixels a cell) rather than half-blocks.
    pub dots: bool,
}

/// The preview's state.
#[derive(Clone, Debug)]
pub struct PicturePreview {
    /// Set by the user with `i`; `None`: on for camera images, off for the other pictures.
    pub toggled: Option<bool>,
    /// The picture shown.
    pub shown: Option<Shown>,
    /// The message being drawn.
    pub loading: Option<(MsgRef, Fit)>,
    /// Colours.
    pub depth: ColorDepth,
    /// The terminal's graphics protocol (`None`: half-blocks).
    pub graphics: Option<Graphics>,
}

impl Default for PicturePreview {
    fn default() -> Self {
        PicturePreview {
            toggled: None,
            shown: None,
            loading: None,
            depth: ColorDepth::from_env(),
            graphics: None,
        }
    }
}

impl PicturePreview {
    /// True when messages of `datatype` are shown as pictures.
    pub fn enabled_for(&self, datatype: &str) -> bool {
        is_picture_type(datatype) && self.toggled.unwrap_or_else(|| is_image_type(datatype))
    }

    /// Turns the preview on or off for pictures of `datatype` (and the others with it).
    pub fn toggle(&mut self, datatype: &str) {
        self.toggled = Some(!self.enabled_for(datatype));
    }

    /// The graphics protocol pictures of `datatype` are drawn with: camera images and maps
    /// (scans and clouds are scatters of single pixels: half-blocks show them better).
    pub fn protocol_for(&self, datatype: &str) -> Option<&Graphics> {
        (is_image_type(datatype) || is_map_type(datatype))
            .then_some(self.graphics.as_ref())
            .flatten()
    }

    /// True when `msg` at `fit` is neither shown nor being drawn.
    pub fn needs(&self, msg: MsgRef, fit: Fit) -> bool {
        self.loading != Some((msg, fit))
            && self
                .shown
                .as_ref()
                .is_none_or(|s| s.msg != msg || s.fit != fit)
    }
}

/// Lines above the picture for messages of `datatype` (title, summary).
pub fn header_rows(datatype: &str) -> u16 {
    match &*crate::msg::ros1_name(datatype) {
        "sensor_msgs/PointCloud2" | "sensor_msgs/PointCloud" => 4,
        "nav_msgs/OccupancyGrid" | "sensor_msgs/LaserScan" => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_depth_follows_the_environment() {
        assert_eq!(ColorDepth::from_vars("1", "truecolor"), ColorDepth::Grey);
        assert_eq!(
            ColorDepth::from_vars("", "truecolor"),
            ColorDepth::TrueColor
        );
        assert_eq!(ColorDepth::from_vars("", "24bit"), ColorDepth::TrueColor);
        assert_eq!(ColorDepth::from_vars("", ""), ColorDepth::Palette);
    }

    #[test]
    fn on_for_images_by_default_and_toggled_for_all() {
        let mut p = PicturePreview::default();
        assert!(p.enabled_for("sensor_msgs/Image"));
        assert!(!p.enabled_for("sensor_msgs/LaserScan"));
        assert!(!p.enabled_for("std_msgs/String"));
        p.toggle("sensor_msgs/LaserScan");
        assert!(p.enabled_for("sensor_msgs/LaserScan"));
        assert!(p.enabled_for("sensor_msgs/Image"));
        p.toggle("sensor_msgs/Image");
        assert!(!p.enabled_for("sensor_msgs/Image"));
        assert!(!p.enabled_for("std_msgs/String"), "never for other types");
        // ROS 2 spellings alike.
        let ros2 = PicturePreview::default();
        assert!(ros2.enabled_for("sensor_msgs/msg/Image"));
        assert!(ros2.enabled_for("sensor_msgs/msg/CompressedImage"));
        assert!(!ros2.enabled_for("sensor_msgs/msg/LaserScan"));
        assert_eq!(header_rows("sensor_msgs/msg/PointCloud2"), 4);
        assert_eq!(header_rows("nav_msgs/msg/OccupancyGrid"), 2);
    }
}
