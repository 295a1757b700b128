//! "Did you mean": a mistyped subcommand (`bagscope inof x.bag`) is reported as such instead
//! of being opened as a bag named `inof`. A file that exists always wins, so a bag whose name
//! looks like a subcommand still opens.

use std::ffi::OsString;
use std::path::Path;

/// The error for a mistyped subcommand in `args` (the whole command line, program name
/// first), or `None` when the first word is a subcommand, an existing file, looks like a path
/// or is close to no subcommand of `cmd`.
pub fn mistyped_subcommand(cmd: &clap::Command, args: &[OsString]) -> Option<String> {
    let word = first_positional(cmd, args)?;
    let word = word.to_str()?;
    if word.contains(['.', '/']) || Path::new(word).symlink_metadata().is_ok() {
        return None;
    }
    let mut names: Vec<&str> = vec!["help"];
    for sub in cmd.get_subcommands() {
        names.push(sub.get_name());
        names.extend(sub.get_all_aliases());
    }
    if names.contains(&word) {
        return None;
    }
    let limit = if word.chars().count() <= 4 { 1 } else { 2 };
    let (best, distance) = names
        .iter()
        .map(|n| (*n, distance(word, n)))
        .min_by_key(|(_, d)| *d)?;
    (distance <= limit).then(|| {
        format!(
            "'{word}' is neither a subcommand nor a file: did you mean `{best}`? (`bagscope --help` lists the subcommands)"
        )
    })
}

/// The first argument that is not an option of `cmd` or an option's value; `None` after `--`.
fn first_positional<'a>(cmd: &clap::Command, args: &'a [OsString]) -> Option<&'a OsString> {
    let takes_value = |flag: &str| {
        cmd.get_arguments().any(|a| {
            !a.is_positional()
                && a.get_num_args().is_none_or(|n| n.takes_values())
                && a.get_action().takes_values()
                && (flag.strip_prefix("--") == a.get_long()
                    || (flag.len() == 2
                        && flag.strip_prefix('-').and_then(|s| s.chars().next()) == a.get_short()))
        })
    };
    let mut iter = args.iter().skip(1);
    while let Some(arg) = iter.next() {
        let text = arg.to_string_lossy();
        if text == "--" {
            return None;
        }
        if text.starts_with('-') && text.len() > 1 {
            if !text.contains('=') && takes_value(&text) {
                iter.next();
            }
            continue;
        }
        return Some(arg);
    }
    None
}

/// The optimal string alignment distance: insertions, deletions, substitutions and swaps of
/// neighbours each cost one (`inof` → `info` is 1).
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    let at = |i: usize, j: usize| i * width + j;
    for i in 0..=a.len() {
        if let Some(x) = d.get_mut(at(i, 0)) {
            *x = i;
        }
    }
    for j in 0..=b.len() {
        if let Some(x) = d.get_mut(at(0, j)) {
            *x = j;
        }
    }
    let get = |d: &[usize], i, j| d.get(at(i, j)).copied().unwrap_or(usize::MAX - 1);
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let same = a.get(i - 1) == b.get(j - 1);
            let mut best = (get(&d, i - 1, j) + 1)
                .min(get(&d, i, j - 1) + 1)
                .min(get(&d, i - 1, j - 1) + usize::from(!same));
            if i > 1 && j > 1 && a.get(i - 1) == b.get(j - 2) && a.get(i - 2) == b.get(j - 1) {
                best = best.min(get(&d, i - 2, j - 2) + 1);
            }
            if let Some(x) = d.get_mut(at(i, j)) {
                *x = best;
            }
        }
    }
    get(&d, a.len(), b.len())
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;
    use crate::cli::Cli;

    fn check(args: &[&str]) -> Option<String> {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        mistyped_subcommand(&Cli::command(), &args)
    }

    #[test]
    fn distances() {
        assert_eq!(distance("inof", "info"), 1);
        assert_eq!(distance("exprot", "export"), 1);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("kitten", "sitting"), 3);
    }

    #[test]
    fn suggests_the_nearest_subcommand() {
        let e = check(&["bagscope", "inof", "x.bag"]).unwrap();
        assert!(e.contains("did you mean `info`?"), "{e}");
        let e = check(&["bagscope", "--msg-path", "d", "verfy", "x.bag"]).unwrap();
        assert!(e.contains("`verify`"), "{e}");
        assert!(check(&["bagscope", "--no-mouse", "exprot"]).is_some());
    }

    #[test]
    fn leaves_files_subcommands_and_strangers_alone() {
        assert_eq!(check(&["bagscope", "info", "x.bag"]), None);
        assert_eq!(check(&["bagscope", "x.bag"]), None);
        assert_eq!(check(&["bagscope", "recording"]), None);
        assert_eq!(check(&["bagscope", "--", "inof"]), None);
        assert_eq!(check(&["bagscope", "--msg-path", "inof"]), None);
        assert_eq!(check(&["bagscope"]), None);
    }
}
