//! Arguments several subcommands share: message selection and definition paths.

use std::path::PathBuf;

use clap::Args;

use crate::catalog::{Catalog, Selection};
use crate::msg::Registry;
use crate::time::{RosTime, TimeSpec, parse_time_spec};

use super::error::CliError;
use super::outcome::Outcome;
use super::term::print_error;

/// Which messages: topics and an inclusive time range.
#[derive(Args, Debug, Clone, Default)]
pub struct SelectArgs {
    /// Only this topic (repeatable; a missing leading `/` is tolerated).
    #[arg(short = 't', long = "topic", value_name = "TOPIC")]
    pub topics: Vec<String>,
    /// Earliest receive time: epoch seconds, `+OFFSET` after the start (`+90`, `+1m30s`, `+500ms`), a date (`2023-11-14 22:13:32`, local; `Z` for UTC) or a time of day.
    #[arg(long, value_name = "T", value_parser = parse_time_spec, allow_hyphen_values = true)]
    pub start: Option<TimeSpec>,
    /// Latest receive time (inclusive), same forms as --start.
    #[arg(long, value_name = "T", value_parser = parse_time_spec, allow_hyphen_values = true)]
    pub end: Option<TimeSpec>,
}

impl SelectArgs {
    /// The selection over `catalog` (offsets resolved against its start).
    pub fn selection(&self, catalog: &Catalog) -> Selection {
        let origin = catalog.start_time().unwrap_or_default();
        Selection {
            topics: self.topics.clone(),
            start: self.start.map(|t| t.resolve(origin)),
            end: self.end.map(|t| t.resolve(origin)),
            parallel: true,
        }
    }

    /// The selection over `catalog`, checked: a topic no bag holds, an empty or inverted
    /// time range, or one that lies entirely outside the bags' messages selects nothing and
    /// is a usage error.
    pub fn checked_selection(&self, catalog: &Catalog) -> Result<Selection, CliError> {
        let known: Vec<String> = catalog.topics().into_iter().map(|t| t.topic).collect();
        let selection = self.selection(catalog);
        let problem = unknown_topics(&self.topics, &known, "no bag holds").or_else(|| {
            let span = catalog.start_time().zip(catalog.end_time());
            check_range(selection.start, selection.end, span).err()
        });
        match problem {
            Some(why) => Err(CliError::Usage(why)),
            None => Ok(selection),
        }
    }
}

/// The error for topics in `given` that match none of `known` (a missing leading `/` is
/// tolerated), listing the topics there are; `None` when every topic is known.
pub fn unknown_topics(given: &[String], known: &[String], holder: &str) -> Option<String> {
    let missing: Vec<String> = given
        .iter()
        .filter(|t| !known.iter().any(|k| crate::catalog::topic_matches(t, k)))
        .map(|t| format!("'{t}'"))
        .collect();
    if missing.is_empty() {
        return None;
    }
    let mut list: Vec<&str> = known.iter().map(String::as_str).collect();
    list.sort_unstable();
    list.dedup();
    Some(format!(
        "{holder} topic {}; the topics are: {}",
        missing.join(", "),
        if list.is_empty() {
            "none".to_string()
        } else {
            list.join(", ")
        }
    ))
}

/// Checks a resolved time range: empty or inverted (`start` after `end`), or entirely
/// outside `span` (the first and last message times), it selects nothing.
pub fn check_range(
    start: Option<RosTime>,
    end: Option<RosTime>,
    span: Option<(RosTime, RosTime)>,
) -> Result<(), String> {
    if let (Some(s), Some(e)) = (start, end) {
        if s > e {
            return Err(format!(
                "--start ({s}) is after --end ({e}): the time range is empty"
            ));
        }
    }
    let Some((first, last)) = span else {
        return Ok(());
    };
    let outside = match (start, end) {
        (Some(s), _) if s > last => true,
        (_, Some(e)) if e < first => true,
        _ => false,
    };
    if outside {
        let show = |t: Option<RosTime>| t.map_or_else(|| "…".to_string(), |t| t.to_string());
        return Err(format!(
            "the time range {} .. {} lies outside the messages ({first} .. {last}): nothing to select",
            show(start),
            show(end)
        ));
    }
    Ok(())
}

/// Where definitions the bags do not carry come from: `--msg-path DIR` (repeatable), the one
/// definition of the flag for every command that decodes or copies messages (and the
/// explorer). A command whose help says more names [`MSG_PATH`] in a `mut_arg`.
#[derive(Args, Debug, Clone, Default)]
pub struct MsgPathArgs {
    /// A directory of `pkg/msg/*.msg` trees for types the bags do not define (repeatable).
    #[arg(long = "msg-path", value_name = "DIR")]
    pub msg_paths: Vec<PathBuf>,
}

/// The id of the `--msg-path` argument, for commands that word its help their own way.
pub const MSG_PATH: &str = "msg_paths";

impl MsgPathArgs {
    /// The bundled definitions plus the given directories (looked up first); `Err` when a
    /// directory cannot be read.
    pub fn registry(&self) -> Result<Registry, CliError> {
        let mut r = Registry::bundled();
        for dir in &self.msg_paths {
            r.add_msg_path(dir).map_err(CliError::MsgPath)?;
        }
        Ok(r)
    }
}

/// The bags a command reads, and where the definitions they lack come from.
#[derive(Args, Debug, Clone)]
pub struct BagsArgs {
    /// Where definitions the bags lack come from.
    #[command(flatten)]
    pub msg: MsgPathArgs,
    /// Bag files.
    #[arg(required = true, value_name = "BAG")]
    pub bags: Vec<PathBuf>,
}

/// Opens every bag; `Err` when none could be opened. When some could, the errors of the
/// others are printed, as are the losses found in those opened, and the outcome says so.
pub fn open_catalog(paths: &[PathBuf]) -> Result<(Catalog, Outcome), CliError> {
    let (catalog, errors) = Catalog::open(paths, &super::cache_dir::open_options());
    let hints: Vec<String> = paths.iter().filter_map(|p| topic_hint(p)).collect();
    if catalog.is_empty() {
        return Err(CliError::NoBag { errors, hints });
    }
    for e in &errors {
        print_error(e);
    }
    for hint in hints {
        super::term::print_note(hint);
    }
    let mut outcome = if errors.is_empty() {
        Outcome::Ok
    } else {
        Outcome::Failed
    };
    for b in catalog.bags() {
        if super::damage::print_losses(b) {
            outcome = outcome.max(Outcome::Problems);
        }
    }
    Ok((catalog, outcome))
}

/// For a `BAG` argument that is no file but looks like a topic (`rostopic echo -b BAG /topic`
/// habits), how to select the topic instead.
fn topic_hint(path: &std::path::Path) -> Option<String> {
    let name = path.to_str()?;
    topic_like(path).then(|| format!("`{name}` is not a file: to select a topic, use `-t {name}`"))
}

/// True for a `BAG` argument that is no file but looks like a topic: a ROS name (a leading
/// `/`, no dot: bag files have one).
fn topic_like(path: &std::path::Path) -> bool {
    path.to_str().is_some_and(|name| {
        name.len() > 1 && name.starts_with('/') && !name.contains('.') && !path.exists()
    })
}

/// Takes the `BAG` arguments that are no file but look like a topic as topics, when some
/// other argument is a bag: `echo run.bag /imu` is `echo run.bag -t /imu`, the
/// `rostopic echo -b run.bag /imu` habit (and `/imu/linear_acceleration` a field, as with
/// `-t`). With no other argument left they stay bags, and fail as missing files do.
pub fn topics_from_bags(input: &mut BagsArgs, select: &mut SelectArgs) {
    if input.bags.iter().all(|p| topic_like(p)) {
        return;
    }
    let (topics, bags): (Vec<PathBuf>, Vec<PathBuf>) = std::mem::take(&mut input.bags)
        .into_iter()
        .partition(|p| topic_like(p));
    input.bags = bags;
    select
        .topics
        .extend(topics.iter().filter_map(|t| t.to_str().map(str::to_string)));
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::*;
    use crate::cli::{Cli, Command};

    #[test]
    fn the_explorer_takes_msg_path() {
        let cli = Cli::try_parse_from(["bagscope", "--msg-path", "a", "--msg-path", "b", "x.bag"])
            .unwrap();
        assert!(cli.command.is_none());
        assert_eq!(cli.msg.msg_paths, [PathBuf::from("a"), PathBuf::from("b")]);
        assert_eq!(cli.bags, [PathBuf::from("x.bag")]);
    }

    #[test]
    fn every_command_that_decodes_or_copies_takes_msg_path() {
        let paths = |args: &[&str]| {
            let cli = Cli::try_parse_from(args).unwrap();
            match cli.command {
                Some(Command::Echo(a)) => a.input.msg.msg_paths,
                Some(Command::Verify(a)) => a.input.msg.msg_paths,
                Some(Command::Export(a)) => a.input.msg.msg_paths,
                Some(Command::Filter(a)) => a.write.msg.msg_paths,
                Some(Command::Reindex(a)) => a.write.msg.msg_paths,
                Some(Command::Convert(a)) => a.write.msg.msg_paths,
                Some(Command::Query(a)) => a.msg.msg_paths,
                other => panic!("{other:?}"),
            }
        };
        let d = [PathBuf::from("d")];
        assert_eq!(paths(&["b", "echo", "--msg-path", "d", "x.bag"]), d);
        assert_eq!(paths(&["b", "verify", "--msg-path", "d", "x.bag"]), d);
        assert_eq!(
            paths(&[
                "b",
                "export",
                "--msg-path",
                "d",
                "-t",
                "/a",
                "--format",
                "csv",
                "x.bag"
            ]),
            d
        );
        assert_eq!(
            paths(&["b", "filter", "i.bag", "o.bag", "--msg-path", "d"]),
            d
        );
        assert_eq!(
            paths(&["b", "reindex", "i.bag", "o.bag", "--msg-path", "d"]),
            d
        );
        assert_eq!(
            paths(&["b", "convert", "i.yaml", "o.bag", "--msg-path", "d"]),
            d
        );
        assert_eq!(
            paths(&[
                "b",
                "query",
                "ix",
                "--start",
                "1",
                "--end",
                "2",
                "--msg-path",
                "d"
            ]),
            d
        );
    }

    #[test]
    fn filter_selects_with_its_own_words() {
        let cli = Cli::try_parse_from([
            "b", "filter", "i.bag", "o.bag", "-t", "/a", "--start", "+1", "--end", "+2",
        ])
        .unwrap();
        let Some(Command::Filter(a)) = cli.command else {
            panic!()
        };
        assert_eq!(a.select.topics, ["/a"]);
        assert!(a.select.start.is_some() && a.select.end.is_some());
        // The flattened selection keeps filter's help texts.
        let mut cmd = Cli::command();
        let filter = cmd.find_subcommand_mut("filter").unwrap();
        let help = |id: &str| {
            let arg = filter.get_arguments().find(|a| a.get_id() == id).unwrap();
            arg.get_help().unwrap().to_string()
        };
        assert_eq!(
            help("topics"),
            "Keep messages on TOPIC (repeatable; default: every topic)"
        );
        assert!(help("start").starts_with("Keep messages received at or after T"));
        assert!(help(MSG_PATH).ends_with("Used for bags older than 1.2, which store none"));
    }

    #[test]
    fn an_unreadable_msg_path_is_a_usage_error() {
        let args = MsgPathArgs {
            msg_paths: vec![PathBuf::from("/nonexistent/bagscope-msgs")],
        };
        assert!(matches!(args.registry(), Err(CliError::MsgPath(_))));
        assert!(MsgPathArgs::default().registry().is_ok());
    }
}
