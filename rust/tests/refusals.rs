//! The refusals both languages share (spec/invalid): every malformed spec and every bad size is
//! refused before any work, with the message the case names. The C# tests replay the same files.

use std::path::PathBuf;

use redis_vs_doublets::{checked, load_spec, preflight, spec::Spec};

fn invalid() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../spec/invalid")
}

/// The part of the message a case must be refused with, from its `refused:` marker.
fn refusal(text: &str) -> &str {
    text.lines()
        .find_map(|l| l.split_once("refused: ").map(|(_, r)| r.trim()))
        .expect("every case names its refusal")
}

/// Plenty of memory, so that only the sizes decide (the memory case asks for petabytes).
const AVAILABLE: u64 = 1 << 40;

#[test]
fn every_invalid_spec_is_refused_before_any_work() {
    let mut cases = 0;
    for entry in std::fs::read_dir(invalid()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let error = checked(Spec::parse(&text, &name))
            .map_err(anyhow::Error::from)
            .and_then(|spec| preflight::inputs(&spec, |_| None, AVAILABLE))
            .map(drop)
            .expect_err(&format!("{name} should be refused"));
        let error = format!("{error:#}");
        assert!(error.contains(refusal(&text)), "{name}: {error}");
        cases += 1;
    }
    assert!(cases >= 12, "only {cases} cases in spec/invalid");
}

#[test]
fn every_invalid_size_is_refused_before_any_work() {
    let spec = load_spec().unwrap();
    let text = std::fs::read_to_string(invalid().join("sizes.txt")).unwrap();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (settings, _) = line.split_once(" refused: ").unwrap();
        let vars: Vec<(&str, &str)> = settings
            .split_whitespace()
            .map(|s| s.split_once('=').unwrap())
            .collect();
        let get = |var: &str| {
            vars.iter()
                .find(|(k, _)| *k == var)
                .map(|(_, v)| v.to_string())
        };
        let error = preflight::inputs(&spec, get, AVAILABLE)
            .map(drop)
            .expect_err(line);
        assert!(
            format!("{error:#}").contains(refusal(line)),
            "{line}: {error:#}"
        );
    }
}

#[test]
fn the_real_spec_at_its_default_sizes_passes() {
    let spec = load_spec().unwrap();
    preflight::inputs(&spec, |_| None, AVAILABLE).unwrap();
}

#[test]
fn the_rust_benches_refuse_the_variable_that_picks_csharp_clients() {
    let spec = load_spec().unwrap();
    let get = |var: &str| (var == spec.client_env).then(|| "FreeRedis".to_string());
    let error = format!(
        "{:#}",
        preflight::inputs(&spec, get, AVAILABLE).unwrap_err()
    );
    assert!(
        error.contains("BENCHMARK_CLIENTS=\"FreeRedis\" picks the C# bench's .NET clients"),
        "{error}"
    );
}

#[test]
fn the_suite_variable_picks_suites_for_the_bench_alone() {
    let spec = load_spec().unwrap();
    let get = |var: &str| (var == spec.suite_env).then(|| "payload, links".to_string());
    let inputs = preflight::inputs(&spec, get, AVAILABLE).unwrap();
    assert_eq!(inputs.suites, ["links", "payload"], "in the spec's order");
    let every = preflight::inputs(&spec, |_| None, AVAILABLE).unwrap();
    assert_eq!(every.suites, ["links", "typical", "payload"]);
    let error = format!("{:#}", preflight::every_suite(&spec, get).unwrap_err());
    assert!(
        error.contains("BENCHMARK_SUITES=\"payload, links\" picks the bench's suites; load and memory runs measure every suite"),
        "{error}"
    );
    preflight::every_suite(&spec, |_| None).unwrap();
}
