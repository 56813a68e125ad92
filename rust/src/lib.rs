//! RedisVSDoublets: doublets and Redis storing the same data, measured by benches made from
//! `spec/benchmarks.yaml`, with every result checked against a plain model.
//!
//! # Layout
//! - [`spec`]: the spec, read and checked (file, line and column in every error).
//! - [`store`]: the interface of every store: requests in, found links or values out.
//! - [`links`]: the links-storage suite: requests, model, doublets stores, Redis commands.
//! - [`typical`]: the typical-Redis-usage suite: key-value, counter, queue and set, the same way.
//! - [`payload`]: the payload suite: values of real sizes, SET and read back byte for byte (servers only).
//! - [`resp`]: a RESP server (Redis, Garnet): REDIS_URL's or disposable ones, as a store in its
//!   three modes (one round trip each, MULTI/EXEC, pipeline); the links library; the database a
//!   run claims and leaves as it found it.
//! - [`harness`]: loading, the checked iteration, the measured iteration, background checks.
//! - [`digest`]: a digest of a whole store, where it has one, for the check after each cell.
//! - [`durable`]: the folder where durable stores keep their files, and what its disk is.
//! - [`split`]: where a server cell's time goes (execution, scripts, MULTI/EXEC, the rest).
//! - [`preflight`]: what is checked before the first cell (memory, the results path).
//! - [`session`]: what every measurement binary checks before any work, and how it ends.
//! - [`memory`]: what each store holds in memory for a suite's background.
//! - [`blocks`]: the doublets stores' memory blocks, on the heap or on files, counted.
//! - [`load`]: throughput and latency of concurrent clients.
//! - [`redis_benchmark`]: redis-benchmark beside the load measurement's server cells.
//! - [`grouped`]: whole numbers with thousands separated, as Criterion prints them.
//! - [`results`]: result files (provenance and bencher lines), written by the bench, read by the report.
//! - [`provenance`]: the conditions a run measured under, and whether the machine was quiet.
//! - [`calibration`]: the round trip and a CPU loop at a round's start and end.
//! - [`handoff`]: the spec, checked, and the run's choices, as the C# harness runs them.

pub mod blocks;
pub mod calibration;
pub mod criterion_args;
pub mod digest;
pub mod durable;
pub mod grouped;
pub mod handoff;
pub mod harness;
pub mod links;
pub mod load;
pub mod memory;
pub mod network;
pub mod payload;
pub mod preflight;
pub mod progress;
pub mod provenance;
pub mod redis_benchmark;
pub mod relay;
pub mod resp;
pub mod results;
pub mod session;
pub mod spec;
pub mod split;
pub mod store;
pub mod typical;

use std::path::PathBuf;

use store::Request;

/// The root of this checkout.
pub fn repository() -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate lives in rust/ of the repository")
        .to_path_buf()
}

/// The spec file of this checkout.
pub fn spec_path() -> PathBuf {
    repository().join(spec::SPEC_PATH)
}

/// Checks a request against the suite that will run it (the suites this crate knows), and says
/// whether it only reads.
pub fn check_request(suite: &str, verb: &str, args: &[Option<u64>]) -> Result<bool, String> {
    match suite {
        "links" => links::LinkRequest::build(verb, args).map(|r| r.reads()),
        "typical" => typical::UsageRequest::build(verb, args).map(|r| r.reads()),
        "payload" => payload::PayloadRequest::build(verb, args).map(|r| r.reads()),
        _ => Err(format!(
            "no store implements the suite \"{suite}\" (known: links, typical, payload)"
        )),
    }
}

/// Loads the spec with every request checked against its suite.
pub fn load_spec() -> anyhow::Result<spec::Spec> {
    Ok(spec::Spec::load(&spec_path(), &check_request)?)
}
