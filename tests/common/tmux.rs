//! A real terminal for end-to-end tests: a detached tmux session running one command, read
//! with `capture-pane` and driven with `send-keys`.

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// True when tmux can be run.
pub fn have_tmux() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A tmux session running a command (with `TZ=UTC`); killed when dropped.
pub struct Session(String);

impl Session {
    /// Starts `command` in a `cols`×`rows` terminal; `name` (with the process id and a
    /// counter) makes the session name unique.
    ///
    /// The tests of the one test binary run in parallel: a session may be created while the
    /// tmux server is exiting after another test killed the last session, which fails
    /// ("server exited unexpectedly"). Such a start is tried again, a few times.
    pub fn start(name: &str, cols: u16, rows: u16, command: &str) -> Session {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let n = COUNT.fetch_add(1, Ordering::Relaxed);
        let s = Session(format!("bagscope-test-{name}-{}-{n}", std::process::id()));
        let mut tries = 0;
        loop {
            let out = Command::new("tmux")
                .args([
                    "new-session",
                    "-d",
                    "-s",
                    &s.0,
                    "-x",
                    &cols.to_string(),
                    "-y",
                    &rows.to_string(),
                    command,
                ])
                .env("TZ", "UTC")
                .output()
                .unwrap();
            if out.status.success() {
                return s;
            }
            tries += 1;
            assert!(
                tries < 5,
                "tmux new-session failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// What the terminal shows now.
    pub fn screen(&self) -> String {
        let out = Command::new("tmux")
            .args(["capture-pane", "-p", "-t", &self.0])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// What the terminal shows now with its colours and attributes as escape sequences
    /// (`capture-pane -e`).
    pub fn screen_escapes(&self) -> String {
        let out = Command::new("tmux")
            .args(["capture-pane", "-e", "-p", "-t", &self.0])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Types `keys` (tmux key names: `"q"`, `"Enter"`, `" "`, ...).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", self.0.as_str()];
        args.extend(keys);
        assert!(Command::new("tmux").args(&args).status().unwrap().success());
    }

    /// Waits until the screen satisfies `pred` (up to 20 s); returns the screen.
    pub fn wait(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if pred(&s) {
                return self.settled(s, &pred);
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "timed out waiting for {what}; screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Session {
    /// `first` once the screen stops changing (a capture can catch a frame half drawn on a
    /// loaded machine): the next capture that equals the one before it and still satisfies
    /// `pred`, or after about a second (a screen that keeps moving) the latest that does.
    fn settled(&self, first: String, pred: &impl Fn(&str) -> bool) -> String {
        let mut last = first;
        for _ in 0..20 {
            std::thread::sleep(Duration::from_millis(50));
            let now = self.screen();
            if now == last {
                return now;
            }
            if pred(&now) {
                last = now;
            }
        }
        last
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", &self.0])
            .status();
    }
}
