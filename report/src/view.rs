//! What the templates see: the spec and the tables with every number already formatted for one
//! language. The templates hold all the wording.

use std::collections::BTreeMap;

use contract::{
    load::LoadRun,
    memory::{Figure, MemoryRun},
    spec::{Spec, Work},
};
use serde::Serialize;

use crate::{
    charts::{Kind, LoadMetric},
    format::{bytes, duration, per_second, significant, whole, Lang},
    tables::{Absence, ClientsTable, Table, Verdict},
};

#[derive(Clone, Serialize)]
pub struct View {
    pub command: String,
    /// The conditions of every run (one size, both languages), before any number.
    pub runs: Vec<RunView>,
    pub sizes: Vec<SizeView>,
    pub family_env: String,
    /// The variables that place the durable stores' files and allow tmpfs for them.
    pub durable_dir_env: String,
    pub durable_tmpfs_env: String,
    pub families: Vec<FamilyView>,
    /// Each durable or distant family and server, with the one it varies (its twin's).
    pub twins: Vec<(String, String)>,
    /// Each durable family and server, with when its files are synced, in a few words.
    pub fsyncs: Vec<(String, String)>,
    pub server_env: String,
    /// How a server cell's time is split (the spec's method text), where the spec splits it.
    pub split: Option<String>,
    /// The servers the redis family can run on, from the spec.
    pub servers: Vec<ServerView>,
    pub client_env: String,
    pub suite_env: String,
    /// The Redis clients C# runs every server backend through, from the spec.
    pub clients: Vec<ClientView>,
    pub suites: Vec<SuiteView>,
    /// The memory measurement's method text, from the spec.
    pub memory_method: Option<String>,
    /// The load measurement's method text, from the spec.
    pub load_method: Option<String>,
    /// What a result's fingerprint covers, from the spec.
    pub fingerprint_paths: Vec<String>,
    /// The statements on the READMEs' first screen, computed from the results.
    pub findings: Vec<crate::findings::Finding>,
    /// Durable or distant stores were measured: the first screen says where, not that they were not.
    pub variants_measured: bool,
    /// The conditions of every figure, which open the findings ([`crate::conditions`]).
    pub conditions: Option<String>,
    /// The published results not of the checkout's code, each set with its label, stated before
    /// the findings built on them.
    pub older_code: Vec<String>,
    /// What a re-measure of the checkout's code has left: a line per piece and the total.
    pub pending: Vec<String>,
    /// What it has kept so far, each piece's time against its estimate, the total last.
    pub ledger: Vec<crate::ledger::Row>,
    /// Each round's machine, for the method page, with the share of other processes' CPU time
    /// above which a round is busy, in percent, and the PINGs of a calibration.
    pub environment: Vec<crate::environment::Row>,
    /// Where the spread comes from, per language, size and kind of store, and the hours apart
    /// that make rounds separate times.
    pub variance: Vec<crate::variance::Row>,
    pub separate_hours: f64,
    pub busy_percent: f64,
    pub pings: usize,
    /// Per suite with Doublets and Redis: Doublets against Redis, operation × size.
    pub headline: Vec<HeadlineView>,
    /// The conditions every run shares, stated once.
    pub common: Vec<String>,
    /// The pages beside the READMEs: (title, link from the README, link from a page).
    pub pages: Vec<(String, String, String)>,
    /// The load page, from the README.
    pub load_link: String,
    /// The README, from a page.
    pub readme_link: String,
    /// The page this view renders; none for the READMEs.
    pub page: Option<crate::pages::Page>,
    /// The page's title.
    pub page_title: String,
    /// The ±5% within which an interval counts as "the same".
    pub equivalent_percent: f64,
    /// The ±10% beyond which a cell's interval is called wide.
    pub wide_percent: f64,
    /// The level a verdict needs (95%), and the fewest rounds that reach it (6).
    pub level_percent: f64,
    pub level_rounds: usize,
}

/// One suite's headline: a row per operation, a column per size, against Redis' fastest mode and
/// against its one request per round trip.
#[derive(Clone, Serialize)]
pub struct HeadlineView {
    suite: String,
    sizes: Vec<String>,
    best: Vec<(String, Vec<String>)>,
    one_by_one: Vec<(String, Vec<String>)>,
    /// Some cell is of older code (marked †).
    older: bool,
}

/// One run's conditions: one size, in every language it was measured in.
#[derive(Clone, Serialize)]
pub struct RunView {
    background_text: String,
    operations_text: String,
    command: String,
    /// The rounds of every language, when they have as many; else none, and each language says.
    rounds: Option<usize>,
    dates: String,
    fingerprint: String,
    commit: String,
    cpu: String,
    cpus: String,
    memory: String,
    kernel: String,
    os: String,
    placement: String,
    languages: Vec<RunLanguageView>,
    /// The machine, when it differs from the other sizes' (else it is stated once, in `common`).
    machine: String,
}

#[derive(Clone, Serialize)]
pub struct RunLanguageView {
    language: String,
    /// The most complete rounds of its tables at this size.
    rounds: usize,
    toolchain: String,
    runtime: String,
    client: String,
    doublets: String,
    redis: String,
    /// The toolchain and libraries, when they differ from the other sizes' (else in `common`).
    tools: String,
    /// What its figures measured, when not the checkout's code.
    label: String,
}

#[derive(Clone, Serialize)]
pub struct SizeView {
    symbol: String,
    env: String,
    default: String,
    description: String,
}

#[derive(Clone, Serialize)]
pub struct FamilyView {
    id: String,
    env_value: String,
    /// Run when the family variable does not say.
    default: bool,
    /// When a write is durable, for a family whose stores keep their data in files.
    durable: Option<String>,
    mode: String,
    samples: usize,
    warm_up: String,
    measurement: String,
    backends: Vec<BackendView>,
}

#[derive(Clone, Serialize)]
pub struct ServerView {
    id: String,
    name: String,
    default: bool,
    /// The command that starts a disposable one.
    start: String,
    description: String,
    /// How its stores are checked after each cell.
    check: String,
    /// Why its cells' time is not split, where it is not.
    split_missing: Option<String>,
    /// When a write is durable, for a server that keeps its data in files.
    durable: Option<String>,
}

#[derive(Clone, Serialize)]
pub struct ClientView {
    id: String,
    /// The suffix its cells' names carry; none for the default client.
    suffix: Option<String>,
    description: String,
    /// (the cells, why) for each of its `not_run` entries.
    not_run: Vec<(String, String)>,
}

#[derive(Clone, Serialize)]
pub struct BackendView {
    name: String,
    description: String,
}

#[derive(Clone, Serialize)]
pub struct SuiteView {
    pub(crate) id: String,
    name: String,
    background: String,
    background_work: String,
    operations: Vec<OperationView>,
    pub(crate) tables: Vec<TableView>,
    /// Operation name → chart of time against B, per language (when several sizes were measured).
    pub(crate) size_charts: Vec<SizeChartsView>,
    pub(crate) memory: Option<MemoryView>,
    pub(crate) load: Vec<LoadView>,
    /// Why a family does not run this suite (the spec's `left_out`).
    left_out: Vec<String>,
    /// Every client of both languages on each server, per size.
    pub(crate) clients: Vec<ClientsView>,
    /// Per load run: each store's reads and writes at the fewest and the most clients.
    pub(crate) load_summary: Vec<LoadSummaryView>,
    /// Durable stores beside the same stores in RAM, and servers a network away beside the same
    /// server on loopback ([`crate::variants`]).
    pub(crate) durable: Vec<crate::variants::SectionView>,
    pub(crate) network: Vec<crate::variants::SectionView>,
}

/// One load run in a line per store: a read and a write operation at the fewest and the most
/// clients (requests per second).
#[derive(Clone, Serialize)]
pub struct LoadSummaryView {
    language: String,
    background_text: String,
    read: String,
    write: String,
    fewest: String,
    most: String,
    rows: Vec<(String, [String; 4])>,
}

/// One server's cells of a suite through every client: a row per operation and client, a column
/// per mode.
#[derive(Clone, Serialize)]
pub struct ClientsView {
    background_text: String,
    operations_text: String,
    server: String,
    modes: Vec<String>,
    rows: Vec<ClientsRowView>,
    /// (client, mode, why) for the cells a client cannot run.
    cannot: Vec<(String, String, String)>,
    /// (mode, chart): one chart per mode, a series per client.
    charts: Vec<(String, String)>,
    rounds: usize,
    /// What it measured, when not the checkout's code.
    label: String,
}

#[derive(Clone, Serialize)]
pub struct ClientsRowView {
    /// The operation's name on its first client's row, empty below it.
    operation: String,
    client: String,
    cells: Vec<CellView>,
}

/// One load run's tables for a suite.
#[derive(Clone, Serialize)]
pub struct LoadView {
    /// "Rust" or "C#".
    language: String,
    /// What the server rows are in this language.
    rows_note: String,
    background_text: String,
    /// "K = 1", … for the columns.
    clients: Vec<String>,
    throughput: Vec<LoadRowView>,
    latency_clients_text: String,
    latency: Vec<LatencyRowView>,
    /// redis-benchmark's test per row, each cell "ours / theirs (ratio)".
    versus: Vec<LoadRowView>,
    /// (operation, requests per second chart, p99 chart): the first read, then the first write.
    charts: Vec<(String, String, String)>,
    date: String,
    cpu: String,
    cpus: String,
    servers: String,
    clock: String,
    fingerprint: String,
    commit: String,
    command: String,
    /// What it measured, when not the checkout's code.
    label: String,
}

#[derive(Clone, Serialize)]
pub struct LoadRowView {
    operation: String,
    store: String,
    /// redis-benchmark's test and depth (versus rows only).
    test: String,
    cells: Vec<String>,
}

#[derive(Clone, Serialize)]
pub struct LatencyRowView {
    operation: String,
    store: String,
    batch: usize,
    p50: String,
    p90: String,
    p99: String,
    p999: String,
    max: String,
}

/// What each store holds in memory for the suite's background, at every B measured.
#[derive(Clone, Serialize)]
pub struct MemoryView {
    rows: Vec<MemoryRowView>,
    chart: Option<String>,
    /// The conditions of the runs: one line per distinct value.
    date: String,
    cpu: String,
    redis: String,
    allocator: String,
    fingerprint: String,
    /// What its runs measured, when not the checkout's code.
    label: String,
    /// Stores a run at some B did not measure: (store, the sizes), so a missing row says why.
    missing: Vec<(String, String)>,
}

#[derive(Clone, Serialize)]
pub struct MemoryRowView {
    store: String,
    background_text: String,
    accounted: String,
    reserved: String,
    rss_growth: String,
    rss_total: String,
    per_b: String,
    ratio: String,
}

#[derive(Clone, Serialize)]
pub struct OperationView {
    id: String,
    name: String,
    /// Requests one iteration makes, in terms of N ("N", "2N", "1").
    requests: String,
    description: String,
    work: String,
    undo: Option<String>,
    expected: String,
    times: u64,
}

#[derive(Clone, Serialize)]
pub struct TableView {
    pub(crate) language: String,
    /// The client of its server columns (C#: the default one, as the run names it).
    client: String,
    pub(crate) background: u64,
    background_text: String,
    operations: u64,
    operations_text: String,
    backends: Vec<String>,
    rows: Vec<RowView>,
    /// One extra column per further server: (server, against), e.g. ("Garnet", "Redis").
    versus: Vec<(String, String)>,
    provenance: BTreeMap<String, String>,
    absences: Vec<AbsenceView>,
    chart_time: String,
    /// The method page, from the document this table is in.
    method_link: String,
    chart_relative: Option<String>,
    rounds: usize,
    /// The command that measures this table again (this size, in the languages measured at it).
    command: String,
    /// What it measured, when not the checkout's code.
    label: String,
    /// Where each server cell's time went, where its server reported it.
    splits: Vec<SplitView>,
    /// Why the server cells of a server in its columns have no split, one sentence a server.
    unsplit: Vec<String>,
    /// (backend, link) of each split chart.
    split_charts: Vec<(String, String)>,
}

/// One server cell's split ([`crate::tables::SplitCell`]), its figures as the page prints them.
#[derive(Clone, Serialize)]
pub struct SplitView {
    operation: String,
    backend: String,
    wall: String,
    executing: String,
    scripts: String,
    transaction: String,
    rest: String,
    server_cpu: String,
    client_cpu: String,
    /// How many times as long the server's execution alone took as Doublets' faster store.
    versus_doublets: String,
}

#[derive(Clone, Serialize)]
pub struct RowView {
    name: String,
    cells: Vec<CellView>,
    /// The further servers' comparisons, in the order of the table's `versus`.
    versus: Vec<CellView>,
}

#[derive(Clone, Serialize)]
pub struct CellView {
    time: Option<String>,
    /// "±3%": half the median's interval, relative to the median; empty with one round.
    spread: String,
    /// The interval is wider than ±10% of the median on either side: the cell says so.
    wide: bool,
    bold: bool,
    verdict: Option<Verdict>,
    /// How many times faster or slower (≥ 1), in the verdict's direction.
    ratio: String,
    /// The ratio itself, the reference's time over the cell's, for a comparison without a
    /// verdict: "0.96×".
    point: String,
    /// The comparison's interval, "0.9–1.3×", and its level, "75%"; empty with one round.
    interval: String,
    level: String,
    /// The ratio as printed, for plural forms: a whole number when printed without decimals.
    ratio_value: serde_json::Value,
    /// The server the comparison is against, named when the table has several.
    than: String,
}

#[derive(Clone, Serialize)]
pub struct AbsenceView {
    cell: String,
    reason: Absence,
}

#[derive(Clone, Serialize)]
pub struct SizeChartsView {
    pub(crate) language: String,
    operations_text: String,
    charts: Vec<(String, String)>,
}

/// The language names tables print.
pub fn language_name(id: &str) -> &'static str {
    match id {
        "csharp" => "C#",
        _ => "Rust",
    }
}

/// How many requests `work` makes, as a multiple of N: measured at two N, so that "for i in 1 to
/// N: update i 0 0; update i i i" reads "2N" and a single query "1".
fn requests_per_iteration(work: &Work) -> String {
    let count = |n: u64| {
        work.requests(&[1_000_000, n], |_, _| Ok(()))
            .map_or(0, |r| r.len() as u64)
    };
    let (one, two) = (count(100), count(200));
    let per_n = (two - one) / 100;
    let fixed = one - per_n * 100;
    match (per_n, fixed) {
        (0, c) => c.to_string(),
        (1, 0) => "N".into(),
        (k, 0) => format!("{k}N"),
        (1, c) => format!("N + {c}"),
        (k, c) => format!("{k}N + {c}"),
    }
}

/// A range of ids as the spec writes it ("1 to N", "B down to B-N+1") in the reader's language.
fn range_text(range: &str, lang: Lang) -> String {
    if lang == Lang::En {
        return range.to_string();
    }
    match (range.split_once(" down to "), range.split_once(" to ")) {
        (Some((from, to)), _) => format!("от {from} вниз до {to}"),
        (None, Some((from, to))) => format!("от {from} до {to}"),
        _ => range.to_string(),
    }
}

fn work(work: &Work) -> String {
    let requests: Vec<&str> = work.requests.iter().map(|t| t.text.as_str()).collect();
    match &work.range {
        Some(range) => format!("for i in {range}: {}", requests.join("; ")),
        None => requests.join("; "),
    }
}

/// A ratio as [`significant`] prints it: whole from 100 up, with decimals below.
fn printed(ratio: f64) -> serde_json::Value {
    if ratio >= 100.0 {
        serde_json::Value::from(
            significant(ratio, Lang::En)
                .replace(',', "")
                .parse::<u64>()
                .unwrap_or(0),
        )
    } else {
        serde_json::Value::from(ratio)
    }
}

/// Chart file names, relative to the charts folder: ".ru.svg" for the Russian README's.
pub(crate) fn svg(stem: String, lang: Lang) -> String {
    match lang {
        Lang::En => format!("{stem}.svg"),
        Lang::Ru => format!("{stem}.ru.svg"),
    }
}

pub fn load_chart_name(
    run: &LoadRun,
    suite: &str,
    kind: &str,
    metric: LoadMetric,
    lang: Lang,
) -> String {
    let what = match metric {
        LoadMetric::PerSecond => "per-second",
        LoadMetric::P99 => "p99",
    };
    let (language, b) = (run.language(), run.background);
    svg(format!("load-{language}-{suite}-b{b}{kind}-{what}"), lang)
}

pub fn load_chart_title(
    language: &str,
    suite: &str,
    operation: &str,
    background: u64,
    metric: LoadMetric,
    lang: Lang,
) -> String {
    let (language, b) = (language_name(language), whole(background, lang));
    match (metric, lang) {
        (LoadMetric::PerSecond, Lang::En) => {
            format!(
                "{language}, {suite}, {operation}: requests per second against clients (B = {b})"
            )
        }
        (LoadMetric::PerSecond, Lang::Ru) => {
            format!("{language}, {suite}, {operation}: запросов в секунду в зависимости от числа клиентов (B = {b})")
        }
        (LoadMetric::P99, Lang::En) => {
            format!("{language}, {suite}, {operation}: p99 latency against clients (B = {b})")
        }
        (LoadMetric::P99, Lang::Ru) => {
            format!("{language}, {suite}, {operation}: задержка p99 в зависимости от числа клиентов (B = {b})")
        }
    }
}

/// What a load table's server rows are, per language: Rust's through redis-rs at each depth, C#'s
/// one request at a time per client through each client library, named by its suffix.
fn load_rows_note(spec: &Spec, load: &contract::spec::Load, run: &LoadRun, lang: Lang) -> String {
    let runs = match (run.provenance.get("runs"), lang) {
        (Some(n), Lang::En) => format!("each cell the median of {n} runs [their lowest–highest]; "),
        (Some(n), Lang::Ru) => {
            format!("в каждой ячейке медиана {n} запусков [их наименьшее–наибольшее]; ")
        }
        (None, Lang::En) => "one run; ".to_string(),
        (None, Lang::Ru) => "один запуск; ".to_string(),
    };
    runs + &load_servers_note(spec, load, run, lang)
}

/// What a load table's server rows are, per language.
fn load_servers_note(
    spec: &Spec,
    load: &contract::spec::Load,
    run: &LoadRun,
    lang: Lang,
) -> String {
    let client = run.provenance.get("client").cloned().unwrap_or_default();
    if run.language() == "rust" {
        let deep: Vec<String> = load
            .depths
            .iter()
            .filter(|&&d| d > 1)
            .map(|d| d.to_string())
            .collect();
        let deep = deep.join(", ");
        return match lang {
            Lang::En => format!("server rows through {client}: `_NonTransaction` is one request per round trip, `_Pipeline` pipelines of {deep}"),
            Lang::Ru => format!("строки серверов через {client}: `_NonTransaction` — один запрос за обмен, `_Pipeline` — конвейеры по {deep}"),
        };
    }
    let (default, others): (Vec<_>, Vec<_>) = spec.clients.iter().partition(|c| c.suffix.is_none());
    let default = default.first().map_or(String::new(), |c| c.id.clone());
    let others: Vec<String> = others
        .iter()
        .map(|c| format!("`_{}` {}", c.suffix.as_deref().unwrap_or_default(), c.id))
        .collect();
    let others = others.join(", ");
    match lang {
        Lang::En => format!("server rows: one request at a time per client, each client library shared by the K clients as the method says; `_NonTransaction` alone is {default}, {others}"),
        Lang::Ru => format!("строки серверов: по одному запросу за раз на клиента, каждую клиентскую библиотеку K клиентов делят, как сказано в методике; `_NonTransaction` без суффикса — {default}, {others}"),
    }
}

/// The series of one load chart: (store, its batch, one point per K of (K, requests per second,
/// p99 in ns)).
pub type LoadSeries = Vec<(String, usize, Vec<(u64, f64, f64)>)>;

/// A suite's load charts for one run: its first read and its first write operation the run
/// measured, each as (file stem's suffix, operation name, series). Reads keep the plain name.
pub fn load_chart_series(
    spec: &Spec,
    run: &LoadRun,
    suite: &str,
) -> Vec<(&'static str, String, LoadSeries)> {
    let (Some(load), Some(of_suite)) = (spec.load.as_ref(), spec.suite(suite)) else {
        return Vec::new();
    };
    let writes = |id: &str| !crate::findings::reads_only(spec, id);
    [("", false), ("-writes", true)]
        .into_iter()
        .filter_map(|(suffix, write)| {
            let operation = load
                .operations
                .iter()
                .filter(|o| o.suite == suite && writes(&o.id) == write)
                .find(|o| run.figures.iter().any(|f| f.operation == o.id))?;
            let mut series: LoadSeries = Vec::new();
            for f in run.figures.iter().filter(|f| f.operation == operation.id) {
                let point = (f.clients as u64, f.per_second, f.latency_ns.p99 as f64);
                match series.iter_mut().find(|(store, ..)| *store == f.backend) {
                    Some((_, _, points)) => points.push(point),
                    None => series.push((f.backend.clone(), f.batch, vec![point])),
                }
            }
            let name = of_suite
                .operations
                .iter()
                .find(|o| o.id == operation.id)
                .map_or(operation.id.clone(), |o| o.name.clone());
            Some((suffix, name, series))
        })
        .collect()
}

/// A suite's load tables, one per run that measured it.
fn load_views(
    spec: &Spec,
    code: &crate::measured::Code,
    runs: &[LoadRun],
    suite: &str,
    charts_link: &str,
    lang: Lang,
) -> Vec<LoadView> {
    let Some(load) = &spec.load else {
        return Vec::new();
    };
    let name = |id: &str| {
        spec.suite(suite)
            .and_then(|s| s.operations.iter().find(|o| o.id == id))
            .map_or(id.to_string(), |o| o.name.clone())
    };
    let mut views = Vec::new();
    for run in runs {
        let chart_series = load_chart_series(spec, run, suite);
        if chart_series.is_empty() {
            continue;
        }
        let figures = LoadFigures {
            load,
            run,
            suite,
            figures: run.figures.iter().filter(|f| f.suite == suite).collect(),
            name: &name,
            lang,
        };
        let get = |key: &str| run.provenance.get(key).cloned().unwrap_or_default();
        let chart = |kind, metric| {
            format!(
                "{charts_link}/{}",
                load_chart_name(run, suite, kind, metric, lang)
            )
        };
        views.push(LoadView {
            language: language_name(run.language()).to_string(),
            rows_note: load_rows_note(spec, load, run, lang),
            background_text: whole(run.background, lang),
            clients: load.clients.iter().map(|k| format!("K = {k}")).collect(),
            throughput: figures.throughput(),
            latency_clients_text: whole(load.latency_clients as u64, lang),
            latency: figures.latency(),
            versus: figures.versus(),
            charts: chart_series
                .iter()
                .map(|(kind, operation, _)| {
                    (
                        operation.clone(),
                        chart(kind, LoadMetric::PerSecond),
                        chart(kind, LoadMetric::P99),
                    )
                })
                .collect(),
            date: prefix(&get("date"), 10).to_string(),
            cpu: get("cpu"),
            cpus: get("cpus"),
            servers: provenance_text(&get("redis"), lang),
            clock: crate::format::trim_zeros(significant(run.clock_ns, lang)),
            fingerprint: prefix(&get("fingerprint"), 12).to_string(),
            commit: prefix(&get("commit"), 12).to_string(),
            command: reproduce_load(spec, run),
            label: crate::measured::run_note(code, &run.provenance, lang),
        });
    }
    views
}

/// One load run's figures of one suite, for its tables.
struct LoadFigures<'a> {
    load: &'a contract::spec::Load,
    run: &'a LoadRun,
    suite: &'a str,
    figures: Vec<&'a contract::load::Figure>,
    /// An operation's name, by its id.
    name: &'a dyn Fn(&str) -> String,
    lang: Lang,
}

impl LoadFigures<'_> {
    fn find(&self, op: &str, backend: &str, k: usize) -> Option<&contract::load::Figure> {
        self.figures
            .iter()
            .copied()
            .find(|f| f.operation == op && f.backend == backend && f.clients == k)
    }

    /// Requests per second: a row per operation and store, a cell per K.
    fn throughput(&self) -> Vec<LoadRowView> {
        let mut keys: Vec<(&str, &str)> = Vec::new();
        for f in &self.figures {
            if !keys.contains(&(f.operation.as_str(), f.backend.as_str())) {
                keys.push((&f.operation, &f.backend));
            }
        }
        keys.iter()
            .map(|(op, backend)| LoadRowView {
                operation: (self.name)(op),
                store: backend.to_string(),
                test: String::new(),
                cells: self
                    .load
                    .clients
                    .iter()
                    .map(|&k| {
                        self.find(op, backend, k)
                            .map_or("—".into(), |f| self.rate(f))
                    })
                    .collect(),
            })
            .collect()
    }

    /// A cell's requests per second: the median of its runs, with the lowest and highest where
    /// there are several.
    fn rate(&self, f: &contract::load::Figure) -> String {
        let median = per_second(f.per_second, self.lang);
        let lowest = f.runs.iter().copied().reduce(f64::min);
        let highest = f.runs.iter().copied().reduce(f64::max);
        match (lowest, highest) {
            (Some(lo), Some(hi)) if f.runs.len() > 1 => format!(
                "{median} [{}–{}]",
                per_second(lo, self.lang),
                per_second(hi, self.lang)
            ),
            _ => median,
        }
    }

    /// The latency percentiles at the spec's K.
    fn latency(&self) -> Vec<LatencyRowView> {
        let d = |ns: u64| duration(ns as f64, self.lang);
        self.figures
            .iter()
            .filter(|f| f.clients == self.load.latency_clients)
            .map(|f| {
                let l = &f.latency_ns;
                LatencyRowView {
                    operation: (self.name)(&f.operation),
                    store: f.backend.clone(),
                    batch: f.batch,
                    p50: d(l.p50),
                    p90: d(l.p90),
                    p99: d(l.p99),
                    p999: d(l.p999),
                    max: d(l.max),
                }
            })
            .collect()
    }

    /// Each server cell against redis-benchmark beside it: ours / theirs (ratio), a cell per K.
    fn versus(&self) -> Vec<LoadRowView> {
        let (run, suite, lang) = (self.run, self.suite, self.lang);
        let mut tests: Vec<(&str, &str, &str, usize)> = Vec::new();
        for r in run.redis_benchmark.iter().filter(|r| r.suite == suite) {
            let key = (
                r.operation.as_str(),
                r.backend.as_str(),
                r.test.as_str(),
                r.depth,
            );
            if !tests.contains(&key) {
                tests.push(key);
            }
        }
        tests
            .iter()
            .map(|&(op, backend, test, depth)| LoadRowView {
                operation: (self.name)(op),
                store: backend.to_string(),
                test: format!("{} -P {depth}", test.to_uppercase()),
                cells: self
                    .load
                    .clients
                    .iter()
                    .map(|&k| {
                        let theirs = run.redis_benchmark.iter().find(|r| {
                            r.suite == suite
                                && r.operation == op
                                && r.backend == backend
                                && r.clients == k
                        });
                        match (self.find(op, backend, k), theirs) {
                            (Some(ours), Some(theirs)) => format!(
                                "{} / {} ({}×)",
                                per_second(ours.per_second, lang),
                                per_second(theirs.per_second, lang),
                                significant(ours.per_second / theirs.per_second, lang)
                            ),
                            _ => "—".into(),
                        }
                    })
                    .collect(),
            })
            .collect()
    }
}

/// The command that measures a load run again.
fn reproduce_load(spec: &Spec, run: &LoadRun) -> String {
    let mut parts: Vec<String> = servers_variable(spec, &run.provenance)
        .into_iter()
        .collect();
    parts.push(format!(
        "BENCHMARK_LANGUAGES={} examples/measure-load.sh {}",
        run.language(),
        run.background
    ));
    parts.join(" ")
}

/// A table has a fastest server mode in some row, so the relative chart has a reference.
pub fn has_server(table: &Table) -> bool {
    table
        .rows
        .iter()
        .flat_map(|r| &r.cells)
        .any(|c| c.as_ref().is_ok_and(|c| c.fastest_server))
}

pub fn chart_name(table: &Table, kind: Kind, lang: Lang) -> String {
    let kind = match kind {
        Kind::Time => "time",
        Kind::Relative => "relative",
        Kind::Twin => "twin",
    };
    svg(format!("{}-{kind}", table.id()), lang)
}

/// A chart's second, smaller line: "1 round" where its figures are one round's points, which have
/// no interval, "3 rounds: 75% intervals" where its intervals are below the level a verdict needs,
/// and the code it measured where that is not the checkout's. Empty, or "\n" and the line.
pub(crate) fn second_line(
    rounds: usize,
    measured: &crate::measured::MeasuredCode,
    lang: Lang,
) -> String {
    let rounds = match (crate::stats::level(rounds), lang) {
        (None, Lang::En) => "1 round".into(),
        (None, Lang::Ru) => "1 раунд".into(),
        (Some(level), _) if level >= crate::stats::LEVEL => String::new(),
        (Some(level), Lang::En) => {
            format!(
                "{rounds} rounds: {} intervals",
                crate::stats::level_text(level)
            )
        }
        (Some(level), Lang::Ru) => format!(
            "{rounds} {}: интервалы {}",
            ["раунд", "раунда", "раундов"][crate::format::russian_form(rounds as u64)],
            crate::stats::level_text(level)
        ),
    };
    let older = crate::measured::mark(measured, lang);
    match (rounds.is_empty(), older.is_empty()) {
        (true, _) => older,
        (false, true) => format!("\n{rounds}"),
        (false, false) => format!("\n{rounds} · {}", older.trim_start()),
    }
}

/// What every chart title of a table names: its language, "B = …, N = …", and its second line.
fn title_parts(t: &Table, lang: Lang) -> (&'static str, String, String) {
    let sizes = crate::format::sizes(t.background, t.operations, lang);
    (
        language_name(&t.language),
        sizes,
        second_line(t.rounds, &t.measured, lang),
    )
}

pub fn chart_title(table: &Table, suite: &str, kind: Kind, lang: Lang) -> String {
    let (language, sizes, older) = title_parts(table, lang);
    match (kind, lang) {
        (Kind::Time, Lang::En) => format!("{language}, {suite}: time per iteration ({sizes}){older}"),
        (Kind::Time, Lang::Ru) => format!("{language}, {suite}: время итерации ({sizes}){older}"),
        (Kind::Relative, Lang::En) => format!(
            "{language}, {suite}: time relative to the fastest server mode ({sizes}){older}"
        ),
        (Kind::Relative, Lang::Ru) => format!(
            "{language}, {suite}: время относительно самого быстрого режима сервера ({sizes}){older}"
        ),
        (Kind::Twin, Lang::En) => format!(
            "{language}, {suite}: time relative to the same store in RAM on loopback ({sizes}){older}"
        ),
        (Kind::Twin, Lang::Ru) => format!(
            "{language}, {suite}: время относительно того же хранилища в ОЗУ на loopback ({sizes}){older}"
        ),
    }
}

/// The server backends of a table whose cells have a split (the default client's), in column order.
pub fn split_backends(t: &Table) -> Vec<&str> {
    t.backends
        .iter()
        .filter(|b| t.splits.iter().any(|s| &s.backend == *b))
        .map(String::as_str)
        .collect()
}

pub fn split_chart_name(t: &Table, backend: &str, lang: Lang) -> String {
    svg(format!("{}-split-{}", t.id(), backend.to_lowercase()), lang)
}

pub fn split_chart_title(t: &Table, suite: &str, backend: &str, lang: Lang) -> String {
    let (language, sizes, older) = title_parts(t, lang);
    match lang {
        Lang::En => format!("{language}, {suite}, {backend}: where the time goes ({sizes}){older}"),
        Lang::Ru => format!("{language}, {suite}, {backend}: на что уходит время ({sizes}){older}"),
    }
}

pub fn clients_chart_name(t: &ClientsTable, mode: &str, lang: Lang) -> String {
    svg(
        format!(
            "clients-{}-b{}-n{}-{}-{}",
            t.suite,
            t.background,
            t.operations,
            t.server,
            mode.to_lowercase()
        ),
        lang,
    )
}

pub fn clients_chart_title(t: &ClientsTable, suite: &str, mode: &str, lang: Lang) -> String {
    let sizes = crate::format::sizes(t.background, t.operations, lang);
    let older = second_line(t.rounds, &t.measured, lang);
    match lang {
        Lang::En => format!(
            "{suite} on {}, {mode}: every client, time per iteration ({sizes}){older}",
            t.server_name
        ),
        Lang::Ru => format!(
            "{suite} на {}, {mode}: все клиенты, время итерации ({sizes}){older}",
            t.server_name
        ),
    }
}

/// A clients table's view: each operation's fastest cell in bold.
fn clients_view(
    spec: &Spec,
    t: &ClientsTable,
    op_name: &dyn Fn(&str) -> String,
    charts_link: &str,
    lang: Lang,
) -> ClientsView {
    let text = |t: &contract::spec::Text| lang.text(t);
    let mut rows = Vec::new();
    let mut cannot = Vec::new();
    for (operation, by_client) in &t.rows {
        let fastest = by_client
            .iter()
            .flatten()
            .filter_map(|c| c.as_ref().ok())
            .map(|c| c.median_ns)
            .min_by(f64::total_cmp);
        for (k, (client, cells)) in t.clients.iter().zip(by_client).enumerate() {
            rows.push(ClientsRowView {
                operation: if k == 0 {
                    op_name(operation)
                } else {
                    String::new()
                },
                client: client.clone(),
                cells: cells
                    .iter()
                    .zip(&t.modes)
                    .map(|(cell, mode)| match cell {
                        Ok(c) => CellView {
                            time: Some(duration(c.median_ns, lang)),
                            spread: spread(c.interval_ns, c.median_ns),
                            wide: c
                                .interval_ns
                                .is_some_and(|i| crate::stats::wide(c.median_ns, i)),
                            bold: Some(c.median_ns) == fastest,
                            ..empty_cell()
                        },
                        Err(absence) => {
                            if *absence == Absence::ClientCannot {
                                let id = client.split(' ').next().unwrap_or_default();
                                if let Some(n) =
                                    spec.clients.iter().filter(|c| c.id == id).find_map(|c| {
                                        let server =
                                            spec.servers.iter().find(|s| s.id == t.server)?;
                                        let backend = format!("{}_{mode}", server.name);
                                        c.refuses(&t.suite, spec.backend(&backend))
                                    })
                                {
                                    // One line per client and reason, its modes joined.
                                    let why = text(&n.why);
                                    match cannot.iter_mut().find(
                                        |(c, _, w): &&mut (String, String, String)| {
                                            c == id && *w == why
                                        },
                                    ) {
                                        Some((_, modes, _))
                                            if !modes.split(", ").any(|m| m == mode) =>
                                        {
                                            modes.push_str(&format!(", {mode}"))
                                        }
                                        Some(_) => {}
                                        None => cannot.push((id.to_string(), mode.clone(), why)),
                                    }
                                }
                            }
                            empty_cell()
                        }
                    })
                    .collect(),
            });
        }
    }
    ClientsView {
        background_text: whole(t.background, lang),
        operations_text: whole(t.operations, lang),
        server: t.server_name.clone(),
        modes: t.modes.clone(),
        rows,
        cannot,
        charts: t
            .modes
            .iter()
            .map(|m| {
                (
                    m.clone(),
                    format!("{charts_link}/{}", clients_chart_name(t, m, lang)),
                )
            })
            .collect(),
        rounds: t.rounds,
        label: crate::measured::note(&t.measured, lang),
    }
}

fn empty_cell() -> CellView {
    CellView {
        time: None,
        spread: String::new(),
        wide: false,
        point: String::new(),
        level: String::new(),
        interval: String::new(),
        bold: false,
        verdict: None,
        ratio: String::new(),
        ratio_value: serde_json::Value::Null,
        than: String::new(),
    }
}

pub fn memory_chart_name(suite: &str, lang: Lang) -> String {
    svg(format!("memory-{suite}"), lang)
}

pub fn memory_chart_title(suite: &str, lang: Lang) -> String {
    match lang {
        Lang::En => format!("{suite}: resident memory per B against B"),
        Lang::Ru => format!("{suite}: резидентная память на единицу B в зависимости от B"),
    }
}

/// The suite's memory rows, store by store in the spec's order, then by B; each store's resident
/// growth against Redis' at the same B.
fn memory_view(
    suite: &str,
    code: &crate::measured::Code,
    runs: &[MemoryRun],
    chart: Option<String>,
    order: &[String],
    lang: Lang,
) -> Option<MemoryView> {
    let mut figures: Vec<&Figure> = runs
        .iter()
        .flat_map(|r| &r.figures)
        .filter(|f| f.suite == suite)
        .collect();
    if figures.is_empty() {
        return None;
    }
    let rank = |backend: &str| {
        order
            .iter()
            .position(|b| b == backend)
            .unwrap_or(if backend == "Redis" {
                order.len()
            } else {
                usize::MAX
            })
    };
    figures.sort_by_key(|f| (rank(&f.backend), f.background));
    let size = |n: u64| bytes(n as f64, lang);
    let rows = figures
        .iter()
        .map(|f| {
            let redis = figures
                .iter()
                .find(|r| r.backend == "Redis" && r.background == f.background && r.rss_growth > 0);
            MemoryRowView {
                store: f.backend.clone(),
                background_text: whole(f.background, lang),
                accounted: size(f.accounted),
                reserved: f.reserved.map_or("—".into(), size),
                rss_growth: size(f.rss_growth),
                rss_total: size(f.rss_total),
                per_b: bytes(f.per_background(), lang),
                ratio: redis.map_or("—".into(), |r| {
                    format!(
                        "{}×",
                        significant(f.rss_growth as f64 / r.rss_growth as f64, lang)
                    )
                }),
            }
        })
        .collect();
    let provenance = |key: &str, cut: usize| {
        distinct(
            runs.iter()
                .filter_map(|r| r.provenance.get(key).map(|v| prefix(v, cut))),
            "; ",
        )
    };
    let mut stores: Vec<&str> = Vec::new();
    for f in &figures {
        if !stores.contains(&f.backend.as_str()) {
            stores.push(&f.backend);
        }
    }
    let missing = stores
        .iter()
        .filter_map(|store| {
            let sizes: Vec<String> = runs
                .iter()
                .filter(|r| r.figures.iter().any(|f| f.suite == suite))
                .filter(|r| {
                    !r.figures
                        .iter()
                        .any(|f| f.suite == suite && f.backend == *store)
                })
                .map(|r| whole(r.background, lang))
                .collect();
            (!sizes.is_empty()).then(|| (store.to_string(), sizes.join(", ")))
        })
        .collect();
    Some(MemoryView {
        rows,
        chart,
        date: provenance("date", 10),
        cpu: provenance("cpu", usize::MAX),
        // Each run names all its servers: each server once.
        redis: provenance_text(
            &distinct(
                runs.iter()
                    .filter_map(|r| r.provenance.get("redis"))
                    .flat_map(|v| v.split("; ")),
                "; ",
            ),
            lang,
        ),
        allocator: distinct(figures.iter().filter_map(|f| f.allocator.as_deref()), ", "),
        fingerprint: provenance("fingerprint", 12),
        label: distinct(
            runs.iter()
                .map(|r| crate::measured::run_note(code, &r.provenance, lang))
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .iter()
                .map(String::as_str),
            " ",
        ),
        missing,
    })
}

pub fn size_chart_name(language: &str, operations: u64, operation: &str, lang: Lang) -> String {
    svg(format!("{language}-{operation}-n{operations}-sizes"), lang)
}

pub fn size_chart_title(language: &str, operation: &str, operations: u64, lang: Lang) -> String {
    let language = language_name(language);
    let n = whole(operations, lang);
    match lang {
        Lang::En => format!("{language}, {operation}: time per iteration against B (N = {n})"),
        Lang::Ru => format!("{language}, {operation}: время итерации в зависимости от B (N = {n})"),
    }
}

/// The charts the report drew besides the tables' own.
pub struct Charts<'a> {
    /// (language, N, operation): time against B.
    pub sizes: &'a std::collections::BTreeSet<(String, u64, String)>,
    /// Suites with a chart of memory per B against B.
    pub memory: &'a std::collections::BTreeSet<String>,
}

/// The view of every README section and page, in `lang`: the spec's method text, the inputs'
/// tables, findings, memory and load, with links to the charts `charts` drew.
pub fn build(
    inputs: &crate::Inputs,
    charts: &Charts<'_>,
    charts_link: &str,
    pages_link: &str,
    command: &str,
    lang: Lang,
) -> View {
    let crate::Inputs {
        spec,
        code,
        tables,
        variant_tables: variants,
        memory,
        load,
        ..
    } = inputs;
    let text = |t: &contract::spec::Text| lang.text(t);
    // Built once for every suite's section, not once per suite.
    let clients = crate::tables::clients(spec, tables);
    let lines = crate::headline::lines(spec, tables);
    // The method page from this document: a table's split links its section.
    let method = crate::pages::Page::Method.file(lang);
    let method_link = match pages_link {
        "" => method,
        pages => format!("{pages}/{method}"),
    };
    let (runs, mut common) = stated_once(runs(spec, tables, lang), lang);
    let older_code = crate::measured::older_code(tables, memory, load, code, lang);
    common.extend(older_code.iter().map(|o| format!("\n{o}")));
    View {
        command: command.to_string(),
        runs,
        common,
        findings: crate::findings::findings(
            spec,
            (tables, variants, &lines),
            memory,
            load,
            pages_link,
            lang,
        ),
        variants_measured: !variants.is_empty(),
        conditions: crate::conditions::conditions(spec, tables, lang),
        older_code,
        pending: Vec::new(),
        ledger: crate::ledger::rows(&inputs.ledger.iter().collect::<Vec<_>>(), lang),
        environment: crate::environment::rows(tables, lang),
        variance: crate::variance::rows(spec, tables, lang),
        separate_hours: crate::variance::SEPARATE_HOURS,
        busy_percent: (contract::conditions::BUSY_ABOVE * 100.0).round(),
        pings: contract::conditions::PINGS,
        headline: headline_views(spec, &lines, lang),
        pages: Vec::new(),
        load_link: String::new(),
        readme_link: String::new(),
        page: None,
        page_title: String::new(),
        equivalent_percent: ((crate::stats::EQUIVALENT_WITHIN - 1.0) * 100.0).round(),
        wide_percent: (crate::stats::WIDE * 100.0).round(),
        level_percent: (crate::stats::LEVEL * 100.0).round(),
        level_rounds: crate::stats::rounds_for_level(),
        sizes: size_views(spec, lang),
        family_env: spec.family_env.clone(),
        twins: spec
            .families
            .iter()
            .map(|f| (&f.id, &f.variant_of))
            .chain(spec.servers.iter().map(|s| (&s.id, &s.variant_of)))
            .filter_map(|(id, of)| Some((id.clone(), of.clone()?)))
            .collect(),
        fsyncs: spec
            .families
            .iter()
            .map(|f| (&f.id, &f.fsync))
            .chain(spec.servers.iter().map(|s| (&s.id, &s.fsync)))
            .filter_map(|(id, fsync)| Some((id.clone(), text(fsync.as_ref()?))))
            .collect(),
        durable_dir_env: spec.durable_dir_env.clone(),
        durable_tmpfs_env: spec.durable_tmpfs_env.clone(),
        server_env: spec.server_env.clone(),
        client_env: spec.client_env.clone(),
        suite_env: spec.suite_env.clone(),
        servers: server_views(spec, lang),
        split: spec.split.as_ref().map(|plan| text(&plan.description)),
        clients: client_views(spec, lang),
        families: family_views(spec, lang),
        suites: spec
            .suites
            .iter()
            .map(|suite| {
                suite_view(
                    inputs,
                    suite,
                    &clients,
                    charts,
                    (charts_link, &method_link),
                    lang,
                )
            })
            .collect(),
        memory_method: spec.memory.as_ref().map(|m| text(&m.description)),
        load_method: spec.load.as_ref().map(|l| text(&l.description)),
        fingerprint_paths: spec.fingerprint.clone(),
    }
}

/// An operation's name by its id (any suite's), or the id.
fn operation_name(spec: &Spec, id: &str) -> String {
    spec.suites
        .iter()
        .flat_map(|s| &s.operations)
        .find(|o| o.id == id)
        .map_or(id.to_string(), |o| o.name.clone())
}

/// The sizes as the method text gives them: symbol, variable, default.
fn size_views(spec: &Spec, lang: Lang) -> Vec<SizeView> {
    spec.sizes
        .iter()
        .map(|s| SizeView {
            symbol: s.symbol.clone(),
            env: s.env.clone(),
            default: whole(s.default, lang),
            description: lang.text(&s.description),
        })
        .collect()
}

/// The servers as the method text gives them: how each starts and is checked.
fn server_views(spec: &Spec, lang: Lang) -> Vec<ServerView> {
    let text = |t: &contract::spec::Text| lang.text(t);
    spec.servers
        .iter()
        .map(|s| ServerView {
            id: s.id.clone(),
            name: s.name.clone(),
            default: s.default,
            start: s
                .start
                .iter()
                .map(|a| {
                    if a.is_empty() {
                        "''".to_string()
                    } else {
                        a.clone()
                    }
                })
                .collect::<Vec<_>>()
                .join(" "),
            description: text(&s.description),
            durable: s.durable.as_ref().map(text),
            check: text(&s.check),
            split_missing: s.split_missing.as_ref().map(text),
        })
        .collect()
}

/// The .NET clients, with the cells each cannot run and why.
fn client_views(spec: &Spec, lang: Lang) -> Vec<ClientView> {
    let text = |t: &contract::spec::Text| lang.text(t);
    spec.clients
        .iter()
        .map(|c| ClientView {
            id: c.id.clone(),
            suffix: c.suffix.clone(),
            description: text(&c.description),
            not_run: c
                .not_run
                .iter()
                .map(|n| (not_run_cells(spec, n, lang), text(&n.why)))
                .collect(),
        })
        .collect()
}

/// The families with their sampling and backends.
fn family_views(spec: &Spec, lang: Lang) -> Vec<FamilyView> {
    let text = |t: &contract::spec::Text| lang.text(t);
    let seconds = |s: f64| crate::format::trim_zeros(significant(s, lang));
    spec.families
        .iter()
        .map(|f| FamilyView {
            id: f.id.clone(),
            env_value: f.env_value.clone(),
            default: f.default,
            durable: f.durable.as_ref().map(text),
            mode: format!("{:?}", f.sampling.mode).to_lowercase(),
            samples: f.sampling.samples,
            warm_up: seconds(f.sampling.warm_up_seconds),
            measurement: seconds(f.sampling.measurement_seconds),
            backends: spec
                .backends
                .iter()
                .filter(|b| b.family == f.id)
                .map(|b| BackendView {
                    name: b.name.clone(),
                    description: text(&b.description),
                })
                .collect(),
        })
        .collect()
}

/// One suite's section: its method text, tables, clients, memory, load and variant stores.
fn suite_view(
    inputs: &crate::Inputs,
    suite: &contract::spec::Suite,
    clients: &[crate::tables::ClientsTable],
    charts: &Charts<'_>,
    (charts_link, method_link): (&str, &str),
    lang: Lang,
) -> SuiteView {
    let (spec, code, load) = (&inputs.spec, &inputs.code, &inputs.load);
    let text = |t: &contract::spec::Text| lang.text(t);
    let op_name = |id: &str| operation_name(spec, id);
    let section = |suite: &str, kind| {
        crate::variants::views(spec, &inputs.variant_tables, suite, kind, charts_link, lang)
    };
    SuiteView {
        id: suite.id.clone(),
        name: text(&suite.name),
        background: text(&suite.background_description),
        background_work: work(&suite.background),
        operations: suite
            .operations
            .iter()
            .map(|op| OperationView {
                id: op.id.clone(),
                name: op.name.clone(),
                requests: requests_per_iteration(&op.work),
                description: text(&op.description),
                work: work(&op.work),
                undo: op.undo.as_ref().map(work),
                expected: range_text(&op.expected.ids.to_string(), lang),
                times: op.expected.times,
            })
            .collect(),
        memory: memory_view(
            &suite.id,
            code,
            &inputs.memory,
            charts
                .memory
                .contains(&suite.id)
                .then(|| format!("{charts_link}/{}", memory_chart_name(&suite.id, lang))),
            &suite.backends,
            lang,
        ),
        load: load_views(spec, code, load, &suite.id, charts_link, lang),
        load_summary: load_summaries(spec, load, &suite.id, lang),
        durable: section(&suite.id, crate::variants::Kind::Durable),
        network: section(&suite.id, crate::variants::Kind::Network),
        left_out: suite.left_out.values().map(&text).collect(),
        clients: clients
            .iter()
            .filter(|t| t.suite == suite.id)
            .map(|t| clients_view(spec, t, &op_name, charts_link, lang))
            .collect(),
        tables: inputs
            .tables
            .iter()
            .filter(|t| t.suite == suite.id)
            .map(|t| {
                table(
                    spec,
                    t,
                    &inputs.tables,
                    &op_name,
                    (charts_link, method_link),
                    lang,
                )
            })
            .collect(),
        size_charts: size_charts(suite, charts, charts_link, lang),
    }
}

/// A suite's charts of time against B, by language and N (Rust first), each operation's in the
/// suite's order.
fn size_charts(
    suite: &contract::spec::Suite,
    charts: &Charts<'_>,
    charts_link: &str,
    lang: Lang,
) -> Vec<SizeChartsView> {
    let mut by_language: BTreeMap<(String, u64), Vec<(String, String)>> = BTreeMap::new();
    for (language, operations, operation) in charts.sizes {
        if let Some(op) = suite.operations.iter().find(|o| &o.id == operation) {
            let file = size_chart_name(language, *operations, operation, lang);
            by_language
                .entry((language.clone(), *operations))
                .or_default()
                .push((op.name.clone(), format!("{charts_link}/{file}")));
        }
    }
    let mut views: Vec<(u64, SizeChartsView)> = by_language
        .into_iter()
        .map(|((language, operations), mut charts)| {
            charts.sort_by_key(|(name, _)| suite.operations.iter().position(|o| &o.name == name));
            let view = SizeChartsView {
                language: language_name(&language).to_string(),
                operations_text: whole(operations, lang),
                charts,
            };
            (operations, view)
        })
        .collect();
    views.sort_by_key(|(n, v)| (v.language != "Rust", *n));
    views.into_iter().map(|(_, v)| v).collect()
}

fn table(
    spec: &Spec,
    t: &Table,
    tables: &[Table],
    op_name: &dyn Fn(&str) -> String,
    (charts_link, method_link): (&str, &str),
    lang: Lang,
) -> TableView {
    let server_name = |backend: &str| {
        spec.server_of(backend)
            .map_or(String::new(), |s| s.name.clone())
    };
    let mut servers: Vec<String> = t.backends.iter().map(|b| server_name(b)).collect();
    servers.retain(|s| !s.is_empty());
    servers.dedup();
    let mut versus: Vec<(String, String)> = t
        .rows
        .iter()
        .flat_map(|r| &r.servers)
        .map(|s| (s.server.clone(), s.against.clone()))
        .collect();
    versus.sort_by_key(|(server, _)| servers.iter().position(|s| s == server));
    versus.dedup();
    let absent = empty_cell;
    let verdict = |c: crate::tables::Comparison, than: String| comparison_view(c, than, lang);
    TableView {
        language: language_name(&t.language).to_string(),
        client: t
            .provenance
            .get("client")
            .and_then(|c| c.split("; ").next())
            .unwrap_or_default()
            .to_string(),
        background: t.background,
        background_text: whole(t.background, lang),
        operations: t.operations,
        operations_text: whole(t.operations, lang),
        backends: t.backends.clone(),
        rows: t
            .rows
            .iter()
            .map(|row| {
                // Naming the server only matters when there is more than one to be faster than.
                let than = match (&row.fastest, servers.len() > 1) {
                    (Some(fastest), true) => server_name(fastest),
                    _ => String::new(),
                };
                RowView {
                    name: op_name(&row.operation),
                    cells: row
                        .cells
                        .iter()
                        .map(|cell| match cell {
                            Ok(c) => CellView {
                                time: Some(duration(c.median_ns, lang)),
                                spread: spread(c.interval_ns, c.median_ns),
                                wide: c
                                    .interval_ns
                                    .is_some_and(|i| crate::stats::wide(c.median_ns, i)),
                                bold: c.fastest_server,
                                ..c.comparison
                                    .map_or_else(absent, |c| verdict(c, than.clone()))
                            },
                            Err(_) => absent(),
                        })
                        .collect(),
                    versus: versus
                        .iter()
                        .map(|(server, against)| {
                            row.servers
                                .iter()
                                .find(|s| &s.server == server && &s.against == against)
                                .map_or_else(absent, |s| verdict(s.comparison, String::new()))
                        })
                        .collect(),
                }
            })
            .collect(),
        versus,
        provenance: t.provenance.clone(),
        absences: t
            .absences()
            .map(|(op, backend, reason)| AbsenceView {
                cell: format!("{} / {backend}", op_name(op)),
                reason,
            })
            .collect(),
        chart_time: format!("{charts_link}/{}", chart_name(t, Kind::Time, lang)),
        method_link: method_link.to_string(),
        chart_relative: has_server(t)
            .then(|| format!("{charts_link}/{}", chart_name(t, Kind::Relative, lang))),
        rounds: t.rounds,
        command: reproduce(spec, t, tables),
        label: crate::measured::note(&t.measured, lang),
        splits: splits(spec, t, op_name, lang),
        unsplit: unsplit(spec, t, lang),
        split_charts: split_backends(t)
            .into_iter()
            .map(|b| {
                (
                    b.to_string(),
                    format!("{charts_link}/{}", split_chart_name(t, b, lang)),
                )
            })
            .collect(),
    }
}

/// Why a table's cells of each of its servers have no split: the spec's reason for a server that
/// reports none, or, for one that does, that its results came before the split.
fn unsplit(spec: &Spec, t: &Table, lang: Lang) -> Vec<String> {
    spec.servers
        .iter()
        .filter(|server| {
            t.backends
                .iter()
                .any(|b| spec.backend(b).server.as_deref() == Some(server.id.as_str()))
        })
        .filter(|server| {
            !t.splits.iter().any(|s| {
                let base = spec
                    .backend_client(&s.backend)
                    .map_or(s.backend.as_str(), |(b, _)| b.name.as_str());
                spec.store_of(base) == server.id
            })
        })
        .map(|server| match (&server.split_missing, refused(t, &server.name), lang) {
            (Some(why), _, _) => format!("{}.", lang.text(why)),
            (None, Some(words), Lang::En) => format!(
                "The {} cells are not split: the server refused the readings (INFO cpu commandstats), answering “{words}”.",
                server.name
            ),
            (None, Some(words), Lang::Ru) => format!(
                "Ячейки {} не разбиты: сервер отказал в чтении INFO cpu commandstats, ответив «{words}».",
                server.name
            ),
            (None, None, Lang::En) => format!(
                "The {} cells are not split here: these results were measured before the bench split server cells.",
                server.name
            ),
            (None, None, Lang::Ru) => format!(
                "Ячейки {} здесь не разбиты: эти результаты измерены раньше, чем бенчмарк стал разбивать ячейки серверов.",
                server.name
            ),
        })
        .collect()
}

/// The words of server `name` where it refused the readings of a split, as the table's inputs
/// recorded them (their `unsplit` line: "Redis: NOPERM …; Garnet: …", inputs that differ joined
/// by " / ").
fn refused<'t>(t: &'t Table, name: &str) -> Option<&'t str> {
    let prefix = format!("{name}: ");
    t.provenance
        .get("unsplit")?
        .split(" / ")
        .flat_map(|v| v.split("; "))
        .find_map(|r| r.strip_prefix(&prefix))
}

/// A table's split cells as its page prints them, each beside the row's faster Doublets store.
fn splits(spec: &Spec, t: &Table, op_name: &dyn Fn(&str) -> String, lang: Lang) -> Vec<SplitView> {
    t.splits
        .iter()
        .map(|s| {
            let doublets = t
                .rows
                .iter()
                .find(|r| r.operation == s.operation)
                .into_iter()
                .flat_map(|r| t.backends.iter().zip(&r.cells))
                .filter(|(b, _)| spec.backend(b).family == "doublets")
                .filter_map(|(_, c)| c.as_ref().ok().map(|c| c.median_ns))
                .fold(None, |fastest: Option<f64>, m| {
                    Some(fastest.map_or(m, |f| f.min(m)))
                });
            // A share that is not there (no script, no transaction) reads 0, not "0.000 ns".
            let us = |ns: f64| match ns {
                0.0 => "0".to_string(),
                ns => duration(ns, lang),
            };
            SplitView {
                operation: op_name(&s.operation),
                backend: s.backend.clone(),
                wall: us(s.split.wall_ns),
                executing: us(s.split.execution_ns()),
                scripts: us(s.split.script_ns),
                transaction: us(s.split.transaction_ns),
                rest: us(s.split.rest_ns()),
                server_cpu: us(s.split.server_cpu_ns),
                client_cpu: us(s.split.client_cpu_ns),
                versus_doublets: doublets
                    .filter(|d| *d > 0.0)
                    .map(|d| {
                        format!(
                            "{}×",
                            crate::findings::times(s.split.execution_ns() / d, lang)
                        )
                    })
                    .unwrap_or_else(|| "—".into()),
            }
        })
        .collect()
}

/// The cells a client's `not_run` entry covers, as the method page names them: "the Payloads
/// suite, Transaction mode", "the RedisUnix server".
fn not_run_cells(spec: &Spec, n: &contract::spec::NotRun, lang: Lang) -> String {
    let suite = n.suite.as_deref().map(|id| {
        let name = spec
            .suite(id)
            .map_or(id.to_string(), |s| lang.text(&s.name));
        match lang {
            Lang::En => format!("the {name} suite"),
            Lang::Ru => format!("набор «{name}»"),
        }
    });
    let mode = n.mode.as_deref().map(|m| match lang {
        Lang::En => format!("{m} mode"),
        Lang::Ru => format!("режим {m}"),
    });
    let server = n.server.as_deref().map(|id| {
        let name = spec
            .servers
            .iter()
            .find(|s| s.id == id)
            .map_or(id, |s| &s.name);
        match lang {
            Lang::En => format!("the {name} server"),
            Lang::Ru => format!("сервер {name}"),
        }
    });
    [suite, mode, server]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(", ")
}

/// The first `cut` characters of `text`.
fn prefix(text: &str, cut: usize) -> &str {
    text.char_indices()
        .nth(cut)
        .map_or(text, |(at, _)| &text[..at])
}

/// Each value once, in order, joined.
fn distinct<'a>(values: impl Iterator<Item = &'a str>, separator: &str) -> String {
    let mut values: Vec<&str> = values.collect();
    values.sort_unstable();
    values.dedup();
    values.join(separator)
}

/// A comparison as a cell shows it: the factor ≥ 1 in the verdict's direction, the ratio itself,
/// and the interval with its level.
fn comparison_view(c: crate::tables::Comparison, than: String, lang: Lang) -> CellView {
    let factor = if c.ratio >= 1.0 {
        c.ratio
    } else {
        1.0 / c.ratio
    };
    CellView {
        verdict: Some(c.verdict),
        ratio: significant(factor, lang),
        ratio_value: printed(factor),
        point: ratio_text(c.ratio, lang),
        level: c.level.map(crate::stats::level_text).unwrap_or_default(),
        interval: match (c.low, c.high) {
            (Some(lo), Some(hi)) => format!(
                "{}–{}×",
                crate::findings::times(lo, lang),
                crate::findings::times(hi, lang)
            ),
            _ => String::new(),
        },
        than,
        ..empty_cell()
    }
}

/// Half the interval relative to the median, in whole percent ("±3%", "±<1%"); empty with one
/// round, which has no interval.
pub(crate) fn spread(interval: Option<(f64, f64)>, median: f64) -> String {
    let Some((low, high)) = interval else {
        return String::new();
    };
    let percent = 50.0 * (high - low) / median.max(f64::MIN_POSITIVE);
    if percent < 1.0 {
        "±<1%".into()
    } else {
        format!("±{percent:.0}%")
    }
}

/// `BENCHMARK_SERVERS=…` when a run chose other servers than the spec's defaults.
pub(crate) fn servers_variable(
    spec: &Spec,
    provenance: &BTreeMap<String, String>,
) -> Option<String> {
    let defaults: Vec<&str> = spec
        .servers
        .iter()
        .filter(|s| s.default)
        .map(|s| s.id.as_str())
        .collect();
    provenance
        .get("servers")
        .filter(|s| **s != defaults.join(","))
        .map(|servers| format!("{}={servers}", spec.server_env))
}

/// The command that measures a table's size again, as its runs were made: in the table's language
/// alone unless every other language's `tables` of that size were measured the same way (rounds,
/// servers, placement), so that one command remakes them all.
pub(crate) fn reproduce(spec: &Spec, t: &Table, tables: &[Table]) -> String {
    let conditions = |t: &Table| {
        // examples/run-comparison.sh measures as many rounds as a verdict needs unless told.
        let rounds = (t.rounds != crate::stats::rounds_for_level())
            .then(|| format!("BENCHMARK_ROUNDS={}", t.rounds));
        let servers = servers_variable(spec, &t.provenance);
        let cpus = t
            .provenance
            .get("placement")
            .filter(|p| *p != "unpinned")
            .map(|cpus| format!("BENCHMARK_CPUS={cpus}"));
        (rounds, [servers, cpus])
    };
    let own = conditions(t);
    let mut others = tables
        .iter()
        .filter(|o| {
            (o.background, o.operations) == (t.background, t.operations) && o.language != t.language
        })
        .peekable();
    let alone = others.peek().is_none() || others.any(|o| conditions(o) != own);
    let (rounds, rest) = own;
    let language = alone.then(|| format!("BENCHMARK_LANGUAGES={}", t.language));
    rounds
        .into_iter()
        .chain(language)
        .chain(rest.into_iter().flatten())
        .chain([format!(
            "examples/run-comparison.sh {} {}",
            t.background, t.operations
        )])
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every run's conditions: the tables of one size (B, N), all languages, read once.
fn runs(spec: &Spec, tables: &[Table], lang: Lang) -> Vec<RunView> {
    let mut sizes: Vec<(u64, u64)> = tables
        .iter()
        .map(|t| (t.background, t.operations))
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    sizes
        .into_iter()
        .map(|(b, n)| {
            let of_size: Vec<&Table> = tables
                .iter()
                .filter(|t| (t.background, t.operations) == (b, n))
                .collect();
            let provenance = |key: &str, cut: usize| {
                distinct(
                    of_size.iter().flat_map(|t| {
                        let value = t.provenance.get(key).map_or("unknown", String::as_str);
                        // A key whose rounds disagree holds "a / b": each value once.
                        value.split(" / ").map(move |v| prefix(v, cut))
                    }),
                    ", ",
                )
            };
            let rounds = crate::tables::rounds_by_language(of_size.iter().copied());
            let mut languages: Vec<RunLanguageView> = Vec::new();
            for t in &of_size {
                let name = language_name(&t.language).to_string();
                if languages.iter().any(|l| l.language == name) {
                    continue;
                }
                let get = |key: &str| t.provenance.get(key).cloned().unwrap_or_default();
                languages.push(RunLanguageView {
                    language: name,
                    rounds: rounds[t.language.as_str()],
                    toolchain: get("toolchain"),
                    runtime: get("runtime"),
                    client: get("client"),
                    doublets: match lang {
                        Lang::En => get("doublets"),
                        Lang::Ru => get("doublets")
                            .replace("(Rust core via P/Invoke)", "(ядро на Rust через P/Invoke)"),
                    },
                    redis: provenance_text(&get("redis"), lang),
                    tools: String::new(),
                    label: crate::measured::note(&t.measured, lang),
                });
            }
            RunView {
                background_text: whole(b, lang),
                operations_text: whole(n, lang),
                // One command per language when they were measured differently.
                command: {
                    let commands: Vec<String> =
                        of_size.iter().map(|t| reproduce(spec, t, tables)).collect();
                    distinct(commands.iter().map(String::as_str), "; ")
                },
                rounds: {
                    let mut rounds = languages.iter().map(|l| l.rounds);
                    let first = rounds.next();
                    first.filter(|r| rounds.all(|o| o == *r))
                },
                dates: provenance("date", 10),
                fingerprint: provenance("fingerprint", 12),
                commit: provenance("commit", 12),
                cpu: provenance("cpu", usize::MAX),
                cpus: provenance("cpus", usize::MAX),
                memory: provenance_text(&provenance("memory", usize::MAX), lang),
                kernel: provenance("kernel", usize::MAX),
                os: provenance("os", usize::MAX),
                placement: provenance("placement", usize::MAX),
                languages,
                machine: String::new(),
            }
        })
        .collect()
}

/// A run's machine in words.
/// Where the servers and the bench ran, in words, from the provenance's `placement`.
pub(crate) fn placement(placement: &str, lang: Lang) -> String {
    match (placement, lang) {
        ("unpinned", Lang::En) => {
            "unpinned: the servers, the bench and its client shared every CPU".to_string()
        }
        ("unpinned", Lang::Ru) => {
            "без закрепления: серверы, бенчмарк и его клиент делили все процессоры".to_string()
        }
        (cpus, Lang::En) => format!("the servers and the bench pinned to CPUs {cpus}"),
        (cpus, Lang::Ru) => format!("серверы и бенчмарк закреплены за процессорами {cpus}"),
    }
}

fn machine(r: &RunView, lang: Lang) -> String {
    let placement = placement(&r.placement, lang);
    match lang {
        Lang::En => format!(
            "{}, {} logical CPUs, {} memory, {}, {}; {placement}",
            r.cpu, r.cpus, r.memory, r.os, r.kernel
        ),
        Lang::Ru => format!(
            "{}, логических процессоров: {}, память {}, {}, {}; {placement}",
            r.cpu, r.cpus, r.memory, r.os, r.kernel
        ),
    }
}

/// A language's toolchain and libraries in words (its servers are per size).
fn tools(l: &RunLanguageView) -> String {
    let runtime = if l.runtime.is_empty() {
        String::new()
    } else {
        format!(" ({})", l.runtime)
    };
    format!("{}{runtime}, {}, {}", l.toolchain, l.client, l.doublets)
}

/// What every size shares goes into one block, stated once; a size keeps only what differs.
fn stated_once(mut runs: Vec<RunView>, lang: Lang) -> (Vec<RunView>, Vec<String>) {
    let mut common = Vec::new();
    let machines: Vec<String> = runs.iter().map(|r| machine(r, lang)).collect();
    if machines.windows(2).all(|w| w[0] == w[1]) {
        if let Some(m) = machines.first() {
            common.push(match lang {
                Lang::En => format!("Machine: {m}."),
                Lang::Ru => format!("Машина: {m}."),
            });
        }
    } else {
        for (r, m) in runs.iter_mut().zip(machines) {
            r.machine = m;
        }
    }
    let names: Vec<String> = runs
        .iter()
        .flat_map(|r| r.languages.iter().map(|l| l.language.clone()))
        .fold(Vec::new(), |mut names, n| {
            if !names.contains(&n) {
                names.push(n);
            }
            names
        });
    for name in names {
        let all: Vec<String> = runs
            .iter()
            .flat_map(|r| r.languages.iter().filter(|l| l.language == name).map(tools))
            .collect();
        if all.windows(2).all(|w| w[0] == w[1]) {
            common.push(format!("{name}: {}.", all[0]));
        } else {
            for l in runs.iter_mut().flat_map(|r| r.languages.iter_mut()) {
                if l.language == name {
                    l.tools = tools(l);
                }
            }
        }
    }
    (runs, common)
}

/// "261×", "0.52×".
pub(crate) fn ratio_text(value: f64, lang: Lang) -> String {
    format!("{}×", crate::findings::times(value, lang))
}

/// A headline cell for one language: "Rust 261× [190–300×, 96.9%]", "C# 145× (1 round)", and
/// the verdict in words where it is not "faster" (which the number says), none below 95%.
pub(crate) fn headline_cell(r: &crate::stats::Ratio, language: &str, lang: Lang) -> String {
    use crate::stats::Verdict;
    let point = ratio_text(r.ratio, lang);
    let interval = match (r.low, r.high, r.level) {
        (Some(lo), Some(hi), Some(level)) => format!(
            " [{}–{}, {}]",
            crate::findings::times(lo, lang),
            ratio_text(hi, lang),
            crate::stats::level_text(level)
        ),
        _ => match lang {
            Lang::En => " (1 round)".into(),
            Lang::Ru => " (1 раунд)".into(),
        },
    };
    let verdict = match (r.verdict, lang) {
        (Verdict::Faster | Verdict::NoVerdict, _) => "",
        (Verdict::Slower, Lang::En) => " slower",
        (Verdict::Slower, Lang::Ru) => " медленнее",
        (Verdict::Same, Lang::En) => " same",
        (Verdict::Same, Lang::Ru) => " одинаково",
        (Verdict::Inconclusive, Lang::En) => " inconclusive",
        (Verdict::Inconclusive, Lang::Ru) => " не установлено",
    };
    format!("{language} {point}{interval}{verdict}")
}

/// Each suite's headline tables, from the headline lines.
fn headline_views(spec: &Spec, lines: &[crate::headline::Line], lang: Lang) -> Vec<HeadlineView> {
    spec.suites
        .iter()
        .filter_map(|suite| {
            let of: Vec<&crate::headline::Line> =
                lines.iter().filter(|l| l.suite == suite.id).collect();
            if of.is_empty() {
                return None;
            }
            let mut sizes: Vec<(u64, u64)> =
                of.iter().map(|l| (l.background, l.operations)).collect();
            sizes.sort_unstable();
            sizes.dedup();
            let rows =
                |pick: &dyn Fn(&crate::headline::Line) -> Option<&crate::headline::Ratio>| {
                    suite
                        .operations
                        .iter()
                        .filter(|op| of.iter().any(|l| l.operation == op.id))
                        .map(|op| {
                            let cells = sizes
                                .iter()
                                .map(|&(b, n)| {
                                    let parts: Vec<String> = of
                                        .iter()
                                        .filter(|l| {
                                            l.operation == op.id
                                                && (l.background, l.operations) == (b, n)
                                        })
                                        .filter_map(|l| {
                                            pick(l).map(|r| {
                                                let mark = if l.current { "" } else { "†" };
                                                let language =
                                                    format!("{}{mark}", language_name(&l.language));
                                                headline_cell(r, &language, lang)
                                            })
                                        })
                                        .collect();
                                    if parts.is_empty() {
                                        "—".to_string()
                                    } else {
                                        parts.join(" · ")
                                    }
                                })
                                .collect();
                            (op.name.clone(), cells)
                        })
                        .collect()
                };
            Some(HeadlineView {
                suite: lang.text(&suite.name),
                sizes: sizes
                    .iter()
                    .map(|&(b, n)| format!("B = {}, N = {}", whole(b, lang), whole(n, lang)))
                    .collect(),
                best: rows(&|l| Some(&l.best)),
                one_by_one: rows(&|l| l.one_by_one.as_ref()),
                older: of.iter().any(|l| !l.current),
            })
        })
        .collect()
}

/// Each load run's summary for a suite: a line per store, its first read and first write
/// operation at the fewest and the most clients.
fn load_summaries(spec: &Spec, runs: &[LoadRun], suite: &str, lang: Lang) -> Vec<LoadSummaryView> {
    let Some(load) = &spec.load else {
        return Vec::new();
    };
    let (Some(&fewest), Some(&most)) = (load.clients.first(), load.clients.last()) else {
        return Vec::new();
    };
    let Some(of_suite) = spec.suite(suite) else {
        return Vec::new();
    };
    let writes = |id: &str| !crate::findings::reads_only(spec, id);
    let name = |id: &str| {
        of_suite
            .operations
            .iter()
            .find(|o| o.id == id)
            .map_or(id.to_string(), |o| o.name.clone())
    };
    runs.iter()
        .filter_map(|run| {
            let figures: Vec<_> = run.figures.iter().filter(|f| f.suite == suite).collect();
            let first = |write: bool| {
                load.operations
                    .iter()
                    .filter(|o| o.suite == suite && writes(&o.id) == write)
                    .find(|o| figures.iter().any(|f| f.operation == o.id))
                    .map(|o| o.id.clone())
            };
            let (read, write) = (first(false), first(true));
            if read.is_none() && write.is_none() {
                return None;
            }
            let (read, write) = (read.unwrap_or_default(), write.unwrap_or_default());
            let mut stores: Vec<&str> = Vec::new();
            for f in &figures {
                if !stores.contains(&f.backend.as_str()) {
                    stores.push(&f.backend);
                }
            }
            let rate = |op: &str, store: &str, k: usize| {
                figures
                    .iter()
                    .find(|f| f.operation == op && f.backend == store && f.clients == k)
                    .map_or("—".into(), |f| per_second(f.per_second, lang))
            };
            Some(LoadSummaryView {
                language: language_name(run.language()).to_string(),
                background_text: whole(run.background, lang),
                read: if read.is_empty() {
                    "—".into()
                } else {
                    name(&read)
                },
                write: if write.is_empty() {
                    "—".into()
                } else {
                    name(&write)
                },
                fewest: whole(fewest as u64, lang),
                most: whole(most as u64, lang),
                rows: stores
                    .iter()
                    .map(|store| {
                        (
                            store.to_string(),
                            [
                                rate(&read, store, fewest),
                                rate(&read, store, most),
                                rate(&write, store, fewest),
                                rate(&write, store, most),
                            ],
                        )
                    })
                    .collect(),
            })
        })
        .collect()
}

/// A provenance value in the reader's language: the words the runs record in English ("functions:",
/// "GiB") in Russian; names and versions stay.
pub(crate) fn provenance_text(value: &str, lang: Lang) -> String {
    match lang {
        Lang::En => value.to_string(),
        Lang::Ru => value
            .replace("functions:", "функции:")
            .replace("scripts:", "скрипты:")
            .replace(" GiB", " ГиБ")
            .replace(" MiB", " МиБ"),
    }
}

/// A store's name with its batch, for a latency legend: "Redis_Pipeline (16 a batch)".
pub fn batch_name(store: &str, batch: usize, lang: Lang) -> String {
    match (batch, lang) {
        (1, Lang::En) => format!("{store} (1 request)"),
        (1, Lang::Ru) => format!("{store} (1 запрос)"),
        (n, Lang::En) => format!("{store} ({n} a batch)"),
        (n, Lang::Ru) => format!("{store} (пачка {n})"),
    }
}
