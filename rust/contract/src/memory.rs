//! The memory measurement's result file ([`MemoryRun`]): what each store holds once a suite's
//! background is loaded, as the bench writes it and the report reads it.

use serde::{Deserialize, Serialize};

/// What one store holds for one suite's background of B.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Figure {
    pub suite: String,
    pub backend: String,
    /// B: the background the figure is for.
    pub background: u64,
    /// The store's own accounting: doublets, the bytes of its records in use (the links and the
    /// header record); Redis, the growth of `used_memory`.
    pub accounted: u64,
    /// Doublets: the bytes its blocks have reserved.
    pub reserved: Option<u64>,
    /// Redis: `used_memory_dataset` after the load.
    pub dataset: Option<u64>,
    /// The growth of the resident memory of the process holding the data.
    pub rss_growth: u64,
    /// That process's resident memory after the load.
    pub rss_total: u64,
    /// Redis: the allocator `INFO memory` names.
    pub allocator: Option<String>,
}

/// One run of the memory measurement at one B, as its result file holds it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MemoryRun {
    pub background: u64,
    /// The conditions, as the benches' result files give them.
    pub provenance: std::collections::BTreeMap<String, String>,
    pub figures: Vec<Figure>,
}

impl Figure {
    /// The figure a ratio compares: the growth of resident memory, what the machine pays.
    pub fn per_background(&self) -> f64 {
        self.rss_growth as f64 / self.background as f64
    }
}
