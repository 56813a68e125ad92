//! One statistical definition for every figure the report prints. A cell is the median of its
//! rounds' medians; a ratio of two cells is the median of the rounds' own ratios, the rounds paired
//! (a round measured both, so noise that round shared cancels in its ratio). Each gets the
//! distribution-free interval for a median from order statistics: with n rounds sorted,
//! [x(k), x(n+1−k)] holds the median of the distribution the rounds are drawn from with
//! probability 1 − 2·P(Binomial(n, ½) < k), whatever that distribution (Conover, *Practical
//! Nonparametric Statistics*, 3rd ed., §3.2). That level is exact and depends on n alone: the
//! widest rounds (the range) give 50% with 2 rounds, 75% with 3, 93.8% with 5 and 96.9% with 6, so
//! the report prints each interval with its own level and gives a verdict only where the level is at
//! least [`LEVEL`]. The verdict says "same" only where an equivalence test passes: the whole
//! interval within ±5% of 1. The `coverage` tests prove the levels by simulation.

use serde::Serialize;

/// The confidence level a verdict needs: an interval of fewer rounds than reach it (6) is printed
/// with its own, lower level and decides nothing.
pub const LEVEL: f64 = 0.95;
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
    /// The interval holds 1 but is wider than ±5%.
    Inconclusive,
    /// Too few rounds for an interval of the [`LEVEL`] a verdict needs (one round has none at all).
    #[serde(rename = "none")]
    NoVerdict,
}

/// A ratio with its interval: `ratio` is the median over rounds of the reference's time over the
/// cell's.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Ratio {
    pub ratio: f64,
    /// The interval from order statistics of the rounds' ratios; none with one round.
    pub low: Option<f64>,
    pub high: Option<f64>,
    /// The interval's confidence level (0.75 for 3 rounds); none with one round.
    pub level: Option<f64>,
    pub verdict: Verdict,
}

/// `reference / cell` with its interval and verdict, from each cell's rounds in round order.
pub fn ratio(cell: &[f64], reference: &[f64]) -> Ratio {
    of_rounds(&paired(cell, reference))
}

/// The rounds' own ratios `reference / cell`, in round order. Two cells measured in different
/// rounds cannot be paired: their ratio is the medians' alone, a single value.
pub fn paired(cell: &[f64], reference: &[f64]) -> Vec<f64> {
    if cell.len() == reference.len() {
        reference.iter().zip(cell).map(|(r, c)| r / c).collect()
    } else {
        vec![median(reference.iter().copied()) / median(cell.iter().copied())]
    }
}

/// The median of one ratio per round, with its interval, level and verdict.
pub fn of_rounds(ratios: &[f64]) -> Ratio {
    let (low, high) = interval(ratios).unzip();
    let level = level(ratios.len());
    Ratio {
        ratio: median(ratios.iter().copied()),
        low,
        high,
        level,
        verdict: verdict(low.zip(high), level),
    }
}

/// The geometric mean over operations of their ratios, as one ratio: each round's geometric mean
/// over the operations (every operation's ratio of that round), then the median of those with its
/// interval, as for one ratio. Where the operations' rounds do not pair (a different number of
/// rounds), the geometric mean of their medians alone, without an interval.
pub fn geometric_mean(operations: &[&[f64]]) -> Option<Ratio> {
    let rounds = operations.first()?.len();
    if operations.iter().all(|o| o.len() == rounds) {
        let per_round: Vec<f64> = (0..rounds)
            .map(|k| geometric(operations.iter().map(|o| o[k])))
            .collect();
        Some(of_rounds(&per_round))
    } else {
        let medians = geometric(operations.iter().map(|o| median(o.iter().copied())));
        Some(of_rounds(&[medians]))
    }
}

/// The geometric mean of some positive values.
pub fn geometric(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, count) = values.fold((0.0, 0), |(s, n), v| (s + v.ln(), n + 1));
    (sum / f64::from(count)).exp()
}

/// The interval of the median of `rounds` at [`level`]; none with one round.
pub fn interval(rounds: &[f64]) -> Option<(f64, f64)> {
    let k = order(rounds.len())?;
    let mut sorted = rounds.to_vec();
    sorted.sort_by(f64::total_cmp);
    Some((sorted[k - 1], sorted[rounds.len() - k]))
}

/// The confidence level of the interval over `rounds` rounds; none with one round.
pub fn level(rounds: usize) -> Option<f64> {
    order(rounds).map(|k| covered(rounds, k))
}

/// The fewest rounds whose interval reaches [`LEVEL`]: 6.
pub fn rounds_for_level() -> usize {
    (2..)
        .find(|&n| level(n).is_some_and(|l| l >= LEVEL))
        .unwrap_or(usize::MAX)
}

/// The level as the tables print it: "75%", "93.8%", "96.9%".
pub fn level_text(level: f64) -> String {
    let percent = format!("{:.1}", 100.0 * level);
    format!("{}%", percent.trim_end_matches(".0"))
}

/// Whether an interval's half-width (the ± a cell prints) is more than [`WIDE`] of its median.
pub fn wide(median: f64, (low, high): (f64, f64)) -> bool {
    (high - low) / 2.0 > WIDE * median
}

fn verdict(interval: Option<(f64, f64)>, level: Option<f64>) -> Verdict {
    match interval {
        Some(_) if level.is_none_or(|l| l < LEVEL) => Verdict::NoVerdict,
        Some((low, _)) if low > 1.0 => Verdict::Faster,
        Some((_, high)) if high < 1.0 => Verdict::Slower,
        Some((low, high)) if low >= 1.0 / EQUIVALENT_WITHIN && high <= EQUIVALENT_WITHIN => {
            Verdict::Same
        }
        Some(_) => Verdict::Inconclusive,
        None => Verdict::NoVerdict,
    }
}

/// Which order statistics bound the interval over n rounds: the k-th from each end, the innermost
/// pair whose level is still at least [`LEVEL`], or the range where none reaches it. None below two
/// rounds.
fn order(n: usize) -> Option<usize> {
    (n >= 2).then(|| {
        (1..=n / 2)
            .rev()
            .find(|&k| covered(n, k) >= LEVEL)
            .unwrap_or(1)
    })
}

/// 1 − 2·P(Binomial(n, ½) < k): how often [x(k), x(n+1−k)] of n independent draws holds the
/// distribution's median.
fn covered(n: usize, k: usize) -> f64 {
    let mut below = 0.0;
    let mut choose = 1.0; // C(n, i), i from 0
    for i in 0..k {
        below += choose;
        choose = choose * (n - i) as f64 / (i + 1) as f64;
    }
    1.0 - 2.0 * below / 2f64.powi(n as i32)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clear_gap_is_faster_and_its_interval_holds_the_ratio() {
        let cell = [10.0, 11.0, 12.0, 10.5, 11.5, 10.0];
        let r = ratio(&cell, &[1000.0, 1100.0, 900.0, 1000.0, 1050.0, 990.0]);
        let (low, high) = (r.low.unwrap(), r.high.unwrap());
        assert!(low > 1.0 && low <= r.ratio && high >= r.ratio, "{r:?}");
        assert_eq!((r.verdict, r.level), (Verdict::Faster, Some(0.96875)));
        let slow = cell.map(|c| c * 100.0);
        assert_eq!(ratio(&slow, &cell).verdict, Verdict::Slower);
    }

    #[test]
    fn a_geometric_mean_over_operations_is_taken_per_round_then_summarized() {
        let (a, b) = ([2.0, 8.0, 4.0], [8.0, 2.0, 4.0]);
        // Per round: √(2·8) = 4, √(8·2) = 4, √(4·4) = 4: every round agrees, whatever each
        // operation's own spread.
        let mean = geometric_mean(&[&a, &b]).unwrap();
        assert!(
            (mean.ratio - 4.0).abs() < 1e-12 && mean.level == Some(0.75),
            "{mean:?}"
        );
        assert!((mean.low.unwrap() - 4.0).abs() < 1e-12, "{mean:?}");
        // Unpaired rounds: the medians' geometric mean, no interval.
        let unpaired = geometric_mean(&[&a, &[9.0]]).unwrap();
        assert!((unpaired.ratio - 6.0).abs() < 1e-12 && unpaired.low.is_none());
        assert!(geometric_mean(&[]).is_none());
    }

    #[test]
    fn same_needs_the_whole_interval_within_five_percent() {
        let at = |low, high| verdict(Some((low, high)), Some(0.96875));
        assert_eq!(at(0.97, 1.04), Verdict::Same);
        assert_eq!(at(0.90, 1.04), Verdict::Inconclusive);
        assert_eq!(at(0.5, 0.9), Verdict::Slower);
        // Two cells whose rounds cross: not "same" for being close, inconclusive.
        let cell = [100.0, 130.0, 110.0, 120.0, 105.0, 125.0];
        let reference = [125.0, 105.0, 120.0, 100.0, 130.0, 110.0];
        assert_eq!(ratio(&cell, &reference).verdict, Verdict::Inconclusive);
    }

    #[test]
    fn fewer_rounds_than_the_level_needs_give_an_interval_of_their_own_level_and_no_verdict() {
        assert_eq!((interval(&[10.0]), level(1)), (None, None));
        let one = ratio(&[10.0], &[100.0]);
        assert_eq!(
            (one.ratio, one.low, one.verdict),
            (10.0, None, Verdict::NoVerdict)
        );
        // Three rounds, however far apart the stores: the range, at 75%, decides nothing.
        let three = ratio(&[10.0, 11.0, 12.0], &[1000.0, 1100.0, 900.0]);
        assert_eq!(
            (three.level, three.verdict),
            (Some(0.75), Verdict::NoVerdict)
        );
        assert_eq!(interval(&[12.0, 10.0, 11.0]), Some((10.0, 12.0)));
        let levels: Vec<String> = (2..=9).map(|n| level_text(level(n).unwrap())).collect();
        assert_eq!(
            levels,
            ["50%", "75%", "87.5%", "93.8%", "96.9%", "98.4%", "99.2%", "96.1%"]
        );
        // Nine rounds: the second lowest and second highest already reach 95%.
        let nine = [5.0, 1.0, 9.0, 2.0, 8.0, 3.0, 7.0, 4.0, 6.0];
        assert_eq!(interval(&nine), Some((2.0, 8.0)));
        assert!(wide(5.0, (2.0, 8.0)) && !wide(100.0, (88.0, 106.0)));
    }

    /// Normal draws for the simulations: SplitMix64 (Steele, Lea and Flood, 2014) through
    /// Box–Muller, seeded, so that a failure reproduces.
    struct Draws(u64);

    impl Draws {
        fn uniform(&mut self) -> f64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
        }

        fn normal(&mut self) -> f64 {
            let u = 1.0 - self.uniform();
            (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * self.uniform()).cos()
        }
    }

    /// A round's median time as a 2-CPU VM gives it, skewed: log-normal between rounds (placement,
    /// other load), the median of 11 log-normal samples within one, and one round in five slowed by
    /// a busy neighbour (a one-sided, heavy tail). `shared` is what both stores of a round share.
    fn round(d: &mut Draws, base: f64, shared: f64) -> f64 {
        let mut samples: Vec<f64> = (0..11).map(|_| 0.1 * d.normal()).collect();
        samples.sort_by(f64::total_cmp);
        let busy = if d.uniform() < 0.2 {
            d.normal().abs()
        } else {
            0.0
        };
        base * (shared + 0.3 * d.normal() + samples[5] + busy).exp()
    }

    /// How often the interval over `rounds` rounds holds the true value, over `TRIALS` trials:
    /// of a cell's median, or of a ratio's with its rounds paired. The true value is the median of
    /// 200,001 draws of the same thing.
    fn coverage(rounds: usize, paired: bool, bounds: impl Fn(&[f64]) -> (f64, f64)) -> f64 {
        const TRIALS: usize = 4_000;
        let mut d = Draws(0x5eed_0fb0_07ed_5eed ^ rounds as u64);
        let draw = |d: &mut Draws| {
            let shared = 0.4 * d.normal();
            let cell = round(d, 10.0, shared);
            if paired {
                round(d, 350.0, shared) / cell
            } else {
                cell
            }
        };
        let truth = median((0..200_001).map(|_| draw(&mut d)));
        let covered = (0..TRIALS)
            .filter(|_| {
                let values: Vec<f64> = (0..rounds).map(|_| draw(&mut d)).collect();
                let (low, high) = bounds(&values);
                low <= truth && truth <= high
            })
            .count();
        covered as f64 / TRIALS as f64
    }

    /// A claimed level holds when the simulated coverage is within 2 points of it (the standard
    /// error of 4,000 trials is under 0.8 of a point).
    fn holds(claimed: f64, simulated: f64) -> bool {
        (claimed - simulated).abs() <= 0.02
    }

    #[test]
    fn coverage_every_interval_holds_the_true_median_as_often_as_its_level_says() {
        for rounds in 2..=12 {
            let claimed = level(rounds).unwrap();
            for paired in [false, true] {
                let simulated = coverage(rounds, paired, |v| interval(v).unwrap());
                assert!(
                    holds(claimed, simulated),
                    "{rounds} rounds (ratio: {paired}): {simulated} against {claimed}"
                );
            }
        }
    }

    #[test]
    fn coverage_the_range_of_three_rounds_called_95_percent_would_fail() {
        // The report's method before this one: a 95% bootstrap of the median over 3 rounds, which
        // can only return their range.
        let range = |v: &[f64]| {
            let low = v.iter().copied().fold(f64::MAX, f64::min);
            (low, v.iter().copied().fold(f64::MIN, f64::max))
        };
        let simulated = coverage(3, true, range);
        assert!(
            !holds(0.95, simulated) && holds(0.75, simulated),
            "{simulated}"
        );
    }
}
