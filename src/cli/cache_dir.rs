//! Where bagscope keeps what it remembers between runs: the compression statistics of bags
//! read before ([`crate::bag::stats_cache`], under `compression/`) and the MCAP files that
//! ROS 2 `.db3` storage files were converted into (`bag::ros2`, under `ros2/`, passed to the
//! bag layer in [`open_options`]).
//!
//! `BAGSCOPE_CACHE_DIR` names the directory (set and empty: remember nothing); otherwise it is
//! `$XDG_CACHE_HOME/bagscope`, or `$HOME/.cache/bagscope`. Relative paths in those variables
//! are ignored, as the XDG base directory specification asks.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::bag::OpenOptions;
use crate::bag::stats_cache::StatsCache;

/// The variable that names the cache directory (empty: no cache).
pub const CACHE_DIR_ENV: &str = "BAGSCOPE_CACHE_DIR";

/// The remembered compression statistics, unless the cache is turned off or there is no
/// directory for it.
pub fn stats_cache() -> Option<StatsCache> {
    dir(
        std::env::var_os(CACHE_DIR_ENV),
        std::env::var_os("XDG_CACHE_HOME"),
        std::env::var_os("HOME"),
    )
    .map(|d| StatsCache::new(d.join("compression")))
}

/// Where converted ROS 2 storage files are kept, unless the cache is turned off or there is
/// no directory for it.
pub fn ros2_cache() -> Option<PathBuf> {
    dir(
        std::env::var_os(CACHE_DIR_ENV),
        std::env::var_os("XDG_CACHE_HOME"),
        std::env::var_os("HOME"),
    )
    .map(|d| d.join("ros2"))
}

/// The options commands open bags with: the defaults, with converted ROS 2 storage files
/// kept in [`ros2_cache`].
pub fn open_options() -> OpenOptions {
    OpenOptions {
        ros2_cache: ros2_cache(),
        ..OpenOptions::default()
    }
}

/// The cache directory for these values of `BAGSCOPE_CACHE_DIR`, `XDG_CACHE_HOME` and `HOME`.
fn dir(own: Option<OsString>, xdg: Option<OsString>, home: Option<OsString>) -> Option<PathBuf> {
    if let Some(own) = own {
        return (!own.is_empty()).then(|| PathBuf::from(own));
    }
    let absolute = |v: Option<OsString>| v.map(PathBuf::from).filter(|p| p.is_absolute());
    absolute(xdg)
        .map(|x| x.join("bagscope"))
        .or_else(|| absolute(home).map(|h| h.join(".cache").join("bagscope")))
}

#[cfg(test)]
mod tests {
    use super::dir;
    use std::path::PathBuf;

    #[test]
    fn the_own_variable_wins_and_empty_turns_the_cache_off() {
        let s = |v: &str| Some(v.into());
        assert_eq!(dir(s("/c"), s("/x"), s("/h")), Some(PathBuf::from("/c")));
        assert_eq!(dir(s(""), s("/x"), s("/h")), None);
        assert_eq!(
            dir(None, s("/x"), s("/h")),
            Some(PathBuf::from("/x/bagscope"))
        );
        assert_eq!(
            dir(None, s("rel"), s("/h")),
            Some(PathBuf::from("/h/.cache/bagscope"))
        );
        assert_eq!(dir(None, None, s("rel")), None);
        assert_eq!(dir(None, None, None), None);
    }
}
