//! The ERROR and FATAL lines of the log topics as ticks on their lanes: the times and levels
//! (read once, in the background, by `jobs/error_ticks.rs` with the catalog's log reader), and
//! the most severe level in each column of a lane. UI-agnostic.

use crate::catalog::log::{LogLevel, LogLines};
use crate::time::RosTime;

/// The least severe level that gets a tick.
pub const TICK_LEVEL: LogLevel = LogLevel::Error;

/// One ERROR or FATAL line: when, how severe, and on which log topic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tick {
    /// Receive time.
    pub time: RosTime,
    /// ERROR or FATAL.
    pub level: LogLevel,
    /// Index of its topic in [`ErrorTicks::topics`].
    pub topic: u16,
}

/// The ticks of the log topics, by time.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ErrorTicks {
    /// The log topics read (the catalog's `log_topics`).
    pub topics: Vec<String>,
    /// The ticks, by time.
    pub ticks: Vec<Tick>,
    /// Every log line was read.
    pub done: bool,
}

impl ErrorTicks {
    /// The ticks of a piece of log lines (lines of any level; the ERROR and FATAL ones kept).
    pub fn of(piece: &LogLines) -> Vec<Tick> {
        piece
            .lines
            .iter()
            .filter(|l| l.level >= TICK_LEVEL)
            .map(|l| Tick {
                time: l.time,
                level: l.level,
                topic: l.topic,
            })
            .collect()
    }

    /// Adds ticks (any order), keeping them by time.
    pub fn add(&mut self, ticks: Vec<Tick>) {
        let ordered = match (self.ticks.last(), ticks.first()) {
            (Some(a), Some(b)) => a.time <= b.time,
            _ => true,
        };
        self.ticks.extend(ticks);
        if !ordered || !self.ticks.is_sorted_by_key(|t| t.time) {
            self.ticks.sort_by_key(|t| t.time);
        }
    }

    /// True when `topic` is a log topic (its lane can carry ticks).
    pub fn is_log_topic(&self, topic: &str) -> bool {
        self.topics.iter().any(|t| t == topic)
    }

    /// The most severe tick of `topic` in each of `bars` columns over `window` (`None`: no
    /// ERROR or FATAL line there); empty when the topic has no tick in the window.
    pub fn columns(
        &self,
        topic: &str,
        window: (RosTime, RosTime),
        bars: usize,
    ) -> Vec<Option<LogLevel>> {
        let Some(index) = self.topics.iter().position(|t| t == topic) else {
            return Vec::new();
        };
        let index = u16::try_from(index).unwrap_or(u16::MAX);
        let first = self.ticks.partition_point(|t| t.time < window.0);
        let last = self.ticks.partition_point(|t| t.time <= window.1);
        let span = window.1.nanos_since(window.0).max(1) as f64;
        let mut out: Vec<Option<LogLevel>> = Vec::new();
        for tick in self
            .ticks
            .get(first..last)
            .unwrap_or_default()
            .iter()
            .filter(|t| t.topic == index)
        {
            if out.is_empty() {
                out = vec![None; bars];
            }
            let rel = tick.time.nanos_since(window.0) as f64 / span;
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let col = ((rel * bars as f64) as usize).min(bars.saturating_sub(1));
            if let Some(cell) = out.get_mut(col) {
                *cell = (*cell).max(Some(tick.level));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::log::LogLine;

    fn line(s: u32, level: LogLevel, topic: u16) -> LogLine {
        LogLine {
            time: RosTime::new(s, 0),
            level,
            node: 0,
            topic,
            text: "".into(),
            origin: "".into(),
        }
    }

    #[test]
    fn only_errors_and_fatals_tick_in_their_column_the_worst_winning() {
        let piece = LogLines {
            lines: vec![
                line(1, LogLevel::Info, 0),
                line(2, LogLevel::Error, 0),
                line(2, LogLevel::Fatal, 0),
                line(5, LogLevel::Warn, 0),
                line(7, LogLevel::Error, 1),
                line(9, LogLevel::Error, 0),
            ],
            nodes: vec!["n".into()],
        };
        let mut ticks = ErrorTicks {
            topics: vec!["/rosout".into(), "/other_log".into()],
            ..ErrorTicks::default()
        };
        // Pieces may come in any order.
        let mut all = ErrorTicks::of(&piece);
        let late = all.split_off(2);
        ticks.add(late);
        ticks.add(all);
        assert_eq!(ticks.ticks.len(), 4);
        assert!(ticks.ticks.is_sorted_by_key(|t| t.time));
        let window = (RosTime::new(0, 0), RosTime::new(10, 0));
        let cols = ticks.columns("/rosout", window, 10);
        assert_eq!(cols.len(), 10);
        assert_eq!(cols[2], Some(LogLevel::Fatal), "the worst of the column");
        assert_eq!(cols[9], Some(LogLevel::Error));
        assert_eq!(cols[5], None, "a WARN is no tick");
        assert_eq!(cols[7], None, "another topic's");
        assert_eq!(
            ticks.columns("/other_log", window, 10)[7],
            Some(LogLevel::Error)
        );
        assert!(ticks.columns("/camera", window, 10).is_empty());
        // Outside the window: nothing.
        let later = (RosTime::new(20, 0), RosTime::new(30, 0));
        assert!(ticks.columns("/rosout", later, 10).is_empty());
        assert!(ticks.is_log_topic("/rosout") && !ticks.is_log_topic("/camera"));
    }
}
