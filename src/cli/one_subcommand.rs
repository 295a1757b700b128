//! The command line of a subcommand named first (`bagscope info BAG`), parsed by a command
//! tree holding that subcommand alone.
//!
//! clap's derive builds every subcommand's arguments before it parses (clap cannot defer
//! them yet): about 0.2 ms of each run (`info` of a small bag took 2.96 ms with the whole
//! tree, 2.73 ms with this one; a process that prints nothing takes ~1.5 ms here). The tree
//! built here has the same arguments for the subcommand, from the same derive; anything it
//! does not take as a plain success (help, a usage error, an argument it does not know) goes
//! to the whole tree, so every message and help text is the one the whole tree gives.

use std::ffi::OsString;

use clap::{Args, FromArgMatches};

use super::args::MsgPathArgs;
use super::command::{Cli, Command};

/// The parsed command line when `argv[1]` names a subcommand and that subcommand's own
/// arguments parse without error; `None` otherwise (then the whole tree must parse it).
pub fn parse(argv: &[OsString]) -> Option<Cli> {
    let name = argv.get(1)?.to_str()?;
    let command = match name {
        "info" => only("info", argv, Command::Info),
        "echo" => only("echo", argv, Command::Echo),
        "log" => only("log", argv, Command::Log),
        "verify" => only("verify", argv, Command::Verify),
        "export" => only("export", argv, Command::Export),
        "index" => only("index", argv, Command::Index),
        "query" => only("query", argv, Command::Query),
        "filter" => only("filter", argv, Command::Filter),
        "reindex" => only("reindex", argv, Command::Reindex),
        "convert" => only("convert", argv, Command::Convert),
        "play" => only("play", argv, Command::Play),
        "serve" => only("serve", argv, Command::Serve),
        "call" => only("call", argv, Command::Call),
        "completions" => only("completions", argv, Command::Completions),
        "manpage" => only("manpage", argv, Command::Manpage),
        _ => None,
    }?;
    // The top-level arguments conflict with a subcommand: they keep their defaults.
    Some(Cli {
        command: Some(command),
        bags: Vec::new(),
        no_mouse: false,
        ros_namespace: None,
        ros_rate: 1.0,
        msg: MsgPathArgs::default(),
        plot: Vec::new(),
        out_dir: None,
    })
}

/// Parses `argv` with a tree of the subcommand `name` alone, whose arguments are `A`.
fn only<A: Args + FromArgMatches>(
    name: &'static str,
    argv: &[OsString],
    wrap: fn(A) -> Command,
) -> Option<Command> {
    let tree = clap::Command::new("bagscope").subcommand(A::augment_args(clap::Command::new(name)));
    let mut matches = tree.try_get_matches_from(argv).ok()?;
    let (_, mut sub) = matches.remove_subcommand()?;
    A::from_arg_matches_mut(&mut sub).ok().map(wrap)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// The whole tree's parse of `line`, as `Debug` text (`None`: help, version or an error).
    fn whole(line: &[&str]) -> Option<String> {
        Cli::try_parse_from_args(line).map(|c| format!("{c:?}"))
    }

    impl Cli {
        fn try_parse_from_args(line: &[&str]) -> Option<Cli> {
            let mut command = Cli::command();
            let mut m = command.try_get_matches_from_mut(line).ok()?;
            <Cli as FromArgMatches>::from_arg_matches_mut(&mut m).ok()
        }
    }

    fn os(line: &[&str]) -> Vec<OsString> {
        line.iter().map(OsString::from).collect()
    }

    #[test]
    fn every_subcommand_is_parsed_as_the_whole_tree_parses_it() {
        // Each subcommand at least once, with options, values, repeats and defaults.
        let lines: &[&[&str]] = &[
            &["bagscope", "info", "a.bag"],
            &[
                "bagscope", "info", "--freq", "--health", "-y", "a.bag", "b.bag",
            ],
            &[
                "bagscope", "echo", "a.bag", "-t", "/x", "-t", "/y", "-n", "3",
            ],
            &["bagscope", "echo", "--format", "json", "a.bag"],
            &["bagscope", "verify", "a.bag"],
            &[
                "bagscope", "export", "a.bag", "-t", "/imu", "--format", "csv",
            ],
            &["bagscope", "index", "build", "i.idx", "a.bag", "b.bag"],
            &["bagscope", "query", "i.idx", "--start", "1", "--end", "2"],
            &["bagscope", "filter", "a.bag", "out.bag", "-t", "/x"],
            &["bagscope", "reindex", "a.bag.active", "out.bag"],
            &["bagscope", "convert", "in.yaml", "out.bag"],
            &["bagscope", "play", "a.bag", "--rate", "2"],
            &["bagscope", "serve", "i.idx", "--namespace", "/ns"],
            &["bagscope", "call", "/ns", "1", "2", "-t", "/x"],
            &["bagscope", "completions", "bash"],
            &["bagscope", "manpage"],
        ];
        let mut parsed = 0;
        for line in lines {
            let expected = whole(line);
            let got = parse(&os(line)).map(|c| format!("{c:?}"));
            if let Some(e) = &expected {
                parsed += 1;
                assert_eq!(got.as_ref(), Some(e), "{line:?}");
            } else {
                assert_eq!(got, None, "{line:?}: the whole tree does not take it");
            }
        }
        assert_eq!(parsed, lines.len(), "every test line must be valid");
    }

    #[test]
    fn what_the_whole_tree_does_not_take_is_left_to_it() {
        for line in [
            &["bagscope", "info"][..],
            &["bagscope", "info", "--help"],
            &["bagscope", "info", "--version"],
            &["bagscope", "info", "--no-such-flag", "a.bag"],
            &["bagscope", "help", "info"],
            &["bagscope", "inof", "a.bag"],
            &["bagscope", "a.bag"],
            &["bagscope", "--no-mouse", "a.bag"],
            &["bagscope"],
        ] {
            assert!(parse(&os(line)).is_none(), "{line:?}");
        }
    }
}
