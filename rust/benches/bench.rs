//! `cargo bench --bench bench`: every suite, operation and backend of spec/benchmarks.yaml, with
//! Criterion. Progress and errors go to stderr; stdout carries only Criterion's output, so
//! `-- --output-format bencher` prints clean `test <operation>/<backend> ... bench:` lines.
//!
//! Exit codes: 0 when every cell was measured and checked, 1 on a bad spec, size, server or a
//! failed check (the failing cell prints no time), 101 when a measured iteration finds a wrong result.

use std::{
    io::Write,
    path::Path,
    process::ExitCode,
    time::{Duration, Instant, SystemTime},
};

use anyhow::{anyhow, bail, Context};
use criterion::{Criterion, SamplingMode};
use redis_vs_doublets::{
    calibration::{self, Moment},
    criterion_args::Selection,
    durable::{self, StoreFolder},
    harness::{self, Background, Prepared},
    load_spec, preflight,
    progress::Progress,
    provenance,
    resp::store::{Mode, RedisRequest},
    resp::{cleanup, server::Server},
    results::bencher_line,
    session::{self, Session},
    spec::{self, Backend, Layout, Spec, Suite},
    store::{Model, Request, Store},
    suites::{self, Doublets, Visit},
};

fn main() -> ExitCode {
    session::exit(run)
}

fn run() -> anyhow::Result<()> {
    // Everything is checked before the first cell, so that a run that cannot finish costs seconds.
    let selection = Selection::parse(std::env::args().skip(1))?;
    let spec = load_spec()?;
    let session = Session::from_environment(&spec)?;
    // The suites the run chose are the spec it measures: their cells, schedule and result alone.
    let spec = spec.narrowed_to(&session.suites);
    let described: Vec<String> = spec
        .sizes
        .iter()
        .zip(&session.sizes)
        .map(|(s, v)| format!("{}={v}", s.symbol))
        .collect();
    eprintln!(
        "sizes {}; families {}; suites {}",
        described.join(", "),
        session.families.join(", "),
        session.suites.join(", ")
    );
    let round = preflight::round(|var| std::env::var(var).ok())?;
    let started = start(&spec, &session)?;
    let server_ids: Vec<&str> = started.servers.iter().map(|s| s.kind.id.as_str()).collect();
    if selection.list {
        // As Criterion lists, without loading or checking a store.
        for cell in spec.cells(&session.families, &server_ids) {
            if selection.selects(&cell) {
                println!("{cell}: benchmark");
            }
        }
        return Ok(());
    }
    let schedule = spec.schedule_of(
        &session.families,
        &server_ids,
        None,
        &session.sizes,
        &|cell| selection.measures(cell),
    );
    if selection.test {
        eprintln!(
            "{} cells to run once each (Criterion's test mode: nothing is measured)",
            schedule.cells
        );
    } else {
        eprintln!(
            "fingerprint {}; round {round}: {} cells to measure, about {}",
            session.fingerprint,
            schedule.cells,
            schedule.describe()
        );
    }
    let mut progress = Progress::new(&schedule);
    let first = started
        .servers
        .first()
        .map(|s| (s.kind.name.as_str(), s.url.as_str()));
    calibration::record(Moment::Start, first)?;

    let output = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/criterion");
    // The bench reads Criterion's median and standard deviation, point estimates that resampling
    // does not change: 10,000 bootstrap resamples (not 100,000) cut the time between cells.
    let mut criterion = Criterion::default()
        .output_directory(&output)
        .nresamples(10_000)
        .configure_from_args();
    let mut measured = Vec::new();
    for suite in &spec.suites {
        let mut runner = Runner {
            spec: &spec,
            suite,
            sizes: &session.sizes,
            families: &session.families,
            servers: &server_ids,
            allow_flush: session.allow_flush,
            reversed: round % 2 == 0,
            folder: started.folder.as_ref(),
            selection: &selection,
            criterion: &mut criterion,
            progress: &mut progress,
            output: &output,
            done: Vec::new(),
            measured: &mut measured,
        };
        let run = RunSuite(&mut runner, &started.servers);
        suites::visit(&suite.id, run).map_err(|e| anyhow!("{}: {e}", spec.path))??;
        runner.finish()?;
    }
    criterion.final_summary();
    calibration::record(Moment::End, first)?;
    progress.finish(round);

    if let Some(path) = &session.results {
        write_results(path, &spec, &session, round, &started, &measured)?;
    }
    Ok(())
}

/// What a run starts before its first cell: the durable stores' folder, the servers (checked),
/// and the networks to the distant ones.
struct Started {
    folder: Option<durable::Folder>,
    servers: Vec<Server>,
    /// The networks and their measured round trips, for the result file.
    networks: Option<String>,
}

/// Starts what the run's families and servers need, each refused before any work where it cannot
/// run, with Ctrl-C set to stop and remove it all.
fn start(spec: &Spec, session: &Session) -> anyhow::Result<Started> {
    let redis = session.families.iter().any(|f| f == "redis");
    let disposable = match redis {
        true => Server::disposable_ids(spec)?,
        false => Vec::new(),
    };
    let durable = spec.durable(&session.families, &disposable);
    if durable || redis {
        cleanup::stop_on_interrupt()?;
    }
    let folder = if durable {
        let needed = durable::needed(spec, &session.families, &session.sizes);
        let folder = durable::Folder::new(spec, |var| std::env::var(var).ok(), needed)?;
        eprintln!("durable stores keep their files in {}", folder.describe);
        Some(folder)
    } else {
        None
    };
    let servers = if redis {
        let servers = Server::from_env(spec, folder.as_ref())?;
        for server in &servers {
            server.preflight(session.allow_flush)?;
            eprintln!(
                "{} at {} ({})",
                server.describe(),
                server.shown(),
                server.scripting.describe()
            );
            if let Some(words) = &server.split_refused {
                eprintln!(
                "{}: where its time goes is not reported, since it refused INFO cpu commandstats: {words}",
                server.describe()
            );
            }
        }
        servers
    } else {
        Vec::new()
    };
    let networks = provenance::networks(&servers)?;
    if let Some(networks) = &networks {
        eprintln!("over a network: {networks}");
    }
    Ok(Started {
        folder,
        servers,
        networks,
    })
}

/// Writes the result file: the run's conditions, then every measured cell's bencher line (and
/// split), whole at the end, so that a failed or interrupted run leaves no partial file.
fn write_results(
    path: &Path,
    spec: &Spec,
    session: &Session,
    round: u32,
    started: &Started,
    measured: &[String],
) -> anyhow::Result<()> {
    let Started {
        folder,
        servers,
        networks,
    } = started;
    let server_ids: Vec<&str> = servers.iter().map(|s| s.kind.id.as_str()).collect();
    if measured.is_empty() {
        bail!("BENCHMARK_RESULTS={}: no cell was measured (test mode or a filter), so no result file was written", path.display());
    }
    let mut text = String::new();
    let mut lines = provenance::rust();
    lines.extend(
        spec.sizes
            .iter()
            .zip(&session.sizes)
            .map(|(size, value)| (size.key.as_str(), value.to_string())),
    );
    lines.push(("families", session.families.join(",")));
    lines.push(("suites", session.suites.join(",")));
    if let Some(folder) = folder {
        lines.push(("durable", folder.describe.clone()));
    }
    lines.push(("round", round.to_string()));
    lines.push(("fingerprint", session.fingerprint.clone()));
    if !servers.is_empty() {
        lines.push(("servers", server_ids.join(",")));
        lines.push(("redis", provenance::servers(servers)));
        if let Some(unsplit) = provenance::unsplit(servers) {
            lines.push(("unsplit", unsplit));
        }
        if let Some(networks) = networks {
            lines.push(("network", networks.clone()));
        }
    }
    lines.extend(provenance::common());
    for (key, value) in lines {
        text.push_str(&format!("# {key}: {value}\n"));
    }
    measured
        .iter()
        .for_each(|line| text.push_str(&format!("{line}\n")));
    // Written whole at the end: a failed or interrupted run leaves no partial file.
    std::fs::write(path, text).with_context(|| format!("BENCHMARK_RESULTS={}", path.display()))?;
    eprintln!(
        "wrote {} checked cells to {}",
        measured.len(),
        path.display()
    );
    Ok(())
}

/// The median and standard deviation Criterion estimated for a cell, if it measured it after
/// `since` (in test mode, or when a filter skipped the cell, it did not).
fn estimate(
    output: &Path,
    group: &str,
    backend: &str,
    since: SystemTime,
) -> anyhow::Result<Option<(f64, f64)>> {
    let path = output.join(group).join(backend).join("new/estimates.json");
    let fresh = std::fs::metadata(&path)
        .and_then(|m| m.modified())
        .is_ok_and(|t| t >= since);
    if !fresh {
        return Ok(None);
    }
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
    let point = |field: &str| {
        json[field]["point_estimate"]
            .as_f64()
            .with_context(|| format!("{}: no {field}", path.display()))
    };
    Ok(Some((point("median")?, point("std_dev")?)))
}

/// A suite's cells: on its doublets stores, if doublets runs it, and on each server.
struct RunSuite<'r, 'a>(&'r mut Runner<'a>, &'r [Server]);

impl Visit for RunSuite<'_, '_> {
    type Output = anyhow::Result<()>;
    fn servers<S: suites::Suite>(self) -> Self::Output {
        run_servers::<S::Request, S::Model>(self.0, self.1)
    }
    fn doublets<S: Doublets>(self) -> Self::Output {
        run_suite::<S>(self.0, self.1)
    }
}

/// A suite on its doublets stores (in the spec's order: each layout in memory, then on files) and
/// on each server in its three modes, in reverse on even rounds.
fn run_suite<S: Doublets>(runner: &mut Runner<'_>, servers: &[Server]) -> anyhow::Result<()> {
    let spec = runner.spec;
    let in_process: Vec<&Backend> = runner
        .suite
        .backends
        .iter()
        .map(|b| spec.backend(b))
        .filter(|b| b.layout.is_some())
        .collect();
    let folder = runner.folder;
    let mut bench = runner.start::<S::Request, S::Model>()?;
    let doublets = |bench: &mut SuiteBench<'_, '_, S::Request, S::Model>, backend: &Backend| {
        let files = || store_folder(spec, folder, backend);
        match backend.layout {
            Some(Layout::United) => bench.doublets(&backend.name, || S::united(files()?)),
            _ => bench.doublets(&backend.name, || S::split(files()?)),
        }
    };
    if bench.runner.reversed {
        for server in servers.iter().rev() {
            bench.server(server)?;
        }
        for backend in in_process.iter().rev() {
            doublets(&mut bench, backend)?;
        }
        Ok(())
    } else {
        for backend in &in_process {
            doublets(&mut bench, backend)?;
        }
        servers.iter().try_for_each(|server| bench.server(server))
    }
}

/// The folder a store of `backend` keeps its files in, made for it in the run's folder where its
/// family is durable; `None` for a store on the heap.
fn store_folder(
    spec: &Spec,
    folder: Option<&durable::Folder>,
    backend: &Backend,
) -> anyhow::Result<Option<StoreFolder>> {
    if spec.family(&backend.family).durable.is_none() {
        return Ok(None);
    }
    let folder = folder.context("a durable family runs, so the run made a folder for its files")?;
    folder.store(&backend.name).map(Some)
}

/// A suite that runs on the servers only (in reverse on even rounds).
fn run_servers<R: RedisRequest, M: Model<R>>(
    runner: &mut Runner<'_>,
    servers: &[Server],
) -> anyhow::Result<()> {
    let mut bench = runner.start::<R, M>()?;
    let reversed = bench.runner.reversed;
    let ordered: Vec<&Server> = if reversed {
        servers.iter().rev().collect()
    } else {
        servers.iter().collect()
    };
    ordered
        .into_iter()
        .try_for_each(|server| bench.server(server))
}

/// While Criterion measures a cell, its stdout goes to stderr: Criterion prints a cell's time as
/// soon as its sampling ends, before the check that follows, and stdout must only ever show the
/// times of cells that passed every check (the bench prints those itself).
struct CriterionToStderr {
    stdout: libc::c_int,
}

impl CriterionToStderr {
    fn new() -> Self {
        std::io::stdout().flush().ok();
        // SAFETY: duplicates and redirects this process's own standard streams.
        let stdout = unsafe { libc::dup(1) };
        unsafe { libc::dup2(2, 1) };
        Self { stdout }
    }
}

impl Drop for CriterionToStderr {
    fn drop(&mut self) {
        std::io::stdout().flush().ok();
        // SAFETY: restores the descriptor saved in `new`.
        unsafe {
            libc::dup2(self.stdout, 1);
            libc::close(self.stdout);
        }
    }
}

/// Runs one suite's cells.
struct Runner<'a> {
    spec: &'a Spec,
    suite: &'a Suite,
    sizes: &'a [u64],
    families: &'a [String],
    /// The ids of the servers this run uses.
    servers: &'a [&'a str],
    allow_flush: bool,
    /// This round measures the backends in reverse order.
    reversed: bool,
    /// Where durable stores keep their files, when a durable family runs.
    folder: Option<&'a durable::Folder>,
    /// The cells Criterion's command line selects: the others are not loaded, checked or run.
    selection: &'a Selection,
    criterion: &'a mut Criterion,
    progress: &'a mut Progress,
    output: &'a Path,
    done: Vec<String>,
    /// Bencher lines of the cells that passed every check.
    measured: &'a mut Vec<String>,
}

/// A suite in progress: its requests, prepared once, and the model that holds the background.
struct SuiteBench<'r, 'a, R, M> {
    runner: &'r mut Runner<'a>,
    background: Vec<R>,
    prepared: Vec<Prepared<'a, R>>,
    model: M,
}

impl<'a> Runner<'a> {
    fn start<R: RedisRequest, M: Model<R>>(&mut self) -> anyhow::Result<SuiteBench<'_, 'a, R, M>> {
        let suite = self.suite;
        let (background, prepared) = harness::plan(suite, self.sizes)?;
        let mut model = M::default();
        model.run(&background, |_| {}).map_err(|e| {
            anyhow!(
                "suite {}: the model refuses the background: {e:#}",
                suite.id
            )
        })?;
        Ok(SuiteBench {
            runner: self,
            background,
            prepared,
            model,
        })
    }

    fn selected(&self, backend: &str) -> bool {
        self.suite.backends.iter().any(|b| b == backend)
            && self.spec.runs(backend, self.families, self.servers)
    }

    /// Whether any cell of `backend` is measured: a store none of whose cells is, is not loaded.
    fn measures(&self, backend: &str) -> bool {
        self.selected(backend)
            && self
                .suite
                .operations
                .iter()
                .any(|op| self.selection.measures(&format!("{}/{backend}", op.id)))
    }

    /// Every backend the suite lists must have run, unless its family or server was left out.
    fn finish(&self) -> anyhow::Result<()> {
        for backend in &self.suite.backends {
            if self.measures(backend) && !self.done.contains(backend) {
                bail!(
                    "{}: suite {} lists backend {backend}, which no store implements",
                    self.spec.path,
                    self.suite.id
                );
            }
        }
        Ok(())
    }
}

impl<'a, R: RedisRequest, M: Model<R>> SuiteBench<'_, 'a, R, M> {
    fn doublets<S: Store<R>>(
        &mut self,
        backend: &str,
        make: impl FnOnce() -> anyhow::Result<S>,
    ) -> anyhow::Result<()> {
        if !self.runner.measures(backend) {
            return Ok(());
        }
        let mut store = make()?;
        self.measure(&mut store, backend, &[backend], |_, _| {})
    }

    /// Loads the background into `store` once, then measures every operation as each of
    /// `backends`, `switch` readying the store for the k-th.
    fn measure<S: Store<R>>(
        &mut self,
        store: &mut S,
        name: &str,
        backends: &[&str],
        mut switch: impl FnMut(&mut S, usize),
    ) -> anyhow::Result<()> {
        let Self {
            runner,
            background,
            prepared,
            model,
        } = self;
        let mut loaded = load(
            runner,
            background,
            prepared,
            model,
            store,
            (name, backends[0]),
        )?;
        for (k, backend) in backends.iter().enumerate() {
            switch(store, k);
            cells(runner, prepared, store, &mut loaded, backend)?;
        }
        Ok(())
    }

    /// One load serves the server's three modes: every iteration is undone and the checks prove
    /// it. The suite's keys are removed afterwards, whatever happened.
    fn server(&mut self, server: &Server) -> anyhow::Result<()> {
        let mut modes: Vec<Mode> = Mode::ALL
            .into_iter()
            .filter(|&m| self.runner.measures(&server.backend(m)))
            .collect();
        if self.runner.reversed {
            modes.reverse();
        }
        if modes.is_empty() {
            return Ok(());
        }
        let mut store = server.store(R::KEYS, self.runner.allow_flush, Mode::Pipeline)?;
        let backends: Vec<String> = modes.iter().map(|&m| server.backend(m)).collect();
        let backends: Vec<&str> = backends.iter().map(String::as_str).collect();
        let measured = self.measure(&mut store, &server.kind.name, &backends, |store, k| {
            store.mode = modes[k];
        });
        let released = server.release();
        measured.and(released)
    }
}

/// Loads the suite's background into `store`, checked against `model`, which holds it already.
/// `backend`: any of the store's backends, which the spec's load estimate names it by.
fn load<'m, R: Request, S: Store<R>, M: Model<R>>(
    runner: &mut Runner<'_>,
    requests: &[R],
    prepared: &[Prepared<'_, R>],
    model: &'m mut M,
    store: &mut S,
    (name, backend): (&str, &str),
) -> anyhow::Result<Background<'m, M>> {
    let suite = runner.suite;
    let expected = suite
        .background_expected
        .tally(runner.sizes)
        .map_err(anyhow::Error::msg)?;
    runner.progress.note(format!(
        "{}: loading {} into {name}…",
        suite.name.en,
        describe(&suite.background_description.en, runner)
    ));
    let reaches = prepared.iter().map(|p| p.reaches).max().unwrap_or(0);
    let started = Instant::now();
    let (mut background, took) = Background::load(store, model, requests, expected, reaches, name)?;
    background.split = runner.spec.split.clone();
    let text = format!(
        "{}: loaded {} requests into {name} in {:.1} s, checked in {:.1} s (it holds {}; after each cell: {})",
        suite.name.en,
        requests.len(),
        took.as_secs_f64(),
        (started.elapsed() - took).as_secs_f64(),
        background.census,
        match (&background.changes, &background.digest) {
            (Some(_), Some(_)) => "its count of changes after a read-only cell, else its digest",
            (None, Some(_)) => "its digest",
            _ => "read back whole",
        }
    );
    let planned = runner
        .spec
        .load_seconds(suite, backend, "rust", runner.sizes);
    runner.progress.loaded(&text, planned);
    Ok(background)
}

/// Every operation of the suite on one store: the cell sequence of [`harness::cell`] with
/// Criterion measuring, and the cell's line printed only once every check passed.
fn cells<R: Request, S: Store<R>, M: Model<R>>(
    runner: &mut Runner<'_>,
    prepared: &[Prepared<'_, R>],
    store: &mut S,
    background: &mut Background<'_, M>,
    backend: &str,
) -> anyhow::Result<()> {
    let sampling = &runner
        .spec
        .family(&runner.spec.backend(backend).family)
        .sampling;
    for prepared in prepared {
        let id = &prepared.operation.id;
        let cell = format!("{id}/{backend}");
        if !runner.selection.measures(&cell) {
            continue;
        }
        let started = SystemTime::now();
        let progress = &*runner.progress;
        let took = harness::cell(prepared, store, background, &cell, |store| {
            progress.suspend(|| {
                // Criterion fills its times with timed work alone, but each iteration also pays its
                // untimed undo: an iteration's timed share of its wall time scales the spec's times, so
                // that a cell takes about the spec's wall time, as the C# sampler's does. The share comes
                // from one more iteration, which no sample includes.
                let wall = Instant::now();
                let timed = prepared.measure(store, &cell);
                let share = (timed.as_secs_f64() / wall.elapsed().as_secs_f64()).clamp(0.05, 1.0);
                let _quiet = CriterionToStderr::new();
                let mut group = runner.criterion.benchmark_group(id);
                group
                    .sample_size(sampling.samples)
                    .warm_up_time(Duration::from_secs_f64(sampling.warm_up_seconds * share))
                    .measurement_time(Duration::from_secs_f64(
                        sampling.measurement_seconds * share,
                    ))
                    .sampling_mode(match sampling.mode {
                        spec::SamplingMode::Linear => SamplingMode::Linear,
                        spec::SamplingMode::Flat => SamplingMode::Flat,
                        spec::SamplingMode::Auto => SamplingMode::Auto,
                    });
                group.bench_function(backend, |b| {
                    b.iter_custom(|iters| (0..iters).map(|_| prepared.measure(store, &cell)).sum())
                });
                group.finish();
            })
        })?;
        let planned = runner.spec.cell_seconds(
            runner.suite,
            prepared.operation,
            backend,
            None,
            "rust",
            runner.sizes,
        );
        match estimate(runner.output, id, backend, started)? {
            Some((median, sd)) => {
                runner.progress.cell(&cell, &took, planned.seconds());
                let line = bencher_line(id, backend, median, sd);
                println!("{line}");
                runner.measured.push(line);
                if let Some(split) = took.split {
                    let line = split.line(&cell);
                    println!("{line}");
                    runner.measured.push(line);
                }
            }
            // A filter or the test mode left it out: the plan had it, the round does not.
            None => runner.progress.skipped(&planned),
        }
    }
    runner.done.push(backend.to_string());
    Ok(())
}

fn describe(text: &str, runner: &Runner<'_>) -> String {
    let symbols = runner.spec.sizes.iter().zip(runner.sizes);
    format!(
        "{text} ({})",
        symbols
            .map(|(s, v)| format!("{}={v}", s.symbol))
            .collect::<Vec<_>>()
            .join(", ")
    )
}
