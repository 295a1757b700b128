//! `bagscope [BAG]...` without a subcommand: the terminal explorer.

use crate::bag::Bag;

use super::command::Cli;
use super::outcome::Outcome;
use super::term::print_error;

/// The bundled demo bag (see `assets/README.md`).
const DEMO_BAG: &[u8] = include_bytes!("../../assets/demo.bag");

/// `bagscope [BAG]...`: the terminal explorer (the demo bag when no bag is given). The bags
/// are opened by the explorer itself, on a background thread, so its first frame is at once.
pub fn explore(cli: &Cli) -> Outcome {
    use crate::tui::{Bags, Ended};
    use std::io::IsTerminal;
    // What cannot be a bag (missing, a FIFO, a directory, a device) is refused at once, before
    // the terminal is taken over.
    for path in &crate::bag::inputs::expand(&cli.bags) {
        if let Err(e) = crate::bag::open_regular(path) {
            print_error(crate::bag::BagError::new(
                &std::sync::Arc::from(path.as_path()),
                e.into(),
            ));
            return Outcome::Failed;
        }
    }
    let registry = match cli.msg.registry() {
        Ok(r) => r,
        Err(e) => {
            e.report();
            return e.outcome();
        }
    };
    if !std::io::stdout().is_terminal() {
        print_error(
            "the explorer needs a terminal; use `bagscope info` or `bagscope echo` in scripts",
        );
        return Outcome::Failed;
    }
    let options = super::cache_dir::open_options();
    let (bags, note) = if cli.bags.is_empty() {
        match Bag::from_bytes("demo.bag", DEMO_BAG.to_vec(), options) {
            Ok(bag) => (
                Bags::Open(crate::catalog::Catalog::new(vec![bag])),
                Some("bundled demo bag (bagscope BAG... opens yours)".to_string()),
            ),
            Err(e) => {
                print_error(e);
                return Outcome::Failed;
            }
        }
    } else {
        (
            // ROS 2 bag directories are expanded by the explorer (their metadata is checked).
            Bags::Paths(cli.bags.clone(), options),
            None,
        )
    };
    let options = crate::tui::Options {
        note,
        mouse: !cli.no_mouse,
        registry,
        plots: cli.plot.clone(),
        out_dir: cli.out_dir.clone(),
        publish: crate::tui::jobs::publish::Settings {
            namespace: cli.ros_namespace.clone().unwrap_or_else(|| "/".to_string()),
            rate: cli.ros_rate,
            config: None,
        },
    };
    let result = crate::tui::run(bags, &options);
    // A bag still being written by `E` when the explorer ends (quit, Ctrl-C, SIGTERM) is not
    // finished: remove its temporary file rather than leave it behind.
    crate::bag::writer::remove_temp_files();
    match result {
        Ok(Ended::Quit { errors }) => {
            for e in &errors {
                print_error(e);
            }
            // Some bags given could not be shown.
            if errors.is_empty() {
                Outcome::Ok
            } else {
                Outcome::Problems
            }
        }
        Ok(Ended::Signal(n)) => Outcome::Signal(u8::try_from(n).unwrap_or(127)),
        Ok(Ended::Unopenable(errors)) => {
            for e in &errors {
                print_error(e);
            }
            Outcome::Failed
        }
        Err(e) => {
            print_error(format!("terminal: {e}"));
            Outcome::Failed
        }
    }
}
