//! Result files merged into tables: one per language, suite and size, a row per operation in spec
//! order, a column per backend, each Doublets cell compared with the row's fastest Redis mode.
//! Everything inconsistent is refused here, before anything is written.

use std::collections::BTreeMap;

use anyhow::{bail, Result};
use redis_vs_doublets::{results::ResultFile, spec::Spec};
use serde::Serialize;

/// The languages a result file may name, in table order.
pub const LANGUAGES: [&str; 2] = ["rust", "csharp"];

/// Medians closer than this (relative to the smaller) count as the same.
pub const SAME_WITHIN: f64 = 0.05;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Faster,
    Slower,
    Same,
}

/// A Doublets cell against the row's fastest Redis cell. `ratio` is always ≥ 1: how many times
/// faster or slower.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Comparison {
    pub verdict: Verdict,
    pub ratio: f64,
}

/// The comparison rule: "≈ same" when the medians differ by less than 5% or their ±1 standard
/// deviation ranges overlap; otherwise how many times faster or slower.
pub fn compare(doublets: (f64, f64), redis: (f64, f64)) -> Comparison {
    let ((d, d_sd), (r, r_sd)) = (doublets, redis);
    let close = (d - r).abs() < SAME_WITHIN * d.min(r);
    let overlap = d - d_sd <= r + r_sd && r - r_sd <= d + d_sd;
    if close || overlap {
        return Comparison {
            verdict: Verdict::Same,
            ratio: 1.0,
        };
    }
    if d < r {
        Comparison {
            verdict: Verdict::Faster,
            ratio: r / d,
        }
    } else {
        Comparison {
            verdict: Verdict::Slower,
            ratio: d / r,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Cell {
    pub median_ns: f64,
    pub sd_ns: f64,
    /// The fastest Redis mode of its row.
    pub fastest_redis: bool,
    /// For Doublets cells, when the row has a Redis cell.
    pub comparison: Option<Comparison>,
}

/// Why a cell has no number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Absence {
    /// No input ran the backend's family.
    NotRun,
    /// An input ran the family, but has no line for the cell.
    Missing,
}

#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub operation: String,
    pub cells: Vec<Result<Cell, Absence>>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Table {
    pub language: String,
    pub suite: String,
    pub background: u64,
    pub operations: u64,
    pub backends: Vec<String>,
    pub rows: Vec<Row>,
    /// Provenance merged over the table's inputs; a key whose inputs disagree lists each value.
    pub provenance: BTreeMap<String, String>,
    pub sources: Vec<String>,
}

impl Table {
    pub fn id(&self) -> String {
        format!(
            "{}-{}-b{}-n{}",
            self.language, self.suite, self.background, self.operations
        )
    }

    pub fn absences(&self) -> impl Iterator<Item = (&str, &str, Absence)> {
        self.rows.iter().flat_map(move |row| {
            row.cells
                .iter()
                .zip(&self.backends)
                .filter_map(move |(cell, backend)| match cell {
                    Err(absence) => Some((row.operation.as_str(), backend.as_str(), *absence)),
                    Ok(_) => None,
                })
        })
    }
}

fn size(file: &ResultFile, key: &str) -> Result<u64> {
    let value = file.get(key).unwrap_or_default();
    value
        .replace([',', '_'], "")
        .parse()
        .map_err(|_| anyhow::anyhow!("{}: {key} {value:?} is not a whole number", file.at(key)))
}

/// Builds every table the inputs hold. Refuses unknown operations and backends, cells given
/// twice, inputs of one table from different commits, and missing cells unless `allow_missing`.
pub fn build(spec: &Spec, files: &[ResultFile], allow_missing: bool) -> Result<Vec<Table>> {
    let [b_key, n_key] = [&spec.sizes[0].key, &spec.sizes[1].key];
    // (language index, B, N) → the files of that run.
    let mut groups: BTreeMap<(usize, u64, u64), Vec<&ResultFile>> = BTreeMap::new();
    for file in files {
        let language = file.get("language").unwrap_or_default();
        let Some(index) = LANGUAGES.iter().position(|l| *l == language) else {
            bail!(
                "{}: unknown language \"{language}\" (known: {})",
                file.at("language"),
                LANGUAGES.join(", ")
            );
        };
        groups
            .entry((index, size(file, b_key)?, size(file, n_key)?))
            .or_default()
            .push(file);
    }

    let mut tables = Vec::new();
    for ((language, b, n), group) in groups {
        let first = group[0];
        for file in &group[1..] {
            if file.get("commit") != first.get("commit") {
                bail!(
                    "{} measured commit {}, but {} measured {}: one table cannot mix commits",
                    file.at("commit"),
                    file.get("commit").unwrap_or_default(),
                    first.at("commit"),
                    first.get("commit").unwrap_or_default()
                );
            }
        }
        let mut cells: BTreeMap<(&str, &str), &redis_vs_doublets::results::Measurement> =
            BTreeMap::new();
        for file in &group {
            for m in &file.measurements {
                let Some(suite) = spec
                    .suites
                    .iter()
                    .find(|s| s.operations.iter().any(|o| o.id == m.operation))
                else {
                    bail!("{}: the spec has no operation \"{}\"", m.at, m.operation);
                };
                if !suite.backends.contains(&m.backend) {
                    bail!(
                        "{}: the suite \"{}\" has no backend \"{}\" (its backends: {})",
                        m.at,
                        suite.id,
                        m.backend,
                        suite.backends.join(", ")
                    );
                }
                if let Some(other) = cells.insert((&m.operation, &m.backend), m) {
                    bail!(
                        "{}: {}/{} is given twice (also at {})",
                        m.at,
                        m.operation,
                        m.backend,
                        other.at
                    );
                }
            }
        }
        let ran: Vec<&str> = group
            .iter()
            .flat_map(|f| f.get("families").unwrap_or_default().split(','))
            .map(str::trim)
            .collect();
        for suite in &spec.suites {
            let mut rows = Vec::new();
            for op in &suite.operations {
                let mut row: Vec<Result<Cell, Absence>> = suite
                    .backends
                    .iter()
                    .map(
                        |backend| match cells.get(&(op.id.as_str(), backend.as_str())) {
                            Some(m) => Ok(Cell {
                                median_ns: m.median_ns,
                                sd_ns: m.sd_ns,
                                fastest_redis: false,
                                comparison: None,
                            }),
                            None if ran.contains(&spec.backend(backend).family.as_str()) => {
                                Err(Absence::Missing)
                            }
                            None => Err(Absence::NotRun),
                        },
                    )
                    .collect();
                mark(spec, &suite.backends, &mut row);
                rows.push(Row {
                    operation: op.id.clone(),
                    cells: row,
                });
            }
            let table = Table {
                language: LANGUAGES[language].to_string(),
                suite: suite.id.clone(),
                background: b,
                operations: n,
                backends: suite.backends.clone(),
                rows,
                provenance: merge_provenance(&group, &[b_key, n_key]),
                sources: group.iter().map(|f| f.path.clone()).collect(),
            };
            let absent: Vec<String> = table
                .absences()
                .map(|(op, backend, _)| format!("{op}/{backend}"))
                .collect();
            if absent.len() == suite.operations.len() * suite.backends.len() {
                continue; // No input measured this suite at this size.
            }
            if !absent.is_empty() && !allow_missing {
                bail!(
                    "{}: the table {} lacks {} (pass --allow-missing to publish it with gaps)",
                    table.sources.join(", "),
                    table.id(),
                    absent.join(", ")
                );
            }
            tables.push(table);
        }
    }
    Ok(tables)
}

/// Bolds the fastest Redis cell of a row and compares every Doublets cell with it.
fn mark(spec: &Spec, backends: &[String], row: &mut [Result<Cell, Absence>]) {
    let family = |k: usize| spec.backend(&backends[k]).family.as_str();
    let fastest = (0..row.len())
        .filter(|&k| family(k) == "redis")
        .filter_map(|k| row[k].as_ref().ok().map(|c| (k, c.median_ns, c.sd_ns)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    let Some((fastest, median, sd)) = fastest else {
        return;
    };
    for (k, cell) in row.iter_mut().enumerate() {
        if let Ok(cell) = cell {
            cell.fastest_redis = k == fastest;
            if family(k) == "doublets" {
                cell.comparison = Some(compare((cell.median_ns, cell.sd_ns), (median, sd)));
            }
        }
    }
}

fn merge_provenance(group: &[&ResultFile], skip: &[&String]) -> BTreeMap<String, String> {
    let mut merged: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in group {
        for (key, value, _) in &file.provenance {
            if skip.contains(&key) {
                continue;
            }
            let values = merged.entry(key.clone()).or_default();
            if !values.contains(value) {
                values.push(value.clone());
            }
        }
    }
    merged
        .into_iter()
        .map(|(k, v)| (k, v.join(" / ")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_comparison_rule() {
        // Within 5%: the same, even with tight deviations.
        assert_eq!(compare((100.0, 0.0), (104.0, 0.0)).verdict, Verdict::Same);
        // ±1 sd ranges overlap: the same, even 30% apart.
        assert_eq!(compare((100.0, 20.0), (130.0, 11.0)).verdict, Verdict::Same);
        // Clear of both: faster or slower, by the ratio of medians.
        assert_eq!(
            compare((100.0, 1.0), (1000.0, 5.0)),
            Comparison {
                verdict: Verdict::Faster,
                ratio: 10.0
            }
        );
        assert_eq!(
            compare((300.0, 1.0), (100.0, 1.0)),
            Comparison {
                verdict: Verdict::Slower,
                ratio: 3.0
            }
        );
        // Ranges that just touch overlap.
        assert_eq!(compare((100.0, 10.0), (120.0, 10.0)).verdict, Verdict::Same);
        assert_eq!(
            compare((100.0, 9.0), (120.0, 10.0)).verdict,
            Verdict::Faster
        );
    }
}
