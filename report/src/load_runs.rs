//! A language's load runs at one B, taken apart at times of their own (`publish.load_runs`), as
//! one run of figures: each cell's median over the runs, with every run's rate kept for the spread.

use std::collections::BTreeMap;

use contract::{
    load::{Figure, Latency, LoadRun},
    spec::Spec,
};

use crate::stats::median;

/// Of each language and B, the runs of one fingerprint merged: the set that has the plan's runs,
/// else the one with the most, else the newest; one run per round (the newest). The runs left out
/// are said on stderr.
pub fn select(runs: Vec<LoadRun>, spec: &Spec) -> Vec<LoadRun> {
    let planned = spec.publish.as_ref().map_or(1, |p| p.load_runs as usize);
    let mut pieces: BTreeMap<(String, u64), BTreeMap<String, Vec<LoadRun>>> = BTreeMap::new();
    for run in runs {
        let fingerprint = get(&run, "fingerprint");
        let piece = (run.language().to_string(), run.background);
        pieces
            .entry(piece)
            .or_default()
            .entry(fingerprint)
            .or_default()
            .push(run);
    }
    let mut merged = Vec::new();
    for sets in pieces.into_values() {
        let mut sets: Vec<Vec<LoadRun>> = sets.into_values().map(one_per_round).collect();
        let score = |set: &Vec<LoadRun>| {
            let newest = set.iter().map(|r| get(r, "date")).max().unwrap_or_default();
            let complete = set.len() >= planned;
            (complete, if complete { 0 } else { set.len() }, newest)
        };
        sets.sort_by_key(score);
        let Some(best) = sets.pop() else { continue };
        for r in sets.into_iter().flatten() {
            say_left_out(&r, "another fingerprint's runs are kept");
        }
        merged.push(merge(best));
    }
    // Rust's runs first, then C#'s, each by B.
    merged.sort_by_key(|run| (run.language() != "rust", run.background));
    merged
}

fn get(run: &LoadRun, key: &str) -> String {
    run.provenance.get(key).cloned().unwrap_or_default()
}

/// Its round, from 1 (runs before rounds were recorded are the first).
fn round(run: &LoadRun) -> u32 {
    get(run, "round").parse().unwrap_or(1)
}

fn say_left_out(run: &LoadRun, why: &str) {
    eprintln!(
        "left out: the {} load run at B = {}, round {}, of {} ({why})",
        run.language(),
        run.background,
        round(run),
        get(run, "date")
    );
}

/// The newest run of each round, in round order.
fn one_per_round(set: Vec<LoadRun>) -> Vec<LoadRun> {
    let describe = |r: &LoadRun| {
        format!(
            "the {} load run at B = {}, round {}",
            r.language(),
            r.background,
            round(r)
        )
    };
    let mut kept =
        crate::measured::newest(set, |r| round(r).to_string(), |r| &r.provenance, describe);
    kept.sort_by_key(round);
    kept
}

/// One run of figures from several: each cell's median rate, requests and latencies over the
/// runs that measured it, with each run's rate in `runs`; the conditions and the redis-benchmark
/// figures of the newest run, with `runs` and `rounds` added. A single run is returned as it is.
fn merge(mut runs: Vec<LoadRun>) -> LoadRun {
    if runs.len() == 1 {
        return runs.remove(0);
    }
    let newest = runs
        .iter()
        .max_by_key(|r| get(r, "date"))
        .expect("a set has runs");
    let mut provenance = newest.provenance.clone();
    provenance.insert("runs".into(), runs.len().to_string());
    let rounds: Vec<String> = runs.iter().map(|r| round(r).to_string()).collect();
    provenance.insert("rounds".into(), rounds.join(","));
    // A cell: suite, operation, store, K and batch.
    let key = |f: &Figure| {
        (
            f.suite.clone(),
            f.operation.clone(),
            f.backend.clone(),
            f.clients,
            f.batch,
        )
    };
    let mut cells = Vec::new();
    for f in runs.iter().flat_map(|r| &r.figures) {
        if !cells.contains(&key(f)) {
            cells.push(key(f));
        }
    }
    let figures = cells
        .iter()
        .map(|cell| {
            let of: Vec<&Figure> = runs
                .iter()
                .filter_map(|r| r.figures.iter().find(|f| key(f) == *cell))
                .collect();
            let middle = |value: &dyn Fn(&Figure) -> f64| median(of.iter().map(|f| value(f)));
            let whole = |value: &dyn Fn(&Latency) -> u64| {
                middle(&|f: &Figure| value(&f.latency_ns) as f64).round() as u64
            };
            Figure {
                requests: middle(&|f: &Figure| f.requests as f64).round() as u64,
                per_second: middle(&|f: &Figure| f.per_second),
                latency_ns: Latency {
                    p50: whole(&|l| l.p50),
                    p90: whole(&|l| l.p90),
                    p99: whole(&|l| l.p99),
                    p999: whole(&|l| l.p999),
                    max: whole(&|l| l.max),
                },
                runs: of.iter().map(|f| f.per_second).collect(),
                ..of[0].clone()
            }
        })
        .collect();
    LoadRun {
        background: newest.background,
        clock_ns: median(runs.iter().map(|r| r.clock_ns)),
        redis_benchmark: newest.redis_benchmark.clone(),
        provenance,
        figures,
    }
}
