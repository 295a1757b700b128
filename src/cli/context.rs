//! What the commands that read messages set up before their work, built once
//! ([`Context::open`]): the bags opened into a catalog, the `--msg-path` definitions, the
//! topic selection checked against the bags (with field paths split off `-t` values and
//! resolved), and the `--where` filter compiled for the selected connections. Used by `echo`,
//! `export` (every format) and `play`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::bag::Bag;
use crate::catalog::{BagConn, Catalog, Schemas, Selection};
use crate::msg::Registry;
use crate::msg::path::{ResolvedPath, Step};

use super::args::{BagsArgs, MsgPathArgs, SelectArgs, open_catalog};
use super::error::CliError;
use super::field_paths;
use super::outcome::Outcome;
use super::term::print_error;
use super::where_args::{Where, WhereArgs};

/// Opens a bag, printing the error and returning [`Outcome::Failed`] when it cannot be opened.
pub fn open_bag(path: &Path) -> Result<Bag, Outcome> {
    open_bag_with(path, super::cache_dir::open_options())
}

/// [`open_bag`] with chosen options.
pub fn open_bag_with(path: &Path, options: crate::bag::OpenOptions) -> Result<Bag, Outcome> {
    Bag::open_with(path, options).map_err(|e| {
        print_error(&e);
        Outcome::Failed
    })
}

/// Whether `-t TOPIC/FIELD` values name fields, and which.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fields {
    /// `-t` names topics only.
    No,
    /// `-t` may name a field path of a topic (`/imu/linear_acceleration`, `/scan/ranges[*]`).
    Any,
    /// As [`Fields::Any`], but one value per message (CSV columns): no `[*]`.
    OneValue,
}

/// What a command asks [`Context::open`] for (its arguments, low level).
#[derive(Clone, Copy, Debug)]
pub struct Wanted<'a> {
    /// The bags.
    pub bags: &'a [PathBuf],
    /// Where the definitions the bags lack come from (`None`: the bundled ones).
    pub msg: Option<&'a MsgPathArgs>,
    /// Which messages: topics and time range.
    pub select: &'a SelectArgs,
    /// Which messages, by content (`None`: the command has no `--where`).
    pub filter: Option<&'a WhereArgs>,
    /// Whether `-t` values may name fields.
    pub fields: Fields,
}

impl<'a> Wanted<'a> {
    /// The bags and definitions of `input`, the messages `select` and `filter` choose; `-t`
    /// values name topics only (see [`Wanted::fields`]).
    pub fn new(input: &'a BagsArgs, select: &'a SelectArgs, filter: &'a WhereArgs) -> Self {
        Wanted {
            bags: &input.bags,
            msg: Some(&input.msg),
            select,
            filter: Some(filter),
            fields: Fields::No,
        }
    }

    /// The same, with `-t` values naming fields as `fields` allows.
    #[must_use]
    pub fn fields(self, fields: Fields) -> Self {
        Wanted { fields, ..self }
    }
}

/// Everything a command that reads messages needs before its work (its arguments, high
/// level).
pub struct Context {
    /// The bags that could be opened.
    pub catalog: Catalog,
    /// The definitions for connections that carry none (bundled plus `--msg-path`), and the
    /// schemas compiled so far.
    pub schemas: Schemas,
    /// The selection, checked: each topic is in some bag, the time range meets the messages.
    pub selection: Selection,
    /// The field path of each connection whose `-t` value named one.
    pub paths: HashMap<BagConn, ResolvedPath>,
    /// The `--where` filter, when given.
    pub filter: Option<Where>,
    /// The outcome so far: [`Outcome::Problems`] when a bag was damaged, [`Outcome::Failed`]
    /// when some bag could not be opened (the others are read).
    pub outcome: Outcome,
}

impl Context {
    /// Opens the bags into a catalog, loads the definitions, checks the selection (splitting
    /// field paths off `-t` values as `wanted.fields` allows, and resolving them) and compiles
    /// `--where` for the selected connections, in this order. Diagnostics about the bags
    /// (those that could not be opened when others could, damage) are printed; `Err` when the
    /// command cannot run.
    pub fn open(wanted: &Wanted<'_>) -> Result<Context, CliError> {
        let (catalog, outcome) = open_catalog(wanted.bags)?;
        let registry = match wanted.msg {
            Some(m) => m.registry()?,
            None => Registry::bundled(),
        };
        let mut schemas = Schemas::new(registry);
        let (selection, paths) = if wanted.fields == Fields::No {
            (wanted.select.checked_selection(&catalog)?, HashMap::new())
        } else {
            let fields = field_paths::split_topics(&wanted.select.topics, &catalog)
                .map_err(CliError::Usage)?;
            if wanted.fields == Fields::OneValue
                && fields
                    .paths
                    .values()
                    .any(|p| p.segments().iter().any(|s| s.step == Step::All))
            {
                return Err(CliError::Usage(
                    "CSV export takes one value per row: a field path with [*] needs --format jsonl"
                        .to_string(),
                ));
            }
            let select = SelectArgs {
                topics: fields.topics.clone(),
                ..wanted.select.clone()
            };
            let selection = select.checked_selection(&catalog)?;
            let paths =
                field_paths::resolve(&fields, &catalog, &mut schemas).map_err(CliError::Usage)?;
            (selection, paths)
        };
        let filter = match wanted.filter {
            Some(f) => f.compile(catalog.selected_connections(&selection), &schemas)?,
            None => None,
        };
        Ok(Context {
            catalog,
            schemas,
            selection,
            paths,
            filter,
            outcome,
        })
    }

    /// The definitions for connections that carry none.
    pub fn registry(&self) -> &Registry {
        self.schemas.registry()
    }
}
