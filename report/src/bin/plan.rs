//! `cargo run -q --release -p report --bin plan -- [--budget MINUTES] [--superseded] [RESULTS]`:
//! what a re-measure of the checkout's code has left (the spec's `publish` plan against the results
//! in RESULTS, default docs/sample-results), for `examples/remeasure.sh`.
//!
//! The plan in words goes to stderr. On stdout, one line per piece to run now, tab-separated: its
//! id, estimate in minutes, result file, command kind, size, then its environment as KEY=VALUE:
//! every piece without `--budget`, else the most valuable ones that fit in it (a piece longer
//! than the plan's longest is left out). `--superseded` prints instead the result files
//! that a complete set of the checkout's code has replaced, for removal. `--reproduce B` prints
//! instead one round of every language at the published size B, measured or not, for
//! `examples/remeasure.sh --reproduce B`.

use std::path::PathBuf;

use anyhow::{bail, Context};
use contract::{fingerprint, spec::Spec};
use report::{measured, plan, read_results};

fn main() -> std::process::ExitCode {
    report::exit(run())
}

fn run() -> anyhow::Result<()> {
    let mut budget: Option<f64> = None;
    let mut superseded = false;
    let mut reproduce: Option<u64> = None;
    let mut results = PathBuf::from("docs/sample-results");
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--budget" => {
                let value = args
                    .next()
                    .context("--budget needs minutes, e.g. --budget 150")?;
                let minutes: f64 = value
                    .trim_end_matches('m')
                    .parse()
                    .ok()
                    .filter(|m: &f64| *m > 0.0)
                    .with_context(|| {
                        format!("--budget {value}: not minutes above 0 (e.g. 150 or 150m)")
                    })?;
                budget = Some(minutes);
            }
            "--superseded" => superseded = true,
            "--reproduce" => {
                let value = args
                    .next()
                    .context("--reproduce needs a size B, e.g. --reproduce 1000")?;
                let b = value
                    .parse()
                    .with_context(|| format!("--reproduce {value}: not a whole number"))?;
                reproduce = Some(b);
            }
            other if other.starts_with('-') => {
                bail!("unknown option {other}: usage: plan [--budget MINUTES] [--superseded] [--reproduce B] [RESULTS]")
            }
            other => results = PathBuf::from(other),
        }
    }
    let spec = Spec::load(&contract::spec_path())?;
    let fingerprint = fingerprint::checkout(&spec)?;
    let (files, memory, load) = read_results(&[results])?;
    // A busy round is not published, so it is still to measure.
    let (files, _) = measured::quiet(files, false);

    if superseded {
        let selected = measured::select(files, memory, load, &spec);
        for set in selected.dropped.iter().filter(|d| d.kept == fingerprint) {
            for path in &set.paths {
                println!("{path}");
            }
        }
        return Ok(());
    }

    let pieces = match reproduce {
        // One round of each language at B, whatever is measured: its first round, as if none were.
        Some(b) => {
            let round: Vec<plan::Piece> = plan::pending(&spec, &[], &[], &[], &fingerprint)
                .into_iter()
                .filter(|p| matches!(&p.what, plan::What::Bench(r) if r.background == b && r.round == 1))
                .collect();
            if round.is_empty() {
                bail!("--reproduce {b}: not a bench size the spec's publish plan names");
            }
            round
        }
        None => plan::pending(&spec, &files, &memory, &load, &fingerprint),
    };
    match reproduce {
        Some(b) => eprintln!(
            "one round of the checkout's code at B = {b}, to compare with the published intervals:"
        ),
        None => eprintln!(
            "what the checkout's code (fingerprint {}) has left to measure:",
            &fingerprint[..7]
        ),
    }
    for line in plan::describe(&pieces) {
        eprintln!("  {line}");
    }
    let runnable: Vec<&plan::Piece> = pieces
        .iter()
        .filter(|p| p.minutes <= plan::LONGEST_MINUTES)
        .collect();
    let chosen: Vec<&plan::Piece> = match budget {
        None => runnable,
        Some(budget) => {
            if let Some(smallest) = runnable.iter().map(|p| p.minutes).reduce(f64::min) {
                if smallest > budget {
                    bail!(
                        "--budget {budget} min is smaller than any piece: the smallest takes {smallest:.1} min"
                    );
                }
            }
            // The most valuable pieces that fit what is left of the budget, in the plan's order.
            let mut left = budget;
            runnable
                .into_iter()
                .filter(|p| {
                    let fits = p.minutes <= left;
                    if fits {
                        left -= p.minutes;
                    }
                    fits
                })
                .collect()
        }
    };
    if let Some(budget) = budget {
        let minutes: f64 = chosen.iter().map(|p| p.minutes).sum();
        eprintln!(
            "within --budget {budget} min: {} piece(s), {:.0} min",
            chosen.len(),
            minutes.abs()
        );
    }
    for piece in chosen {
        let (kind, size, env) = piece.command(&spec);
        let env: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        println!(
            "{}\t{:.1}\t{}\t{kind}\t{size}\t{}",
            piece.id(),
            piece.minutes,
            piece.file(&fingerprint),
            env.join("\t")
        );
    }
    Ok(())
}
