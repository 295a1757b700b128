//! Keys → actions, per input context. The help overlay is generated from this table, so it
//! cannot drift from what the keys do.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::action::Action;

/// Where a key is interpreted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Context {
    /// Any pane in normal mode.
    Global,
    /// Typing in a prompt (filter, jump).
    Prompt,
    /// The log view (keys not bound here mean what they mean in `Global`).
    Log,
    /// A question (publish?): `y` confirms, Ctrl-C quits, any other key cancels.
    Confirm,
    /// The focused plot pane (keys not bound here mean what they mean in `Global`).
    Plot,
}

/// One binding: a key (with modifiers), its context, the action and a description.
#[derive(Clone, Debug)]
pub struct Binding {
    /// Key code.
    pub code: KeyCode,
    /// Required modifiers (Shift is ignored for characters).
    pub modifiers: KeyModifiers,
    /// Context.
    pub context: Context,
    /// What it does.
    pub action: Action,
    /// Help text (empty: an alias not listed separately).
    pub help: &'static str,
}

/// The keymap.
#[derive(Clone, Debug)]
pub struct KeyMap {
    bindings: Vec<Binding>,
}

fn b(code: KeyCode, action: Action, help: &'static str) -> Binding {
    Binding {
        code,
        modifiers: KeyModifiers::NONE,
        context: Context::Global,
        action,
        help,
    }
}

fn log(code: KeyCode, action: Action, help: &'static str) -> Binding {
    Binding {
        code,
        modifiers: KeyModifiers::NONE,
        context: Context::Log,
        action,
        help,
    }
}

fn plot(code: KeyCode, action: Action, help: &'static str) -> Binding {
    Binding {
        code,
        modifiers: KeyModifiers::NONE,
        context: Context::Plot,
        action,
        help,
    }
}

fn ctrl(c: char, action: Action, help: &'static str) -> Binding {
    Binding {
        code: KeyCode::Char(c),
        modifiers: KeyModifiers::CONTROL,
        context: Context::Global,
        action,
        help,
    }
}

/// The keys for reading content: the log view, definitions, long values, comparing.
fn reading_bindings() -> Vec<Binding> {
    use Action as A;
    use KeyCode as K;
    vec![
        b(K::Char('r'), A::ToggleLog, "log view (/rosout)"),
        b(
            K::Char('d'),
            A::ShowDefinition,
            "message definition (rosmsg show)",
        ),
        b(
            K::Char('w'),
            A::ShowLongValue,
            "inspector: the selected string in full",
        ),
        b(
            K::Char('m'),
            A::MarkForDiff,
            "mark the message to compare others with",
        ),
        b(
            K::Char('D'),
            A::ShowDiff,
            "list the fields changed since the marked message",
        ),
        log(
            K::Tab,
            A::LogLevel,
            "minimum level DEBUG/INFO/WARN/ERROR/FATAL",
        ),
        log(
            K::Char('='),
            A::LogExactLevel,
            "only the minimum level (toggle)",
        ),
        log(K::Char('@'), A::LogNodeFilter, "pick the nodes shown"),
        log(K::Char('/'), A::LogTextFilter, "filter by text"),
        log(K::Enter, A::Enter, "go to the line's message"),
        log(K::Char('r'), A::ToggleLog, "close (also Esc)"),
    ]
}

/// The keys of the content search.
fn search_bindings() -> Vec<Binding> {
    use Action as A;
    use KeyCode as K;
    vec![
        b(
            K::Char('f'),
            A::StartFind,
            "find messages by content (expression)",
        ),
        b(K::Char('n'), A::NextMatch, "next match or stretch (wraps)"),
        b(
            K::Char('N'),
            A::PrevMatch,
            "previous match or stretch (wraps)",
        ),
    ]
}

/// The keys that work everywhere: quit, help, the panes.
fn general_bindings() -> Vec<Binding> {
    use Action as A;
    use KeyCode as K;
    vec![
        b(
            K::Char('q'),
            A::Quit,
            "close a view; quit from the main view",
        ),
        ctrl('c', A::ForceQuit, "quit from anywhere (prompts included)"),
        b(K::Char('?'), A::ToggleHelp, "show/hide this help"),
        b(K::Tab, A::FocusNext, "next pane"),
        b(K::BackTab, A::FocusPrev, "previous pane"),
        b(
            K::Char('1'),
            A::Focus(super::action::Pane::Topics),
            "focus topics",
        ),
        b(
            K::Char('2'),
            A::Focus(super::action::Pane::Histogram),
            "focus timeline",
        ),
        b(
            K::Char('3'),
            A::Focus(super::action::Pane::Messages),
            "focus messages",
        ),
        b(
            K::Char('4'),
            A::Focus(super::action::Pane::Inspector),
            "focus inspector",
        ),
        b(
            K::Char('5'),
            A::Focus(super::action::Pane::Plot),
            "focus plot (while shown)",
        ),
    ]
}

/// The focused plot pane: selecting, removing, the extremes of a series.
fn plot_bindings() -> Vec<Binding> {
    use Action as A;
    use KeyCode as K;
    vec![
        plot(K::Up, A::Up, "select the series above"),
        plot(K::Char('k'), A::Up, ""),
        plot(K::Down, A::Down, "select the series below"),
        plot(K::Char('j'), A::Down, ""),
        plot(
            K::Char('x'),
            A::RemovePlotSeries,
            "stop plotting the selected series",
        ),
        plot(K::Delete, A::RemovePlotSeries, ""),
        plot(K::Char('X'), A::ClearPlot, "stop plotting every series"),
        plot(
            K::Char(']'),
            A::PlotMax,
            "cursor to the selected series' maximum in view",
        ),
        plot(
            K::Char('['),
            A::PlotMin,
            "cursor to the selected series' minimum in view",
        ),
        plot(
            K::Char('P'),
            A::PlotPrompt,
            "edit the selected series' spec into a new one",
        ),
        plot(
            K::Char('V'),
            A::TogglePlotXy,
            "time / XY (x outside the plot pane)",
        ),
    ]
}

/// Moving in a list, a tree or through time.
fn moving_bindings() -> Vec<Binding> {
    use Action as A;
    use KeyCode as K;
    vec![
        b(K::Up, A::Up, "up"),
        b(K::Char('k'), A::Up, ""),
        b(K::Down, A::Down, "down"),
        b(K::Char('j'), A::Down, ""),
        b(K::Left, A::Left, "cursor back / collapse"),
        b(K::Char('h'), A::Left, ""),
        b(K::Right, A::Right, "cursor forward / expand"),
        b(K::Char('l'), A::Right, ""),
        b(K::Char('H'), A::BigLeft, "cursor back 10 steps"),
        b(K::Char('L'), A::BigRight, "cursor forward 10 steps"),
        b(K::PageUp, A::PageUp, "page up"),
        ctrl('u', A::PageUp, ""),
        b(K::PageDown, A::PageDown, "page down"),
        ctrl('d', A::PageDown, ""),
        b(K::Home, A::Top, "first / start of the bag"),
        b(K::Char('g'), A::Top, ""),
        b(K::End, A::Bottom, "last / end of the bag"),
        b(K::Char('G'), A::Bottom, ""),
        b(K::Enter, A::Enter, "open / select / expand"),
        b(K::Esc, A::Back, "back / close / clear filter"),
    ]
}

/// What the topic list and the timeline show.
fn view_bindings() -> Vec<Binding> {
    use Action as A;
    use KeyCode as K;
    vec![
        b(K::Char('/'), A::StartFilter, "filter topics (fuzzy)"),
        b(
            K::Char(':'),
            A::StartJump,
            "jump to a time (epoch, +offset, date)",
        ),
        b(
            K::Char('s'),
            A::CycleSort,
            "sort topics by name/count/rate/size/bandwidth",
        ),
        b(
            K::Char('t'),
            A::CycleTimeFormat,
            "time display: epoch/UTC/local/offset",
        ),
        b(K::Char('+'), A::ZoomIn, "zoom in on the cursor"),
        b(K::Char('='), A::ZoomIn, ""),
        b(K::Char('-'), A::ZoomOut, "zoom out"),
        b(K::Char('0'), A::ZoomReset, "show the whole time range"),
        b(
            K::Char('a'),
            A::ToggleHistogramScope,
            "timeline: selected topic / all topics / lanes",
        ),
    ]
}

/// The inspected message: expanding, copying, plotting its fields; the health view.
fn message_bindings() -> Vec<Binding> {
    use Action as A;
    use KeyCode as K;
    vec![
        b(K::Char('e'), A::ExpandAll, "inspector: expand all"),
        b(K::Char('c'), A::CollapseAll, "inspector: collapse all"),
        b(
            K::Char('y'),
            A::CopyYaml,
            "copy message as YAML (clipboard, OSC 52)",
        ),
        b(K::Char('Y'), A::SaveYaml, "save message as YAML to a file"),
        b(
            K::Char('P'),
            A::PlotPrompt,
            "plot: a field or expression (prefilled with the inspector's field)",
        ),
        b(
            K::Char('v'),
            A::TogglePlotScale,
            "plot: shared / normalised y scale",
        ),
        b(
            K::Char('x'),
            A::TogglePlotXy,
            "plot: time / XY (two fields of one topic)",
        ),
        b(K::Char('!'), A::ToggleHealth, "health view"),
    ]
}

/// Marking and writing an interval, publishing, playing, pictures, following.
fn interval_bindings() -> Vec<Binding> {
    use Action as A;
    use KeyCode as K;
    vec![
        b(
            K::Char('['),
            A::MarkStart,
            "mark interval start at the cursor",
        ),
        b(K::Char(']'), A::MarkEnd, "mark interval end at the cursor"),
        b(
            K::Char('E'),
            A::ExportMarked,
            "write the marked interval to a bag",
        ),
        b(
            K::Char('p'),
            A::TogglePublish,
            "publish to ROS (asks first) / stop",
        ),
        b(
            K::Char(' '),
            A::TogglePlay,
            "play / pause (cursor moves through time)",
        ),
        b(K::Char('>'), A::Faster, "play faster"),
        b(K::Char('<'), A::Slower, "play slower"),
        b(
            K::Char('i'),
            A::TogglePicture,
            "picture preview on/off (images, maps, scans, clouds)",
        ),
        b(K::Char('F'), A::ToggleFollow, "follow (tail -f) / stop"),
    ]
}

/// Editing a prompt (filter, jump, find).
fn prompt_bindings() -> Vec<Binding> {
    use Action as A;
    use KeyCode as K;
    vec![
        Binding {
            code: K::Esc,
            modifiers: KeyModifiers::NONE,
            context: Context::Prompt,
            action: A::Back,
            help: "cancel",
        },
        Binding {
            code: K::Char('c'),
            modifiers: KeyModifiers::CONTROL,
            context: Context::Prompt,
            action: A::ForceQuit,
            help: "quit",
        },
        Binding {
            code: K::Char('y'),
            modifiers: KeyModifiers::NONE,
            context: Context::Confirm,
            action: A::Confirm,
            help: "yes (any other key: no)",
        },
        Binding {
            code: K::Char('c'),
            modifiers: KeyModifiers::CONTROL,
            context: Context::Confirm,
            action: A::ForceQuit,
            help: "quit",
        },
        Binding {
            code: K::Enter,
            modifiers: KeyModifiers::NONE,
            context: Context::Prompt,
            action: A::Enter,
            help: "accept",
        },
        Binding {
            code: K::Backspace,
            modifiers: KeyModifiers::NONE,
            context: Context::Prompt,
            action: A::Backspace,
            help: "delete a character",
        },
        Binding {
            code: K::Char('u'),
            modifiers: KeyModifiers::CONTROL,
            context: Context::Prompt,
            action: A::ClearInput,
            help: "clear",
        },
    ]
}

impl Default for KeyMap {
    /// The bindings in the order the help shows them.
    fn default() -> Self {
        let bindings = [
            general_bindings(),
            moving_bindings(),
            view_bindings(),
            message_bindings(),
            interval_bindings(),
            prompt_bindings(),
            reading_bindings(),
            search_bindings(),
            plot_bindings(),
        ]
        .concat();
        KeyMap { bindings }
    }
}

impl KeyMap {
    /// The action for `key` in `context`. In a prompt, printable characters are input.
    pub fn action(&self, key: KeyEvent, context: Context) -> Option<Action> {
        let mods = key.modifiers - KeyModifiers::SHIFT;
        let found = self
            .bindings
            .iter()
            .find(|b| b.context == context && b.code == key.code && b.modifiers == mods)
            .map(|b| b.action);
        if found.is_some() {
            return found;
        }
        match (context, key.code) {
            (Context::Prompt, KeyCode::Char(c)) if !mods.contains(KeyModifiers::CONTROL) => {
                Some(Action::Input(c))
            }
            (Context::Prompt, KeyCode::Up) => Some(Action::Up),
            (Context::Prompt, KeyCode::Down) => Some(Action::Down),
            (Context::Log | Context::Plot, _) => self.action(key, Context::Global),
            (Context::Confirm, _) => Some(Action::Back),
            _ => None,
        }
    }

    /// True when `key` leaves the program from `context` (outside any overlay): `q` or
    /// Ctrl-C.
    pub fn quits(&self, key: KeyEvent, context: Context) -> bool {
        matches!(
            self.action(key, context),
            Some(Action::Quit | Action::ForceQuit)
        )
    }

    /// Help lines `(keys, description)` for a context, aliases folded into one line.
    pub fn help(&self, context: Context) -> Vec<(String, &'static str)> {
        let mut out: Vec<(String, &'static str)> = Vec::new();
        for b in self.bindings.iter().filter(|b| b.context == context) {
            let key = key_name(b.code, b.modifiers);
            if b.help.is_empty() {
                // An alias: append to the line of the same action.
                if let Some(line) = self
                    .bindings
                    .iter()
                    .filter(|o| o.context == context && o.action == b.action && !o.help.is_empty())
                    .map(|o| o.help)
                    .next()
                    .and_then(|h| out.iter_mut().find(|(_, d)| *d == h))
                {
                    line.0.push(' ');
                    line.0.push_str(&key);
                }
                continue;
            }
            out.push((key, b.help));
        }
        out
    }
}

/// A readable key name: `q`, `Ctrl-c`, `Tab`, `PgUp`.
pub fn key_name(code: KeyCode, modifiers: KeyModifiers) -> String {
    let base = match code {
        KeyCode::Char(' ') => "Space".to_string(),
        KeyCode::Char(c) => c.to_string(),
        KeyCode::Tab => "Tab".into(),
        KeyCode::BackTab => "S-Tab".into(),
        KeyCode::Enter => "Enter".into(),
        KeyCode::Esc => "Esc".into(),
        KeyCode::Backspace => "Bksp".into(),
        KeyCode::Up => "↑".into(),
        KeyCode::Down => "↓".into(),
        KeyCode::Left => "←".into(),
        KeyCode::Right => "→".into(),
        KeyCode::PageUp => "PgUp".into(),
        KeyCode::PageDown => "PgDn".into(),
        KeyCode::Home => "Home".into(),
        KeyCode::End => "End".into(),
        KeyCode::Delete => "Del".into(),
        other => format!("{other:?}"),
    };
    if modifiers.contains(KeyModifiers::CONTROL) {
        format!("Ctrl-{base}")
    } else {
        base
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctrl_c_quits_from_prompts_and_questions_and_only_y_confirms() {
        let km = KeyMap::default();
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        let key = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
        for context in [
            Context::Global,
            Context::Prompt,
            Context::Log,
            Context::Confirm,
        ] {
            assert_eq!(
                km.action(ctrl_c, context),
                Some(Action::ForceQuit),
                "{context:?}"
            );
            assert!(km.quits(ctrl_c, context));
        }
        assert_eq!(km.action(key('y'), Context::Confirm), Some(Action::Confirm));
        for c in ['n', 'q', 'p', 'Y', ' '] {
            assert_eq!(
                km.action(key(c), Context::Confirm),
                Some(Action::Back),
                "{c}"
            );
        }
        assert_eq!(
            km.action(
                KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE),
                Context::Confirm
            ),
            Some(Action::Back),
            "Enter does not say yes"
        );
    }

    #[test]
    fn maps_keys_and_folds_aliases_into_help() {
        let km = KeyMap::default();
        let key = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
        assert_eq!(km.action(key('q'), Context::Global), Some(Action::Quit));
        assert_eq!(km.action(key('j'), Context::Global), Some(Action::Down));
        assert_eq!(
            km.action(
                KeyEvent::new(KeyCode::Char('G'), KeyModifiers::SHIFT),
                Context::Global
            ),
            Some(Action::Bottom)
        );
        assert_eq!(
            km.action(key('q'), Context::Prompt),
            Some(Action::Input('q'))
        );
        assert_eq!(
            km.action(
                KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE),
                Context::Prompt
            ),
            Some(Action::Back)
        );
        let help = km.help(Context::Global);
        let down = help.iter().find(|(_, d)| *d == "down").unwrap();
        assert_eq!(down.0, "↓ j");
        assert!(help.iter().all(|(_, d)| !d.is_empty()));
        let quit = help
            .iter()
            .find(|(_, d)| d.starts_with("close a view"))
            .unwrap();
        assert_eq!(quit.0, "q");
        let quit = help
            .iter()
            .find(|(_, d)| d.starts_with("quit from"))
            .unwrap();
        assert_eq!(quit.0, "Ctrl-c");
    }
}
