//! Throughput and tail latency under concurrent clients (the spec's `load` section says what is
//! measured and how; `src/bin/load.rs` runs it). [`cell`] is one cell, the sequence the binary and
//! the tests share: the background checked, K clients running their checked plans for the spec's
//! time, the background checked again. A wrong reply fails the cell before any figure exists.

use std::{
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc, Barrier,
    },
    time::{Duration, Instant},
};

use anyhow::{anyhow, bail, Context};
use hdrhistogram::Histogram;
use parking_lot::RwLock;

use crate::{
    harness::{self, Background},
    spec::{Load, Operation},
    store::{Model, Request, SharedRead, Store},
};

/// Requests one client times at once (a pipeline, or a batch of an in-process store), and what
/// the model says they report, in the model's order.
pub struct Batch<R: Request> {
    pub requests: Vec<R>,
    pub expected: Vec<R::Found>,
    /// Whether the store holds the background before this batch (no work is waiting for its
    /// undo): a client stops only there.
    pub starts_step: bool,
}

/// The sizes a load at background `b` builds its requests with: N = B, so that an operation's
/// work and undo cover every i of 1..=B.
pub fn sizes(load_sizes: usize, b: u64) -> Vec<u64> {
    vec![b; load_sizes]
}

/// Each of `clients` clients' batches of `unit` requests for `operation`: client c takes the i of
/// 1..=B with i mod K = c, and for each its work and then its undo; its share is cut to a whole
/// number of batches. What each request must report comes from running them, in order, on the
/// model, which holds the background before and after (every undo restores it), so the answers
/// also hold while other clients work on their own shares.
pub fn plans<R: Request, M: Model<R>>(
    operation: &Operation,
    sizes: &[u64],
    model: &mut M,
    clients: usize,
    unit: usize,
) -> anyhow::Result<Vec<Vec<Batch<R>>>> {
    let what = format!("load {}", operation.id);
    let work: Vec<R> = harness::requests(&operation.work, sizes, &what)?;
    let undo: Vec<R> = match &operation.undo {
        Some(undo) => harness::requests(undo, sizes, &what)?,
        None => Vec::new(),
    };
    let b = sizes[0] as usize;
    let (w, u) = (work.len() / b, undo.len() / b);
    let step = w + u;
    // Whole steps per batch, and whole batches per share.
    let steps = lcm(step, unit) / step;
    let mut plans = Vec::with_capacity(clients);
    for c in 0..clients {
        let share: Vec<usize> = (1..=b).filter(|i| i % clients == c).collect();
        let used = share.len() - share.len() % steps;
        if used == 0 {
            bail!(
                "{what}: B = {b} gives client {c} of {clients} {} steps, fewer than one batch of {unit} requests",
                share.len()
            );
        }
        let mut batches = Vec::new();
        for chunk in share[..used].chunks(steps) {
            let mut requests = Vec::with_capacity(steps * step);
            for &i in chunk {
                requests.extend_from_slice(&work[(i - 1) * w..i * w]);
                requests.extend_from_slice(&undo[(i - 1) * u..i * u]);
            }
            for (k, batch) in requests.chunks(unit).enumerate() {
                let mut expected = Vec::new();
                model
                    .run(batch, |f| expected.push(f))
                    .map_err(|e| anyhow!("{what}: the model refuses {batch:?}: {e:#}"))?;
                batches.push(Batch {
                    requests: batch.to_vec(),
                    expected,
                    starts_step: k == 0,
                });
            }
        }
        plans.push(batches);
    }
    Ok(plans)
}

fn lcm(a: usize, b: usize) -> usize {
    let gcd = |mut a: usize, mut b: usize| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    a / gcd(a, b) * b
}

/// One in-process store shared by concurrent clients behind a readers–writer lock: batches that
/// only read take it shared, any other batch takes it alone. The lock is parking_lot's, which is
/// fair: waiting writers stop new readers, and every 0.5 ms on average an unlock hands the lock to
/// the longest waiter. std's lock lets the thread that releases it take it straight back, which on
/// 2 CPUs starved a writer for a whole 1.5 s window at B = 100,000 and K = 32.
pub struct Shared<S>(Arc<RwLock<S>>);

impl<S> Shared<S> {
    pub fn new(store: S) -> Self {
        Self(Arc::new(RwLock::new(store)))
    }

    /// Another client of the same store.
    pub fn client(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<R: Request, S: SharedRead<R>> Store<R> for Shared<S> {
    fn run(&mut self, batch: &[R], found: impl FnMut(R::Found)) -> anyhow::Result<()> {
        if batch.iter().all(R::reads) {
            self.0.read().read(batch, found)
        } else {
            self.0.write().run(batch, found)
        }
    }

    fn load(&mut self, batch: &[R], found: impl FnMut(R::Found)) -> anyhow::Result<()> {
        self.0.write().load(batch, found)
    }

    fn census(&mut self) -> anyhow::Result<crate::store::Census> {
        self.0.write().census()
    }
}

/// How long the clients run: the warm-up is not counted.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    pub warm_up: Duration,
    pub measured: Duration,
}

impl Timing {
    pub fn of(load: &Load) -> Self {
        Self {
            warm_up: Duration::from_secs_f64(load.warm_up_seconds),
            measured: Duration::from_secs_f64(load.seconds),
        }
    }
}

pub use contract::load::{BenchmarkFigure, Figure, Latency, LoadRun};

/// What reading the clock costs, in nanoseconds: the mean of a million readings.
pub fn clock_cost() -> f64 {
    const READS: u32 = 1_000_000;
    let start = Instant::now();
    let mut last = start;
    for _ in 0..READS {
        last = std::hint::black_box(Instant::now());
    }
    (last - start).as_nanos() as f64 / f64::from(READS)
}

/// What one client did in the measured time.
struct Run {
    requests: u64,
    window: Duration,
    histogram: Histogram<u64>,
}

/// One cell: the store holds the background (its counts; the caller checked it whole after the
/// load and every cell checks it whole after itself), `clients` (one per plan) run their batches
/// at once for the warm-up and the measured time, every reply checked against the plan, and the
/// store holds exactly the background again. Figures exist only if all of that held.
#[allow(clippy::too_many_arguments)]
pub fn cell<R, S, C, M>(
    store: &mut S,
    background: &mut Background<'_, M>,
    clients: Vec<C>,
    plans: &[Vec<Batch<R>>],
    timing: Timing,
    name: &str,
) -> anyhow::Result<(u64, f64, Latency)>
where
    R: Request + Sync,
    R::Found: Sync,
    S: Store<R>,
    C: Store<R> + Send,
    M: Model<R>,
{
    // The whole background was checked after the load and after the previous cell: its counts
    // show that nothing else changed it since.
    let census = store.census()?;
    if census != background.census {
        bail!(
            "{name}: before the load the store holds {census}, but held {} after loading the background",
            background.census
        );
    }
    let runs = concurrently(clients, plans, timing, name)?;
    background
        .verify(store, name)
        .map_err(|e| anyhow!("{e:#} (after the load)"))?;
    let mut histogram = Histogram::<u64>::new(3)?;
    let (mut requests, mut per_second) = (0, 0.0);
    for run in &runs {
        if run.requests == 0 {
            bail!("{name}: a client finished no batch in the measured time");
        }
        histogram.add(&run.histogram)?;
        requests += run.requests;
        per_second += run.requests as f64 / run.window.as_secs_f64();
    }
    let at = |q| histogram.value_at_quantile(q);
    let latency = Latency {
        p50: at(0.5),
        p90: at(0.9),
        p99: at(0.99),
        p999: at(0.999),
        max: histogram.max(),
    };
    Ok((requests, per_second, latency))
}

/// Runs every client on its own thread, all starting together; the first failure stops the
/// others and is the result.
fn concurrently<R, C>(
    clients: Vec<C>,
    plans: &[Vec<Batch<R>>],
    timing: Timing,
    name: &str,
) -> anyhow::Result<Vec<Run>>
where
    R: Request + Sync,
    R::Found: Sync,
    C: Store<R> + Send,
{
    let barrier = Barrier::new(clients.len());
    let failed = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let threads: Vec<_> = clients
            .into_iter()
            .zip(plans)
            .enumerate()
            .map(|(c, (client, plan))| {
                let (barrier, failed) = (&barrier, &failed);
                scope.spawn(move || {
                    let run = client_loop(client, plan, timing, barrier, failed)
                        .with_context(|| format!("{name}: client {} of {}", c + 1, plans.len()));
                    if run.is_err() {
                        failed.store(true, Ordering::Relaxed);
                    }
                    run
                })
            })
            .collect();
        let mut runs = Vec::new();
        let mut first_error = None;
        for thread in threads {
            match thread.join().expect("a client thread does not panic") {
                Ok(run) => runs.push(run),
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(runs),
        }
    })
}

/// One client: its batches in a loop, each timed and its replies checked, until the time is up.
fn client_loop<R: Request, C: Store<R>>(
    mut client: C,
    plan: &[Batch<R>],
    timing: Timing,
    barrier: &Barrier,
    failed: &AtomicBool,
) -> anyhow::Result<Run> {
    let mut histogram = Histogram::<u64>::new(3)?;
    let most = plan.iter().map(|b| b.expected.len()).max().unwrap_or(0);
    let mut found = Vec::with_capacity(most);
    let mut requests = 0;
    barrier.wait();
    let start = Instant::now();
    let (from, until) = (
        start + timing.warm_up,
        start + timing.warm_up + timing.measured,
    );
    let mut last = from;
    for batch in plan.iter().cycle() {
        let begin = Instant::now();
        if batch.starts_step && (begin >= until || failed.load(Ordering::Relaxed)) {
            break;
        }
        found.clear();
        client.run(&batch.requests, |f| found.push(f))?;
        let end = Instant::now();
        if found != batch.expected {
            check(&batch.requests, &batch.expected, &mut found)?;
        }
        // A batch counts when it ends in the measured time, even if it began in the warm-up: a
        // client kept waiting across the warm-up's end shows as a slow batch, not as no batch.
        if end > from {
            histogram.record((end - begin).as_nanos() as u64)?;
            requests += batch.requests.len() as u64;
            last = end;
        }
    }
    Ok(Run {
        requests,
        window: last - from,
        histogram,
    })
}

/// Replies that differ from the model's in order only (a query's links come in the store's own
/// order) pass; any other difference is a wrong reply.
fn check<R: Request>(
    requests: &[R],
    expected: &[R::Found],
    found: &mut [R::Found],
) -> anyhow::Result<()> {
    let mut want = expected.to_vec();
    want.sort_unstable();
    found.sort_unstable();
    if want != found {
        bail!("a wrong reply to {requests:?}: expected {want:?}, found {found:?}");
    }
    Ok(())
}

/// Requests per second as tables print them: "1.23M", "456k", "789".
pub fn per_second(x: f64) -> String {
    match x {
        x if x >= 1e6 => format!("{:.2}M", x / 1e6),
        x if x >= 1e4 => format!("{:.0}k", x / 1e3),
        x if x >= 1e3 => format!("{:.1}k", x / 1e3),
        x => format!("{x:.0}"),
    }
}

/// A latency in nanoseconds as tables print it: "850 ns", "12.3 µs", "1.20 ms".
pub fn duration(ns: u64) -> String {
    let ns = ns as f64;
    match ns {
        ns if ns >= 1e6 => format!("{:.2} ms", ns / 1e6),
        ns if ns >= 1e4 => format!("{:.0} µs", ns / 1e3),
        ns if ns >= 1e3 => format!("{:.1} µs", ns / 1e3),
        ns => format!("{ns:.0} ns"),
    }
}

/// The figures as plain-text tables, per suite: requests per second per operation and store
/// against K, and the latency percentiles at the spec's `latency_clients`.
pub fn table(spec: &crate::spec::Spec, run: &LoadRun) -> String {
    use std::fmt::Write;
    let Some(load) = &spec.load else {
        return String::new();
    };
    let mut out = String::new();
    for suite in &spec.suites {
        let rows: Vec<&Figure> = run.figures.iter().filter(|f| f.suite == suite.id).collect();
        if rows.is_empty() {
            continue;
        }
        let mut keys: Vec<(&str, &str)> = Vec::new();
        for f in &rows {
            if !keys.contains(&(f.operation.as_str(), f.backend.as_str())) {
                keys.push((&f.operation, &f.backend));
            }
        }
        let b = crate::grouped::Grouped(run.background);
        writeln!(out, "{}, B = {b}: requests per second", suite.name.en).unwrap();
        write!(out, "{:<20} {:<26}", "operation", "store").unwrap();
        for k in &load.clients {
            write!(out, " {:>8}", format!("K={k}")).unwrap();
        }
        out.push('\n');
        for (op, backend) in &keys {
            write!(out, "{op:<20} {backend:<26}").unwrap();
            for k in &load.clients {
                let cell = rows
                    .iter()
                    .find(|f| f.operation == *op && f.backend == *backend && f.clients == *k)
                    .map_or("—".into(), |f| per_second(f.per_second));
                write!(out, " {cell:>8}").unwrap();
            }
            out.push('\n');
        }
        let k = load.latency_clients;
        writeln!(out, "\n{}, B = {b}: latency at K = {k}", suite.name.en).unwrap();
        writeln!(
            out,
            "{:<20} {:<26} {:>6} {:>9} {:>9} {:>9} {:>9} {:>9}",
            "operation", "store", "batch", "p50", "p90", "p99", "p99.9", "max"
        )
        .unwrap();
        for f in rows.iter().filter(|f| f.clients == k) {
            let l = &f.latency_ns;
            writeln!(
                out,
                "{:<20} {:<26} {:>6} {:>9} {:>9} {:>9} {:>9} {:>9}",
                f.operation,
                f.backend,
                f.batch,
                duration(l.p50),
                duration(l.p90),
                duration(l.p99),
                duration(l.p999),
                duration(l.max)
            )
            .unwrap();
        }
        let beside: Vec<&BenchmarkFigure> = run
            .redis_benchmark
            .iter()
            .filter(|r| r.suite == suite.id)
            .collect();
        if !beside.is_empty() {
            writeln!(out, "\n{}, B = {b}: against redis-benchmark", suite.name.en).unwrap();
            writeln!(
                out,
                "{:<20} {:<26} {:>4} {:>4} {:>9} {:>9} {:>7}",
                "operation", "store", "K", "P", "ours", "r-b", "ours/rb"
            )
            .unwrap();
            for r in beside {
                let ours = rows
                    .iter()
                    .find(|f| {
                        f.operation == r.operation
                            && f.backend == r.backend
                            && f.clients == r.clients
                    })
                    .map_or(f64::NAN, |f| f.per_second);
                writeln!(
                    out,
                    "{:<20} {:<26} {:>4} {:>4} {:>9} {:>9} {:>6.2}×",
                    r.operation,
                    r.backend,
                    r.clients,
                    r.depth,
                    per_second(ours),
                    per_second(r.per_second),
                    ours / r.per_second
                )
                .unwrap();
            }
        }
        out.push('\n');
    }
    out
}
