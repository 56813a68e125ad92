//! What every measurement binary (the bench, `load`, `memory`) checks before any work, so that a
//! run that cannot finish costs seconds: the sizes, families and suites the run chose, the memory they
//! need, the checkout's fingerprint, the results path; and how it ends, once an interrupt's
//! cleanup is done.

use std::{path::PathBuf, process::ExitCode};

use crate::{
    preflight, provenance,
    resp::cleanup,
    spec::{Size, Spec},
};

/// A run's choices, checked before any work.
pub struct Session {
    pub sizes: Vec<u64>,
    /// The ids of the families the family variable chose.
    pub families: Vec<String>,
    /// The ids of the suites the suite variable chose (a load or memory run: every suite).
    pub suites: Vec<String>,
    /// The checkout's fingerprint, which the results record.
    pub fingerprint: String,
    /// The file BENCHMARK_RESULTS names, checked without writing.
    pub results: Option<PathBuf>,
    /// BENCHMARK_ALLOW_FLUSH=1: a non-empty database may be claimed.
    pub allow_flush: bool,
}

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

impl Session {
    /// The bench's: the sizes from their variables, every suite's requests built for them.
    pub fn from_environment(spec: &Spec) -> anyhow::Result<Self> {
        let inputs = preflight::inputs(spec, var, preflight::available_memory()?)?;
        Self::with(spec, inputs.sizes, inputs.families, inputs.suites)
    }

    /// A measurement at the background `b` the command line gives (`usage` says how), the other
    /// sizes at `other` of theirs.
    pub fn at_background(
        spec: &Spec,
        b: &str,
        other: impl Fn(&Size) -> String,
        usage: &str,
    ) -> anyhow::Result<Self> {
        let sizes = sizes_at_background(spec, b, other, usage)?;
        preflight::redis_rs_only(spec, var)?;
        preflight::every_suite(spec, var)?;
        let families = spec
            .family_ids_from(var(&spec.family_env))
            .map_err(anyhow::Error::msg)?;
        let available = preflight::available_memory()?;
        preflight::check_memory(spec, &sizes, &families, available, "B")?;
        let every = spec.suites.iter().map(|s| s.id.clone()).collect();
        Self::with(spec, sizes, families, every)
    }

    fn with(
        spec: &Spec,
        sizes: Vec<u64>,
        families: Vec<String>,
        suites: Vec<String>,
    ) -> anyhow::Result<Self> {
        Ok(Self {
            sizes,
            families,
            suites,
            fingerprint: provenance::checkout(spec)?,
            results: preflight::results_path(std::env::var_os("BENCHMARK_RESULTS").as_deref())?,
            allow_flush: var("BENCHMARK_ALLOW_FLUSH").is_some_and(|v| v == "1"),
        })
    }

    /// Whether the run measures servers.
    pub fn redis(&self) -> bool {
        self.families.iter().any(|f| f == "redis")
    }
}

/// The sizes for the background `b` the command line gives (`usage` says how), the other sizes at
/// `other` of theirs, checked with the spec's own bounds and words.
pub fn sizes_at_background(
    spec: &Spec,
    b: &str,
    other: impl Fn(&Size) -> String,
    usage: &str,
) -> anyhow::Result<Vec<u64>> {
    spec.sizes_from(|name| {
        let size = spec.sizes.iter().find(|s| s.env == name)?;
        Some(match size.env == spec.sizes[0].env {
            true => b.to_string(),
            false => other(size),
        })
    })
    .map_err(|e| anyhow::anyhow!("{e}\n{usage}"))
}

/// A measurement binary's `main`: `run`, from the start of the run's steal time (which the
/// provenance reports), then, where an interrupt closed the run's connections
/// (which is why it failed), a wait for the handler, which ends the process once it has cleaned
/// up; an error is printed, and a panic goes on once the interrupt is handled.
pub fn exit(run: impl FnOnce() -> anyhow::Result<()> + std::panic::UnwindSafe) -> ExitCode {
    provenance::begin();
    let result = std::panic::catch_unwind(run);
    cleanup::wait_if_interrupted();
    match result {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
        Err(panic) => std::panic::resume_unwind(panic),
    }
}
