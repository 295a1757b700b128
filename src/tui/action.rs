//! Everything the user can ask for, as data. The keymap turns keys into actions; the app turns
//! actions into state changes.

/// The panes of the explorer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pane {
    /// Topic list.
    Topics,
    /// Time histogram.
    Histogram,
    /// Messages of the selected topic.
    Messages,
    /// Decoded message.
    Inspector,
    /// The plot (only while something is plotted).
    Plot,
}

impl Pane {
    /// Focus order for Tab (the plot is skipped while nothing is plotted).
    pub const ORDER: [Pane; 5] = [
        Pane::Topics,
        Pane::Histogram,
        Pane::Messages,
        Pane::Inspector,
        Pane::Plot,
    ];

    /// Title shown on the pane border.
    pub fn title(self) -> &'static str {
        match self {
            Pane::Topics => "Topics",
            Pane::Histogram => "Timeline",
            Pane::Messages => "Messages",
            Pane::Inspector => "Inspector",
            Pane::Plot => "Plot",
        }
    }
}

/// A user intent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// `q`: close the overlay or secondary view shown (help, health, text, log, a question);
    /// leave the program from the main view.
    Quit,
    /// Ctrl-C: leave the program from anywhere, prompts and overlays included.
    ForceQuit,
    /// `y` to the question shown (publish the marked interval); any other key cancels it.
    Confirm,
    /// Show or hide the key help.
    ToggleHelp,
    /// Show or hide the health view.
    ToggleHealth,
    /// Focus the next pane.
    FocusNext,
    /// Focus the previous pane.
    FocusPrev,
    /// Focus a pane.
    Focus(Pane),
    /// Move up one row.
    Up,
    /// Move down one row.
    Down,
    /// Move left (cursor back in time; collapse in the inspector).
    Left,
    /// Move right (cursor forward in time; expand in the inspector).
    Right,
    /// Big step left.
    BigLeft,
    /// Big step right.
    BigRight,
    /// One page up.
    PageUp,
    /// One page down.
    PageDown,
    /// First row / start of the bag.
    Top,
    /// Last row / end of the bag.
    Bottom,
    /// Open / select / toggle.
    Enter,
    /// Back out (close an overlay, clear a filter, leave a pane).
    Back,
    /// Start typing a topic filter.
    StartFilter,
    /// Start typing a time to jump to.
    StartJump,
    /// Cycle the topic sort order.
    CycleSort,
    /// Cycle the time display (epoch / UTC / local / offset).
    CycleTimeFormat,
    /// Zoom the timeline in around the cursor.
    ZoomIn,
    /// Zoom the timeline out.
    ZoomOut,
    /// Show the whole time range.
    ZoomReset,
    /// Timeline of the selected topic, of all topics, or one lane per shown topic.
    ToggleHistogramScope,
    /// Expand every node of the inspector tree.
    ExpandAll,
    /// Collapse every node of the inspector tree.
    CollapseAll,
    /// Mark the start of an interval at the cursor.
    MarkStart,
    /// Mark the end of an interval at the cursor.
    MarkEnd,
    /// Write the marked interval (every topic) to a new bag.
    ExportMarked,
    /// Publish the marked interval (the topics shown) into the ROS graph, or stop doing so.
    TogglePublish,
    /// Start or pause playing: the cursor moves through time.
    TogglePlay,
    /// Play twice as fast.
    Faster,
    /// Play half as fast.
    Slower,
    /// Copy the selected message as YAML to the clipboard (OSC 52).
    CopyYaml,
    /// Save the selected message as YAML to a file.
    SaveYaml,
    /// `P`: open the plot prompt, prefilled with the selected field as `/topic: field.path`
    /// (or the plot pane's selected series) for the user to edit into an expression.
    PlotPrompt,
    /// The plot pane: stop plotting the selected series.
    RemovePlotSeries,
    /// The plot pane: stop plotting every series.
    ClearPlot,
    /// The plot pane: the cursor to the selected series' largest value in view.
    PlotMax,
    /// The plot pane: the cursor to the selected series' smallest value in view.
    PlotMin,
    /// The plot: one shared y scale / one per series.
    TogglePlotScale,
    /// A character typed into the filter or jump prompt.
    Input(char),
    /// Delete the last character of the prompt.
    Backspace,
    /// Clear the prompt.
    ClearInput,
    /// A mouse click at a screen position.
    Click(u16, u16),
    /// Mouse wheel at a screen position (`true` = down).
    Scroll(u16, u16, bool),
    /// The terminal was resized.
    Resize(u16, u16),
    /// Show or hide the log view (`/rosout`).
    ToggleLog,
    /// Log view: the next minimum level.
    LogLevel,
    /// Log view: pick the nodes shown.
    LogNodeFilter,
    /// Log view: only the minimum level itself, or every level from it up.
    LogExactLevel,
    /// Log view: type the text filter.
    LogTextFilter,
    /// Show the selected message's type definition (`rosmsg show`).
    ShowDefinition,
    /// Show the inspector's selected string in full.
    ShowLongValue,
    /// Mark the decoded message to compare others with.
    MarkForDiff,
    /// List the fields that differ from the marked message.
    ShowDiff,
    /// Show the selected image, map, scan or cloud as a picture in the inspector, or not.
    TogglePicture,
    /// The plot: time mode / XY mode (two fields of one topic against each other).
    TogglePlotXy,
    /// Start typing a search expression (`f`).
    StartFind,
    /// Go to the next match of the search.
    NextMatch,
    /// Go to the previous match of the search.
    PrevMatch,
    /// Follow the recording as it grows (`tail -f`), or stop.
    ToggleFollow,
}
