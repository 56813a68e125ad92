//! One statistical definition for every figure the report prints: a cell is the median of its
//! rounds' medians, its interval the 95% bootstrap interval of that median over the rounds, and a
//! ratio of two cells gets its interval from the same resampling, the rounds paired (a round
//! measured both). The verdict says "same" only where an equivalence test passes: the whole
//! interval within ±5% of 1.

use serde::Serialize;

/// How many resamples each interval draws.
const RESAMPLES: usize = 10_000;
/// Within this factor of 1 a ratio counts as "the same" (when its whole interval lies inside).
pub const EQUIVALENT_WITHIN: f64 = 1.05;
/// An interval whose half-width is more than this share of its median is called wide, in words.
pub const WIDE: f64 = 0.10;

/// What an interval says of a ratio (the reference's time over the cell's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The whole interval lies above 1: the cell is faster.
    Faster,
    /// The whole interval lies below 1.
    Slower,
    /// The whole interval lies within ±5% of 1 (an equivalence test, as BenchmarkDotNet's TOST).
    Same,
    /// The interval holds 1 but is wider than ±5%, or there is one round (no interval).
    Inconclusive,
}

/// A ratio with its interval: `ratio` is the reference's median over the cell's.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Ratio {
    pub ratio: f64,
    /// The 95% bootstrap interval; none with one round.
    pub low: Option<f64>,
    pub high: Option<f64>,
    pub verdict: Verdict,
}

/// `reference / cell` with its interval and verdict, from each cell's rounds in round order.
pub fn ratio(cell: &[f64], reference: &[f64]) -> Ratio {
    let (low, high) = resampled(&[cell, reference], |m| m[1] / m[0]).unzip();
    Ratio {
        ratio: median(reference.iter().copied()) / median(cell.iter().copied()),
        low,
        high,
        verdict: verdict(low, high),
    }
}

/// The 95% bootstrap interval of the median of `rounds`; none with one round.
pub fn interval(rounds: &[f64]) -> Option<(f64, f64)> {
    resampled(&[rounds], |m| m[0])
}

/// Whether an interval's half-width (the ± a cell prints) is more than [`WIDE`] of its median.
pub fn wide(median: f64, (low, high): (f64, f64)) -> bool {
    (high - low) / 2.0 > WIDE * median
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

/// The 2.5% and 97.5% points of `statistic` over resamples of the rounds: each resample draws as
/// many rounds as there are, with replacement, the same rounds for every series, and gives the
/// statistic each series' median of them. None with fewer than two rounds or series of unequal
/// length.
fn resampled(series: &[&[f64]], statistic: impl Fn(&[f64]) -> f64) -> Option<(f64, f64)> {
    let rounds = series.first()?.len();
    if rounds < 2 || series.iter().any(|s| s.len() != rounds) {
        return None;
    }
    // A fixed seed: the same results give the same README, byte for byte.
    let mut random = SplitMix(0x5eed_0fb0_07ed_5eed);
    let mut picked = vec![0usize; rounds];
    let mut medians = vec![0.0; series.len()];
    let mut values: Vec<f64> = (0..RESAMPLES)
        .map(|_| {
            picked.iter_mut().for_each(|p| *p = random.below(rounds));
            for (m, s) in medians.iter_mut().zip(series) {
                *m = median(picked.iter().map(|&p| s[p]));
            }
            statistic(&medians)
        })
        .collect();
    values.sort_by(f64::total_cmp);
    let at = |q: f64| values[((RESAMPLES - 1) as f64 * q).round() as usize];
    Some((at(0.025), at(0.975)))
}

pub fn median(values: impl Iterator<Item = f64>) -> f64 {
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
/// report takes no new dependency for it (oorandom or rand would do) because Cargo.lock is part
/// of the measured code's fingerprint, and a new entry there would make every published result
/// stale.
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

    #[test]
    fn a_clear_gap_is_faster_and_its_interval_holds_the_ratio() {
        let r = ratio(&[10.0, 11.0, 12.0], &[1000.0, 1100.0, 900.0]);
        let (low, high) = (r.low.unwrap(), r.high.unwrap());
        assert!(low > 1.0 && low <= r.ratio && high >= r.ratio, "{r:?}");
        assert_eq!(r.verdict, Verdict::Faster);
        assert_eq!(
            ratio(&[1000.0, 1100.0], &[10.0, 11.0]).verdict,
            Verdict::Slower
        );
    }

    #[test]
    fn same_needs_the_whole_interval_within_five_percent() {
        assert_eq!(verdict(Some(0.97), Some(1.04)), Verdict::Same);
        assert_eq!(verdict(Some(0.90), Some(1.04)), Verdict::Inconclusive);
        assert_eq!(verdict(Some(0.5), Some(0.9)), Verdict::Slower);
        assert_eq!(verdict(None, None), Verdict::Inconclusive);
        // Two cells whose rounds cross: not "same" for being close, inconclusive.
        assert_eq!(
            ratio(&[100.0, 130.0, 110.0], &[125.0, 105.0, 120.0]).verdict,
            Verdict::Inconclusive
        );
    }

    #[test]
    fn one_round_has_no_interval_and_the_same_input_the_same_interval() {
        assert_eq!(interval(&[10.0]), None);
        assert_eq!(ratio(&[10.0], &[100.0]).low, None);
        let rounds = [10.0, 14.0, 9.0, 11.0, 10.5];
        assert_eq!(interval(&rounds), interval(&rounds));
        let (low, high) = interval(&rounds).unwrap();
        assert!(low >= 9.0 && high <= 14.0 && low <= 10.5 && high >= 10.5);
        assert!(wide(10.5, (low, high)));
        assert!(!wide(100.0, (95.0, 104.0)));
        assert!(!wide(100.0, (88.0, 106.0)));
    }
}
