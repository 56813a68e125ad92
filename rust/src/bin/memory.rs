//! `cargo run --release -p redis-vs-doublets --bin memory -- B`: what every store holds in memory
//! for each suite's background of B (the spec's `memory` section), printed as a table; with
//! BENCHMARK_RESULTS=FILE the figures are also written there, as JSON, for the report.
//! BENCHMARK_BACKEND, REDIS_URL and BENCHMARK_ALLOW_FLUSH mean what they mean to the bench.
//!
//! Each doublets store is measured in a child process of its own (this program run with
//! `--child`), so that resident memory grows by the store alone; each suite gets a fresh Redis
//! server, so that its RSS starts from the same point. Exit codes: 0 when every figure was measured
//! and its store checked, 1 otherwise (no figure is printed for a store that fails its check).

use std::{
    collections::BTreeMap,
    process::{Command, ExitCode, Stdio},
};

use anyhow::{anyhow, bail, Context};
use redis_vs_doublets::{
    load_spec,
    memory::{self, Figure, MemoryRun},
    provenance,
    resp::{cleanup, server::Server},
    session::{self, Session},
    spec::{Layout, Spec, Suite},
    suites::{self, Doublets, Visit},
};

fn main() -> ExitCode {
    session::exit(run)
}

const USAGE: &str = "usage: memory B   (B background links or keys, e.g. 1000000)\n       memory --sizes   (the B the spec publishes)";

fn run() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let spec = load_spec()?;
    if let [flag, suite, backend, b] = args.as_slice() {
        if flag == "--child" {
            return child(&spec, suite, backend, b);
        }
    }
    if args == ["--sizes"] {
        // The sizes the spec publishes, for examples/measure-memory.sh.
        let memory = spec
            .memory
            .as_ref()
            .context("the spec has no memory section")?;
        memory.sizes.iter().for_each(|b| println!("{b}"));
        return Ok(());
    }
    let [b] = args.as_slice() else {
        bail!("{USAGE}");
    };
    // The other sizes at their least: what a store holds is the background's alone.
    let session = Session::at_background(&spec, b, |size| size.min.to_string(), USAGE)?;
    cleanup::stop_on_interrupt()?;
    // Each server the run used, by id, with its version and scripting, for the provenance.
    let mut servers: Vec<(String, String)> = Vec::new();

    let mut figures = Vec::new();
    // What a store costs per link or key is doublets' question against the servers: a suite
    // doublets does not run (payload, whose background only gives its values a key space) has
    // nothing to compare.
    let doublets_runs = |suite: &&Suite| {
        let in_process = |b: &String| spec.backend(b).layout.is_some();
        suite.backends.iter().any(in_process)
    };
    for suite in spec.suites.iter().filter(doublets_runs) {
        for backend in &suite.backends {
            let family = &spec.backend(backend).family;
            if family != "doublets" || !session.families.contains(family) {
                continue;
            }
            eprintln!("{}: {backend} at B={}…", suite.name.en, session.sizes[0]);
            figures.push(in_child(suite, backend, &session.sizes)?);
        }
        if session.families.iter().any(|f| f == "redis") {
            // Fresh servers for each suite: their RSS then grows from the same point.
            for server in Server::from_env(&spec, None)? {
                server.preflight(session.allow_flush)?;
                if !servers.iter().any(|(id, _)| *id == server.kind.id) {
                    servers.push((
                        server.kind.id.clone(),
                        provenance::servers(std::slice::from_ref(&server)),
                    ));
                }
                eprintln!(
                    "{}: {} at {}, B={}…",
                    suite.name.en,
                    server.describe(),
                    server.shown(),
                    session.sizes[0]
                );
                let on_server = OnServer(&server, suite, &session.sizes, session.allow_flush);
                figures.push(
                    suites::visit(&suite.id, on_server)
                        .map_err(|e| anyhow!("{}: {e}", spec.path))??,
                );
            }
        }
    }
    print!("{}", memory::table(&spec, &figures));

    if let Some(path) = session.results {
        let mut provenance: BTreeMap<String, String> = provenance::rust()
            .into_iter()
            .chain(provenance::common())
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        provenance.insert("families".into(), session.families.join(","));
        provenance.insert("fingerprint".into(), session.fingerprint);
        if !servers.is_empty() {
            let (ids, described): (Vec<String>, Vec<String>) = servers.into_iter().unzip();
            provenance.insert("servers".into(), ids.join(","));
            provenance.insert("redis".into(), described.join("; "));
        }
        let run = MemoryRun {
            background: session.sizes[0],
            provenance,
            figures,
        };
        // Written whole at the end: a failed or interrupted run leaves no partial file.
        std::fs::write(&path, serde_json::to_string_pretty(&run)? + "\n")
            .with_context(|| format!("BENCHMARK_RESULTS={}", path.display()))?;
        eprintln!("wrote the figures to {}", path.display());
    }
    Ok(())
}

/// A suite's background on a server, measured.
struct OnServer<'a>(&'a Server, &'a Suite, &'a [u64], bool);

impl Visit for OnServer<'_> {
    type Output = anyhow::Result<Figure>;
    fn servers<S: suites::Suite>(self) -> Self::Output {
        let OnServer(server, suite, sizes, allow_flush) = self;
        memory::redis::<S::Request, S::Model>(server, suite, sizes, allow_flush)
    }
}

/// Measures one doublets store in a child process of its own.
fn in_child(suite: &Suite, backend: &str, sizes: &[u64]) -> anyhow::Result<Figure> {
    let output = Command::new(std::env::current_exe()?)
        .args(["--child", &suite.id, backend, &sizes[0].to_string()])
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .context("cannot start the measuring process")?;
    if !output.status.success() {
        bail!(
            "{}/{backend}: the measuring process failed ({})",
            suite.id,
            output.status
        );
    }
    serde_json::from_slice(&output.stdout).with_context(|| {
        format!(
            "{}/{backend}: the measuring process answered nonsense",
            suite.id
        )
    })
}

/// One doublets store of a suite, measured and checked.
struct Child<'a>(&'a Suite, &'a str, Option<Layout>, &'a [u64]);

impl Visit for Child<'_> {
    type Output = anyhow::Result<Figure>;
    fn servers<S: suites::Suite>(self) -> Self::Output {
        bail!("doublets does not run the suite {}", self.0.id)
    }
    fn doublets<S: Doublets>(self) -> Self::Output {
        let Child(suite, backend, layout, sizes) = self;
        match layout {
            Some(Layout::United) => {
                memory::doublets::<S::Request, S::Model, _>(suite, backend, sizes, || {
                    S::united(None)
                })
            }
            Some(Layout::Split) => {
                memory::doublets::<S::Request, S::Model, _>(suite, backend, sizes, || {
                    S::split(None)
                })
            }
            None => bail!("{backend} is not a doublets store"),
        }
    }
}

/// The child: one store, measured and checked, its figure as JSON on stdout.
fn child(spec: &Spec, suite: &str, backend: &str, b: &str) -> anyhow::Result<()> {
    let sizes = session::sizes_at_background(spec, b, |size| size.min.to_string(), USAGE)?;
    let suite = spec
        .suite(suite)
        .with_context(|| format!("{}: no suite \"{suite}\"", spec.path))?;
    let layout = spec.backend(backend).layout;
    let figure = suites::visit(&suite.id, Child(suite, backend, layout, &sizes))
        .map_err(|e| anyhow!("{}: {e}", spec.path))??;
    println!("{}", serde_json::to_string(&figure)?);
    Ok(())
}
