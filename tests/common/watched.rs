//! Running bagscope while watching its peak memory (`VmHWM` of `/proc/PID/status`), for the
//! tests that check what a hostile file can make it allocate.

use std::io::Read;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// What a watched run gave.
pub struct Watched {
    /// Its exit status.
    pub status: ExitStatus,
    /// Its standard error, then its standard output.
    pub output: String,
    /// Peak resident memory, bytes.
    pub peak: u64,
    /// Wall time, seconds.
    pub secs: f64,
}

/// Runs `bagscope ARGS PATH`, reading `/proc/PID/status` every few milliseconds; panics when it
/// runs longer than `limit`.
pub fn run_watched(args: &[&str], path: &Path, limit: Duration) -> Watched {
    let started = Instant::now();
    let mut child = super::bagscope()
        .args(args)
        .arg(path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = pipe.read_to_string(&mut s);
            s
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = 0u64;
    let status = loop {
        if let Ok(text) = std::fs::read_to_string(&status_file) {
            for line in text.lines() {
                if let Some(v) = line.strip_prefix("VmHWM:") {
                    let kb: u64 = v.trim().trim_end_matches("kB").trim().parse().unwrap_or(0);
                    peak = peak.max(kb * 1024);
                }
            }
        }
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("{args:?}: still running after {} s", limit.as_secs());
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let mut output = stderr.join().unwrap();
    output.push_str(&stdout.join().unwrap());
    Watched {
        status,
        output,
        peak,
        secs: started.elapsed().as_secs_f64(),
    }
}
