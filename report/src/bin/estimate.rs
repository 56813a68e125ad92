//! `cargo run -q --release -p report --bin estimate -- ROUNDS LANGUAGES`: the time spec/benchmarks.yaml
//! plans for a whole comparison (every cell of the families BENCHMARK_BACKEND and the servers
//! BENCHMARK_SERVERS select, at the sizes BENCHMARK_BACKGROUND_LINKS and BENCHMARK_LINKS set, in each
//! language and round: warm-up and sampling, and the suites' overheads for loads and checks), which
//! `examples/run-comparison.sh` prints before it starts and compares its real time with at the end.

use anyhow::{bail, Context};
use contract::spec::{Schedule, Spec};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [rounds, languages] = args.as_slice() else {
        bail!("usage: estimate ROUNDS LANGUAGES (e.g. estimate 3 rust,csharp)");
    };
    let rounds: u32 = rounds.parse().context("ROUNDS")?;
    let languages: Vec<&str> = languages.split(',').collect();
    let spec = Spec::load(&contract::spec_path())?;
    let families = spec
        .family_ids_from(std::env::var(&spec.family_env).ok())
        .map_err(anyhow::Error::msg)?;
    // REDIS_URL names one server, whose kind only the bench can ask: every kind has the same
    // cells, so the default's stand for it.
    let servers = match std::env::var("REDIS_URL")
        .ok()
        .filter(|u| !u.trim().is_empty())
    {
        Some(_) => spec.servers_from(None),
        None => spec.servers_from(std::env::var(&spec.server_env).ok()),
    }
    .map_err(anyhow::Error::msg)?;
    let ids: Vec<&str> = servers.iter().map(|s| s.id.as_str()).collect();
    // C# measures each server backend through the clients BENCHMARK_CLIENTS picks (every one
    // unset); Rust through redis-rs alone.
    let clients = spec
        .clients_from(std::env::var(&spec.client_env).ok())
        .map_err(anyhow::Error::msg)?;
    let sizes = spec
        .sizes_from(|var| std::env::var(var).ok())
        .map_err(anyhow::Error::msg)?;
    let per_language: Vec<Schedule> = languages
        .iter()
        .map(|l| {
            spec.schedule(
                &families,
                &ids,
                (*l == "csharp").then_some(&clients[..]),
                &sizes,
            )
        })
        .collect();
    let total = (0..rounds)
        .flat_map(|_| &per_language)
        .fold(Schedule::default(), |sum, s| sum.plus(s));
    let cells: Vec<String> = languages
        .iter()
        .zip(&per_language)
        .map(|(l, s)| format!("{} cells of {l}", s.cells))
        .collect();
    // Whole seconds on stdout for the script; the sentence on stderr for the reader.
    println!("{}", total.seconds().ceil());
    eprintln!(
        "estimate ({rounds} round(s) × ({})): {}",
        cells.join(" + "),
        total.describe()
    );
    Ok(())
}
