//! The load measurement's result file ([`LoadRun`]): throughput and tail latency under concurrent
//! clients, as the bench writes it and the report reads it.

use serde::{Deserialize, Serialize};

/// Latency of the timed batches, in nanoseconds: the median, the 90th, 99th and 99.9th
/// percentiles, and the maximum.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Latency {
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub p999: u64,
    pub max: u64,
}

/// One load cell's figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Figure {
    pub suite: String,
    pub operation: String,
    pub backend: String,
    /// K: concurrent clients.
    pub clients: usize,
    /// Requests per timed batch: the pipeline depth of a server, the batch of an in-process store.
    pub batch: usize,
    /// Requests all clients completed in the measured time.
    pub requests: u64,
    /// Requests per second, all clients together.
    pub per_second: f64,
    /// Each timed batch's latency (a request's, when `batch` is 1).
    pub latency_ns: Latency,
    /// Requests per second of each run this figure is the median of, in round order: the report
    /// merges a language's runs at one B (`publish.load_runs`); empty in a result file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<f64>,
}

/// One redis-benchmark run beside a server's load cell: the same server, clients and depth.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BenchmarkFigure {
    pub suite: String,
    /// The load operation it stands beside.
    pub operation: String,
    pub backend: String,
    pub clients: usize,
    /// Its pipeline depth (`-P`).
    pub depth: usize,
    /// Its test (`-t`).
    pub test: String,
    pub requests: u64,
    pub per_second: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}

/// One run of the load measurement at one B, as its result file holds it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LoadRun {
    pub background: u64,
    pub provenance: std::collections::BTreeMap<String, String>,
    /// What one reading of the clock (`Instant::now`) costs here, in nanoseconds.
    pub clock_ns: f64,
    pub figures: Vec<Figure>,
    pub redis_benchmark: Vec<BenchmarkFigure>,
}

impl LoadRun {
    /// The language that measured the run (`rust`, `csharp`), as its provenance says.
    pub fn language(&self) -> &str {
        self.provenance
            .get("language")
            .map_or("rust", String::as_str)
    }
}
