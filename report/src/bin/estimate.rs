//! `cargo run -q --release -p report --bin estimate -- ROUNDS LANGUAGES`: the warm-up and sampling
//! time spec/benchmarks.yaml asks of a whole comparison (every cell of the families
//! BENCHMARK_BACKEND selects, in each language and round), which `examples/run-comparison.sh`
//! prints before it starts and compares its real time with at the end. Loading and checking the
//! backgrounds come on top.

use anyhow::{bail, Context};
use redis_vs_doublets::{check_request, spec::Spec};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [rounds, languages] = args.as_slice() else {
        bail!("usage: estimate ROUNDS LANGUAGES (e.g. estimate 3 rust,csharp)");
    };
    let rounds: u32 = rounds.parse().context("ROUNDS")?;
    let languages = languages.split(',').count() as u32;
    let spec = Spec::load(&redis_vs_doublets::spec_path(), &check_request)?;
    let families = spec
        .families_from(std::env::var(&spec.family_env).ok())
        .map_err(anyhow::Error::msg)?;
    let (mut cells, mut seconds) = (0usize, 0f64);
    for suite in &spec.suites {
        for backend in &suite.backends {
            let family = &spec.backend(backend).family;
            if let Some(f) = families.iter().find(|f| &f.id == family) {
                cells += suite.operations.len();
                seconds += suite.operations.len() as f64
                    * (f.sampling.warm_up_seconds + f.sampling.measurement_seconds);
            }
        }
    }
    let runs = rounds * languages;
    // Whole seconds on stdout for the script; the sentence on stderr for the reader.
    println!("{}", (seconds * f64::from(runs)).ceil());
    eprintln!(
        "estimate: {:.1} min of warm-up and sampling ({rounds} round(s) × {languages} language(s) × {cells} cells), loads and checks on top",
        seconds * f64::from(runs) / 60.0
    );
    Ok(())
}
