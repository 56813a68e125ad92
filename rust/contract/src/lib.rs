//! What the benches (Rust and, through the C ABI, C#) and the report agree on, with no store or
//! server in it: the report depends on this crate alone.
//!
//! - [`spec`]: the spec, read and checked (file, line and column in every error); its requests are
//!   checked against the stores by the benches' crate ([`spec::Spec::check_requests`]).
//! - [`results`]: the bench's result files (provenance and bencher lines).
//! - [`load`] and [`memory`]: the load and memory measurements' result files.
//! - [`split`]: where a server cell's time goes, as its result line gives it.
//! - [`fingerprint`]: which code a result measured.
//! - [`conditions`]: what a round records of the machine, fixed for both sides.
//! - [`grouped`]: whole numbers with thousands separated, as Criterion prints them.

use std::path::PathBuf;

pub mod conditions;
pub mod fingerprint;
pub mod grouped;
pub mod load;
pub mod memory;
pub mod results;
pub mod spec;
pub mod split;

/// The repository this crate was built in: where the spec and the result files are.
pub fn repository() -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("the crate lives in rust/contract/ of the repository")
        .to_path_buf()
}

/// The spec file of this checkout.
pub fn spec_path() -> PathBuf {
    repository().join(spec::SPEC_PATH)
}
