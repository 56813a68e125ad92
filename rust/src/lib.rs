//! RedisVSDoublets: doublets and Redis storing the same data, measured by benches made from
//! `spec/benchmarks.yaml`, with every result checked against a plain model.
//!
//! # Layout
//! - [`spec`], [`results`], [`split`], [`grouped`]: from the `contract` crate (rust/contract), which
//!   the report reads alone: the spec and the result files, with no store in them. Here the spec's
//!   requests are checked against the stores ([`checked`]).
//! - [`store`]: the interface of every store: requests in, found links or values out.
//! - [`suites`]: the suites this crate implements, by the spec's id: the one place an id meets its types.
//! - [`links`]: the links-storage suite: requests, model, doublets stores, Redis commands.
//! - [`typical`]: the typical-Redis-usage suite: key-value, counter, queue and set, the same way.
//! - [`payload`]: the payload suite: values of real sizes, SET and read back byte for byte (servers only).
//! - [`resp`]: a RESP server (Redis, Garnet): REDIS_URL's or disposable ones, as a store in its
//!   three modes (one round trip each, MULTI/EXEC, pipeline); the links library; the database a
//!   run claims and leaves as it found it.
//! - [`harness`]: loading, the checked iteration, the measured iteration, background checks.
//! - [`digest`]: a digest of a whole store, where it has one, for the check after each cell.
//! - [`durable`]: the folder where durable stores keep their files, and what its disk is.
//! - [`preflight`]: what is checked before the first cell (memory, the results path).
//! - [`session`]: what every measurement binary checks before any work, and how it ends.
//! - [`memory`]: what each store holds in memory for a suite's background.
//! - [`blocks`]: the doublets stores' memory blocks, on the heap or on files, counted.
//! - [`load`]: throughput and latency of concurrent clients.
//! - [`redis_benchmark`]: redis-benchmark beside the load measurement's server cells.
//! - [`provenance`]: the conditions a run measured under, and whether the machine was quiet.
//! - [`calibration`]: the round trip and a CPU loop at a round's start and end.
//! - [`handoff`]: the spec, checked, and the run's choices, as the C# harness runs them.

pub mod blocks;
pub mod calibration;
pub mod criterion_args;
pub mod digest;
pub mod durable;
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
pub mod session;
pub mod store;
pub mod suites;
pub mod typical;

pub use contract::{grouped, repository, results, spec, spec_path, split};

use store::Request;

/// Checks a request against the suite that will run it (the suites this crate knows), and says
/// whether it only reads.
pub fn check_request(suite: &str, verb: &str, args: &[Option<u64>]) -> Result<bool, String> {
    struct Check<'a>(&'a str, &'a [Option<u64>]);
    impl suites::Visit for Check<'_> {
        type Output = Result<bool, String>;
        fn servers<S: suites::Suite>(self) -> Self::Output {
            S::Request::build(self.0, self.1).map(|r| r.reads())
        }
    }
    suites::visit(suite, Check(verb, args))?
}

/// A spec read (by [`spec::Spec::load`] or [`spec::Spec::parse`]) with every request then checked
/// against its suite's stores, as both benches need it.
pub fn checked(spec: Result<spec::Spec, spec::SpecError>) -> Result<spec::Spec, spec::SpecError> {
    let spec = spec?;
    spec.check_requests(&check_request)?;
    Ok(spec)
}

/// This checkout's spec, every request checked against its suite.
pub fn load_spec() -> anyhow::Result<spec::Spec> {
    Ok(checked(spec::Spec::load(&spec_path()))?)
}
