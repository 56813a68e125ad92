//! docs/results.json: every number the READMEs show, for programs. The JSON Schema beside it
//! (docs/results.schema.json) is generated from these types, so the two cannot drift apart;
//! [`VERSION`] changes whenever a field changes meaning.

use std::collections::BTreeMap;

use contract::{
    load::{self, BenchmarkFigure, LoadRun},
    memory::{Figure, MemoryRun},
};
use schemars::JsonSchema;
use serde::Serialize;

use crate::{
    measured::{Code, MeasuredCode},
    tables::{self, Absence, Table, Verdict},
};

/// The version of this format.
pub const VERSION: u32 = 15;

/// docs/results.json.
#[derive(Serialize, JsonSchema)]
#[schemars(
    title = "RedisVSDoublets results",
    description = "Every figure the READMEs publish: time per iteration for each language, suite and size, what each store holds in memory, and throughput and latency under concurrent clients. Made by `cargo run -p report` from the result files in docs/sample-results."
)]
pub struct Results {
    /// The version of this format; it changes whenever a field changes meaning.
    pub version: u32,
    /// One table per language, suite and size (B, N).
    pub tables: Vec<TableJson>,
    /// One memory run per B.
    pub memory: Vec<MemoryJson>,
    /// One load run (concurrent clients) per language and B.
    pub load: Vec<LoadJson>,
    /// Per language, suite, size and operation: Doublets' faster store against Redis' fastest mode
    /// and against its one request per round trip, each ratio (the median of the rounds' own
    /// ratios) with its order-statistic interval over the rounds and that interval's `level`
    /// (none with one round), and a verdict (`none` below 95%). New in version 7, changed in 9.
    pub headline: Vec<crate::headline::Line>,
    /// Per language, suite and size: the geometric mean over the operations of the headline's
    /// ratios against Redis' fastest mode (`against: fastest`) and against one request per round
    /// trip (`one_by_one`), each round's mean taken over that round's ratios, then the median
    /// over rounds with its interval, level and verdict as for one ratio. New in version 10.
    pub summary: Vec<crate::headline::Summary>,
    /// Per language, suite and size: each store made durable, or moved to a host of its own,
    /// against the same store in RAM on loopback (its twin), measured in the same rounds. New in
    /// version 12.
    pub variants: Vec<VariantJson>,
}

/// A durable or distant store against its twin, in one language, suite and size.
#[derive(Serialize, JsonSchema)]
pub struct VariantJson {
    pub kind: crate::variants::Kind,
    /// `rust` or `csharp`.
    pub language: String,
    pub suite: String,
    /// B and N.
    pub background: u64,
    pub operations: u64,
    pub rounds: usize,
    /// The variant's backend (`RedisAof_Pipeline`) and its twin's (`Redis_Pipeline`).
    pub backend: String,
    pub twin: String,
    /// A durable store's sync, in a few words (the spec's `fsync`).
    pub fsync: Option<String>,
    /// A distant server's round trip in µs: as the run measured it (200 PINGs), else as the spec sets it.
    pub round_trip_us: Option<f64>,
    /// The run's line on where the files lay (`durable`: the file system and its fdatasync
    /// latency) or on the networks (`network`).
    pub conditions: Option<String>,
    pub measured: MeasuredCode,
    pub rows: Vec<VariantRowJson>,
}

/// One operation of a variant against its twin.
#[derive(Serialize, JsonSchema)]
pub struct VariantRowJson {
    pub operation: String,
    pub variant: CellJson,
    pub twin: CellJson,
    /// The variant's time over its twin's (above 1: the variant is slower): the median of the
    /// rounds' own ratios, with their interval where there are several rounds.
    pub slowdown: Option<RatioJson>,
    /// A distant server: how many round trips one iteration waits on, from the growth of its
    /// time over its group's farthest and nearest hosts.
    pub round_trips_per_iteration: Option<f64>,
}

/// A ratio of paired rounds with its order-statistic interval and that interval's level.
#[derive(Serialize, JsonSchema)]
pub struct RatioJson {
    pub ratio: f64,
    pub low: Option<f64>,
    pub high: Option<f64>,
    pub level: Option<f64>,
}

/// The load measurement of one language at one B: every store, operation and number of clients.
#[derive(Serialize, JsonSchema)]
pub struct LoadJson {
    /// The language that measured it: `rust` or `csharp`.
    pub language: String,
    /// B: background links (or keys) every store held.
    pub background: u64,
    /// What one reading of the clock cost, in nanoseconds.
    pub clock_ns: f64,
    /// The conditions, as the result file gives them; whole numbers are numbers.
    pub provenance: BTreeMap<String, Value>,
    /// The code it measured, and whether that is the checkout's. New in version 8.
    pub measured: Option<MeasuredCode>,
    /// One per load cell (an operation on a store with K clients), as the result file holds it,
    /// requests per second to 3 significant digits. Changed in version 13: the latencies are one
    /// object, `latency_ns`, as in the result files. New in version 14: where the plan's runs
    /// (`publish.load_runs`) were taken apart, each figure is their median and `runs` holds each
    /// run's requests per second.
    pub figures: Vec<load::Figure>,
    /// redis-benchmark beside the server cells: the same server, clients and depth (Rust's runs).
    pub redis_benchmark: Vec<BenchmarkFigure>,
}

/// One language, suite and size: a row per operation, a cell per backend.
#[derive(Serialize, JsonSchema)]
pub struct TableJson {
    /// `rust` or `csharp`.
    pub language: String,
    /// The suite's id in spec/benchmarks.yaml (`links`, `typical`).
    pub suite: String,
    /// B: background links (or keys) every store held.
    pub background: u64,
    /// N: operations per iteration.
    pub operations: u64,
    /// How many rounds each cell was measured in.
    pub rounds: usize,
    /// The conditions, as the result files give them (values that differ between rounds are
    /// joined with " / "); whole numbers are numbers.
    pub provenance: BTreeMap<String, Value>,
    /// The code its rounds measured, and whether that is the checkout's. New in version 8.
    pub measured: MeasuredCode,
    /// Each round's machine: its calibrations, the CPU time other processes used, steal, and
    /// whether it was quiet (these are no longer in `provenance`). New in version 9; each input's
    /// `date` new in version 15.
    pub environment: Vec<crate::tables::Environment>,
    pub rows: Vec<RowJson>,
    /// Where each server cell's time went, where its server reports it (Redis; Garnet does not):
    /// per iteration, the server's execution of the commands, what scripts and MULTI/EXEC add
    /// beyond them, its CPU, and the end-to-end time, each the median over the rounds that split
    /// the cell. New in version 11.
    pub splits: Vec<crate::tables::SplitCell>,
}

/// A provenance value: a whole number, or text.
#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Value {
    Number(u64),
    Text(String),
}

/// One operation of the suite.
#[derive(Serialize, JsonSchema)]
pub struct RowJson {
    /// The operation's id in the spec.
    pub operation: String,
    /// The cells, keyed by backend name; C# cells through a client other than the default one
    /// carry its suffix (`Redis_Pipeline_FreeRedis`).
    pub cells: BTreeMap<String, CellJson>,
    /// The backend of the row's fastest server cell (Redis or Garnet), which every Doublets
    /// cell's comparison is against.
    pub fastest: Option<String>,
    /// Each further server's fastest mode against the first server's (Garnet against Redis).
    pub servers: Vec<ServerComparisonJson>,
}

/// One server's fastest mode in a row against another's.
#[derive(Serialize, JsonSchema)]
pub struct ServerComparisonJson {
    /// The server compared (`Garnet`).
    pub server: String,
    /// The server it is compared with (`Redis`).
    pub against: String,
    pub comparison: ComparisonJson,
}

/// A cell: measured, or why it has no figure.
#[derive(Serialize, JsonSchema)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum CellJson {
    Measured(Measured),
    /// No run of these results included the backend's family.
    NotRun,
    /// A run included the family but has no line for the cell.
    Missing,
    /// The client cannot run this mode of the suite (spec/benchmarks.yaml's `not_run` says why).
    ClientCannot,
}

/// A measured cell; every time is nanoseconds per iteration, to 0.1 ns.
#[derive(Serialize, JsonSchema)]
pub struct Measured {
    /// The median over rounds of each round's median.
    pub median_ns: f64,
    /// The standard deviation within a round (the median over rounds).
    pub sd_ns: f64,
    /// Each round's median, in round order.
    pub rounds_ns: Vec<f64>,
    /// The median's interval from order statistics of the rounds; none with one round (new in 7;
    /// in 9 no longer a bootstrap, and of the level `level` says).
    pub low_ns: Option<f64>,
    pub high_ns: Option<f64>,
    /// The interval's confidence level: 0.75 for 3 rounds, 0.96875 for 6 (new in 9).
    pub level: Option<f64>,
    /// The fastest server mode of its row.
    pub fastest_server: bool,
    /// Doublets cells: against the fastest server mode of the row.
    pub comparison: Option<ComparisonJson>,
}

#[derive(Serialize, JsonSchema)]
pub struct ComparisonJson {
    /// Where the interval's level is at least 95%: `faster` or `slower` when the whole interval
    /// lies above or below 1, `same` when it lies within ±5% of 1, else `inconclusive`; `none`
    /// below that level (fewer than 6 rounds) or with one round. Changed in 7 and 9.
    pub verdict: Verdict,
    /// The median over rounds of the reference's time over the cell's in that round (above 1:
    /// the cell is faster), to 3 significant digits. Changed in 7 (it was always ≥ 1) and 9 (it
    /// was the ratio of the medians).
    pub ratio: f64,
    /// The interval from order statistics of the rounds' ratios; none with one round.
    pub low: Option<f64>,
    pub high: Option<f64>,
    /// The interval's confidence level (new in 9).
    pub level: Option<f64>,
}

/// What each store held in memory for one suite's background of B.
#[derive(Serialize, JsonSchema)]
pub struct MemoryJson {
    /// B.
    pub background: u64,
    /// The conditions, as the memory run gives them; whole numbers are numbers.
    pub provenance: BTreeMap<String, Value>,
    /// The code it measured, and whether that is the checkout's. New in version 8.
    pub measured: Option<MeasuredCode>,
    pub figures: Vec<FigureJson>,
}

/// One store's memory for one suite, in bytes, as the memory run measured it.
#[derive(Serialize, JsonSchema)]
pub struct FigureJson {
    #[serde(flatten)]
    pub figure: Figure,
    /// The growth of resident memory divided by B, to 0.1 byte.
    pub rss_growth_per_background: f64,
}

/// The JSON the report writes.
pub fn results(
    spec: &contract::spec::Spec,
    code: &Code,
    (tables, variant_tables): (&[Table], &[Table]),
    memory: &[MemoryRun],
    load: &[LoadRun],
    headline: Vec<crate::headline::Line>,
) -> Results {
    Results {
        version: VERSION,
        variants: variant_tables
            .iter()
            .flat_map(|t| variants(spec, t))
            .collect(),
        summary: crate::headline::summaries(&headline),
        headline,
        tables: tables.iter().map(table).collect(),
        memory: memory.iter().map(|r| memory_run(r, code)).collect(),
        load: load.iter().map(|r| load_run(r, code)).collect(),
    }
}

fn load_run(run: &LoadRun, code: &Code) -> LoadJson {
    LoadJson {
        language: run.language().to_string(),
        background: run.background,
        clock_ns: tenth(run.clock_ns),
        provenance: provenance(&run.provenance),
        measured: crate::measured::of_run(code, &run.provenance).cloned(),
        figures: run
            .figures
            .iter()
            .map(|f| load::Figure {
                per_second: three_digits(f.per_second),
                runs: f.runs.iter().map(|&r| three_digits(r)).collect(),
                ..f.clone()
            })
            .collect(),
        redis_benchmark: run
            .redis_benchmark
            .iter()
            .map(|r| BenchmarkFigure {
                per_second: three_digits(r.per_second),
                ..r.clone()
            })
            .collect(),
    }
}

/// Every variant of a table against its twin.
fn variants(spec: &contract::spec::Spec, t: &Table) -> Vec<VariantJson> {
    use crate::variants::{self, Kind};
    let mut out = Vec::new();
    for kind in [Kind::Durable, Kind::Network] {
        for group in variants::groups(spec, t, kind) {
            let trips = variants::group_round_trips(spec, t, &group);
            for (s, columns) in group.columns.iter().enumerate() {
                for (c, column) in columns.iter().enumerate().skip(1) {
                    let (Some(variant), Some(twin)) = (*column, columns[0]) else {
                        continue;
                    };
                    let fsync = variants::fsync(spec, &group.stores[c].1);
                    out.push(VariantJson {
                        kind,
                        language: t.language.clone(),
                        suite: t.suite.clone(),
                        background: t.background,
                        operations: t.operations,
                        rounds: t.rounds,
                        backend: t.backends[variant].clone(),
                        twin: t.backends[twin].clone(),
                        fsync: fsync.map(|f| f.en.clone()),
                        round_trip_us: trips[c],
                        conditions: t.provenance.get(kind.word()).cloned(),
                        measured: t.measured.clone(),
                        rows: t
                            .rows
                            .iter()
                            .enumerate()
                            .map(|(k, row)| {
                                let cells = variants::cells(t, &group, k, s);
                                VariantRowJson {
                                    operation: row.operation.clone(),
                                    variant: cell(&row.cells[variant]),
                                    twin: cell(&row.cells[twin]),
                                    slowdown: match (cells[c], cells[0]) {
                                        (Some(v), Some(w)) => {
                                            let r = variants::slowdown(v, w);
                                            Some(RatioJson {
                                                ratio: three_digits(r.ratio),
                                                low: r.low.map(three_digits),
                                                high: r.high.map(three_digits),
                                                level: r.level,
                                            })
                                        }
                                        _ => None,
                                    },
                                    round_trips_per_iteration: (kind == Kind::Network)
                                        .then(|| {
                                            variants::round_trips_per_iteration(&cells, &trips)
                                        })
                                        .flatten()
                                        .map(three_digits),
                                }
                            })
                            .collect(),
                    });
                }
            }
        }
    }
    out
}

/// The schema of [`Results`], pretty-printed.
pub fn schema() -> String {
    let schema = schemars::schema_for!(Results);
    serde_json::to_string_pretty(&schema).expect("a schema serialises") + "\n"
}

fn table(t: &Table) -> TableJson {
    TableJson {
        language: t.language.clone(),
        suite: t.suite.clone(),
        background: t.background,
        operations: t.operations,
        rounds: t.rounds,
        provenance: provenance(&t.provenance),
        measured: t.measured.clone(),
        environment: t.environment.clone(),
        splits: t.splits.clone(),
        rows: t
            .rows
            .iter()
            .enumerate()
            .map(|(k, row)| RowJson {
                operation: row.operation.clone(),
                cells: t
                    .backends
                    .iter()
                    .zip(&row.cells)
                    .map(|(backend, cell)| (backend.clone(), self::cell(cell)))
                    .chain(
                        t.clients
                            .iter()
                            .map(|column| (column.name.clone(), self::cell(&column.cells[k]))),
                    )
                    .collect(),
                fastest: row.fastest.clone(),
                servers: row
                    .servers
                    .iter()
                    .map(|s| ServerComparisonJson {
                        server: s.server.clone(),
                        against: s.against.clone(),
                        comparison: comparison(s.comparison),
                    })
                    .collect(),
            })
            .collect(),
    }
}

fn cell(cell: &Result<tables::Cell, Absence>) -> CellJson {
    match cell {
        Err(Absence::NotRun) => CellJson::NotRun,
        Err(Absence::Missing) => CellJson::Missing,
        Err(Absence::ClientCannot) => CellJson::ClientCannot,
        Ok(c) => CellJson::Measured(Measured {
            median_ns: tenth(c.median_ns),
            sd_ns: tenth(c.sd_ns),
            rounds_ns: c.rounds_ns.iter().copied().map(tenth).collect(),
            low_ns: c.interval_ns.map(|i| tenth(i.0)),
            high_ns: c.interval_ns.map(|i| tenth(i.1)),
            level: crate::stats::level(c.rounds_ns.len()),
            fastest_server: c.fastest_server,
            comparison: c.comparison.map(comparison),
        }),
    }
}

fn comparison(c: tables::Comparison) -> ComparisonJson {
    ComparisonJson {
        verdict: c.verdict,
        ratio: three_digits(c.ratio),
        low: c.low.map(three_digits),
        high: c.high.map(three_digits),
        level: c.level,
    }
}

fn memory_run(run: &MemoryRun, code: &Code) -> MemoryJson {
    MemoryJson {
        background: run.background,
        provenance: provenance(&run.provenance),
        measured: crate::measured::of_run(code, &run.provenance).cloned(),
        figures: run
            .figures
            .iter()
            .map(|f| FigureJson {
                figure: f.clone(),
                rss_growth_per_background: tenth(f.per_background()),
            })
            .collect(),
    }
}

fn provenance(given: &BTreeMap<String, String>) -> BTreeMap<String, Value> {
    given
        .iter()
        .map(|(key, value)| {
            let typed = match value.parse::<u64>() {
                Ok(n) if !value.starts_with('0') || value == "0" => Value::Number(n),
                _ => Value::Text(value.clone()),
            };
            (key.clone(), typed)
        })
        .collect()
}

fn tenth(value: f64) -> f64 {
    (value * 10.0).round() / 10.0
}

fn three_digits(value: f64) -> f64 {
    if value == 0.0 {
        return 0.0;
    }
    let scale = 10f64.powi(2 - value.abs().log10().floor() as i32);
    (value * scale).round() / scale
}
