//! The `bagscope` binary: parses arguments, runs, maps errors to exit codes.

fn main() -> std::process::ExitCode {
    bagscope::cli::main()
}
