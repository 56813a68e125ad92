//! What makes a number trustworthy: the background is loaded and checked, every operation is first
//! run on the model (which refuses workloads that would corrupt doublets) and once on the store,
//! checked, and the background is checked again after that iteration's undo (around what it
//! touched) and after the last measured iteration (whole: by the store's count of changes where
//! the operation only reads and the store keeps one, else by its digest where it has one, else
//! read back); between the measured iterations and that check, a server that reports where its
//! time goes gets a few more iterations that [`split()`] it. [`cell`] is that sequence, the one
//! place the bench and the tests share; the
//! Criterion wiring lives in `benches/bench.rs`. Everything here returns errors, so tests can
//! show that a lossy store fails the run.

use std::{
    fmt,
    time::{Duration, Instant},
};

use anyhow::{anyhow, bail};

use crate::{
    resp::store::CHUNK,
    spec::{Operation, SplitPlan, Suite, Tally, Work},
    split::Split,
    store::{Census, Model, Request, Store},
};

/// What a store must hold between cells: the model's state, up to the ids the suite's operations
/// reach, and the counts and digest the store gave after its checked load.
pub struct Background<'m, M> {
    pub model: &'m mut M,
    pub reaches: u64,
    pub census: Census,
    /// The store's digest after the checked load, where it has one ([`crate::digest`]).
    pub digest: Option<String>,
    /// The store's count of changes ([`Store::changes`]) read before the last check that proved
    /// it held the background: while the count stays, so does the background.
    pub changes: Option<String>,
    /// How each cell's time is split after its measured iterations, where the store reports it
    /// ([`crate::split`]); `None` splits nothing.
    pub split: Option<SplitPlan>,
}

/// How a check proved that a store held the whole background after a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proof {
    /// The store's count of changes stayed as it was at the last proof: nothing wrote since.
    Unchanged,
    /// The store's digest is the one after the load.
    Digest,
    /// Every probe answered as the model does, with the counts after the load.
    ReadBack,
}

impl fmt::Display for Proof {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Proof::Unchanged => "no change",
            Proof::Digest => "digest",
            Proof::ReadBack => "read back",
        })
    }
}

/// Where a cell's time went: its checked iteration with the check around it, its measured
/// iterations (with their undos and the measuring library's own work), and the whole check after
/// them, with the proof it gave.
#[derive(Clone, Copy, Debug)]
pub struct Took {
    pub check: Duration,
    pub measure: Duration,
    /// The iterations that split the cell's time, where the store reports it.
    pub splitting: Duration,
    pub split: Option<Split>,
    pub verify: Duration,
    pub proof: Proof,
    /// A durable store's restart with the check after it.
    pub restart: Option<Duration>,
}

/// One cell: the checked iteration; for an operation that writes, the background checked after its
/// undo around what the operation touched, with the store's counts (so a bad undo is blamed on its
/// own operation); then `measure`, then the whole background checked again; a durable store is
/// then closed, opened again from what it keeps, and checked whole once more. A cell may print its
/// time only after this returns `Ok`. A read-only operation gets no check around what it read:
/// that can be the whole background, which the check after the cell reads anyway; and where the
/// store's count of changes has not moved since the last proof, nothing wrote, so that count is
/// its check.
pub fn cell<R: Request, S: Store<R>, M: Model<R>>(
    prepared: &Prepared<'_, R>,
    store: &mut S,
    background: &mut Background<'_, M>,
    cell: &str,
    measure: impl FnOnce(&mut S),
) -> anyhow::Result<Took> {
    let started = Instant::now();
    let found = prepared.check(store, background.model, cell)?;
    if prepared.writes() {
        let around = background.model.probes_around(&found);
        background
            .verify_probes(store, &around, cell)
            .map_err(|e| anyhow!("{e:#} (after the checked iteration and its undo)"))?;
    }
    let check = started.elapsed();
    measure(store);
    let measure = started.elapsed() - check;
    let split = match &background.split {
        Some(plan) => split(prepared, store, plan, cell)?,
        None => None,
    };
    let splitting = started.elapsed() - check - measure;
    let unchanged = !prepared.writes()
        && background.changes.is_some()
        && store.changes()? == background.changes;
    let proof = if unchanged {
        Proof::Unchanged
    } else {
        background
            .verify(store, cell)
            .map_err(|e| anyhow!("{e:#} (after the measured iterations)"))?
    };
    let verify = started.elapsed() - check - measure - splitting;
    let restart = restart(store, background, cell)?;
    Ok(Took {
        check,
        measure,
        splitting,
        split,
        verify,
        proof,
        restart,
    })
}

/// A durable store is closed and opened again from what it keeps, which must be the whole
/// background and nothing else; how long that took, or `None` for a store that keeps nothing.
fn restart<R: Request, S: Store<R>, M: Model<R>>(
    store: &mut S,
    background: &mut Background<'_, M>,
    cell: &str,
) -> anyhow::Result<Option<Duration>> {
    let started = Instant::now();
    if !store
        .restart()
        .map_err(|e| anyhow!("{cell}: closing the store and opening it again: {e:#}"))?
    {
        return Ok(None);
    }
    background
        .verify(store, cell)
        .map_err(|e| anyhow!("{e:#} (after closing the store and opening it again)"))?;
    Ok(Some(started.elapsed()))
}

/// Where the cell's time goes on a store that reports it ([`crate::split`]): up to the plan's
/// iterations after the measured ones, until its seconds have passed, each timed as a measured
/// iteration is, with the store read just before and just after the work (the undo comes after
/// the second reading). `None` for a store that reports nothing.
pub fn split<R: Request, S: Store<R>>(
    prepared: &Prepared<'_, R>,
    store: &mut S,
    plan: &SplitPlan,
    cell: &str,
) -> anyhow::Result<Option<Split>> {
    let Some(mut before) = store.reading()? else {
        return Ok(None);
    };
    let (mut split, started) = (Split::default(), Instant::now());
    while split.iterations < plan.iterations
        && (split.iterations == 0 || started.elapsed().as_secs_f64() < plan.seconds)
    {
        let (mut tally, cpu) = (Tally::default(), process_cpu_ns());
        let start = Instant::now();
        store.run(&prepared.work, |found| tally.add(R::id(&found)))?;
        let wall = start.elapsed();
        let cpu = process_cpu_ns() - cpu;
        let after = store
            .reading()?
            .ok_or_else(|| anyhow!("{cell}: the store stopped reporting"))?;
        if tally != prepared.expected {
            bail!(
                "{cell}: splitting its time: expected {}, found {tally}",
                prepared.expected
            );
        }
        let usage = after
            .since(&before, prepared.work.len())
            .map_err(|e| anyhow!("{cell}: {e:#}"))?;
        split.add(usage, wall.as_secs_f64() * 1e9, cpu);
        store
            .run(&prepared.undo, |_| {})
            .map_err(|e| anyhow!("{cell}: undo failed: {e:#}"))?;
        before = store
            .reading()?
            .ok_or_else(|| anyhow!("{cell}: the store stopped reporting"))?;
    }
    Ok(Some(split.mean()))
}

impl<'m, M> Background<'m, M> {
    /// Loads `requests` into `store` and checks it against `model`, which must hold them already;
    /// the counts the store then gives are the ones every later check expects. Returns how long
    /// the load took.
    pub fn load<R: Request, S: Store<R>>(
        store: &mut S,
        model: &'m mut M,
        requests: &[R],
        expected: Tally,
        reaches: u64,
        name: &str,
    ) -> anyhow::Result<(Self, Duration)>
    where
        M: Model<R>,
    {
        let took = load(store, model, requests, expected, name)?;
        let changes = store.changes()?;
        let census = store.census()?;
        let digest = store
            .digest()
            .map_err(|e| anyhow!("{name}: the digest after loading: {e:#}"))?;
        if store.changes()? != changes {
            bail!(
                "{name}: the store changed while its counts and digest were taken after the load"
            );
        }
        Ok((
            Self {
                model,
                reaches,
                census,
                digest,
                changes,
                split: None,
            },
            took,
        ))
    }

    /// The store holds exactly the background: its digest is the one after the load, where it has
    /// one; else every probe answers as the model does and the store's counts are those after the
    /// load. A digest that differs fails, naming what differs where the probes find it. The count
    /// of changes is read first, so that a write during the check moves it past the proof.
    pub fn verify<R: Request, S: Store<R>>(
        &mut self,
        store: &mut S,
        name: &str,
    ) -> anyhow::Result<Proof>
    where
        M: Model<R>,
    {
        let changes = store.changes()?;
        let proof = self.prove(store, name)?;
        self.changes = changes;
        Ok(proof)
    }

    fn prove<R: Request, S: Store<R>>(&mut self, store: &mut S, name: &str) -> anyhow::Result<Proof>
    where
        M: Model<R>,
    {
        let Some(loaded) = self.digest.clone() else {
            let probes = self.model.probes(self.reaches);
            self.verify_probes(store, &probes, name)?;
            return Ok(Proof::ReadBack);
        };
        let now = store
            .digest()
            .map_err(|e| anyhow!("{name}: the digest: {e:#}"))?
            .unwrap_or_default();
        if now == loaded {
            return Ok(Proof::Digest);
        }
        let probes = self.model.probes(self.reaches);
        self.verify_probes(store, &probes, name)
            .map_err(|e| anyhow!("{e:#} (its digest is {now}, {loaded} after the load)"))?;
        bail!(
            "{name}: the store's digest is {now}, but was {loaded} after loading the background; \
             every probe answers as the model does and the counts are the same, so what changed \
             lies beyond what the probes read"
        )
    }

    /// The store answers `probes` as the model does, and its counts are those after the load.
    fn verify_probes<R: Request, S: Store<R>>(
        &mut self,
        store: &mut S,
        probes: &[R],
        name: &str,
    ) -> anyhow::Result<()>
    where
        M: Model<R>,
    {
        probe(store, self.model, name, probes)?;
        let census = store.census()?;
        if census != self.census {
            bail!(
                "{name}: the store holds {census}, but held {} after loading the background",
                self.census
            );
        }
        Ok(())
    }
}

/// An operation's requests for one set of sizes, built before anything is measured.
pub struct Prepared<'a, R> {
    pub operation: &'a Operation,
    pub work: Vec<R>,
    pub undo: Vec<R>,
    pub expected: Tally,
    /// The largest id or value the operation reports: checks probe up to it.
    pub reaches: u64,
}

/// A suite's requests for these sizes: its background and its operations, each checked against
/// the suite's stores.
pub fn plan<'s, R: Request>(
    suite: &'s Suite,
    sizes: &[u64],
) -> anyhow::Result<(Vec<R>, Vec<Prepared<'s, R>>)> {
    let background = requests(
        &suite.background,
        sizes,
        &format!("suite {} background", suite.id),
    )?;
    let prepared = suite
        .operations
        .iter()
        .map(|op| Prepared::new(op, sizes))
        .collect::<anyhow::Result<_>>()?;
    Ok((background, prepared))
}

/// Builds requests from spec work, naming the operation in errors.
pub fn requests<R: Request>(work: &Work, sizes: &[u64], what: &str) -> anyhow::Result<Vec<R>> {
    work.requests(sizes, R::build)
        .map_err(|e| anyhow!("{what}: {e}"))
}

impl<'a, R: Request> Prepared<'a, R> {
    /// Whether the operation can change the store ([`Operation::writes`]).
    pub fn writes(&self) -> bool {
        self.operation.writes()
    }

    pub fn new(operation: &'a Operation, sizes: &[u64]) -> anyhow::Result<Self> {
        let what = format!("operation {}", operation.id);
        let undo = match &operation.undo {
            Some(undo) => requests(undo, sizes, &what)?,
            None => Vec::new(),
        };
        let ids = operation
            .expected
            .ids
            .values(sizes)
            .map_err(|e| anyhow!("{what}: {e}"))?;
        Ok(Self {
            operation,
            reaches: ids
                .into_iter()
                .max()
                .and_then(|id| u64::try_from(id).ok())
                .unwrap_or(0),
            work: requests(&operation.work, sizes, &what)?,
            undo,
            expected: operation
                .expected
                .tally(sizes)
                .map_err(|e| anyhow!("{what}: {e}"))?,
        })
    }

    /// One measured iteration: times the work alone, checks what it reported, then undoes it.
    /// Panics on any failure, so Criterion prints no time for the cell.
    pub fn measure(&self, store: &mut impl Store<R>, cell: &str) -> Duration {
        let mut tally = Tally::default();
        let start = Instant::now();
        let result = store.run(&self.work, |found| tally.add(R::id(&found)));
        let elapsed = start.elapsed();
        if let Err(e) = result {
            panic!("{cell}: {e:#}");
        }
        if tally != self.expected {
            panic!("{cell}: expected {}, found {tally}", self.expected);
        }
        if let Err(e) = store.run(&self.undo, |_| {}) {
            panic!("{cell}: undo failed: {e:#}");
        }
        elapsed
    }

    /// The checked iteration before measuring: the model runs the work first (refusing anything
    /// that would corrupt doublets, and proving the spec's expected result), then the store must
    /// report exactly what the model reported; both are undone. Returns what the work and the undo
    /// reported on the model, around which the caller checks that the undo restored the store.
    pub fn check<M: Model<R>>(
        &self,
        store: &mut impl Store<R>,
        model: &mut M,
        cell: &str,
    ) -> anyhow::Result<Vec<R::Found>> {
        let want = run(model, &self.work)
            .map_err(|e| anyhow!("{cell}: the model refuses the work: {e:#}"))?;
        let model_tally = tally::<R>(&want);
        if model_tally != self.expected {
            bail!("{cell}: the spec expects {}, but the model reports {model_tally}: the spec is wrong", self.expected);
        }
        let got = run(store, &self.work).map_err(|e| anyhow!("{cell}: {e:#}"))?;
        if got != want {
            bail!(
                "{cell}: expected {}, found {}{}",
                self.expected,
                tally::<R>(&got),
                first_difference(&want, &got)
            );
        }
        let undone = run(model, &self.undo)
            .map_err(|e| anyhow!("{cell}: the model refuses the undo: {e:#}"))?;
        run(store, &self.undo).map_err(|e| anyhow!("{cell}: undo failed: {e:#}"))?;
        Ok(want.into_iter().chain(undone).collect())
    }
}

/// Runs a batch and returns what it reported, sorted (queries report in each store's own order).
pub fn run<R: Request>(store: &mut impl Store<R>, batch: &[R]) -> anyhow::Result<Vec<R::Found>> {
    let mut found = Vec::new();
    store.run(batch, |f| found.push(f))?;
    found.sort_unstable();
    Ok(found)
}

/// [`run`] for read-only checks, by the store's fastest path.
fn checked<R: Request>(store: &mut impl Store<R>, batch: &[R]) -> anyhow::Result<Vec<R::Found>> {
    let mut found = Vec::new();
    store.check(batch, |f| found.push(f))?;
    found.sort_unstable();
    Ok(found)
}

fn tally<R: Request>(found: &[R::Found]) -> Tally {
    let mut tally = Tally::default();
    found.iter().for_each(|f| tally.add(R::id(f)));
    tally
}

fn first_difference<T: Ord + fmt::Debug>(want: &[T], got: &[T]) -> String {
    let missing = want.iter().find(|w| got.binary_search(w).is_err());
    let extra = got.iter().find(|g| want.binary_search(g).is_err());
    match (missing, extra) {
        (Some(m), _) => format!(" (missing {m:?})"),
        (None, Some(e)) => format!(" (unexpected {e:?})"),
        (None, None) => " (the same items, counted differently)".into(),
    }
}

/// Loads the background into `store` and checks it against the model, which must hold it already.
/// Returns how long the load took.
pub fn load<R: Request, M: Model<R>>(
    store: &mut impl Store<R>,
    model: &mut M,
    background: &[R],
    expected: Tally,
    name: &str,
) -> anyhow::Result<Duration> {
    let mut loaded = Tally::default();
    let start = Instant::now();
    store
        .load(background, |f| loaded.add(R::id(&f)))
        .map_err(|e| anyhow!("{name}: loading the background: {e:#}"))?;
    let elapsed = start.elapsed();
    if loaded != expected {
        bail!("{name}: loading the background reported {loaded}, expected {expected}");
    }
    verify(store, model, name, 0)?;
    Ok(elapsed)
}

/// Checks that `store` holds exactly what the model holds: every probe of the model's state gives
/// the same answer (probes only read, so the model is unchanged). Probes go in chunks, so a pipelined store answers quickly.
pub fn verify<R: Request, M: Model<R>>(
    store: &mut impl Store<R>,
    model: &mut M,
    name: &str,
    up_to: u64,
) -> anyhow::Result<()> {
    probe(store, model, name, &model.probes(up_to))
}

/// The store answers every probe as the model does.
fn probe<R: Request, M: Model<R>>(
    store: &mut impl Store<R>,
    model: &mut M,
    name: &str,
    probes: &[R],
) -> anyhow::Result<()> {
    for chunk in probes.chunks(CHUNK) {
        let want = run(model, chunk)?;
        let got =
            checked(store, chunk).map_err(|e| anyhow!("{name}: checking the background: {e:#}"))?;
        if got != want {
            // Name the first probe that differs; probes only read, so they can run again.
            for probe in chunk {
                let probe = std::slice::from_ref(probe);
                let (want, got) = (run(model, probe)?, checked(store, probe)?);
                if want != got {
                    bail!(
                        "{name}: the background is damaged: {probe:?} should find {} items, found {}{}",
                        want.len(),
                        got.len(),
                        first_difference(&want, &got)
                    );
                }
            }
            bail!(
                "{name}: the background is damaged: {}",
                first_difference(&want, &got)
            );
        }
    }
    Ok(())
}

/// The CPU time the bench's process has used, in nanoseconds: every thread of the client's side
/// (a client may read replies on threads of its own).
pub fn process_cpu_ns() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec into `t`, which lives for the call.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) } == 0;
    assert!(ok, "CLOCK_PROCESS_CPUTIME_ID is not available");
    t.tv_sec as f64 * 1e9 + t.tv_nsec as f64
}
