//! Taking over the terminal and always giving it back: on return, on error, on panic and on
//! SIGINT/SIGTERM/SIGHUP (delivered as events so the loop exits normally).

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};

/// Set while the terminal is ours, so the panic hook knows whether to restore it.
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Puts the terminal back: raw mode off, main screen, mouse and paste off, cursor shown.
pub fn restore() {
    if ACTIVE.swap(false, Ordering::SeqCst) {
        let _ = disable_raw_mode();
        let mut out = io::stdout();
        let _ = execute!(
            out,
            DisableMouseCapture,
            DisableBracketedPaste,
            LeaveAlternateScreen,
            crossterm::cursor::Show
        );
        let _ = out.flush();
    }
}

/// Owns the terminal while alive; restores it when dropped.
pub struct TerminalGuard;

impl TerminalGuard {
    /// Enters raw mode and the alternate screen; mouse capture when `mouse`.
    pub fn enter(mouse: bool) -> io::Result<TerminalGuard> {
        // A panic anywhere restores the terminal before the message is printed.
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
        enable_raw_mode()?;
        ACTIVE.store(true, Ordering::SeqCst);
        let mut out = io::stdout();
        // A plain clear: ratatui's `Terminal::clear` would query the cursor position, whose
        // reply could race with our input thread.
        execute!(
            out,
            EnterAlternateScreen,
            EnableBracketedPaste,
            crossterm::terminal::Clear(crossterm::terminal::ClearType::All)
        )?;
        if mouse {
            execute!(out, EnableMouseCapture)?;
        }
        Ok(TerminalGuard)
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}
