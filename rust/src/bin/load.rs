//! `cargo run --release -p redis-vs-doublets --bin load -- B`: throughput and latency of K
//! concurrent clients for every store of each suite (the spec's `load` section), printed as tables;
//! with BENCHMARK_RESULTS=FILE the figures are also written there, as JSON, for the report.
//! BENCHMARK_BACKEND, BENCHMARK_SERVERS, REDIS_URL and BENCHMARK_ALLOW_FLUSH mean what they mean to
//! the bench; `--filter TEXT` runs the cells whose name (`suite/operation/backend`) contains TEXT.
//!
//! Exit codes: 0 when every cell was measured and checked, 1 otherwise (a cell that fails its
//! check prints no figure, and no result file is written).

use std::{collections::BTreeMap, process::ExitCode, time::Instant};

use anyhow::{anyhow, bail, Context};
use redis_vs_doublets::{
    harness::{self, Background, Prepared},
    load::{self, BenchmarkFigure, Figure, LoadRun, Shared, Timing},
    load_spec, provenance, redis_benchmark,
    resp::store::{Mode, RedisRequest},
    resp::{cleanup, server::Server},
    session::{self, Session},
    spec::{Layout, Load, LoadOperation, Operation, Spec, Suite},
    store::{Model, SharedRead, Store},
    suites::{self, Doublets, Visit},
};

fn main() -> ExitCode {
    session::exit(run)
}

const USAGE: &str = "usage: load B [--filter TEXT]   (B background links or keys, e.g. 100000)\n       load --sizes   (the B the spec publishes)";

fn run() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let spec = load_spec()?;
    let load = spec
        .load
        .as_ref()
        .with_context(|| format!("{}: the spec has no load section", spec.path))?;
    if args == ["--sizes"] {
        // The sizes the spec publishes, for examples/measure-load.sh.
        load.sizes.iter().for_each(|b| println!("{b}"));
        return Ok(());
    }
    let (b, filter) = match args.as_slice() {
        [b] => (b, None),
        [b, flag, text] if flag == "--filter" => (b, Some(text.as_str())),
        _ => bail!("{USAGE}"),
    };
    // N = B: each operation's work and undo then cover every i of the background.
    let session = Session::at_background(&spec, b, |_| b.clone(), USAGE)?;
    // Which of the plan's runs this is (`publish.load_runs`), for the report to tell them apart.
    let round = redis_vs_doublets::preflight::round(|name| std::env::var(name).ok())?;
    if let (Some(path), Some(_)) = (&session.results, filter) {
        bail!(
            "BENCHMARK_RESULTS={}: a filtered run is not a result file (the report needs every cell)",
            path.display()
        );
    }
    for suite in &spec.suites {
        let check = CheckShares(load, suite, &session.sizes);
        suites::visit(&suite.id, check).map_err(|e| anyhow!("{}: {e}", spec.path))??;
    }
    let servers = start_servers(&spec, &session)?;

    let mut run = Runner {
        spec: &spec,
        load,
        sizes: &session.sizes,
        families: &session.families,
        filter,
        allow_flush: session.allow_flush,
        timing: Timing::of(load),
        figures: Vec::new(),
        benchmarks: Vec::new(),
        done: 0,
        cells: 0,
    };
    run.cells = spec
        .suites
        .iter()
        .map(|suite| run.cells_of(suite, &servers))
        .sum();
    let seconds = run.estimate(&servers)?;
    let clock_ns = load::clock_cost();
    eprintln!("reading the clock costs {clock_ns:.1} ns");
    let started = Instant::now();
    for suite in &spec.suites {
        let cells = RunSuite(&mut run, suite, &servers);
        suites::visit(&suite.id, cells).map_err(|e| anyhow!("{}: {e}", spec.path))??;
    }
    let took = started.elapsed().as_secs_f64();
    eprintln!(
        "measured {} cells in {:.1} min against the estimate's {:.1} min ({:.2}×)",
        run.done,
        took / 60.0,
        seconds / 60.0,
        took / seconds.max(1.0)
    );
    let result = LoadRun {
        background: session.sizes[0],
        provenance: provenance_of(&session.families, &servers, session.fingerprint, round),
        clock_ns,
        figures: run.figures,
        redis_benchmark: run.benchmarks,
    };
    print!("{}", load::table(&spec, &result));
    if let Some(path) = session.results {
        // Written whole at the end: a failed or interrupted run leaves no partial file.
        std::fs::write(&path, serde_json::to_string_pretty(&result)? + "\n")
            .with_context(|| format!("BENCHMARK_RESULTS={}", path.display()))?;
        eprintln!("wrote the figures to {}", path.display());
    }
    Ok(())
}

/// Before any work: every client of every load operation gets its share.
struct CheckShares<'a>(&'a Load, &'a Suite, &'a [u64]);
impl Visit for CheckShares<'_> {
    type Output = anyhow::Result<()>;
    fn servers<S: suites::Suite>(self) -> Self::Output {
        Ok(()) // the spec refuses a load operation of a suite doublets does not run
    }
    fn doublets<S: Doublets>(self) -> Self::Output {
        check_shares::<S::Request, S::Model>(self.0, self.1, self.2)
    }
}

/// The servers the run's families use, each checked before any work, with Ctrl-C set to stop
/// them.
fn start_servers(spec: &Spec, session: &Session) -> anyhow::Result<Vec<Server>> {
    if !session.families.iter().any(|f| f == "redis") {
        return Ok(Vec::new());
    }
    cleanup::stop_on_interrupt()?;
    let servers = Server::from_env(spec, None)?;
    for server in &servers {
        server.preflight(session.allow_flush)?;
        eprintln!("{} at {}", server.describe(), server.shown());
        if let Some(why) = redis_benchmark::unavailable(server) {
            eprintln!("redis-benchmark is not run beside it: {why}");
        }
    }
    Ok(servers)
}

/// A suite's load cells: every store doublets and the servers share it on.
struct RunSuite<'r, 'a>(&'r mut Runner<'a>, &'r Suite, &'r [Server]);

impl Visit for RunSuite<'_, '_> {
    type Output = anyhow::Result<()>;
    fn servers<S: suites::Suite>(self) -> Self::Output {
        Ok(()) // the spec refuses a load operation of a suite doublets does not run
    }
    fn doublets<S: Doublets>(self) -> Self::Output {
        let RunSuite(run, suite, servers) = self;
        run.suite::<S>(suite, servers)
    }
}

/// Before any work: at the largest K, every load operation of `suite` gives each client at least
/// one batch of every size a store uses (pipeline depths, the in-process batch), and the model
/// accepts every request.
fn check_shares<R: RedisRequest, M: Model<R>>(
    load: &Load,
    suite: &Suite,
    sizes: &[u64],
) -> anyhow::Result<()> {
    let background: Vec<R> = harness::requests(
        &suite.background,
        sizes,
        &format!("suite {} background", suite.id),
    )?;
    let mut model = M::default();
    model.run(&background, |_| {})?;
    let most = load.clients.iter().copied().max().unwrap_or(1);
    for op in load.operations.iter().filter(|op| op.suite == suite.id) {
        for &unit in load.depths.iter().chain([&load.batch]) {
            load::plans(operation(suite, &op.id)?, sizes, &mut model, most, unit).with_context(
                || {
                    format!(
                        "B = {} is too small for the load's {most} clients",
                        sizes[0]
                    )
                },
            )?;
        }
    }
    Ok(())
}

fn provenance_of(
    families: &[String],
    servers: &[Server],
    fingerprint: String,
    round: u32,
) -> BTreeMap<String, String> {
    let mut provenance: BTreeMap<String, String> = provenance::rust()
        .into_iter()
        .chain(provenance::common())
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    provenance.insert("families".into(), families.join(","));
    provenance.insert("fingerprint".into(), fingerprint);
    provenance.insert("round".into(), round.to_string());
    if !servers.is_empty() {
        let ids: Vec<&str> = servers.iter().map(|s| s.kind.id.as_str()).collect();
        provenance.insert("servers".into(), ids.join(","));
        provenance.insert("redis".into(), provenance::servers(servers));
    }
    provenance
}

struct Runner<'a> {
    spec: &'a Spec,
    load: &'a Load,
    sizes: &'a [u64],
    families: &'a [String],
    filter: Option<&'a str>,
    allow_flush: bool,
    timing: Timing,
    figures: Vec<Figure>,
    benchmarks: Vec<BenchmarkFigure>,
    done: usize,
    cells: usize,
}

impl Runner<'_> {
    /// The run's warm-up, sampling and redis-benchmark in seconds, printed with its cells.
    fn estimate(&self, servers: &[Server]) -> anyhow::Result<f64> {
        // redis-benchmark makes as many requests as the cell beside it, at about the same rate.
        let beside = self.benchmarked(servers);
        let windows = self.cells as f64 * (self.load.warm_up_seconds + self.load.seconds)
            + beside as f64 * self.load.seconds;
        let (loads, checks) = self.overheads(servers)?;
        let seconds = windows + loads + checks;
        eprintln!(
            "B = {}: {} cells of {} clients and {beside} redis-benchmark runs: about {:.1} min ({:.1} measuring, {:.1} loading, {:.1} checking)",
            self.sizes[0],
            self.cells,
            self.load.clients
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            seconds / 60.0,
            windows / 60.0,
            loads / 60.0,
            checks / 60.0
        );
        Ok(seconds)
    }

    /// The seconds of loading each chosen store once and of the check after each of its cells,
    /// from the spec's per-store costs, as the bench's estimate counts them.
    fn overheads(&self, servers: &[Server]) -> anyhow::Result<(f64, f64)> {
        let (mut loads, mut checks) = (0.0, 0.0);
        for suite in &self.spec.suites {
            let mut loaded: Vec<&str> = Vec::new();
            for (backend, _) in self.backends(suite, servers) {
                for op in self.operations(suite) {
                    if !self.chosen(&format!("{}/{}/{backend}", suite.id, op.id)) {
                        continue;
                    }
                    let store = self.spec.loaded_into(&backend);
                    if !loaded.contains(&store) {
                        loaded.push(store);
                        loads += self.spec.load_seconds(suite, &backend, "rust", self.sizes);
                    }
                    let operation = operation(suite, &op.id)?;
                    checks += self.load.clients.len() as f64
                        * self
                            .spec
                            .check_seconds(suite, operation, &backend, "rust", self.sizes);
                }
            }
        }
        Ok((loads, checks))
    }

    /// The backends of `suite` this run measures, with the depth (server) or batch they use.
    fn backends(&self, suite: &Suite, servers: &[Server]) -> Vec<(String, usize)> {
        let mut backends = Vec::new();
        if self.families.iter().any(|f| f == "doublets") {
            for backend in &suite.backends {
                if self.spec.backend(backend).family == "doublets" {
                    backends.push((backend.clone(), self.load.batch));
                }
            }
        }
        for server in servers {
            for &depth in &self.load.depths {
                backends.push((server.backend(mode(depth)), depth));
            }
        }
        backends
    }

    fn chosen(&self, name: &str) -> bool {
        self.filter.is_none_or(|f| name.contains(f))
    }

    fn operations<'s>(&'s self, suite: &'s Suite) -> impl Iterator<Item = &'s LoadOperation> + 's {
        self.load
            .operations
            .iter()
            .filter(move |op| op.suite == suite.id)
    }

    /// How many redis-benchmark runs the chosen server cells have beside them.
    fn benchmarked(&self, servers: &[Server]) -> usize {
        let usable: Vec<&Server> = servers
            .iter()
            .filter(|s| redis_benchmark::unavailable(s).is_none())
            .collect();
        let mut runs = 0;
        for suite in &self.spec.suites {
            for op in self
                .operations(suite)
                .filter(|op| op.redis_benchmark.is_some())
            {
                for server in &usable {
                    for &depth in &self.load.depths {
                        let backend = server.backend(mode(depth));
                        if self.chosen(&format!("{}/{}/{backend}", suite.id, op.id)) {
                            runs += self.load.clients.len();
                        }
                    }
                }
            }
        }
        runs
    }

    fn cells_of(&self, suite: &Suite, servers: &[Server]) -> usize {
        let mut cells = 0;
        for (backend, _) in self.backends(suite, servers) {
            for op in self.operations(suite) {
                if self.chosen(&format!("{}/{}/{backend}", suite.id, op.id)) {
                    cells += self.load.clients.len();
                }
            }
        }
        cells
    }

    /// The largest id or value the load's operations of `suite` reach: checks probe up to it.
    fn reaches<R: RedisRequest>(&self, suite: &Suite) -> anyhow::Result<u64> {
        let mut reaches = 0;
        for op in self.operations(suite) {
            let prepared = Prepared::<R>::new(operation(suite, &op.id)?, self.sizes)?;
            reaches = reaches.max(prepared.reaches);
        }
        Ok(reaches)
    }

    fn suite<S: Doublets>(&mut self, suite: &Suite, servers: &[Server]) -> anyhow::Result<()> {
        let backends = self.backends(suite, servers);
        // A store is loaded only when a chosen cell of this suite runs on it.
        let chosen: Vec<String> = backends
            .iter()
            .filter(|(backend, _)| {
                self.operations(suite)
                    .any(|op| self.chosen(&format!("{}/{}/{backend}", suite.id, op.id)))
            })
            .map(|(backend, _)| backend.clone())
            .collect();
        let runs = |name: &str| chosen.iter().any(|b| b.starts_with(name));
        for backend in &chosen {
            match self.spec.backend(backend).layout {
                Some(Layout::United) => {
                    self.doublets::<S::Request, S::Model, _>(suite, backend, || S::united(None))?
                }
                Some(Layout::Split) => {
                    self.doublets::<S::Request, S::Model, _>(suite, backend, || S::split(None))?
                }
                None => {}
            }
        }
        for server in servers {
            if runs(&format!("{}_", server.kind.name)) {
                self.server::<S::Request, S::Model>(suite, server)?;
            }
        }
        Ok(())
    }

    /// The background in a fresh model and, checked, in `store`.
    fn loaded<'m, R: RedisRequest, M: Model<R>, S: Store<R>>(
        &self,
        suite: &Suite,
        store: &mut S,
        model: &'m mut M,
        name: &str,
    ) -> anyhow::Result<Background<'m, M>> {
        let background: Vec<R> = harness::requests(
            &suite.background,
            self.sizes,
            &format!("suite {} background", suite.id),
        )?;
        model.run(&background, |_| {})?;
        let expected = suite
            .background_expected
            .tally(self.sizes)
            .map_err(anyhow::Error::msg)?;
        let (background, took) = Background::load(
            store,
            model,
            &background,
            expected,
            self.reaches::<R>(suite)?,
            name,
        )?;
        eprintln!(
            "{}: {name} loaded and checked in {:.1} s",
            suite.name.en,
            took.as_secs_f64()
        );
        Ok(background)
    }

    fn doublets<R, M, S>(
        &mut self,
        suite: &Suite,
        backend: &str,
        make: impl FnOnce() -> anyhow::Result<S>,
    ) -> anyhow::Result<()>
    where
        R: RedisRequest + Sync,
        R::Found: Sync,
        M: Model<R>,
        S: SharedRead<R> + Send + Sync,
    {
        let store = Shared::new(make()?);
        let mut main = store.client();
        let mut model = M::default();
        let mut background = self.loaded(suite, &mut main, &mut model, backend)?;
        let batch = self.load.batch;
        self.cells(suite, backend, batch, &mut main, &mut background, |_| {
            Ok(store.client())
        })
        .map(drop)
    }

    fn server<R, M>(&mut self, suite: &Suite, server: &Server) -> anyhow::Result<()>
    where
        R: RedisRequest + Sync,
        R::Found: Sync,
        M: Model<R>,
    {
        let name = server.describe();
        let mut main = server.store(R::KEYS, self.allow_flush, Mode::Pipeline)?;
        let measured = (|| {
            let mut model = M::default();
            let mut background = self.loaded(suite, &mut main, &mut model, &name)?;
            for depth in self.load.depths.clone() {
                let backend = server.backend(mode(depth));
                let cells =
                    self.cells(suite, &backend, depth, &mut main, &mut background, |_| {
                        server.join(mode(depth))
                    })?;
                for (op, clients, requests) in cells {
                    self.benchmark(suite, server, &backend, &op, clients, depth, requests)?;
                }
            }
            // redis-benchmark's keys are gone and the suite's are as loaded.
            background.verify(&mut main, &name)
        })();
        drop(main);
        let released = server.release();
        measured?;
        released
    }

    /// redis-benchmark's test for `op`, if it has one, with the clients and depth of one cell and
    /// as many requests as that cell's clients made.
    #[allow(clippy::too_many_arguments)]
    fn benchmark(
        &mut self,
        suite: &Suite,
        server: &Server,
        backend: &str,
        op: &str,
        clients: usize,
        depth: usize,
        requests: u64,
    ) -> anyhow::Result<()> {
        let Some(test) = self
            .operations(suite)
            .find(|o| o.id == op)
            .and_then(|o| o.redis_benchmark.clone())
        else {
            return Ok(());
        };
        if redis_benchmark::unavailable(server).is_some() {
            return Ok(());
        }
        let requests = requests.max((clients * depth * 100) as u64);
        let report = redis_benchmark::run(server, &test, clients, depth, requests, self.sizes[0])
            .with_context(|| {
            format!(
                "redis-benchmark -t {test} beside {}/{op}/{backend}",
                suite.id
            )
        })?;
        eprintln!(
            "  redis-benchmark -t {test} -c {clients} -P {depth}: {} req/s, p99 {} ms",
            load::per_second(report.per_second),
            report.p99_ms
        );
        self.benchmarks.push(BenchmarkFigure {
            suite: suite.id.clone(),
            operation: op.to_string(),
            backend: backend.to_string(),
            clients,
            depth,
            test,
            requests,
            per_second: report.per_second,
            p50_ms: report.p50_ms,
            p99_ms: report.p99_ms,
            max_ms: report.max_ms,
        });
        Ok(())
    }

    /// Every chosen cell of one store: each load operation at each K, with `unit` requests per
    /// timed batch. Returns, per server cell, what redis-benchmark is matched with.
    fn cells<R, M, S, C>(
        &mut self,
        suite: &Suite,
        backend: &str,
        unit: usize,
        main: &mut S,
        background: &mut Background<'_, M>,
        mut client: impl FnMut(usize) -> anyhow::Result<C>,
    ) -> anyhow::Result<Vec<(String, usize, u64)>>
    where
        R: RedisRequest + Sync,
        R::Found: Sync,
        M: Model<R>,
        S: Store<R>,
        C: Store<R> + Send,
    {
        let mut done = Vec::new();
        let ops: Vec<String> = self.operations(suite).map(|o| o.id.clone()).collect();
        for op in ops {
            let name = format!("{}/{op}/{backend}", suite.id);
            if !self.chosen(&name) {
                continue;
            }
            let operation = operation(suite, &op)?;
            for &k in &self.load.clients {
                let plans = load::plans(operation, self.sizes, background.model, k, unit)?;
                let clients = (0..k)
                    .map(&mut client)
                    .collect::<anyhow::Result<Vec<C>>>()?;
                let cell = format!("{name} K={k}");
                let (requests, per_second, latency) =
                    load::cell(main, background, clients, &plans, self.timing, &cell)?;
                self.done += 1;
                eprintln!(
                    "[{}/{}] {cell}: {} req/s, p50 {} p99 {} max {} (per {unit})",
                    self.done,
                    self.cells,
                    load::per_second(per_second),
                    load::duration(latency.p50),
                    load::duration(latency.p99),
                    load::duration(latency.max)
                );
                self.figures.push(Figure {
                    suite: suite.id.clone(),
                    operation: op.clone(),
                    backend: backend.to_string(),
                    clients: k,
                    batch: unit,
                    requests,
                    per_second,
                    latency_ns: latency,
                    runs: Vec::new(),
                });
                done.push((op.clone(), k, requests));
            }
        }
        Ok(done)
    }
}

/// The backend mode of a pipeline depth: 1 is one request per round trip.
fn mode(depth: usize) -> Mode {
    if depth == 1 {
        Mode::NonTransaction
    } else {
        Mode::Pipeline
    }
}

fn operation<'s>(suite: &'s Suite, id: &str) -> anyhow::Result<&'s Operation> {
    suite
        .operations
        .iter()
        .find(|o| o.id == id)
        .with_context(|| format!("suite {} has no operation {id}", suite.id))
}
