//! The headline: per language, suite, size and operation, how many times faster Doublets' faster
//! store is than Redis' fastest mode and than Redis' one request per round trip, each ratio with
//! its interval over the rounds and that interval's level, and a verdict only where the level is
//! 95% or more ([`crate::stats`]).

use contract::spec::Spec;
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
    /// Each round's own ratio (one value where the cells' rounds do not pair), for the geometric
    /// means over operations ([`summaries`]).
    #[serde(skip)]
    #[schemars(skip)]
    pub rounds: Vec<f64>,
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
                let rounds = stats::paired(&cell.rounds_ns, &server.rounds_ns);
                Ratio {
                    doublets: table.backends[d].clone(),
                    server: table.backends[k].clone(),
                    of: stats::of_rounds(&rounds),
                    rounds,
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

/// Which Redis mode a ratio compares Doublets with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Against {
    /// Per operation the fastest Redis mode.
    Fastest,
    /// One request per round trip (`Redis_NonTransaction`).
    OneByOne,
}

/// One table's ratios summed up in one: the geometric mean over its operations, with its interval
/// over the rounds ([`stats::geometric_mean`]).
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Summary {
    pub language: String,
    pub suite: String,
    pub background: u64,
    pub operations: u64,
    pub rounds: usize,
    pub current: bool,
    pub against: Against,
    /// How many operations the mean is over (the table's with a Doublets and a Redis cell).
    pub over: usize,
    #[serde(flatten)]
    pub of: stats::Ratio,
}

/// Per table and Redis mode, the geometric mean of the headline's ratios, in table order.
pub fn summaries(lines: &[Line]) -> Vec<Summary> {
    let mut summaries = Vec::new();
    let same_table = |a: &Line, b: &Line| {
        (&a.language, &a.suite, a.background, a.operations)
            == (&b.language, &b.suite, b.background, b.operations)
    };
    for (k, first) in lines.iter().enumerate() {
        if lines[..k].iter().any(|l| same_table(l, first)) {
            continue;
        }
        let of_table: Vec<&Line> = lines.iter().filter(|l| same_table(l, first)).collect();
        for against in [Against::Fastest, Against::OneByOne] {
            let ratios: Vec<&[f64]> = of_table
                .iter()
                .filter_map(|l| match against {
                    Against::Fastest => Some(&l.best),
                    Against::OneByOne => l.one_by_one.as_ref(),
                })
                .map(|r| r.rounds.as_slice())
                .collect();
            let Some(of) = stats::geometric_mean(&ratios) else {
                continue;
            };
            summaries.push(Summary {
                language: first.language.clone(),
                suite: first.suite.clone(),
                background: first.background,
                operations: first.operations,
                rounds: first.rounds,
                current: of_table.iter().all(|l| l.current),
                against,
                over: ratios.len(),
                of,
            });
        }
    }
    summaries
}
