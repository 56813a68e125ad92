//! `cargo run -q --release -p report --bin reproduce -- PUBLISHED FRESH`: how many of the fresh
//! rounds' figures in FRESH (result files or a folder) lie inside the intervals the results in
//! PUBLISHED (default docs/sample-results) publish, per cell and per Doublets-vs-Redis ratio.
//! `examples/remeasure.sh --reproduce B` measures the fresh round and runs it.

use std::path::PathBuf;

use anyhow::bail;
use contract::spec::Spec;
use report::{reproduce, tables_of};

fn main() -> std::process::ExitCode {
    report::exit(run())
}

fn run() -> anyhow::Result<()> {
    let args: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    let [published, fresh] = args.as_slice() else {
        bail!("usage: reproduce PUBLISHED FRESH (e.g. reproduce docs/sample-results target/reproduce)");
    };
    let spec = Spec::load(&contract::spec_path())?;
    let root = contract::repository();
    let published = tables_of(&spec, &root, std::slice::from_ref(published))?;
    let fresh = tables_of(&spec, &root, std::slice::from_ref(fresh))?;
    let a = reproduce::compare(&spec, &published, &fresh);
    if a.cells + a.ratios + a.without_interval == 0 {
        bail!("no fresh figure has a published counterpart: is its size published?");
    }
    for line in &a.details {
        println!("  {line}");
    }
    let share = |inside: usize, of: usize| {
        format!(
            "{inside} of {of} ({:.0}%)",
            100.0 * inside as f64 / of.max(1) as f64
        )
    };
    println!(
        "inside their published intervals: cells {}, Doublets-vs-Redis ratios {}; {} fresh figure(s) had no published interval (one round)",
        share(a.cells_inside, a.cells),
        share(a.ratios_inside, a.ratios),
        a.without_interval
    );
    Ok(())
}
