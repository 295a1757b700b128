//! A recovery scan still running while its bag is explored: how far it is, how fast it goes
//! and when it should end, as the status bar and the health view say it. Plain state, fed
//! with the scan's reports and the time they arrived.

use std::fmt::Write as _;
use std::time::Duration;

use crate::bag::RecoveryProgress;
use crate::tui::text::bytes;

/// How the scan of the bag being explored stands.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScanState {
    /// The bag of the catalog being scanned, while it is.
    pub bag: Option<usize>,
    /// The latest report.
    pub progress: Option<RecoveryProgress>,
    /// Bytes walked per second since the scan started.
    pub rate: Option<f64>,
    /// Why the scan stopped before its end, if it did.
    pub failed: Option<String>,
}

impl ScanState {
    /// True while the scan runs.
    pub fn is_scanning(&self) -> bool {
        self.bag.is_some()
    }

    /// Takes a report that arrived `elapsed` after the scan started; true when what is shown
    /// changed. Reports of the decompression workers may come out of order: never backwards.
    pub fn note(&mut self, now: RecoveryProgress, elapsed: Duration) -> bool {
        let before = self.mark();
        let behind = self.progress.is_some_and(|p| p.is_ahead_of(&now));
        if !behind {
            self.progress = Some(now);
            if let RecoveryProgress::Scanning { done, .. } = now {
                let secs = elapsed.as_secs_f64();
                // The first tenth of a second says little about the speed.
                self.rate = (secs >= 0.1 && done > 0).then(|| done as f64 / secs);
            }
        }
        before != self.mark()
    }

    /// The status bar's mark while scanning: `◐ scanning 37 %, counts partial · 1.2 GiB/3.3 GiB ·
    /// 85.0 MiB/s · ETA 25 s` (what matters first: a narrow bar cuts the end); after a
    /// failed scan, that it stopped.
    pub fn mark(&self) -> Option<String> {
        if let Some(why) = &self.failed {
            return Some(format!("⚠ scan stopped, counts partial: {why}"));
        }
        self.bag?;
        Some(match self.progress {
            Some(RecoveryProgress::Scanning { done, total }) => {
                let done = done.min(total);
                let mut s = format!(
                    "◐ scanning {} %, counts partial · {}/{}",
                    percent(done, total),
                    bytes(done),
                    bytes(total)
                );
                if let Some((rate, eta)) = self.speed(done, total) {
                    let _ = write!(s, " · {rate} · ETA {eta}");
                }
                s
            }
            _ => format!("◐ {}, counts partial", self.stage()),
        })
    }

    /// The rate and the time left, once known.
    fn speed(&self, done: u64, total: u64) -> Option<(String, String)> {
        let r = self.rate.filter(|r| *r > 0.0)?;
        let left = (total - done.min(total)) as f64 / r;
        Some((format!("{}/s", bytes(rate_bytes(r))), eta(left)))
    }

    /// How far the scan is: `scanning 37 % · 1.2 GiB of 3.3 GiB · 85.0 MiB/s · ETA 25 s`.
    pub fn stage(&self) -> String {
        match self.progress {
            None => "scanning".to_string(),
            Some(RecoveryProgress::Scanning { done, total }) => {
                let done = done.min(total);
                let mut s = format!(
                    "scanning {} % · {} of {}",
                    percent(done, total),
                    bytes(done),
                    bytes(total)
                );
                if let Some((rate, eta)) = self.speed(done, total) {
                    let _ = write!(s, " · {rate} · ETA {eta}");
                }
                s
            }
            Some(RecoveryProgress::Decoding { done, total }) => {
                format!("scanned · decoding chunk {} of {total}", done.min(total))
            }
        }
    }

    /// The health view's first line while scanning (or after a failed scan).
    pub fn banner(&self) -> Option<String> {
        if let Some(why) = &self.failed {
            return Some(format!(
                "⚠ the scan stopped before the end of the file ({why}): what follows covers only \
                 the part scanned"
            ));
        }
        self.bag?;
        Some(format!(
            "◐ still {}: counts, gaps and losses below are partial (refreshed as the scan goes on)",
            self.stage()
        ))
    }
}

/// Whole percent of `done` in `total` (rounded down: 100 only at the end).
fn percent(done: u64, total: u64) -> u128 {
    if total == 0 {
        100
    } else {
        u128::from(done.min(total)) * 100 / u128::from(total)
    }
}

/// Bytes per second as a whole number of bytes.
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
fn rate_bytes(r: f64) -> u64 {
    r.max(0.0).min(u64::MAX as f64) as u64
}

/// `25 s`, `4 min 10 s`, `2 h 05 min`.
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
fn eta(secs: f64) -> String {
    let s = secs.max(0.0).min(u64::MAX as f64).round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, s % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scanning(done: u64, total: u64) -> RecoveryProgress {
        RecoveryProgress::Scanning { done, total }
    }

    #[test]
    fn shows_percent_rate_and_eta() {
        let mut s = ScanState {
            bag: Some(0),
            ..ScanState::default()
        };
        assert!(s.note(scanning(37 << 20, 100 << 20), Duration::from_secs(2)));
        assert_eq!(
            s.mark().unwrap(),
            "◐ scanning 37 %, counts partial · 37.0 MiB/100.0 MiB · 18.5 MiB/s · ETA 3 s"
        );
        // Out of order: ignored, nothing to redraw.
        assert!(!s.note(scanning(30 << 20, 100 << 20), Duration::from_secs(2)));
        assert!(s.note(
            RecoveryProgress::Decoding { done: 1, total: 4 },
            Duration::from_secs(5)
        ));
        assert!(s.mark().unwrap().contains("decoding chunk 1 of 4"));
        s.bag = None;
        assert_eq!(s.mark(), None);
        s.failed = Some("cancelled".into());
        assert!(s.banner().unwrap().contains("stopped"));
    }

    #[test]
    fn eta_units() {
        assert_eq!(eta(59.4), "59 s");
        assert_eq!(eta(250.0), "4 min 10 s");
        assert_eq!(eta(7500.0), "2 h 05 min");
    }
}
