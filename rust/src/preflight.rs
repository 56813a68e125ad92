//! Checks made before the first cell, so that a run that cannot finish costs seconds: the memory
//! the sizes need, and the results path. The bench also builds every suite's requests and checks
//! the server before measuring anything (see `benches/bench.rs`).

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail};

use crate::{
    spec::{self, Spec},
    suites::{self, Suite, Visit},
};

/// What a bench run asks for, checked before any work.
#[derive(Debug)]
pub struct Inputs {
    pub sizes: Vec<u64>,
    /// The ids of the families the family variable chooses.
    pub families: Vec<String>,
    /// The ids of the suites the suite variable chooses, in the spec's order.
    pub suites: Vec<String>,
}

/// The sizes, families and suites a run asks for (`get` reads a variable), checked with
/// everything that needs no server: bounds, the memory they need against `available`, and the
/// chosen suites' requests built for them.
pub fn inputs(
    spec: &Spec,
    get: impl Fn(&str) -> Option<String>,
    available: u64,
) -> anyhow::Result<Inputs> {
    redis_rs_only(spec, &get)?;
    inputs_of_either_language(spec, get, available)
}

/// [`inputs`] as both languages check them: the C# harness, which measures through the clients
/// the client variable names, gets them through the C ABI.
pub fn inputs_of_either_language(
    spec: &Spec,
    get: impl Fn(&str) -> Option<String>,
    available: u64,
) -> anyhow::Result<Inputs> {
    let sizes = spec.sizes_from(&get).map_err(anyhow::Error::msg)?;
    let families = spec
        .family_ids_from(get(&spec.family_env))
        .map_err(anyhow::Error::msg)?;
    let suites = spec
        .suite_ids_from(get(&spec.suite_env))
        .map_err(anyhow::Error::msg)?;
    check_memory(spec, &sizes, &families, available, &spec.sizes[0].env)?;
    /// Every request of a suite built for the sizes: what both benches do before the first cell.
    struct Plan<'a>(&'a spec::Suite, &'a [u64]);
    impl Visit for Plan<'_> {
        type Output = anyhow::Result<()>;
        fn servers<S: Suite>(self) -> Self::Output {
            crate::harness::plan::<S::Request>(self.0, self.1).map(drop)
        }
    }
    for suite in spec.suites.iter().filter(|s| suites.contains(&s.id)) {
        suites::visit(&suite.id, Plan(suite, &sizes))
            .map_err(|e| anyhow!("{}: {e}", spec.path))??;
    }
    Ok(Inputs {
        sizes,
        families,
        suites,
    })
}

/// Refuses the variable that picks the bench's suites in a load or memory run, which measures
/// every suite: a run that named some would not measure what it was asked to.
pub fn every_suite(spec: &Spec, get: impl Fn(&str) -> Option<String>) -> anyhow::Result<()> {
    unset(
        &spec.suite_env,
        "the bench's suites; load and memory runs measure every suite",
        get,
    )
}

/// Refuses the variable that picks the C# bench's clients: a Rust run measures servers through
/// redis-rs alone, so a run that names clients would not measure what it was asked to.
pub fn redis_rs_only(spec: &Spec, get: impl Fn(&str) -> Option<String>) -> anyhow::Result<()> {
    let why =
        "the C# bench's .NET clients; the Rust benches measure servers through redis-rs alone";
    unset(&spec.client_env, why, get)
}

/// Refuses `variable` where it is set: it picks `what`, which this run does not pick.
fn unset(variable: &str, what: &str, get: impl Fn(&str) -> Option<String>) -> anyhow::Result<()> {
    match get(variable).filter(|v| !v.trim().is_empty()) {
        Some(value) => bail!("{variable}={value:?} picks {what}: unset it"),
        None => Ok(()),
    }
}

/// Which round of a run this is (BENCHMARK_ROUND, from 1; default 1). Even rounds measure the
/// backends in reverse order, so that drift over a run favours none of them.
pub fn round(get: impl Fn(&str) -> Option<String>) -> anyhow::Result<u32> {
    match get("BENCHMARK_ROUND") {
        None => Ok(1),
        Some(text) => match text.parse::<u32>() {
            Ok(round) if round >= 1 => Ok(round),
            _ => bail!("BENCHMARK_ROUND={text} is not a whole number from 1"),
        },
    }
}

/// The memory a run at `sizes` needs, from the spec's estimates: per background request of a
/// suite, the harness always plus the stores of the selected families; the most any suite needs.
pub fn memory_needed(spec: &Spec, sizes: &[u64], families: &[String]) -> anyhow::Result<u128> {
    let mut most = 0u128;
    for suite in &spec.suites {
        let per_request: u128 = std::iter::once("harness")
            .chain(families.iter().map(String::as_str))
            .map(|key| u128::from(suite.memory_per_request[key]))
            .sum();
        let count = suite
            .background
            .count(sizes)
            .map_err(|e| anyhow::anyhow!("suite {} background: {e}", suite.id))?;
        most = most.max(count * per_request);
    }
    Ok(most)
}

/// Refuses sizes whose estimated memory exceeds what this machine has available, naming B the way
/// it was given (`given_as`: a variable, or the command line's B).
pub fn check_memory(
    spec: &Spec,
    sizes: &[u64],
    families: &[String],
    available: u64,
    given_as: &str,
) -> anyhow::Result<()> {
    let needed = memory_needed(spec, sizes, families)?;
    if needed > u128::from(available) {
        bail!(
            "{given_as}={} needs about {} of memory, but this machine has {} available: lower \
             {given_as} (the estimate is memory_per_request in {})",
            sizes[0],
            bytes(needed),
            bytes(u128::from(available)),
            spec.path
        );
    }
    Ok(())
}

/// The memory this machine has available now.
pub fn available_memory() -> anyhow::Result<u64> {
    let mut system = sysinfo::System::new()
        .map_err(|e| anyhow::anyhow!("cannot read this machine's memory: {e}"))?;
    system.refresh_memory();
    Ok(system.available_memory())
}

/// "1.5 GiB": bytes in binary units, for messages.
pub fn bytes(n: u128) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// The file BENCHMARK_RESULTS names, checked without writing: a file (not a folder) in a folder
/// that exists and can be written to.
pub fn results_path(value: Option<&std::ffi::OsStr>) -> anyhow::Result<Option<PathBuf>> {
    let Some(value) = value.filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    let path = PathBuf::from(value);
    let shown = path.display();
    if path.is_dir() {
        bail!(
            "BENCHMARK_RESULTS={shown} is a folder: name the file to write, e.g. {shown}/rust.txt"
        );
    }
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !dir.is_dir() {
        bail!(
            "BENCHMARK_RESULTS={shown}: the folder {} does not exist",
            dir.display()
        );
    }
    let c_dir = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes())?;
    // SAFETY: access only reads the path it is given.
    if unsafe { libc::access(c_dir.as_ptr(), libc::W_OK) } != 0 {
        bail!(
            "BENCHMARK_RESULTS={shown}: the folder {} cannot be written to",
            dir.display()
        );
    }
    Ok(Some(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_read_as_binary_units() {
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(3 << 30), "3.0 GiB");
    }

    #[test]
    fn results_must_name_a_writable_file() {
        let dir = std::env::temp_dir();
        assert!(results_path(None).unwrap().is_none());
        let error = results_path(Some(dir.as_os_str())).unwrap_err().to_string();
        assert!(error.contains("is a folder"), "{error}");
        let missing = dir.join("no-such-folder-here/rust.txt");
        let error = results_path(Some(missing.as_os_str()))
            .unwrap_err()
            .to_string();
        assert!(error.contains("does not exist"), "{error}");
        let fine = dir.join("rust.txt");
        assert_eq!(results_path(Some(fine.as_os_str())).unwrap(), Some(fine));
    }
}
