//! File descriptors: a node raises its soft limit to the hard one when it starts, and sizes
//! its connection caps to what is left after a reserve, so that a crowd of peers can never
//! take the descriptors the master calls, service clients and files need.

/// Descriptors kept back from the node's connection caps: outgoing calls (the master,
/// lookups), files opened later, the standard streams.
pub const FD_RESERVE: usize = 64;

/// The process's limit on open files, after raising the soft limit to the hard one where
/// the system allows it. `None` when it cannot be read (then nothing is raised).
pub fn raise_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
        let now = getrlimit(Resource::Nofile);
        let Some(soft) = now.current else {
            // Unlimited.
            return Some(u64::MAX);
        };
        // An unlimited hard limit is not accepted as a soft one everywhere (macOS caps it at
        // OPEN_MAX): ask for a large finite number then.
        let want = now.maximum.unwrap_or(1 << 20);
        if want > soft {
            let raised = setrlimit(
                Resource::Nofile,
                Rlimit {
                    current: Some(want),
                    maximum: now.maximum,
                },
            );
            if raised.is_ok() {
                return Some(want);
            }
        }
        Some(soft)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// How many descriptors the process has open now (Linux and macOS: the entries of
/// `/proc/self/fd` or `/dev/fd`); `None` when that cannot be told.
pub fn open_count() -> Option<usize> {
    ["/proc/self/fd", "/dev/fd"]
        .iter()
        .find_map(|d| std::fs::read_dir(d).ok())
        // The directory being read holds one descriptor itself.
        .map(|entries| entries.count().saturating_sub(1))
}

/// Descriptors a node's connections may take: the limit less what is open and the
/// reserve. `None` when the limit is not known (the configured caps are kept).
pub fn available() -> Option<usize> {
    let limit = raise_limit()?;
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let open = open_count().unwrap_or(FD_RESERVE);
    Some(limit.saturating_sub(open).saturating_sub(FD_RESERVE))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_and_count() {
        let limit = raise_limit().unwrap();
        let open = open_count().unwrap();
        assert!(open >= 1 && (open as u64) < limit, "{open} of {limit}");
        // Raising again changes nothing.
        assert_eq!(raise_limit(), Some(limit));
    }
}
