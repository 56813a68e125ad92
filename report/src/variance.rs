//! Where the spread of the published figures comes from: the variance of ln(time) at each level of
//! the measurement, after Kalibera and Jones ("Rigorous benchmarking in reasonable time", ISMM
//! 2013): within a round (what its own samples leave uncertain in its figure), between the rounds
//! of one time, and between times (rounds taken hours apart, in separate sittings). Each level's
//! component is what its spread holds beyond the level below it, so the largest one says where
//! more repetitions narrow the intervals: more samples, more rounds, or rounds on more occasions.
//! On the log scale a standard deviation reads as a relative one (0.05 is about ±5%).

use serde::Serialize;

use crate::{
    format::Lang,
    tables::{Cell, Table},
    view::language_name,
};

/// Rounds that ended more than this many hours after the previous one were taken at a separate
/// time: a sitting of one session is a few hours at most here.
pub const SEPARATE_HOURS: f64 = 6.0;

/// One cell's variance components of ln(time).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Components {
    /// The variance a round's figure has from its samples alone: the mean over rounds of
    /// (sd / median)² / samples.
    pub within: f64,
    /// Between the rounds of one time, beyond `within`; none without two rounds at one time.
    pub rounds: Option<f64>,
    /// Between times, beyond what the rounds of each time already spread; none without rounds
    /// at two times (and two rounds at one of them).
    pub times: Option<f64>,
}

/// `rounds` holds per round the ln of its figure and the variance `within` gives it; `time` the
/// time each round was taken at (0, 1, …).
pub fn of_cell(rounds: &[(f64, f64)], time: &[usize]) -> Components {
    let within = rounds.iter().map(|r| r.1).sum::<f64>() / rounds.len() as f64;
    let times = time.iter().max().map_or(0, |t| t + 1);
    let groups: Vec<Vec<f64>> = (0..times)
        .map(|g| {
            rounds
                .iter()
                .zip(time)
                .filter(|(_, &t)| t == g)
                .map(|(r, _)| r.0)
                .collect()
        })
        .filter(|g: &Vec<f64>| !g.is_empty())
        .collect();
    let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len() as f64;
    let freedom: usize = groups.iter().map(|g| g.len() - 1).sum();
    let rounds_component = (freedom > 0).then(|| {
        let squares: f64 = groups
            .iter()
            .flat_map(|g| g.iter().map(move |x| (x - mean(g)).powi(2)))
            .sum();
        (squares / freedom as f64 - within).max(0.0)
    });
    let times_component = rounds_component.filter(|_| groups.len() > 1).map(|r| {
        let means: Vec<f64> = groups.iter().map(|g| mean(g)).collect();
        let spread = means
            .iter()
            .map(|m| (m - mean(&means)).powi(2))
            .sum::<f64>()
            / (means.len() - 1) as f64;
        // The harmonic mean of the rounds per time: what a time's mean averages over.
        let per_time =
            groups.len() as f64 / groups.iter().map(|g| 1.0 / g.len() as f64).sum::<f64>();
        (spread - (r + within) / per_time).max(0.0)
    });
    Components {
        within,
        rounds: rounds_component,
        times: times_component,
    }
}

/// The time each of `dates` (RFC 3339, in round order) was taken at: a new one wherever a round
/// ended more than [`SEPARATE_HOURS`] after the one before it in time.
pub fn times(dates: &[Option<&str>]) -> Vec<usize> {
    let seconds: Vec<Option<f64>> = dates
        .iter()
        .map(|d| {
            let at = humantime::parse_rfc3339((*d)?).ok()?;
            Some(at.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs_f64())
        })
        .collect();
    let mut order: Vec<usize> = (0..dates.len()).collect();
    order.sort_by(|&a, &b| seconds[a].partial_cmp(&seconds[b]).expect("no NaN"));
    let mut time = vec![0; dates.len()];
    let mut current = 0;
    for pair in order.windows(2) {
        let apart = match (seconds[pair[0]], seconds[pair[1]]) {
            (Some(a), Some(b)) => b - a > SEPARATE_HOURS * 3600.0,
            _ => false,
        };
        current += usize::from(apart);
        time[pair[1]] = current;
    }
    time
}

/// One row of the method page: one language, size and kind of store, each component the median
/// over its cells, as a standard deviation of ln(time) in percent.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Row {
    size: String,
    language: String,
    stores: String,
    cells: usize,
    /// "6 at 2 times".
    rounds: String,
    within: String,
    between_rounds: String,
    between_times: String,
}

/// A row per table with two rounds or more and per kind of store (Doublets, the servers), in
/// table order; suites of one language and size share a row.
pub fn rows(spec: &contract::spec::Spec, tables: &[Table], lang: Lang) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut sizes: Vec<(&str, u64, u64)> = Vec::new();
    for t in tables.iter().filter(|t| t.rounds > 1 && !t.variants) {
        let key = (t.language.as_str(), t.background, t.operations);
        if sizes.contains(&key) {
            continue;
        }
        sizes.push(key);
        let same: Vec<&Table> = tables
            .iter()
            .filter(|o| (o.language.as_str(), o.background, o.operations) == key && !o.variants)
            .collect();
        let time = times(&round_dates(t));
        for doublets in [true, false] {
            let cells: Vec<Components> = same
                .iter()
                .flat_map(|t| cells(spec, t, doublets))
                .map(|(cell, samples)| of_cell(&log_rounds(cell, samples), &time))
                .collect();
            if !cells.is_empty() {
                rows.push(row(t, doublets, &cells, &time, lang));
            }
        }
    }
    rows
}

/// When each round was taken: the earliest date of its inputs (each written at its end), in round order.
fn round_dates(t: &Table) -> Vec<Option<&str>> {
    let mut rounds: Vec<u32> = t.environment.iter().map(|e| e.round).collect();
    rounds.sort_unstable();
    rounds.dedup();
    rounds
        .iter()
        .map(|&r| {
            t.environment
                .iter()
                .filter(|e| e.round == r)
                .filter_map(|e| e.date.as_deref())
                .min()
        })
        .collect()
}

/// The table's measured cells of Doublets (or of the servers), each with its family's samples.
fn cells<'t>(
    spec: &contract::spec::Spec,
    t: &'t Table,
    doublets: bool,
) -> impl Iterator<Item = (&'t Cell, usize)> + 't {
    let samples: Vec<usize> = t
        .backends
        .iter()
        .map(|b| spec.family(&spec.backend(b).family).sampling.samples)
        .collect();
    let is_doublets: Vec<bool> = t
        .backends
        .iter()
        .map(|b| spec.backend(b).family == "doublets")
        .collect();
    t.rows.iter().flat_map(move |row| {
        let (samples, is_doublets) = (samples.clone(), is_doublets.clone());
        row.cells.iter().enumerate().filter_map(move |(k, cell)| {
            let cell = cell.as_ref().ok()?;
            (is_doublets[k] == doublets && cell.rounds_ns.len() == t.rounds)
                .then_some((cell, samples[k]))
        })
    })
}

/// (ln of the round's figure, the variance its samples leave in it) per round.
fn log_rounds(cell: &Cell, samples: usize) -> Vec<(f64, f64)> {
    cell.rounds_ns
        .iter()
        .zip(&cell.rounds_sd_ns)
        .map(|(m, sd)| (m.ln(), (sd / m).powi(2) / samples as f64))
        .collect()
}

fn row(t: &Table, doublets: bool, cells: &[Components], time: &[usize], lang: Lang) -> Row {
    let percent = |values: Vec<f64>| {
        if values.is_empty() {
            return "—".to_string();
        }
        let sd = crate::stats::median(values.into_iter()).sqrt() * 100.0;
        format!("{sd:.1}%").replace('.', &lang.decimal_separator().to_string())
    };
    let times = time.iter().max().map_or(0, |t| t + 1);
    Row {
        size: crate::format::sizes(t.background, t.operations, lang),
        language: language_name(&t.language).to_string(),
        stores: match (doublets, lang) {
            (true, _) => "Doublets".into(),
            (false, Lang::En) => "servers".into(),
            (false, Lang::Ru) => "серверы".into(),
        },
        cells: cells.len(),
        rounds: match lang {
            Lang::En => format!(
                "{} at {times} time{}",
                t.rounds,
                if times == 1 { "" } else { "s" }
            ),
            Lang::Ru => format!(
                "{} за {times} заход{}",
                t.rounds,
                match times {
                    1 => "",
                    2..=4 => "а",
                    _ => "ов",
                }
            ),
        },
        within: percent(cells.iter().map(|c| c.within).collect()),
        between_rounds: percent(cells.iter().filter_map(|c| c.rounds).collect()),
        between_times: percent(cells.iter().filter_map(|c| c.times).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rounds drawn with a known component at each level give back those components, and a
    /// level the rounds cannot separate is left out rather than guessed.
    #[test]
    fn components_come_back_from_rounds_drawn_with_them() {
        // A small deterministic generator: the test needs no randomness crate.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut normal = move || {
            let mut uniform = || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 11) as f64 / (1u64 << 53) as f64
            };
            let (u, v) = (uniform().max(1e-12), uniform());
            (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
        };
        let (sd_times, sd_rounds, sd_within) = (0.10, 0.05, 0.02);
        let (mut times_sum, mut rounds_sum, mut within_sum) = (0.0, 0.0, 0.0);
        let cells = 2000;
        let time: Vec<usize> = (0..8).map(|r| r / 4).collect();
        for _ in 0..cells {
            let day: Vec<f64> = (0..2).map(|_| sd_times * normal()).collect();
            let rounds: Vec<(f64, f64)> = time
                .iter()
                .map(|&t| {
                    let noise = day[t] + sd_rounds * normal() + sd_within * normal();
                    (noise, sd_within * sd_within)
                })
                .collect();
            let c = of_cell(&rounds, &time);
            within_sum += c.within;
            rounds_sum += c.rounds.unwrap();
            times_sum += c.times.unwrap();
        }
        let n = f64::from(cells);
        let close = |got: f64, want: f64| (got / n - want * want).abs() < 0.15 * want * want;
        assert!(close(within_sum, sd_within), "within {}", within_sum / n);
        assert!(close(rounds_sum, sd_rounds), "rounds {}", rounds_sum / n);
        assert!(close(times_sum, sd_times), "times {}", times_sum / n);

        let one_time = of_cell(&[(0.0, 0.0), (0.1, 0.0), (0.2, 0.0)], &[0, 0, 0]);
        assert_eq!(one_time.times, None);
        assert!((one_time.rounds.unwrap() - 0.01).abs() < 1e-12);
        let one_round_each = of_cell(&[(0.0, 0.0), (0.3, 0.0)], &[0, 1]);
        assert_eq!((one_round_each.rounds, one_round_each.times), (None, None));
    }

    #[test]
    fn rounds_hours_apart_are_separate_times_and_an_unknown_date_joins_the_first() {
        let dates = [
            Some("2026-12-05T22:39:42Z"),
            Some("2026-12-05T23:10:00Z"),
            Some("2026-12-07T09:00:00Z"),
            None,
            Some("2026-12-07T10:30:00Z"),
        ];
        assert_eq!(times(&dates), [0, 0, 1, 0, 1]);
        assert_eq!(times(&[Some("2026-12-05T22:39:42Z")]), [0]);
    }
}
