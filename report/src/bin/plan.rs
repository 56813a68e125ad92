//! `cargo run -q --release -p report --bin plan -- [--budget MINUTES] [--superseded] [RESULTS]`:
//! what a re-measure of the checkout's code has left (the spec's `publish` plan against the results
//! in RESULTS, default docs/sample-results), for `examples/remeasure.sh`.
//!
//! The plan in words goes to stderr. On stdout, one line per piece to run now, tab-separated: its
//! id, estimate in minutes, result file, command kind, size, then its environment as KEY=VALUE:
//! every piece without `--budget`, else the most valuable ones that fit in it (a piece longer
//! than the plan's longest is left out, and so is a round that waits for a second time:
//! [`plan::waits_until`]). `--superseded` prints instead the result files
//! that a complete set of the checkout's code has replaced, for removal. `--reproduce B` prints
//! instead one round of every language at the published size B, measured or not, for
//! `examples/remeasure.sh --reproduce B`.

use std::path::PathBuf;

use anyhow::bail;
use clap::Parser;
use contract::{fingerprint, spec::Spec};
use report::{measured, plan, read_results};

/// What a re-measure of the checkout's code has left, for examples/remeasure.sh.
#[derive(Parser)]
struct Args {
    /// Only the most valuable pieces that fit in these minutes (150 or 150m).
    #[arg(long, value_parser = minutes)]
    budget: Option<f64>,
    /// Print the result files a complete set of the checkout's code has replaced, for removal.
    #[arg(long, conflicts_with_all = ["budget", "reproduce"])]
    superseded: bool,
    /// Print one round of every language at this published size B, measured or not.
    #[arg(long, value_name = "B", conflicts_with = "budget")]
    reproduce: Option<u64>,
    /// The result files.
    #[arg(default_value = "docs/sample-results")]
    results: PathBuf,
}

fn minutes(value: &str) -> Result<f64, String> {
    value
        .trim_end_matches('m')
        .parse()
        .ok()
        .filter(|m: &f64| *m > 0.0)
        .ok_or_else(|| "not minutes above 0 (e.g. 150 or 150m)".to_string())
}

fn main() -> std::process::ExitCode {
    report::exit(run())
}

fn run() -> anyhow::Result<()> {
    let Args {
        budget,
        superseded,
        reproduce,
        results,
    } = Args::parse();
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
    // A round that must be taken at a second time waits for it, counting the rounds this run
    // takes before it (none for a reproduce round: it is measured alone, whenever it is asked for).
    let now = std::time::SystemTime::now();
    let (mut waiting, mut ready) = (Vec::new(), Vec::new());
    for piece in &pieces {
        let until = match reproduce {
            Some(_) => None,
            None => plan::waits_until(&spec, &files, &fingerprint, piece, &ready, now),
        };
        match until {
            Some(until) => waiting.push((piece, until)),
            None => ready.push(piece),
        }
    }
    if !waiting.is_empty() {
        eprintln!(
            "waiting for a second time ({} h after the last round of their size: a size's rounds are taken at two times at least):",
            report::variance::SEPARATE_HOURS
        );
        for (piece, until) in waiting {
            let until = humantime::format_rfc3339_seconds(until);
            eprintln!("  {} from {until}", piece.id());
        }
    }
    let runnable: Vec<&plan::Piece> = ready
        .into_iter()
        .filter(|p| p.minutes <= plan::LONGEST_MINUTES)
        .collect();
    let chosen = match budget {
        None => runnable,
        Some(budget) => within(budget, runnable)?,
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

/// The most valuable pieces that fit in `budget` minutes, in the plan's order.
fn within(budget: f64, runnable: Vec<&plan::Piece>) -> anyhow::Result<Vec<&plan::Piece>> {
    if let Some(smallest) = runnable.iter().map(|p| p.minutes).reduce(f64::min) {
        if smallest > budget {
            bail!(
                "--budget {budget} min is smaller than any piece: the smallest takes {smallest:.1} min"
            );
        }
    }
    let mut left = budget;
    Ok(runnable
        .into_iter()
        .filter(|p| {
            let fits = p.minutes <= left;
            if fits {
                left -= p.minutes;
            }
            fits
        })
        .collect())
}
