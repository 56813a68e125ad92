//! The headline: per language, suite, size and operation, how many times faster Doublets' faster
//! store is than Redis' fastest mode and than Redis' one request per round trip, each ratio with
//! a 95% bootstrap interval over the rounds, and a verdict that says "same" only when the interval
//! shows it.

use redis_vs_doublets::spec::Spec;
use serde::Serialize;

use crate::tables::{Cell, Table};

/// How many resamples each interval draws.
const RESAMPLES: usize = 10_000;
/// Within this factor of 1 a ratio counts as "the same" (when its whole interval lies inside).
pub const EQUIVALENT_WITHIN: f64 = 1.05;

/// What an interval says of a ratio (the server's time over Doublets').
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The whole interval lies above 1: Doublets is faster.
    Faster,
    /// The whole interval lies below 1.
    Slower,
    /// The whole interval lies within ±5% of 1 (an equivalence test, as BenchmarkDotNet's TOST).
    Same,
    /// The interval holds 1 but is wider than ±5%, or the cell has one round (no interval).
    Inconclusive,
}

/// One ratio: `ratio` = the reference's median over Doublets' (≥ 1 means Doublets is faster).
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Ratio {
    /// The Doublets backend and the server backend compared.
    pub doublets: String,
    pub server: String,
    pub ratio: f64,
    /// The 95% bootstrap interval; none with one round.
    pub low: Option<f64>,
    pub high: Option<f64>,
    pub verdict: Verdict,
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
                let (low, high) = interval(cell, server).unzip();
                Ratio {
                    doublets: table.backends[d].clone(),
                    server: table.backends[k].clone(),
                    ratio: server.median_ns / cell.median_ns,
                    low,
                    high,
                    verdict: verdict(low, high),
                }
            };
            lines.push(Line {
                language: table.language.clone(),
                suite: table.suite.clone(),
                background: table.background,
                operations: table.operations,
                operation: row.operation.clone(),
                rounds: table.rounds,
                best: ratio(best),
                one_by_one: one_by_one.map(ratio),
            });
        }
    }
    lines
}

fn verdict(low: Option<f64>, high: Option<f64>) -> Verdict {
    match (low, high) {
        (Some(low), _) if low > 1.0 => Verdict::Faster,
        (_, Some(high)) if high < 1.0 => Verdict::Slower,
        (Some(low), Some(high)) if low >= 1.0 / EQUIVALENT_WITHIN && high <= EQUIVALENT_WITHIN => {
            Verdict::Same
        }
        _ => Verdict::Inconclusive,
    }
}

/// The 95% percentile interval of `server / doublets` over resampled rounds: each resample draws
/// the rounds with replacement, the same rounds for both cells (a round measured both), and takes
/// each cell's median of them. None with one round, which has nothing to resample.
fn interval(doublets: &Cell, server: &Cell) -> Option<(f64, f64)> {
    let rounds = doublets.rounds_ns.len();
    if rounds < 2 || server.rounds_ns.len() != rounds {
        return None;
    }
    // A fixed seed: the same results give the same README, byte for byte.
    let mut random = SplitMix(0x5eed_0fb0_07ed_5eed);
    let mut picked = vec![0usize; rounds];
    let mut ratios: Vec<f64> = (0..RESAMPLES)
        .map(|_| {
            picked.iter_mut().for_each(|p| *p = random.below(rounds));
            let median_of = |cell: &Cell| median(picked.iter().map(|&p| cell.rounds_ns[p]));
            median_of(server) / median_of(doublets)
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    let at = |q: f64| ratios[((RESAMPLES - 1) as f64 * q).round() as usize];
    Some((at(0.025), at(0.975)))
}

fn median(values: impl Iterator<Item = f64>) -> f64 {
    let mut values: Vec<f64> = values.collect();
    values.sort_by(f64::total_cmp);
    let middle = values.len() / 2;
    if values.len() % 2 == 1 {
        values[middle]
    } else {
        (values[middle - 1] + values[middle]) / 2.0
    }
}

/// SplitMix64 (Steele, Lea and Flood, 2014): a few lines of seeded, portable randomness. The
/// report takes no new dependency for it because Cargo.lock is part of the measured code's
/// fingerprint, and a new entry there would make every published result stale.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in 0..n (n is a handful of rounds: the modulo's bias is below 1e-17).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(rounds: &[f64]) -> Cell {
        Cell::from_rounds(
            rounds
                .iter()
                .enumerate()
                .map(|(r, &ns)| (r as u32 + 1, ns, ns * 0.01))
                .collect(),
        )
    }

    #[test]
    fn a_clear_gap_is_faster_and_its_interval_holds_the_ratio() {
        let (low, high) =
            interval(&cell(&[10.0, 11.0, 12.0]), &cell(&[1000.0, 1100.0, 900.0])).unwrap();
        assert!(
            low > 1.0 && low <= 1000.0 / 11.0 && high >= 1000.0 / 11.0,
            "{low} {high}"
        );
        assert_eq!(verdict(Some(low), Some(high)), Verdict::Faster);
    }

    #[test]
    fn same_needs_the_whole_interval_within_five_percent() {
        assert_eq!(verdict(Some(0.97), Some(1.04)), Verdict::Same);
        assert_eq!(verdict(Some(0.90), Some(1.04)), Verdict::Inconclusive);
        assert_eq!(verdict(Some(0.5), Some(0.9)), Verdict::Slower);
        assert_eq!(verdict(None, None), Verdict::Inconclusive);
    }

    #[test]
    fn one_round_has_no_interval_and_the_same_input_the_same_interval() {
        assert_eq!(interval(&cell(&[10.0]), &cell(&[100.0])), None);
        let (a, b) = (cell(&[10.0, 14.0, 9.0]), cell(&[100.0, 90.0, 130.0]));
        assert_eq!(interval(&a, &b), interval(&a, &b));
    }
}
