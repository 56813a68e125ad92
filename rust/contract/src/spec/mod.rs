//! The benchmark spec (`spec/benchmarks.yaml`): read into wire structs that reject unknown fields and
//! duplicate keys, then resolved into checked types. Every error names the file, line and column.

mod expr;

use std::{collections::HashSet, fmt, path::Path};

use serde::{Deserialize, Serialize};
use serde_saphyr::Spanned;

pub use expr::{Expr, Range, Scope};

/// Where the spec lives, relative to the repository root.
pub const SPEC_PATH: &str = "spec/benchmarks.yaml";

/// A spec error: file, line and column, and what is wrong there.
#[derive(Debug)]
pub struct SpecError(String);

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SpecError {}

/// English and Russian wording of one thing.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Text {
    pub en: String,
    pub ru: String,
}

/// Criterion's sampling modes: iteration counts d, 2d, …, n·d (linear), the same count in every
/// sample (flat), or linear unless its fewest iterations would take over twice the measurement
/// time, then flat (auto, Criterion's default: a cell whose iteration reads a million links would
/// otherwise take 5,050 of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SamplingMode {
    Linear,
    Flat,
    Auto,
}

/// Where a server cell's time goes ([`crate::split`]): after its measured iterations, each server
/// cell whose server reports it runs up to `iterations` more, stopping once `seconds` have passed
/// (one at least), with the server's per-command time and CPU read around each one's work alone.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SplitPlan {
    pub iterations: u32,
    pub seconds: f64,
    /// The method text.
    pub description: Text,
}

/// The memory measurement: the B it is published at, and its method text.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Memory {
    pub sizes: Vec<u64>,
    pub description: Text,
}

/// What the READMEs publish, and so what a re-measure in pieces (examples/remeasure.sh) measures
/// again: the bench sizes with their rounds, on these servers, and the load and memory runs at the
/// `load` and `memory` sizes, each with the minutes a run took here, for the plan's estimates.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Publish {
    pub servers: Vec<String>,
    pub bench: Vec<PublishedSize>,
    /// Runs of the load measurement per language and size, each taken apart: the report shows
    /// each cell's median over them with its lowest and highest.
    pub load_runs: u32,
    /// Per language, one per `load` size: the minutes of one run.
    pub load_minutes: std::collections::BTreeMap<String, Vec<f64>>,
    /// One per `memory` size.
    pub memory: Vec<PublishedRun>,
}

/// One memory run of the plan: its minutes, and its servers where fewer than the plan's.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublishedRun {
    pub minutes: f64,
    pub servers: Option<Vec<String>>,
}

/// One published bench size and its rounds, in both languages (a plan estimates each round with
/// [`Spec::schedule`]).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublishedSize {
    pub background: u64,
    pub operations: u64,
    pub rounds: u32,
    /// The languages that run on other servers than the plan's, with theirs.
    #[serde(default)]
    pub servers: std::collections::BTreeMap<String, Vec<String>>,
}

/// The languages a bench, a load run or a plan can name, in table order.
pub const LANGUAGES: [&str; 2] = ["rust", "csharp"];

/// Why `durable` and `fsync` go together: the one says when a write is durable, the other in a
/// few words when the files are synced, for the report's column headers.
const DURABLE_FSYNC: &str = "`durable` (when a write is durable) and `fsync` (when its files are synced, in a few words) go together";

/// The load measurement: K concurrent clients for a fixed time, per operation and store.
#[derive(Clone, Debug)]
pub struct Load {
    pub sizes: Vec<u64>,
    pub clients: Vec<usize>,
    /// Pipeline depths for Rust's server rows: 1 is one request per round trip.
    pub depths: Vec<usize>,
    /// Pipeline depths for C#'s server rows, each client shared by the K users in its own way.
    pub client_depths: Vec<usize>,
    /// How many requests an in-process store times at once.
    pub batch: usize,
    /// The K the latency table shows.
    pub latency_clients: usize,
    pub warm_up_seconds: f64,
    pub seconds: f64,
    pub operations: Vec<LoadOperation>,
    pub description: Text,
}

/// An operation of a suite, run by concurrent clients one i at a time: its work, then its undo.
#[derive(Clone, Debug)]
pub struct LoadOperation {
    pub suite: String,
    pub id: String,
    /// The redis-benchmark test (`-t`) run beside it.
    pub redis_benchmark: Option<String>,
}

/// Microseconds a round spends on a store beside its sampling: per background request, keyed by
/// store ([`Spec::store_of`]), its load with the checks after it and one whole check after a cell;
/// and per item an iteration reports, keyed by store or by C# client (which then replaces its
/// store's), what reading it back costs, so that a cell whose fewest iterations outlast its
/// sampling time is planned at their length; and per request of an iteration's work and undo, by
/// the backend's mode ([`mode_of`]) and then by store or C# client as `found` is, what a request
/// costs, so that a cell of N round trips is planned at its fewest iterations too. A suite without
/// them (a test's spec) is estimated by its sampling alone. `csharp`: the C# harness's own costs
/// where they differ (it reaches Doublets through the C ABI), the same tables, looked up first.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Overhead {
    #[serde(default)]
    pub load: std::collections::BTreeMap<String, f64>,
    #[serde(default)]
    pub check: std::collections::BTreeMap<String, f64>,
    #[serde(default)]
    pub found: std::collections::BTreeMap<String, f64>,
    #[serde(default)]
    pub request: std::collections::BTreeMap<String, std::collections::BTreeMap<String, f64>>,
    #[serde(default)]
    pub csharp: Option<Box<Overhead>>,
}

impl Overhead {
    /// The cost `table` gives the first of `keys` it names, in `language`'s own tables first
    /// (`csharp`), then in these.
    fn cost(
        &self,
        language: &str,
        table: impl Fn(&Overhead) -> Option<&std::collections::BTreeMap<String, f64>>,
        keys: &[&str],
    ) -> Option<f64> {
        let own = self.csharp.as_deref().filter(|_| language == "csharp");
        own.into_iter()
            .chain(std::iter::once(self))
            .filter_map(table)
            .find_map(|costs| keys.iter().find_map(|k| costs.get(*k)))
            .copied()
    }
}

/// A server backend's mode, the last part of its name as both harnesses name their backends:
/// `Redis_Pipeline` is `Pipeline`, `Garnet_NonTransaction` is `NonTransaction`.
pub fn mode_of(backend: &str) -> &str {
    backend.rsplit('_').next().unwrap_or(backend)
}

/// What a round costs: its cells, and the seconds of their sampling, of what their fewest
/// iterations take beyond it, of the stores' loads and of the checks after the cells (with the
/// restarts of durable stores).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Schedule {
    pub cells: usize,
    pub sampling: f64,
    pub beyond: f64,
    pub loads: f64,
    pub checks: f64,
}

impl Schedule {
    pub fn seconds(&self) -> f64 {
        self.sampling + self.beyond + self.loads + self.checks
    }

    /// Both schedules' cells and seconds together.
    pub fn plus(&self, other: &Schedule) -> Schedule {
        Schedule {
            cells: self.cells + other.cells,
            sampling: self.sampling + other.sampling,
            beyond: self.beyond + other.beyond,
            loads: self.loads + other.loads,
            checks: self.checks + other.checks,
        }
    }

    /// "19.5 min: 8.0 min of warm-up and sampling, 0.4 min beyond it …, 1.3 min of loads, 10.2
    /// min of checks and restarts".
    pub fn describe(&self) -> String {
        let minutes = |seconds: f64| format!("{:.1} min", seconds / 60.0);
        format!(
            "{}: {} of warm-up and sampling, {} beyond it for the fewest iterations of slow cells and the splits, {} of loads, {} of checks and restarts",
            minutes(self.seconds()),
            minutes(self.sampling),
            minutes(self.beyond),
            minutes(self.loads),
            minutes(self.checks)
        )
    }
}

/// A command that rewrites a durable server's files from its data, and the INFO persistence
/// fields (`field:value`) that all hold once it has finished.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Compact {
    pub command: Vec<String>,
    pub done: Vec<String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sampling {
    pub mode: SamplingMode,
    pub samples: usize,
    pub warm_up_seconds: f64,
    pub measurement_seconds: f64,
}

/// `table`'s microseconds for `store` (in `language`'s harness) for each request of the suite's
/// background at `sizes`, in seconds.
fn per_request(
    suite: &Suite,
    table: fn(&Overhead) -> &std::collections::BTreeMap<String, f64>,
    store: &str,
    language: &str,
    sizes: &[u64],
) -> f64 {
    let requests = suite.background.count(sizes).unwrap_or(0) as f64;
    let cost = suite
        .overhead_us
        .cost(language, |o| Some(table(o)), &[store]);
    cost.unwrap_or(0.0) * requests / 1e6
}

/// The items a variable names (comma-separated ids, each once), or `defaults` where it is unset
/// or empty; an id not among `all` is refused, naming the variable and the ids it may name.
fn pick<'s, T>(
    variable: &str,
    value: Option<String>,
    all: &'s [T],
    id: impl Fn(&T) -> &String,
    defaults: Vec<&'s T>,
) -> Result<Vec<&'s T>, String> {
    let value = value.unwrap_or_default();
    if value.trim().is_empty() {
        return Ok(defaults);
    }
    let mut chosen: Vec<&T> = Vec::new();
    for name in value.split(',').map(str::trim) {
        let item = all.iter().find(|t| id(t) == name).ok_or_else(|| {
            let known: Vec<&str> = all.iter().map(|t| id(t).as_str()).collect();
            format!(
                "{variable}={value:?}: \"{name}\" is not one of {}",
                known.join(", ")
            )
        })?;
        if chosen.iter().any(|t| id(t) == name) {
            return Err(format!("{variable}={value:?} names {name} twice"));
        }
        chosen.push(item);
    }
    Ok(chosen)
}

mod wire {
    use super::*;

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Spec {
        pub sizes: Vec<Size>,
        pub families: Vec<Family>,
        pub family_env: String,
        #[serde(default)]
        pub durable_dir_env: String,
        #[serde(default)]
        pub durable_tmpfs_env: String,
        #[serde(default)]
        pub durable_stop_env: String,
        #[serde(default)]
        pub server_env: String,
        #[serde(default)]
        pub client_env: String,
        /// Unset: a bench runs every suite.
        #[serde(default)]
        pub suite_env: String,
        #[serde(default)]
        pub servers: Vec<Server>,
        pub pipeline_window_bytes: Option<Spanned<u64>>,
        pub split: Option<Spanned<super::SplitPlan>>,
        #[serde(default)]
        pub fingerprint: Vec<String>,
        pub memory: Option<super::Memory>,
        pub load: Option<Spanned<Load>>,
        pub publish: Option<Spanned<super::Publish>>,
        #[serde(default)]
        pub clients: Vec<Client>,
        pub backends: Vec<Backend>,
        pub suites: Vec<Suite>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Load {
        pub sizes: Vec<u64>,
        pub clients: Vec<usize>,
        pub depths: Vec<usize>,
        pub client_depths: Vec<usize>,
        pub batch: usize,
        pub latency_clients: usize,
        pub warm_up_seconds: f64,
        pub seconds: f64,
        pub operations: Vec<LoadOperation>,
        pub description: Text,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct LoadOperation {
        pub id: Spanned<String>,
        pub redis_benchmark: Option<String>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Size {
        pub symbol: Spanned<String>,
        pub key: String,
        pub env: String,
        pub default: u64,
        pub min: u64,
        pub max: Option<Spanned<String>>,
        pub description: Text,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Family {
        pub id: Spanned<String>,
        pub env_value: String,
        #[serde(default = "yes")]
        pub default: bool,
        pub sampling: Spanned<Sampling>,
        pub durable: Option<Text>,
        pub fsync: Option<Text>,
        pub variant_of: Option<Spanned<String>>,
        #[serde(default)]
        pub restart_seconds: f64,
    }

    fn yes() -> bool {
        true
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Server {
        pub id: Spanned<String>,
        pub name: String,
        pub default: bool,
        pub version_field: String,
        #[serde(default)]
        pub prepare: Vec<String>,
        pub start: Spanned<Vec<String>>,
        pub digest: bool,
        #[serde(default)]
        pub changes: Vec<String>,
        pub check: Text,
        pub split_missing: Option<Text>,
        pub durable: Option<Text>,
        pub fsync: Option<Text>,
        pub variant_of: Option<Spanned<String>>,
        #[serde(default)]
        pub restart_seconds: f64,
        pub compact: Option<super::Compact>,
        pub round_trip_us: Option<Spanned<u64>>,
        pub install: String,
        pub description: Text,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Client {
        pub id: Spanned<String>,
        pub suffix: Option<Spanned<String>>,
        pub description: Text,
        #[serde(default)]
        pub not_run: Vec<NotRun>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct NotRun {
        pub suite: Option<Spanned<String>>,
        pub mode: Option<Spanned<String>>,
        pub server: Option<Spanned<String>>,
        pub why: Text,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Backend {
        pub name: Spanned<String>,
        pub family: Spanned<String>,
        pub server: Option<Spanned<String>>,
        pub layout: Option<Spanned<super::Layout>>,
        pub description: Text,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Suite {
        pub id: Spanned<String>,
        pub name: Text,
        pub backends: Vec<Spanned<String>>,
        pub background: Background,
        pub operations: Vec<Operation>,
        pub unit: Text,
        pub reads: Vec<String>,
        pub memory_per_request: Spanned<std::collections::BTreeMap<String, u64>>,
        pub overhead_us: Option<Spanned<super::Overhead>>,
        pub left_out: Option<Spanned<std::collections::BTreeMap<String, Text>>>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Background {
        pub description: Text,
        #[serde(rename = "for")]
        pub range: Option<Spanned<String>>,
        #[serde(rename = "do")]
        pub requests: Vec<Spanned<String>>,
        pub expected: Expected,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Operation {
        pub id: Spanned<String>,
        pub name: String,
        pub description: Text,
        #[serde(rename = "for")]
        pub range: Option<Spanned<String>>,
        #[serde(rename = "do")]
        pub requests: Vec<Spanned<String>>,
        pub expected: Expected,
        pub undo: Option<Work>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Work {
        #[serde(rename = "for")]
        pub range: Option<Spanned<String>>,
        #[serde(rename = "do")]
        pub requests: Vec<Spanned<String>>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Expected {
        pub ids: Spanned<String>,
        pub times: Option<u64>,
    }
}

/// One size: a symbol used in expressions, read from an environment variable.
#[derive(Clone, Debug)]
pub struct Size {
    pub symbol: String,
    /// The name of this size in result files.
    pub key: String,
    pub env: String,
    pub default: u64,
    pub min: u64,
    pub max: Option<Expr>,
    pub description: Text,
}

#[derive(Clone, Debug)]
pub struct Family {
    pub id: String,
    pub env_value: String,
    /// Run when the family variable does not say.
    pub default: bool,
    pub sampling: Sampling,
    /// For a family whose stores keep their data in files: when a write is durable.
    pub durable: Option<Text>,
    /// With `durable`: when its files are synced, in a few words (the report's column headers).
    pub fsync: Option<Text>,
    /// For a durable family: the family whose stores it keeps in files instead of RAM, which the
    /// report compares it with.
    pub variant_of: Option<String>,
    /// What restarting a durable store takes beyond the whole check after it (for estimates).
    pub restart_seconds: f64,
}

/// How a doublets store lays out its memory: links and their indexes in one block, or the links'
/// data and the index trees in two.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    United,
    Split,
}

/// A RESP server the redis family can run on, and how a disposable one starts.
#[derive(Clone, Debug)]
pub struct ServerKind {
    pub id: String,
    /// As tables and messages name it, and the first part of its backends' names.
    pub name: String,
    /// Run when BENCHMARK_SERVERS does not say.
    pub default: bool,
    /// The field of INFO server that holds its version.
    pub version_field: String,
    /// A command run in the repository before the first start (e.g. restoring a .NET tool).
    pub prepare: Vec<String>,
    /// The command that starts a disposable server; `{port}` stands for its port.
    pub start: Vec<String>,
    /// A disposable server answers DEBUG DIGEST: the check after each cell compares the digest
    /// of the whole server with the one after the load, instead of reading the background back.
    pub digest: bool,
    /// The INFO persistence fields that together count every change to its data and never go
    /// back (Redis: the saves and the changes since the last one); empty where it has none.
    pub changes: Vec<String>,
    /// How its stores are checked after each cell, for the method text.
    pub check: Text,
    /// Why its cells' time is not split into execution, script and the rest ([`crate::split`]);
    /// `None` where INFO commandstats and INFO cpu report it.
    pub split_missing: Option<Text>,
    /// For a server that keeps its data in files (its start takes `{dir}`): when a write is
    /// durable. After each cell it is restarted on them.
    pub durable: Option<Text>,
    /// With `durable`: when its files are synced, in a few words (the report's column headers).
    pub fsync: Option<Text>,
    /// For a durable server or one on a host of its own: the server it is but for its files or
    /// its host, which the report compares it with.
    pub variant_of: Option<String>,
    /// What restarting it takes beyond the whole check after it (for estimates).
    pub restart_seconds: f64,
    /// How a durable server's files are made as small as its data, after each restart.
    pub compact: Option<Compact>,
    /// For a server on a host of its own (its start takes `{host}`): the round trip the network
    /// to it adds, in µs ([`crate::network`]).
    pub round_trip_us: Option<u64>,
    /// How to install it, for the error when it cannot start.
    pub install: String,
    pub description: Text,
    /// The most bytes of commands a pipeline writes before it reads their replies (the spec's
    /// pipeline_window_bytes; unbounded when it sets none).
    pub pipeline_window: usize,
}

impl ServerKind {
    /// It is reached through a Unix socket (its start takes `{socket}`), not TCP.
    pub fn socket(&self) -> bool {
        self.start.iter().any(|a| a.contains("{socket}"))
    }

    /// Whether its start takes `{dir}`, the folder its data files go in: a durable server's.
    pub fn keeps_files(&self) -> bool {
        self.start.iter().any(|a| a.contains("{dir}"))
    }
}

/// A Redis client library the C# harness runs every server backend through (the Rust bench has
/// one, redis-rs). The default client's cells keep the backend's name; the others' add their
/// suffix (`Redis_Pipeline_FreeRedis`).
#[derive(Clone, Debug)]
pub struct Client {
    /// The NuGet package, whose version the results record.
    pub id: String,
    pub suffix: Option<String>,
    pub description: Text,
    /// The cells this client cannot run correctly, and why.
    pub not_run: Vec<NotRun>,
}

impl Client {
    /// Why this client does not run `suite` on the server backend `backend`, or None when it does.
    pub fn refuses(&self, suite: &str, backend: &Backend) -> Option<&NotRun> {
        self.not_run.iter().find(|n| n.covers(suite, backend))
    }
}

/// Cells a client cannot run correctly, shown as not run with the reason: those of a suite, a
/// mode, a server, or where several are given, of all of them.
#[derive(Clone, Debug)]
pub struct NotRun {
    pub suite: Option<String>,
    /// NonTransaction, Transaction or Pipeline.
    pub mode: Option<String>,
    /// The server's id.
    pub server: Option<String>,
    pub why: Text,
}

impl NotRun {
    /// Whether it covers the cells of `suite` on the server backend `backend`.
    pub fn covers(&self, suite: &str, backend: &Backend) -> bool {
        self.suite.as_deref().is_none_or(|s| s == suite)
            && self
                .mode
                .as_deref()
                .is_none_or(|m| m == mode_of(&backend.name))
            && self
                .server
                .as_ref()
                .is_none_or(|s| backend.server.as_ref() == Some(s))
    }
}

#[derive(Clone, Debug)]
pub struct Backend {
    pub name: String,
    pub family: String,
    /// The server a redis-family backend runs on.
    pub server: Option<String>,
    /// How an in-process (doublets) backend lays out its store.
    pub layout: Option<Layout>,
    pub description: Text,
}

/// An argument of a request: `*` (any; null to the C# harness) or a value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Arg {
    Any,
    Value(Expr),
}

/// One request as the spec writes it (`update i 0 0`), with where it was written.
#[derive(Clone, Debug, Serialize)]
pub struct Template {
    pub verb: String,
    pub args: Vec<Arg>,
    /// The request only reads: its verb is in the suite's `reads` ([`Spec::check_requests`]
    /// holds the stores to it).
    pub reads: bool,
    pub text: String,
    #[serde(skip)]
    pub at: String,
}

/// Requests run once, or once per value of a range.
#[derive(Clone, Debug, Serialize)]
pub struct Work {
    pub range: Option<Range>,
    pub requests: Vec<Template>,
}

/// What one run of some work must report: these ids or values, each `times` times.
#[derive(Clone, Debug, Serialize)]
pub struct Expected {
    pub ids: Range,
    pub times: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Operation {
    pub id: String,
    pub name: String,
    pub description: Text,
    pub work: Work,
    pub expected: Expected,
    pub undo: Option<Work>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Suite {
    pub id: String,
    pub name: Text,
    pub backends: Vec<String>,
    pub background_description: Text,
    pub background: Work,
    pub background_expected: Expected,
    pub operations: Vec<Operation>,
    /// Bytes a run holds per background request of this suite: `harness` always, and each
    /// family's while its store is loaded. Estimates, used to refuse sizes this machine cannot
    /// hold before any work.
    pub memory_per_request: std::collections::BTreeMap<String, u64>,
    /// What a round spends on each of the suite's stores beside sampling, for the estimates.
    pub overhead_us: Overhead,
    /// The families that do not run this suite, each with the reason the README gives.
    pub left_out: std::collections::BTreeMap<String, Text>,
    /// What one request of its background adds (a link, a key), as memory per B is counted.
    pub unit: Text,
}

#[derive(Clone, Debug)]
pub struct Spec {
    pub path: String,
    pub sizes: Vec<Size>,
    pub families: Vec<Family>,
    pub family_env: String,
    /// The variable naming where the durable families make their temporary folder.
    pub durable_dir_env: String,
    /// The variable that allows that folder to be on tmpfs.
    pub durable_tmpfs_env: String,
    /// The variable saying how durable stores stop before each restart (close, kill).
    pub durable_stop_env: String,
    pub server_env: String,
    /// The variable that picks the C# bench's clients.
    pub client_env: String,
    /// The variable that picks the suites a bench runs.
    pub suite_env: String,
    pub servers: Vec<ServerKind>,
    /// How each server cell's time is split, where its server reports it.
    pub split: Option<SplitPlan>,
    /// The paths, relative to the repository, whose files a result's fingerprint covers.
    pub fingerprint: Vec<String>,
    pub memory: Option<Memory>,
    pub load: Option<Load>,
    pub publish: Option<Publish>,
    pub clients: Vec<Client>,
    pub backends: Vec<Backend>,
    pub suites: Vec<Suite>,
}

/// Checks that a suite's store understands a request: `(suite id, verb, arguments)`, where `None`
/// stands for `*`, and says whether it only reads. Errors say what the verb expects.
pub type RequestCheck<'a> = &'a dyn Fn(&str, &str, &[Option<u64>]) -> Result<bool, String>;

impl Spec {
    /// Reads and checks the spec at `path`. Its requests are checked against the suites' stores
    /// only by [`Spec::check_requests`], which the benches run and the report, reading no store,
    /// does not.
    pub fn load(path: &Path) -> Result<Self, SpecError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| SpecError(format!("{}: cannot read the spec: {e}", path.display())))?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Parses spec text; `path` only names the source in errors.
    pub fn parse(text: &str, path: &str) -> Result<Self, SpecError> {
        let wire: wire::Spec =
            serde_saphyr::from_str(text).map_err(|e| SpecError(format!("{path}: {e}")))?;
        Resolver { path }.spec(wire)
    }

    /// Checks every request of every suite against the suite's stores (`check`): each must be one
    /// its store builds, and must read exactly when the suite's `reads` says so, since the report
    /// tells reads from writes by that list alone.
    pub fn check_requests(&self, check: RequestCheck<'_>) -> Result<(), SpecError> {
        for suite in &self.suites {
            let works = std::iter::once(&suite.background).chain(
                suite
                    .operations
                    .iter()
                    .flat_map(|o| std::iter::once(&o.work).chain(&o.undo)),
            );
            for request in works.flat_map(|w| &w.requests) {
                let probe: Vec<Option<u64>> = request
                    .args
                    .iter()
                    .map(|a| matches!(a, Arg::Value(_)).then_some(1))
                    .collect();
                let refused =
                    |e: String| SpecError(format!("{}: \"{}\": {e}", request.at, request.text));
                let reads = check(&suite.id, &request.verb, &probe).map_err(refused)?;
                if reads != request.reads {
                    return Err(refused(if reads {
                        format!(
                            "{} only reads, but the suite's `reads` leaves it out",
                            request.verb
                        )
                    } else {
                        format!("{} writes, but the suite's `reads` lists it", request.verb)
                    }));
                }
            }
        }
        Ok(())
    }

    pub fn suite(&self, id: &str) -> Option<&Suite> {
        self.suites.iter().find(|s| s.id == id)
    }

    pub fn backend(&self, name: &str) -> &Backend {
        self.backends
            .iter()
            .find(|b| b.name == name)
            .expect("suites name declared backends")
    }

    /// The server a backend runs on, if it is one of a server's.
    pub fn server_of(&self, backend: &str) -> Option<&ServerKind> {
        let id = self.backend(backend).server.as_deref()?;
        self.servers.iter().find(|s| s.id == id)
    }

    /// The servers to run: those BENCHMARK_SERVERS names (comma-separated ids), or the defaults.
    pub fn servers_from(&self, value: Option<String>) -> Result<Vec<&ServerKind>, String> {
        let defaults = self.servers.iter().filter(|s| s.default).collect();
        pick(&self.server_env, value, &self.servers, |s| &s.id, defaults)
    }

    /// The clients the C# bench measures each server backend through: those BENCHMARK_CLIENTS
    /// names (comma-separated ids), or every one.
    pub fn clients_from(&self, value: Option<String>) -> Result<Vec<&Client>, String> {
        let every = self.clients.iter().collect();
        pick(&self.client_env, value, &self.clients, |c| &c.id, every)
    }

    /// The ids of the suites a bench runs, in the spec's order: those BENCHMARK_SUITES names
    /// (comma-separated), or every one.
    pub fn suite_ids_from(&self, value: Option<String>) -> Result<Vec<String>, String> {
        let every = self.suites.iter().collect();
        let chosen = pick(&self.suite_env, value, &self.suites, |s| &s.id, every)?;
        let suites = self
            .suites
            .iter()
            .filter(|s| chosen.iter().any(|c| c.id == s.id));
        Ok(suites.map(|s| s.id.clone()).collect())
    }

    /// The spec as a run of the suites `ids` sees it: theirs alone, in the spec's order, so that
    /// its cells, schedule and result are theirs.
    pub fn narrowed_to(&self, ids: &[String]) -> Spec {
        let mut spec = self.clone();
        spec.suites.retain(|s| ids.contains(&s.id));
        spec
    }

    /// Whether a run of `families` on the servers `servers` (ids) measures `backend`.
    pub fn runs(&self, backend: &str, families: &[String], servers: &[&str]) -> bool {
        let backend = self.backend(backend);
        families.contains(&backend.family)
            && backend
                .server
                .as_deref()
                .is_none_or(|id| servers.contains(&id))
    }

    /// What a round of `families` on `servers` costs at `sizes`: its cells, the spec's warm-up and
    /// sampling for them, and the suites' overheads for the loads (one per suite and store: a
    /// server's modes and clients share one) and for the checks after the cells
    /// ([`Spec::check_seconds`]). `clients`: the C# harness measures each server backend through
    /// each of these clients that runs its mode; `None`, the Rust harness, through redis-rs alone.
    pub fn schedule(
        &self,
        families: &[String],
        servers: &[&str],
        clients: Option<&[&Client]>,
        sizes: &[u64],
    ) -> Schedule {
        self.schedule_of(families, servers, clients, sizes, &|_| true)
    }

    /// [`Spec::schedule`] of the cells (`operation/backend`) `selects` takes: a store none of whose
    /// cells it takes is not loaded.
    pub fn schedule_of(
        &self,
        families: &[String],
        servers: &[&str],
        clients: Option<&[&Client]>,
        sizes: &[u64],
        selects: &dyn Fn(&str) -> bool,
    ) -> Schedule {
        let mut schedule = Schedule::default();
        let language = if clients.is_some() { "csharp" } else { "rust" };
        for suite in &self.suites {
            let mut loaded: Vec<&str> = Vec::new();
            for backend in &suite.backends {
                let chosen: Vec<&Operation> = suite
                    .operations
                    .iter()
                    .filter(|op| selects(&format!("{}/{backend}", op.id)))
                    .collect();
                if !self.runs(backend, families, servers) || chosen.is_empty() {
                    continue;
                }
                let def = self.backend(backend);
                let through: Vec<Option<&str>> = match (&def.server, clients) {
                    (Some(_), Some(clients)) => clients
                        .iter()
                        .filter(|c| c.refuses(&suite.id, def).is_none())
                        .map(|c| Some(c.id.as_str()))
                        .collect(),
                    _ => vec![None],
                };
                let store = self.loaded_into(backend);
                if !loaded.contains(&store) {
                    loaded.push(store);
                    schedule.loads += self.load_seconds(suite, backend, language, sizes);
                }
                for client in through {
                    for &operation in &chosen {
                        let cell =
                            self.cell_seconds(suite, operation, backend, client, language, sizes);
                        schedule = schedule.plus(&cell);
                    }
                }
            }
        }
        schedule
    }

    /// Every cell (`operation/backend`) a run of `families` on `servers` measures, suite by suite.
    pub fn cells(&self, families: &[String], servers: &[&str]) -> Vec<String> {
        let mut cells = Vec::new();
        for suite in &self.suites {
            for backend in &suite.backends {
                if self.runs(backend, families, servers) {
                    cells.extend(
                        suite
                            .operations
                            .iter()
                            .map(|op| format!("{}/{backend}", op.id)),
                    );
                }
            }
        }
        cells
    }

    /// What a load of `backend`'s suite fills: its server, which its modes and clients share, else
    /// the backend's own store (each Doublets layout is a store of its own).
    pub fn loaded_into(&self, backend: &str) -> &str {
        let def = self.backend(backend);
        def.server.as_deref().unwrap_or(&def.name)
    }

    /// The store a backend runs on, as a suite's overheads name it: its server, else its family.
    pub fn store_of(&self, backend: &str) -> &str {
        let def = self.backend(backend);
        def.server.as_deref().unwrap_or(&def.family)
    }

    /// What one cell of `operation` on `backend` (through the C# `client`, if any) costs in
    /// `language`'s harness: the spec's warm-up and sampling, what its fewest iterations and the
    /// iterations that split its time take beyond them (Criterion's warm-up runs one at least, and
    /// each sample one, or in linear mode k), and the check after it.
    pub fn cell_seconds(
        &self,
        suite: &Suite,
        operation: &Operation,
        backend: &str,
        client: Option<&str>,
        language: &str,
        sizes: &[u64],
    ) -> Schedule {
        let sampling = &self.family(&self.backend(backend).family).sampling;
        // A cost by C# client where the spec gives one, else by store.
        let keys: Vec<&str> = client.into_iter().chain([self.store_of(backend)]).collect();
        let overhead = &suite.overhead_us;
        let per_item = overhead.cost(language, |o| Some(&o.found), &keys);
        let per_request = overhead.cost(language, |o| o.request.get(mode_of(backend)), &keys);
        let (per_item, per_request) = (per_item.unwrap_or(0.0), per_request.unwrap_or(0.0));
        let items = operation.expected.count(sizes).unwrap_or(0);
        // The wall time of an iteration: its work's and its undo's requests, and what it reads back.
        let requests = std::iter::once(&operation.work)
            .chain(&operation.undo)
            .map(|w| w.count(sizes).unwrap_or(0) as f64)
            .sum::<f64>();
        let iteration = (per_request * requests + per_item * items as f64) / 1e6;
        let n = sampling.samples as f64;
        let fewest = match sampling.mode {
            SamplingMode::Linear => n * (n + 1.0) / 2.0,
            SamplingMode::Flat | SamplingMode::Auto => n,
        };
        let budget = sampling.warm_up_seconds + sampling.measurement_seconds;
        // The warm-up ends with the iteration that crosses its time, and the samples hold one
        // iteration each (or k, linearly) at least.
        let shortest = sampling.warm_up_seconds
            + iteration
            + sampling.measurement_seconds.max(fewest * iteration);
        Schedule {
            cells: 1,
            sampling: budget,
            beyond: (shortest - budget).max(0.0) + self.split_seconds(backend, iteration),
            loads: 0.0,
            checks: self.check_seconds(suite, operation, backend, language, sizes),
        }
    }

    /// The seconds the iterations that split a cell's time take ([`SplitPlan`]), on a backend
    /// whose server reports it, an iteration taking `iteration` seconds.
    fn split_seconds(&self, backend: &str, iteration: f64) -> f64 {
        let reports = self
            .backend(backend)
            .server
            .as_deref()
            .and_then(|id| self.servers.iter().find(|s| s.id == id))
            .is_some_and(|server| server.split_missing.is_none());
        match &self.split {
            Some(plan) if reports => {
                (f64::from(plan.iterations) * iteration).min(plan.seconds + iteration)
            }
            _ => 0.0,
        }
    }

    /// The seconds loading the suite's background into `backend`'s store takes, with its checks,
    /// in `language`'s harness.
    pub fn load_seconds(&self, suite: &Suite, backend: &str, language: &str, sizes: &[u64]) -> f64 {
        per_request(suite, |o| &o.load, self.store_of(backend), language, sizes)
    }

    /// The seconds of the checks after a cell of `operation` on `backend`: one whole check of the
    /// store, or none where the operation only reads and the store's server counts its changes,
    /// which then stand for the check; and for a durable store, its restart and one more whole
    /// check, in `language`'s harness.
    pub fn check_seconds(
        &self,
        suite: &Suite,
        operation: &Operation,
        backend: &str,
        language: &str,
        sizes: &[u64],
    ) -> f64 {
        let whole = per_request(suite, |o| &o.check, self.store_of(backend), language, sizes);
        let counted = self
            .server_of(backend)
            .is_some_and(|server| !server.changes.is_empty());
        let check = if !operation.writes() && counted {
            0.0
        } else {
            whole
        };
        let def = self.backend(backend);
        let restart = match self.server_of(backend) {
            Some(server) => server.durable.as_ref().map(|_| server.restart_seconds),
            None => {
                let family = self.family(&def.family);
                family.durable.as_ref().map(|_| family.restart_seconds)
            }
        };
        check + restart.map_or(0.0, |seconds| seconds + whole)
    }

    /// The backend and client a C# cell's backend name stands for: `Redis_Pipeline_FreeRedis` is
    /// Redis_Pipeline through FreeRedis, `Redis_Pipeline` through the default client.
    pub fn backend_client<'s>(&'s self, name: &str) -> Option<(&'s Backend, &'s Client)> {
        self.clients.iter().find_map(|client| {
            let base = match &client.suffix {
                Some(suffix) => name.strip_suffix(suffix.as_str())?.strip_suffix('_')?,
                None => name,
            };
            let backend = self.backends.iter().find(|b| b.name == base)?;
            backend.server.as_ref().map(|_| (backend, client))
        })
    }

    pub fn family(&self, id: &str) -> &Family {
        self.families
            .iter()
            .find(|f| f.id == id)
            .expect("backends name declared families")
    }

    /// The sizes from the environment (`get` reads a variable), checked against each size's bounds.
    pub fn sizes_from(&self, get: impl Fn(&str) -> Option<String>) -> Result<Vec<u64>, String> {
        let mut values: Vec<u64> = Vec::new();
        for size in &self.sizes {
            let value = match get(&size.env) {
                None => size.default,
                Some(raw) => raw.trim().replace('_', "").parse().map_err(|_| {
                    format!(
                        "{}={raw:?} is not a whole number from {} to {} ({})",
                        size.env,
                        size.min,
                        u64::MAX,
                        size.description.en
                    )
                })?,
            };
            if value < size.min {
                return Err(format!(
                    "{}={value} is below its minimum {}",
                    size.env, size.min
                ));
            }
            if let Some(max) = &size.max {
                let limit = max.eval(&Scope {
                    sizes: &values,
                    i: None,
                });
                if i128::from(value) > limit {
                    return Err(format!(
                        "{}={value} is more than {max} = {limit} ({} {} at most)",
                        size.env, size.description.en, max
                    ));
                }
            }
            values.push(value);
        }
        Ok(values)
    }

    /// The families to run: those the family variable names (comma-separated), else those run by
    /// default.
    pub fn families_from(&self, value: Option<String>) -> Result<Vec<&Family>, String> {
        let defaults = self.families.iter().filter(|f| f.default).collect();
        pick(
            &self.family_env,
            value,
            &self.families,
            |f| &f.env_value,
            defaults,
        )
    }

    /// The ids of [`Self::families_from`]'s families.
    pub fn family_ids_from(&self, value: Option<String>) -> Result<Vec<String>, String> {
        Ok(self
            .families_from(value)?
            .into_iter()
            .map(|f| f.id.clone())
            .collect())
    }

    /// The ids of the families a run measures when the family variable does not say: a whole
    /// round's.
    pub fn default_families(&self) -> Vec<String> {
        self.families
            .iter()
            .filter(|f| f.default)
            .map(|f| f.id.clone())
            .collect()
    }

    /// Whether a run of `families` on the disposable servers `servers` (ids) keeps data in files:
    /// a durable family's stores, or a durable server's.
    pub fn durable(&self, families: &[String], servers: &[&str]) -> bool {
        self.families
            .iter()
            .any(|f| f.durable.is_some() && families.contains(&f.id))
            || self
                .servers
                .iter()
                .any(|s| s.durable.is_some() && servers.contains(&s.id.as_str()))
    }
}

impl Operation {
    /// Whether the operation can change the store: some request of its work writes, or it has an
    /// undo.
    pub fn writes(&self) -> bool {
        self.undo.is_some() || self.work.requests.iter().any(|t| !t.reads)
    }
}

impl Work {
    /// How many requests the work makes for these sizes, without building them.
    pub fn count(&self, sizes: &[u64]) -> Result<u128, String> {
        let per_value = self.requests.len() as u128;
        Ok(match &self.range {
            Some(range) => range.len(sizes)? * per_value,
            None => per_value,
        })
    }

    /// The concrete requests for these sizes, built by `build(verb, args)`.
    pub fn requests<R>(
        &self,
        sizes: &[u64],
        build: impl Fn(&str, &[Option<u64>]) -> Result<R, String>,
    ) -> Result<Vec<R>, String> {
        let values = match &self.range {
            Some(range) => range.values(sizes)?.into_iter().map(Some).collect(),
            None => vec![None],
        };
        let mut requests = Vec::with_capacity(values.len() * self.requests.len());
        for i in values {
            let scope = Scope { sizes, i };
            for template in &self.requests {
                let args = template
                    .args
                    .iter()
                    .map(|arg| match arg {
                        Arg::Any => Ok(None),
                        Arg::Value(expr) => {
                            let value = expr.eval(&scope);
                            u64::try_from(value).map(Some).map_err(|_| {
                                format!(
                                    "{}: \"{}\" gives {value}, not a whole number from 0 to {}",
                                    template.at,
                                    template.text,
                                    u64::MAX
                                )
                            })
                        }
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                requests.push(
                    build(&template.verb, &args).map_err(|e| format!("{}: {e}", template.at))?,
                );
            }
        }
        Ok(requests)
    }
}

/// How many ids one run reports, and their sum. Both live in one `u128` (the count in the high
/// half, the sum below it) so that counting an item is a single add: the measured loop tallies
/// every link it finds, and two separate counters cost Each All 10–15% more than a bare loop.
/// The sum is exact while it stays below 2^64 (ids are below 2^63, so it does for any store this
/// bench can load); beyond, its carries fold into the count, alike for the expected and the found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally(u128);

impl Tally {
    pub fn new(count: u64, sum: u64) -> Self {
        Self(u128::from(count) << 64 | u128::from(sum))
    }

    #[inline(always)]
    pub fn add(&mut self, id: u64) {
        self.0 = self.0.wrapping_add(1 << 64 | u128::from(id));
    }

    pub fn count(&self) -> u64 {
        (self.0 >> 64) as u64
    }

    pub fn sum(&self) -> u64 {
        self.0 as u64
    }
}

impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ids summing to {}", self.count(), self.sum())
    }
}

impl Expected {
    /// How many ids one run reports, without tallying them (an estimate at B = 10,000,000 would
    /// build ten million values a cell).
    pub fn count(&self, sizes: &[u64]) -> Result<u128, String> {
        Ok(self.ids.len(sizes)? * u128::from(self.times))
    }

    pub fn tally(&self, sizes: &[u64]) -> Result<Tally, String> {
        let mut tally = Tally::default();
        for id in self.ids.values(sizes)? {
            let id = u64::try_from(id)
                .map_err(|_| format!("the expected ids {} reach {id}", self.ids))?;
            for _ in 0..self.times {
                tally.add(id);
            }
        }
        Ok(tally)
    }
}

struct Resolver<'a> {
    path: &'a str,
}

impl Resolver<'_> {
    fn at<T>(&self, spanned: &Spanned<T>) -> String {
        format!(
            "{}:{}:{}",
            self.path,
            spanned.referenced.line(),
            spanned.referenced.column()
        )
    }

    /// The rules of a family or server that varies another: `durable` and `fsync` together, and
    /// `variant_of` exactly where it `varies`, naming one of `plain` (which vary none). `words`:
    /// what to say where `variant_of` is missing or misplaced, and after the name it gives.
    fn variant(
        &self,
        id: &Spanned<String>,
        (durable, fsync): (bool, bool),
        varies: bool,
        variant_of: Option<&Spanned<String>>,
        plain: &[String],
        [misplaced, not_plain]: [&str; 2],
    ) -> Result<(), SpecError> {
        if durable != fsync {
            return Err(self.error(id, DURABLE_FSYNC));
        }
        if varies != variant_of.is_some() {
            return Err(self.error(id, misplaced));
        }
        match variant_of.filter(|of| !plain.contains(&of.value)) {
            Some(of) => Err(self.error(of, format!("variant_of: \"{}\" {not_plain}", of.value))),
            None => Ok(()),
        }
    }

    fn error<T>(&self, spanned: &Spanned<T>, message: impl fmt::Display) -> SpecError {
        SpecError(format!("{}: {message}", self.at(spanned)))
    }

    fn unique<'s>(
        &self,
        what: &str,
        names: impl Iterator<Item = &'s Spanned<String>>,
    ) -> Result<(), SpecError> {
        let mut seen = HashSet::new();
        for name in names {
            if !seen.insert(name.value.as_str()) {
                return Err(self.error(
                    name,
                    format!("the {what} \"{}\" is declared twice", name.value),
                ));
            }
        }
        Ok(())
    }

    fn spec(&self, wire: wire::Spec) -> Result<Spec, SpecError> {
        self.unique("size", wire.sizes.iter().map(|s| &s.symbol))?;
        self.unique("family", wire.families.iter().map(|f| &f.id))?;
        self.unique("backend", wire.backends.iter().map(|b| &b.name))?;
        self.unique("server", wire.servers.iter().map(|s| &s.id))?;
        self.unique("suite", wire.suites.iter().map(|s| &s.id))?;
        self.unique(
            "operation",
            wire.suites
                .iter()
                .flat_map(|s| s.operations.iter().map(|o| &o.id)),
        )?;

        let symbols: Vec<String> = wire.sizes.iter().map(|s| s.symbol.value.clone()).collect();
        let files_placed = !wire.durable_dir_env.is_empty() && !wire.durable_tmpfs_env.is_empty();
        let sizes = self.sizes(wire.sizes, &symbols)?;
        let families = self.families(wire.families, files_placed)?;
        let servers = self.servers(
            wire.servers,
            !wire.server_env.is_empty(),
            wire.pipeline_window_bytes.as_ref(),
            files_placed,
        )?;
        let backends = self.backends(wire.backends, &families, &servers)?;
        let client_ids: Vec<&str> = wire.clients.iter().map(|c| c.id.value.as_str()).collect();
        let suites = self.suites(wire.suites, &symbols, (&families, &backends, &client_ids))?;
        let load = match wire.load {
            Some(load) => Some(self.load(load, (&suites, &backends), sizes.len())?),
            None => None,
        };
        if let Some(first) = wire.clients.first().filter(|_| wire.client_env.is_empty()) {
            return Err(self.error(
                &first.id,
                "clients need client_env, the variable that picks them",
            ));
        }
        let clients = self.clients(wire.clients, &suites, &servers)?;
        let split = match wire.split {
            Some(split)
                if split.value.iterations == 0
                    || split.value.seconds.is_nan()
                    || split.value.seconds <= 0.0 =>
            {
                return Err(self.error(&split, "split: iterations and seconds must be above 0"))
            }
            split => split.map(|s| s.value),
        };
        let publish = match wire.publish {
            Some(publish) => {
                Some(self.publish(publish, &servers, wire.memory.as_ref(), load.as_ref())?)
            }
            None => None,
        };
        Ok(Spec {
            path: self.path.to_string(),
            sizes,
            families,
            family_env: wire.family_env,
            durable_dir_env: wire.durable_dir_env,
            durable_tmpfs_env: wire.durable_tmpfs_env,
            durable_stop_env: wire.durable_stop_env,
            server_env: wire.server_env,
            client_env: wire.client_env,
            suite_env: wire.suite_env,
            servers,
            split,
            fingerprint: wire.fingerprint,
            memory: wire.memory,
            load,
            publish,
            clients,
            backends,
            suites,
        })
    }

    /// The sizes, each bound checked against those declared before it.
    fn sizes(&self, wire: Vec<wire::Size>, symbols: &[String]) -> Result<Vec<Size>, SpecError> {
        let mut sizes = Vec::new();
        for (k, size) in wire.into_iter().enumerate() {
            let max = match &size.max {
                None => None,
                // A bound may only use the sizes declared before it, which are known when it is checked.
                Some(max) => Some(Expr::parse(&max.value, &symbols[..k]).map_err(|e| {
                    self.error(
                        max,
                        format!("max: {e} (a bound can use the sizes declared above it)"),
                    )
                })?),
            };
            if size.default < size.min {
                return Err(self.error(
                    &size.symbol,
                    format!(
                        "the default {} is below the minimum {}",
                        size.default, size.min
                    ),
                ));
            }
            sizes.push(Size {
                symbol: size.symbol.value,
                key: size.key,
                env: size.env,
                default: size.default,
                min: size.min,
                max,
                description: size.description,
            });
        }

        Ok(sizes)
    }

    /// The families, with their sampling and, for a durable one, its sync and its twin.
    /// `files_placed`: the spec names the variables that place a durable store's files.
    fn families(
        &self,
        wire: Vec<wire::Family>,
        files_placed: bool,
    ) -> Result<Vec<Family>, SpecError> {
        if let Some(first) = wire.first().filter(|_| wire.iter().all(|f| !f.default)) {
            return Err(self.error(
                &first.id,
                "no family runs by default: mark one `default: true`",
            ));
        }
        let mut families = Vec::new();
        // What a durable family can be a variant of: a family keeping its stores in RAM.
        let plain: Vec<String> = wire
            .iter()
            .filter(|f| f.durable.is_none())
            .map(|f| f.id.value.clone())
            .collect();
        for family in wire {
            let sampling = &family.sampling.value;
            if sampling.samples < 10
                || sampling.warm_up_seconds <= 0.0
                || sampling.measurement_seconds <= 0.0
            {
                return Err(self.error(
                    &family.sampling,
                    "sampling needs at least 10 samples and positive times",
                ));
            }
            if family.durable.is_some() && !files_placed {
                return Err(self.error(
                    &family.id,
                    "a durable family needs durable_dir_env and durable_tmpfs_env, the variables \
                     that place its files",
                ));
            }
            self.variant(
                &family.id,
                (family.durable.is_some(), family.fsync.is_some()),
                family.durable.is_some(),
                family.variant_of.as_ref(),
                &plain,
                [
                    "a durable family, and only one, names in `variant_of` the family whose stores it keeps in files",
                    "is not a family that keeps its stores in RAM",
                ],
            )?;
            families.push(Family {
                id: family.id.value,
                env_value: family.env_value,
                default: family.default,
                sampling: family.sampling.value,
                durable: family.durable,
                fsync: family.fsync,
                variant_of: family.variant_of.map(|v| v.value),
                restart_seconds: family.restart_seconds,
            });
        }

        Ok(families)
    }

    /// The servers: how each starts, and for a durable or distant one, its sync or round trip and
    /// its twin. `picked`: the spec names the variable that picks them; `files_placed` as for
    /// [`Self::families`].
    fn servers(
        &self,
        wire: Vec<wire::Server>,
        picked: bool,
        pipeline_window_bytes: Option<&Spanned<u64>>,
        files_placed: bool,
    ) -> Result<Vec<ServerKind>, SpecError> {
        let mut servers = Vec::new();
        if let Some(first) = wire.first().filter(|_| !picked) {
            return Err(self.error(
                &first.id,
                "servers need server_env, the variable that picks them",
            ));
        }
        let pipeline_window = match pipeline_window_bytes {
            None => usize::MAX,
            Some(bytes) => match usize::try_from(bytes.value) {
                Ok(bytes) if bytes > 0 => bytes,
                _ => {
                    return Err(self.error(
                        bytes,
                        "pipeline_window_bytes must be a positive number of bytes",
                    ))
                }
            },
        };
        // What a durable or distant server can be a variant of: one on loopback keeping nothing.
        let plain: Vec<String> = wire
            .iter()
            .filter(|s| s.durable.is_none() && s.round_trip_us.is_none())
            .map(|s| s.id.value.clone())
            .collect();
        for server in wire {
            if !server.start.value.iter().any(|a| a.contains("{port}")) {
                return Err(self.error(&server.start, "start: the command must take {port}"));
            }
            let takes_dir = server.start.value.iter().any(|a| a.contains("{dir}"));
            if takes_dir != server.durable.is_some() {
                return Err(self.error(
                    &server.start,
                    if takes_dir {
                        "start: {dir} is the folder of a durable server's files: say when a write is durable in `durable`"
                    } else {
                        "start: a durable server takes {dir}, the folder its files go in"
                    },
                ));
            }
            let takes_host = server.start.value.iter().any(|a| a.contains("{host}"));
            if takes_host != server.round_trip_us.is_some() {
                return Err(self.error(
                    &server.start,
                    if takes_host {
                        "start: {host} is the address of a server on a host of its own: give the round trip to it in `round_trip_us`"
                    } else {
                        "start: a server with a round trip runs on a host of its own and binds its address, {host}"
                    },
                ));
            }
            self.variant(
                &server.id,
                (server.durable.is_some(), server.fsync.is_some()),
                takes_dir || takes_host,
                server.variant_of.as_ref(),
                &plain,
                [
                    "a durable server or one on a host of its own, and only one, names in `variant_of` the server it is but for its files or its host",
                    "is not a server on loopback that keeps nothing",
                ],
            )?;
            if takes_dir && !files_placed {
                return Err(self.error(
                    &server.id,
                    "a durable server needs durable_dir_env and durable_tmpfs_env, the variables \
                     that place its files",
                ));
            }
            servers.push(ServerKind {
                id: server.id.value,
                name: server.name,
                default: server.default,
                version_field: server.version_field,
                prepare: server.prepare,
                start: server.start.value,
                digest: server.digest,
                changes: server.changes,
                check: server.check,
                split_missing: server.split_missing,
                durable: server.durable,
                fsync: server.fsync,
                variant_of: server.variant_of.map(|v| v.value),
                restart_seconds: server.restart_seconds,
                compact: server.compact,
                round_trip_us: server.round_trip_us.map(|r| r.value),
                install: server.install,
                description: server.description,
                pipeline_window,
            });
        }

        Ok(servers)
    }

    /// The backends: each of a known family, a server's named after it, an in-process one with
    /// its layout.
    fn backends(
        &self,
        wire: Vec<wire::Backend>,
        families: &[Family],
        servers: &[ServerKind],
    ) -> Result<Vec<Backend>, SpecError> {
        let mut backends = Vec::new();
        for backend in wire {
            if !families.iter().any(|f| f.id == backend.family.value) {
                return Err(self.error(
                    &backend.family,
                    format!("unknown family \"{}\"", backend.family.value),
                ));
            }
            // Server backends are named <server name>_<mode>: the benches find them by that name.
            let server = match (&backend.server, backend.family.value == "redis") {
                (Some(id), true) => {
                    let Some(server) = servers.iter().find(|s| s.id == id.value) else {
                        return Err(self.error(id, format!("unknown server \"{}\"", id.value)));
                    };
                    if !backend.name.value.starts_with(&format!("{}_", server.name)) {
                        return Err(self.error(
                            &backend.name,
                            format!(
                                "a {} backend's name starts with {}_",
                                server.name, server.name
                            ),
                        ));
                    }
                    Some(id.value.clone())
                }
                (None, true) => {
                    return Err(self.error(&backend.name, "a redis-family backend names its server"))
                }
                (Some(id), false) => {
                    return Err(self.error(id, "only redis-family backends run on a server"))
                }
                (None, false) => None,
            };
            let layout = match (&backend.layout, &server) {
                (Some(layout), Some(_)) => {
                    return Err(self.error(layout, "a backend on a server has no layout"))
                }
                (None, None) => {
                    return Err(self.error(
                        &backend.name,
                        "an in-process backend names its layout (united or split)",
                    ))
                }
                (layout, _) => layout.as_ref().map(|l| l.value),
            };
            backends.push(Backend {
                name: backend.name.value,
                family: backend.family.value,
                server,
                layout,
                description: backend.description,
            });
        }

        Ok(backends)
    }

    /// The suites: their backends, what they leave out, their estimates, and their work, every
    /// request checked against the suite's stores (`check`).
    fn suites(
        &self,
        wire: Vec<wire::Suite>,
        symbols: &[String],
        (families, backends, clients): (&[Family], &[Backend], &[&str]),
    ) -> Result<Vec<Suite>, SpecError> {
        let mut suites = Vec::new();
        for suite in wire {
            let id = suite.id.value.clone();
            let reads: Vec<&str> = suite.reads.iter().map(String::as_str).collect();
            for backend in &suite.backends {
                if !backends.iter().any(|b| b.name == backend.value) {
                    return Err(
                        self.error(backend, format!("unknown backend \"{}\"", backend.value))
                    );
                }
            }
            let no_left_out = Default::default();
            let left_out = suite.left_out.as_ref().map_or(&no_left_out, |l| &l.value);
            for family in left_out.keys() {
                if !families.iter().any(|f| &f.id == family) {
                    return Err(self.error(
                        suite.left_out.as_ref().expect("a family was named"),
                        format!("left_out: \"{family}\" is not a family"),
                    ));
                }
                if let Some(backend) = suite.backends.iter().find(|b| {
                    backends
                        .iter()
                        .any(|d| d.name == b.value && &d.family == family)
                }) {
                    return Err(self.error(
                        backend,
                        format!(
                            "the suite leaves the family {family} out, but lists its backend {}",
                            backend.value
                        ),
                    ));
                }
            }
            let memory = &suite.memory_per_request;
            for key in memory.value.keys() {
                if key != "harness" && !families.iter().any(|f| &f.id == key) {
                    return Err(self.error(
                        memory,
                        format!("memory_per_request: \"{key}\" is neither harness nor a family"),
                    ));
                }
            }
            for needed in std::iter::once("harness").chain(families.iter().map(|f| f.id.as_str())) {
                if !memory.value.contains_key(needed) {
                    return Err(
                        self.error(memory, format!("memory_per_request: {needed} is missing"))
                    );
                }
            }
            if let Some(overhead) = &suite.overhead_us {
                self.overhead(overhead, &suite.backends, backends, clients)?;
            }
            let background = self.work(
                suite.background.range,
                suite.background.requests,
                symbols,
                &reads,
            )?;
            let background_expected = self.expected(suite.background.expected, symbols)?;
            let mut operations = Vec::new();
            for op in suite.operations {
                let work = self.work(op.range, op.requests, symbols, &reads)?;
                let undo = match op.undo {
                    Some(undo) => Some(self.work(undo.range, undo.requests, symbols, &reads)?),
                    None => None,
                };
                let expected = self.expected(op.expected, symbols)?;
                operations.push(Operation {
                    id: op.id.value,
                    name: op.name,
                    description: op.description,
                    work,
                    expected,
                    undo,
                });
            }
            suites.push(Suite {
                id,
                name: suite.name,
                backends: suite.backends.into_iter().map(|b| b.value).collect(),
                background_description: suite.background.description,
                memory_per_request: suite.memory_per_request.value,
                overhead_us: suite.overhead_us.map(|o| o.value).unwrap_or_default(),
                left_out: suite.left_out.map(|l| l.value).unwrap_or_default(),
                unit: suite.unit,
                background,
                background_expected,
                operations,
            });
        }
        Ok(suites)
    }

    /// The clients: unique ids and suffixes (a word of letters and digits), exactly one default
    /// (no suffix) when there are any.
    fn clients(
        &self,
        clients: Vec<wire::Client>,
        suites: &[Suite],
        servers: &[ServerKind],
    ) -> Result<Vec<Client>, SpecError> {
        for (client, not_run) in clients
            .iter()
            .flat_map(|c| c.not_run.iter().map(move |n| (c, n)))
        {
            if let Some(suite) = &not_run.suite {
                if !suites.iter().any(|s| s.id == suite.value) {
                    return Err(
                        self.error(suite, format!("not_run: unknown suite \"{}\"", suite.value))
                    );
                }
            }
            if let Some(mode) = &not_run.mode {
                if !["NonTransaction", "Transaction", "Pipeline"].contains(&mode.value.as_str()) {
                    return Err(self.error(
                        mode,
                        format!(
                            "not_run: the mode \"{}\" is not NonTransaction, Transaction or Pipeline",
                            mode.value
                        ),
                    ));
                }
            }
            if let Some(server) = &not_run.server {
                if !servers.iter().any(|s| s.id == server.value) {
                    return Err(self.error(
                        server,
                        format!("not_run: unknown server \"{}\"", server.value),
                    ));
                }
            }
            if not_run.suite.is_none() && not_run.mode.is_none() && not_run.server.is_none() {
                return Err(self.error(
                    &client.id,
                    "not_run: an entry needs a suite, a mode or a server, or it would refuse every cell",
                ));
            }
        }
        self.unique("client", clients.iter().map(|c| &c.id))?;
        self.unique(
            "client suffix",
            clients.iter().filter_map(|c| c.suffix.as_ref()),
        )?;
        for suffix in clients.iter().filter_map(|c| c.suffix.as_ref()) {
            if suffix.value.is_empty() || !suffix.value.chars().all(|c| c.is_ascii_alphanumeric()) {
                return Err(self.error(
                    suffix,
                    format!(
                        "the client suffix \"{}\" must be letters and digits",
                        suffix.value
                    ),
                ));
            }
        }
        let defaults: Vec<_> = clients.iter().filter(|c| c.suffix.is_none()).collect();
        if !clients.is_empty() && defaults.len() != 1 {
            let at = defaults.get(1).map_or(&clients[0].id, |c| &c.id);
            return Err(self.error(
                at,
                "exactly one client must be the default (the one without a suffix)",
            ));
        }
        Ok(clients
            .into_iter()
            .map(|c| Client {
                id: c.id.value,
                suffix: c.suffix.map(|s| s.value),
                description: c.description,
                not_run: c
                    .not_run
                    .into_iter()
                    .map(|n| NotRun {
                        suite: n.suite.map(|s| s.value),
                        mode: n.mode.map(|m| m.value),
                        server: n.server.map(|s| s.value),
                        why: n.why,
                    })
                    .collect(),
            })
            .collect())
    }

    /// The load section, checked against the suites: each operation is one suite's, and does its
    /// work and its undo once per i of 1..=N, so that a client can run them one i at a time.
    /// The published pieces: known servers and languages, N ≤ B, rounds above 0, and a minutes
    /// figure above 0 for every `load` and `memory` size.
    fn publish(
        &self,
        publish: Spanned<Publish>,
        servers: &[ServerKind],
        memory: Option<&Memory>,
        load: Option<&Load>,
    ) -> Result<Publish, SpecError> {
        let p = &publish.value;
        let fail = |message: String| Err(self.error(&publish, format!("publish: {message}")));
        let named = p
            .servers
            .iter()
            .chain(p.bench.iter().flat_map(|b| b.servers.values().flatten()))
            .chain(p.memory.iter().flat_map(|m| m.servers.iter().flatten()));
        if let Some(unknown) = named.clone().find(|s| !servers.iter().any(|k| k.id == **s)) {
            return fail(format!("\"{unknown}\" is not one of the spec's servers"));
        }
        let language = |l: &String| LANGUAGES.contains(&l.as_str());
        for size in &p.bench {
            let b = size.background;
            if size.operations == 0 || size.operations > b || size.rounds == 0 {
                return fail(format!(
                    "bench at B = {b}: N must be from 1 to B and rounds above 0"
                ));
            }
            if !size.servers.keys().all(language) {
                return fail(format!(
                    "bench at B = {b}: servers are per language ({})",
                    LANGUAGES.join(", ")
                ));
            }
        }
        if p.load_runs == 0 {
            return fail("load_runs must be 1 or more".into());
        }
        let load_sizes = load.map_or(0, |l| l.sizes.len());
        if !p.load_minutes.keys().all(language)
            || p.load_minutes.values().any(|m| m.len() != load_sizes)
        {
            return fail(format!(
                "load_minutes: one list per language ({}), each with one figure per load size ({load_sizes})",
                LANGUAGES.join(", ")
            ));
        }
        let memory_sizes = memory.map_or(0, |m| m.sizes.len());
        if p.memory.len() != memory_sizes || p.memory.iter().any(|m| m.minutes <= 0.0) {
            return fail(format!(
                "memory: one run per memory size ({memory_sizes}), not {}, each with minutes above 0",
                p.memory.len()
            ));
        }
        Ok(publish.value)
    }

    fn load(
        &self,
        load: Spanned<wire::Load>,
        (suites, backends): (&[Suite], &[Backend]),
        size_count: usize,
    ) -> Result<Load, SpecError> {
        let span = &load;
        let wire = &load.value;
        let positive = wire
            .clients
            .iter()
            .chain(&wire.depths)
            .chain(&wire.client_depths)
            .all(|&n| n > 0);
        let empty =
            wire.clients.is_empty() || wire.depths.is_empty() || wire.client_depths.is_empty();
        if empty || !positive || wire.batch == 0 {
            return Err(self.error(
                span,
                "load: clients, depths, client_depths and batch are whole numbers above 0",
            ));
        }
        if !wire.clients.contains(&wire.latency_clients) {
            return Err(self.error(span, "load: latency_clients must be one of clients"));
        }
        if wire.seconds <= 0.0 || wire.warm_up_seconds < 0.0 {
            return Err(self.error(
                span,
                "load: seconds must be above 0, warm_up_seconds at least 0",
            ));
        }
        let operations = wire
            .operations
            .iter()
            .map(|op| self.load_operation(op, wire, (suites, backends), size_count))
            .collect::<Result<_, _>>()?;
        let wire = load.value;
        Ok(Load {
            sizes: wire.sizes,
            clients: wire.clients,
            depths: wire.depths,
            client_depths: wire.client_depths,
            batch: wire.batch,
            latency_clients: wire.latency_clients,
            warm_up_seconds: wire.warm_up_seconds,
            seconds: wire.seconds,
            operations,
            description: wire.description,
        })
    }

    /// A load operation: of a suite doublets runs, its work and undo one i at a time, and each
    /// pipeline or batch a whole number of them.
    fn load_operation(
        &self,
        op: &wire::LoadOperation,
        wire: &wire::Load,
        (suites, backends): (&[Suite], &[Backend]),
        size_count: usize,
    ) -> Result<LoadOperation, SpecError> {
        let ten = vec![10; size_count];
        let Some((suite, operation)) = suites.iter().find_map(|s| {
            s.operations
                .iter()
                .find(|o| o.id == op.id.value)
                .map(|o| (s, o))
        }) else {
            return Err(self.error(
                &op.id,
                format!("no suite has an operation \"{}\"", op.id.value),
            ));
        };
        // Concurrent clients are measured beside doublets' one store shared by them all.
        let in_process = |name: &String| {
            backends
                .iter()
                .any(|b| &b.name == name && b.layout.is_some())
        };
        if !suite.backends.iter().any(in_process) {
            return Err(self.error(
                &op.id,
                format!(
                    "{}: the load measures clients beside doublets' shared store, and no doublets store runs the suite {}",
                    op.id.value, suite.id
                ),
            ));
        }
        let per_i = |work: &Work| {
            work.range
                .as_ref()
                .is_some_and(|r| r.values(&ten) == Ok((1..=10).collect()))
        };
        if !per_i(&operation.work) || !operation.undo.as_ref().is_none_or(per_i) {
            return Err(self.error(
                &op.id,
                format!("{}: the load runs an operation one i at a time, so its work and undo must run `for: 1 to N`", op.id.value),
            ));
        }
        let step =
            operation.work.requests.len() + operation.undo.as_ref().map_or(0, |u| u.requests.len());
        let deep = wire
            .depths
            .iter()
            .chain(&wire.client_depths)
            .filter(|&&d| d > 1)
            .chain([&wire.batch]);
        if let Some(bad) = deep.into_iter().find(|&&d| d % step != 0) {
            return Err(self.error(
                &op.id,
                format!("{}: a pipeline or batch of {bad} would split its {step} requests per i (work and undo)", op.id.value),
            ));
        }
        Ok(LoadOperation {
            suite: suite.id.clone(),
            id: op.id.value.clone(),
            redis_benchmark: op.redis_benchmark.clone(),
        })
    }

    fn work(
        &self,
        range: Option<Spanned<String>>,
        requests: Vec<Spanned<String>>,
        symbols: &[String],
        reads: &[&str],
    ) -> Result<Work, SpecError> {
        let range = match range {
            Some(r) => Some(Range::parse(&r.value, symbols).map_err(|e| self.error(&r, e))?),
            None => None,
        };
        let mut templates = Vec::new();
        for request in requests {
            let mut words = request.value.split_whitespace();
            let verb = words
                .next()
                .ok_or_else(|| self.error(&request, "an empty request"))?
                .to_string();
            let mut args = Vec::new();
            for word in words {
                args.push(if word == "*" {
                    Arg::Any
                } else {
                    let expr = Expr::parse(word, symbols).map_err(|e| self.error(&request, e))?;
                    if expr.uses_variable() && range.is_none() {
                        return Err(
                            self.error(&request, "i is used, but the work has no `for` range")
                        );
                    }
                    Arg::Value(expr)
                });
            }
            templates.push(Template {
                reads: reads.contains(&verb.as_str()),
                verb,
                args,
                text: request.value.clone(),
                at: self.at(&request),
            });
        }
        if templates.is_empty() {
            return Err(SpecError(format!("{}: a `do` list is empty", self.path)));
        }
        Ok(Work {
            range,
            requests: templates,
        })
    }

    /// A suite's overheads give microseconds: for loads and checks, one for each of its stores;
    /// per item found, and per request in each mode of its backends, for some of its stores or
    /// C# clients. The C# harness's own (`csharp`) give any of these, and have no `csharp` of
    /// their own.
    fn overhead(
        &self,
        overhead: &Spanned<Overhead>,
        listed: &[Spanned<String>],
        backends: &[Backend],
        clients: &[&str],
    ) -> Result<(), SpecError> {
        let mut stores: Vec<&str> = listed
            .iter()
            .filter_map(|b| backends.iter().find(|d| d.name == b.value))
            .map(|d| d.server.as_deref().unwrap_or(&d.family))
            .collect();
        stores.dedup();
        let named: Vec<&str> = stores.iter().chain(clients).copied().collect();
        let mut modes: Vec<&str> = listed.iter().map(|b| mode_of(&b.value)).collect();
        modes.sort();
        modes.dedup();
        let own = overhead.value.csharp.as_deref();
        for (prefix, costs, every) in [("", Some(&overhead.value), true), ("csharp: ", own, false)]
        {
            let Some(costs) = costs else { continue };
            let error = |what: &str, text: String| {
                self.error(overhead, format!("overhead_us: {prefix}{what}: {text}"))
            };
            if !every && costs.csharp.is_some() {
                return Err(error(
                    "csharp",
                    "the C# harness's costs have no csharp of their own".into(),
                ));
            }
            if let Some(mode) = costs.request.keys().find(|m| !modes.contains(&m.as_str())) {
                return Err(error(
                    "request",
                    format!(
                        "\"{mode}\" is no mode of the suite's backends (they are {})",
                        modes.join(", ")
                    ),
                ));
            }
            // Each table, and whether it must name every store (else some stores or clients).
            let tables = [
                ("load".to_string(), &costs.load, every),
                ("check".to_string(), &costs.check, every),
                ("found".to_string(), &costs.found, false),
            ]
            .into_iter()
            .chain(
                costs
                    .request
                    .iter()
                    .map(|(mode, costs)| (format!("request: {mode}"), costs, false)),
            );
            for (what, costs, every) in tables {
                let what = what.as_str();
                let keys = if every { &stores } else { &named };
                if let Some(key) = costs.keys().find(|k| !keys.contains(&k.as_str())) {
                    let (them, they) = match every {
                        false => ("store of the suite or client", "the stores are"),
                        true => ("store of the suite", "they are"),
                    };
                    return Err(error(
                        what,
                        format!("\"{key}\" is no {them} ({they} {})", stores.join(", ")),
                    ));
                }
                if let Some(store) = stores.iter().find(|s| every && !costs.contains_key(**s)) {
                    return Err(error(what, format!("{store} is missing")));
                }
                if let Some((key, cost)) =
                    costs.iter().find(|(_, c)| !(c.is_finite() && **c >= 0.0))
                {
                    return Err(error(
                        what,
                        format!("{key}: {cost} is not a number of microseconds"),
                    ));
                }
            }
        }
        Ok(())
    }

    fn expected(
        &self,
        expected: wire::Expected,
        symbols: &[String],
    ) -> Result<Expected, SpecError> {
        let ids =
            Range::parse(&expected.ids.value, symbols).map_err(|e| self.error(&expected.ids, e))?;
        let times = expected.times.unwrap_or(1);
        if times == 0 {
            return Err(self.error(&expected.ids, "times must be 1 or more"));
        }
        Ok(Expected { ids, times })
    }
}
