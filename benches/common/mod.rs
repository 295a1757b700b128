//! What several benchmarks measure besides wall time: CPU time of the process and of one
//! thread, and the machine's load (the machine may be shared). Included with `mod common;`.

#![allow(dead_code)]

use std::time::Duration;

/// User + system CPU seconds of this process so far (all threads), from `/proc/self/stat`.
pub fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the `(comm)`: utime is field 14, stime 15 (1-based).
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0) / 100.0;
    tick(11) + tick(12)
}

/// CPU time this thread has used (`CLOCK_THREAD_CPUTIME_ID`): a frame's own work, without
/// the time other processes of a shared machine held the core (std has no thread CPU clock).
pub fn thread_cpu() -> Duration {
    let ts = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(
        u64::try_from(ts.tv_sec).unwrap_or(0),
        u32::try_from(ts.tv_nsec).unwrap_or(0),
    )
}

/// The 1-minute load average.
pub fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .next()
        .unwrap_or("?")
        .to_string()
}

/// Anonymous resident memory of this process in KiB (`RssAnon` of `/proc/self/status`).
pub fn rss_anon_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("RssAnon:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}
