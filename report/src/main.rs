//! `cargo run -p report -- RESULTS…`: merges result files of any number of runs, from both
//! languages, into the results and method sections of README.md and README.ru.md, SVG charts and
//! a JSON summary. It computes everything first and writes only when every input is consistent;
//! `--check` writes nothing and fails when the files on disk differ from what it would write.
//!
//! Exit codes: 0 done (or up to date), 1 refused (the message names the file and line), 2 with
//! `--check` when something is out of date.

use std::process::ExitCode;

use clap::Parser;
use report::{run, Args};

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(stale) if stale.is_empty() => ExitCode::SUCCESS,
        Ok(stale) => {
            eprintln!("out of date: {}", stale.join(", "));
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
