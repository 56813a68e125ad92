//! The headline: per language, suite, size and operation, how many times faster Doublets' faster
//! store is than Redis' fastest mode and than Redis' one request per round trip, each ratio with
//! its interval over the rounds and that interval's level, and a verdict only where the level is
//! 95% or more ([`crate::stats`]).

use redis_vs_doublets::spec::Spec;
use serde::Serialize;

use crate::{
    stats,
    tables::{Cell, Table},
};

/// One ratio, the server's median over Doublets' (≥ 1 means Doublets is faster), with the two
/// backends it compares.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Ratio {
    /// The Doublets backend and the server backend compared.
    pub doublets: String,
    pub server: String,
    #[serde(flatten)]
    pub of: stats::Ratio,
}

impl std::ops::Deref for Ratio {
    type Target = stats::Ratio;

    fn deref(&self) -> &stats::Ratio {
        &self.of
    }
}

/// One operation of one table.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Line {
    pub language: String,
    pub suite: String,
    pub background: u64,
    pub operations: u64,
    pub operation: String,
    pub rounds: usize,
    /// Whether the table's rounds measured the checkout's code (else the table says which code).
    pub current: bool,
    /// Against the fastest Redis mode of the row.
    pub best: Ratio,
    /// Against Redis' one request per round trip (`Redis_NonTransaction`).
    pub one_by_one: Option<Ratio>,
}

/// The headline lines of every table that has Doublets and Redis cells, in table order.
pub fn lines(spec: &Spec, tables: &[Table]) -> Vec<Line> {
    let mut lines = Vec::new();
    for table in tables {
        let of = |k: usize| spec.backend(&table.backends[k]);
        for row in &table.rows {
            let fastest = |keep: &dyn Fn(usize) -> bool| {
                row.cells
                    .iter()
                    .enumerate()
                    .filter(|&(k, _)| keep(k))
                    .filter_map(|(k, c)| c.as_ref().ok().map(|c| (k, c)))
                    .min_by(|a, b| a.1.median_ns.total_cmp(&b.1.median_ns))
            };
            let redis = |k: usize| of(k).server.as_deref() == Some("redis");
            let Some(doublets) = fastest(&|k| of(k).family == "doublets") else {
                continue;
            };
            let Some(best) = fastest(&redis) else {
                continue;
            };
            let one_by_one =
                fastest(&|k| redis(k) && table.backends[k].ends_with("_NonTransaction"));
            let ratio = |(k, server): (usize, &Cell)| {
                let (d, cell) = doublets;
                Ratio {
                    doublets: table.backends[d].clone(),
                    server: table.backends[k].clone(),
                    of: stats::ratio(&cell.rounds_ns, &server.rounds_ns),
                }
            };
            lines.push(Line {
                language: table.language.clone(),
                suite: table.suite.clone(),
                background: table.background,
                operations: table.operations,
                operation: row.operation.clone(),
                rounds: table.rounds,
                current: table.measured.current,
                best: ratio(best),
                one_by_one: one_by_one.map(ratio),
            });
        }
    }
    lines
}
