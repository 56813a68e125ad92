//! Result files merged into tables: one per language, suite and size, a row per operation in spec
//! order, a column per backend, each Doublets cell compared with the row's fastest server mode
//! (Redis or Garnet), and each further server's fastest mode with the first server's (Redis).
//! Everything inconsistent is refused here, before anything is written.

use std::collections::BTreeMap;

use anyhow::{bail, Result};
use contract::{
    results::{Measurement, ResultFile},
    spec::{Spec, Suite},
    split::Split,
};
use serde::Serialize;

/// The languages a result file may name, in table order.
pub use contract::spec::LANGUAGES;

pub use crate::stats::Verdict;

/// A Doublets cell against the row's fastest server cell, or one server's fastest against
/// another's: the reference's time over the cell's, with its interval ([`crate::stats`]).
pub type Comparison = crate::stats::Ratio;

/// The comparison rule, one for every table: the median of the rounds' ratios with its interval
/// ([`crate::stats`]), faster or slower only when an interval of the verdict's level says so.
pub fn compare(cell: &Cell, reference: &Cell) -> Comparison {
    crate::stats::ratio(&cell.rounds_ns, &reference.rounds_ns)
}

#[derive(Clone, Debug, Serialize)]
pub struct Cell {
    /// The median over rounds of each round's median.
    pub median_ns: f64,
    /// The standard deviation within a round (the median over rounds).
    pub sd_ns: f64,
    /// Each round's median, in round order.
    pub rounds_ns: Vec<f64>,
    /// Each round's standard deviation within it, in round order ([`crate::variance`]).
    pub rounds_sd_ns: Vec<f64>,
    /// The median's interval over the rounds ([`crate::stats::interval`]); none with one round.
    pub interval_ns: Option<(f64, f64)>,
    /// The fastest server mode of its row.
    pub fastest_server: bool,
    /// For Doublets cells, when the row has a server cell.
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
    /// The client cannot run the cell's mode of this suite (the spec's `not_run` says why).
    ClientCannot,
}

/// The cells of a C# server backend run through a client other than the default one: the main
/// table shows the default client's, the clients table these.
#[derive(Clone, Debug, Serialize)]
pub struct ClientColumn {
    /// The client's id in the spec.
    pub client: String,
    /// The backend it stands for (Redis_Pipeline).
    pub backend: String,
    /// Its cells' name in result files (Redis_Pipeline_FreeRedis).
    pub name: String,
    /// One per row of the table.
    pub cells: Vec<Result<Cell, Absence>>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub operation: String,
    pub cells: Vec<Result<Cell, Absence>>,
    /// The backend of the row's fastest server cell, which the Doublets cells are compared with.
    pub fastest: Option<String>,
    /// Each further server's fastest mode against the first server's, where both have a cell.
    pub servers: Vec<ServerComparison>,
}

/// One server's fastest mode in a row against another's: "Garnet against Redis".
#[derive(Clone, Debug, Serialize)]
pub struct ServerComparison {
    /// Server names, as the spec gives them.
    pub server: String,
    pub against: String,
    pub comparison: Comparison,
}

/// What one input of a table recorded of the machine while it ran (rust/src/calibration.rs and
/// provenance.rs): each round's own, since rounds differ in exactly these. None of a field in files
/// from before it was recorded.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Environment {
    pub round: u32,
    /// The part of the round the input holds, where a round was measured in pieces: its
    /// families, servers and clients ("redis; redis; FreeRedis").
    pub part: Option<String>,
    /// The round trip of PINGs to its first server and a fixed CPU loop, before its first cell.
    pub calibration_start: Option<String>,
    /// The same after its last cell.
    pub calibration_end: Option<String>,
    /// The share of the machine's CPU time other processes used while it ran.
    pub other_processes: Option<String>,
    /// The share the hypervisor gave to other machines.
    pub steal: Option<String>,
    /// `quiet`, or `busy` where other processes used more than conditions::BUSY_ABOVE.
    pub machine: Option<String>,
    /// When it was written, at its end (RFC 3339): tells rounds of one sitting from rounds taken apart.
    pub date: Option<String>,
}

/// The provenance keys each input records of its own machine, listed per input in
/// [`Table::environment`] rather than merged.
const ENVIRONMENT: [&str; 5] = [
    "calibration_start",
    "calibration_end",
    "other_processes",
    "steal",
    "machine",
];

impl Environment {
    /// What `file` recorded; `part` names the part of its round it holds, which
    /// [`environment`] keeps only where a round came in several files.
    fn of(file: &ResultFile) -> Self {
        let get = |key: &str| file.get(key).map(str::to_string);
        let part = ["suites", "families", "servers", "clients"].map(|k| file.get(k).unwrap_or("—"));
        Environment {
            round: file.get("round").and_then(|r| r.parse().ok()).unwrap_or(1),
            part: Some(part.join("; ")),
            calibration_start: get("calibration_start"),
            calibration_end: get("calibration_end"),
            other_processes: get("other_processes"),
            steal: get("steal"),
            machine: get("machine"),
            date: get("date"),
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Table {
    /// Of a run that measured durable or distant stores beside their twins
    /// ([`crate::variants`]): the durable and network sections read it, the main tables do not.
    pub variants: bool,
    pub language: String,
    pub suite: String,
    pub background: u64,
    pub operations: u64,
    pub backends: Vec<String>,
    pub rows: Vec<Row>,
    /// The server backends through the other clients (C# only).
    pub clients: Vec<ClientColumn>,
    /// Provenance merged over the table's inputs; a key whose inputs disagree lists each value.
    pub provenance: BTreeMap<String, String>,
    pub sources: Vec<String>,
    /// How many rounds the table's cells were measured in.
    pub rounds: usize,
    /// The code its rounds measured (one fingerprint for all of them).
    pub measured: crate::measured::MeasuredCode,
    /// Each input's machine, in round order.
    pub environment: Vec<Environment>,
    /// Where each server cell's time went, where its server reported it.
    pub splits: Vec<SplitCell>,
}

/// Where one server cell's time went ([`contract::split`]), per iteration in nanoseconds:
/// each figure is the median over the rounds that split the cell of that round's mean iteration.
#[derive(Clone, Debug, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct SplitCell {
    /// The operation's id in the spec.
    pub operation: String,
    /// The cell's backend; C# cells through a client other than the default one carry its suffix.
    pub backend: String,
    /// How many rounds split it.
    pub rounds: usize,
    #[serde(flatten)]
    pub split: Split,
}

impl SplitCell {
    /// One cell from its rounds' splits.
    fn of_rounds(operation: &str, backend: &str, rounds: &[&Split]) -> Self {
        let median =
            |figure: fn(&Split) -> f64| crate::stats::median(rounds.iter().map(|s| figure(s)));
        Self {
            operation: operation.to_string(),
            backend: backend.to_string(),
            rounds: rounds.len(),
            split: Split {
                iterations: median(|s| f64::from(s.iterations)).round() as u32,
                wall_ns: median(|s| s.wall_ns),
                native_ns: median(|s| s.native_ns),
                script_ns: median(|s| s.script_ns),
                transaction_ns: median(|s| s.transaction_ns),
                server_cpu_ns: median(|s| s.server_cpu_ns),
                client_cpu_ns: median(|s| s.client_cpu_ns),
            },
        }
    }
}

impl Cell {
    /// One cell from its rounds' measurements, (round, median, sd) each.
    pub fn from_rounds(mut rounds: Vec<(u32, f64, f64)>) -> Self {
        rounds.sort_by_key(|r| r.0);
        let rounds_ns: Vec<f64> = rounds.iter().map(|r| r.1).collect();
        Self {
            median_ns: crate::stats::median(rounds_ns.iter().copied()),
            sd_ns: crate::stats::median(rounds.iter().map(|r| r.2)),
            interval_ns: crate::stats::interval(&rounds_ns),
            rounds_ns,
            rounds_sd_ns: rounds.iter().map(|r| r.2).collect(),
            fastest_server: false,
            comparison: None,
        }
    }

    /// What its spread line spans: the interval, or the median alone with one round.
    pub fn span_ns(&self) -> (f64, f64) {
        self.interval_ns.unwrap_or((self.median_ns, self.median_ns))
    }
}

/// Each language's rounds among `tables` (of one size): the most any of its tables has, since a
/// suite measured in fewer rounds says so in its own table.
pub fn rounds_by_language<'t>(
    tables: impl IntoIterator<Item = &'t Table>,
) -> BTreeMap<&'t str, usize> {
    let mut rounds: BTreeMap<&str, usize> = BTreeMap::new();
    for t in tables {
        let most = rounds.entry(&t.language).or_default();
        *most = (*most).max(t.rounds);
    }
    rounds
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

    /// The client columns' cells missing from the inputs, as `operation/backend (client)`.
    fn clients_missing(&self) -> impl Iterator<Item = String> + '_ {
        self.clients.iter().flat_map(move |column| {
            column
                .cells
                .iter()
                .zip(&self.rows)
                .filter(|(cell, _)| matches!(cell, Err(Absence::Missing)))
                .map(move |(_, row)| {
                    format!("{}/{} ({})", row.operation, column.backend, column.client)
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

/// Builds every table the inputs hold, each with the code it measured (`code`, by fingerprint).
/// Refuses unknown operations and backends, cells given twice, inputs of one table from different
/// code, and missing cells unless `allow_missing`.
pub fn build(
    spec: &Spec,
    files: &[ResultFile],
    code: &BTreeMap<String, crate::measured::MeasuredCode>,
    allow_missing: bool,
) -> Result<Vec<Table>> {
    let mut tables = Vec::new();
    for (key, files) in runs(spec, files)? {
        let run = Run::read(spec, key, files, code)?;
        for suite in &spec.suites {
            if let Some(table) = run.table(spec, suite, allow_missing)? {
                tables.push(table);
            }
        }
    }
    Ok(tables)
}

/// What makes the files of one run: whether it ran variants, the language's index, B and N.
type RunKey = (bool, usize, u64, u64);

/// The files of each run: a run that measured a durable or distant store makes tables of its own
/// ([`crate::variants`]).
fn runs<'f>(spec: &Spec, files: &'f [ResultFile]) -> Result<BTreeMap<RunKey, Vec<&'f ResultFile>>> {
    let [b_key, n_key] = [&spec.sizes[0].key, &spec.sizes[1].key];
    let mut runs: BTreeMap<RunKey, Vec<&ResultFile>> = BTreeMap::new();
    for file in files {
        let language = file.get("language").unwrap_or_default();
        let Some(index) = LANGUAGES.iter().position(|l| *l == language) else {
            bail!(
                "{}: unknown language \"{language}\" (known: {})",
                file.at("language"),
                LANGUAGES.join(", ")
            );
        };
        runs.entry((
            crate::variants::varies(spec, file),
            index,
            size(file, b_key)?,
            size(file, n_key)?,
        ))
        .or_default()
        .push(file);
    }
    Ok(runs)
}

/// One run's files read: its cells by (operation, backend) with their rounds, and what it ran.
struct Run<'f> {
    key: RunKey,
    files: Vec<&'f ResultFile>,
    measured: crate::measured::MeasuredCode,
    cells: BTreeMap<(&'f str, &'f str), Vec<(u32, &'f Measurement)>>,
    rounds: Vec<u32>,
    /// The families its files ran.
    families: Vec<&'f str>,
    /// The servers its files ran (results from before servers were a choice name none: they
    /// ran Redis).
    servers: Vec<&'f str>,
}

impl<'f> Run<'f> {
    /// Refuses files of different code (rounds measured at different commits of the same code
    /// share a table: a re-measure in pieces spans commits), unknown operations and backends,
    /// and cells given twice in a round.
    fn read(
        spec: &Spec,
        key: RunKey,
        files: Vec<&'f ResultFile>,
        code: &BTreeMap<String, crate::measured::MeasuredCode>,
    ) -> Result<Self> {
        let first = files[0];
        for file in &files[1..] {
            if file.get("fingerprint") != first.get("fingerprint") {
                bail!(
                    "{} measured fingerprint {}, but {} measured {}: one table cannot mix them",
                    file.at("fingerprint"),
                    file.get("fingerprint").unwrap_or_default(),
                    first.at("fingerprint"),
                    first.get("fingerprint").unwrap_or_default()
                );
            }
        }
        let fingerprint = first.get("fingerprint").unwrap_or_default();
        let Some(measured) = code.get(fingerprint).cloned() else {
            bail!(
                "{}: no code resolved for fingerprint {fingerprint}",
                first.at("fingerprint")
            );
        };
        let mut cells: BTreeMap<(&str, &str), Vec<(u32, &Measurement)>> = BTreeMap::new();
        let mut rounds: Vec<u32> = Vec::new();
        for file in &files {
            let round = match file.get("round") {
                None => 1,
                Some(text) => text.parse::<u32>().map_err(|_| {
                    anyhow::anyhow!("{}: round {text:?} is not a whole number", file.at("round"))
                })?,
            };
            if !rounds.contains(&round) {
                rounds.push(round);
            }
            for m in &file.measurements {
                let Some(suite) = spec
                    .suites
                    .iter()
                    .find(|s| s.operations.iter().any(|o| o.id == m.operation))
                else {
                    bail!("{}: the spec has no operation \"{}\"", m.at, m.operation);
                };
                // A C# cell through another client names its backend with the client's suffix.
                let base = spec
                    .backend_client(&m.backend)
                    .map_or(m.backend.as_str(), |(backend, _)| backend.name.as_str());
                if !suite.backends.iter().any(|b| b == base) {
                    bail!(
                        "{}: the suite \"{}\" has no backend \"{}\" (its backends: {})",
                        m.at,
                        suite.id,
                        m.backend,
                        suite.backends.join(", ")
                    );
                }
                let given = cells.entry((&m.operation, &m.backend)).or_default();
                if let Some((_, other)) = given.iter().find(|(r, _)| *r == round) {
                    bail!(
                        "{}: {}/{} is given twice in round {round} (also at {})",
                        m.at,
                        m.operation,
                        m.backend,
                        other.at
                    );
                }
                given.push((round, m));
            }
        }
        let listed = |key: &str, unnamed: &'static str| -> Vec<&'f str> {
            files
                .iter()
                .flat_map(|f| f.get(key).unwrap_or(unnamed).split(','))
                .map(str::trim)
                .collect()
        };
        let (families, servers) = (listed("families", ""), listed("servers", "redis"));
        Ok(Self {
            key,
            files,
            measured,
            cells,
            rounds,
            families,
            servers,
        })
    }

    /// The cell of `op` on `backend` (named `name`: the backend, or it through another client).
    fn cell(&self, spec: &Spec, op: &str, backend: &str, name: &str) -> Result<Cell, Absence> {
        match self.cells.get(&(op, name)) {
            Some(given) if given.len() < self.rounds.len() => Err(Absence::Missing),
            Some(given) => Ok(Cell::from_rounds(
                given
                    .iter()
                    .map(|(r, m)| (*r, m.median_ns, m.sd_ns))
                    .collect(),
            )),
            None if self
                .families
                .contains(&spec.backend(backend).family.as_str()) =>
            {
                Err(Absence::Missing)
            }
            None => Err(Absence::NotRun),
        }
    }

    /// The suite's backends a column is kept for: a server no input ran has none, nor a family
    /// that runs only when named (the durable stores): choosing them is not a gap.
    fn backends(&self, spec: &Spec, suite: &Suite) -> Vec<String> {
        suite
            .backends
            .iter()
            .filter(|b| {
                let backend = spec.backend(b);
                backend
                    .server
                    .as_deref()
                    .is_none_or(|s| self.servers.contains(&s))
                    && (spec.family(&backend.family).default
                        || self.families.contains(&backend.family.as_str()))
            })
            .cloned()
            .collect()
    }

    /// Whether a C# run measured through `client`: its `clients` line names it (until a88d688 its
    /// client line listed every client the harness had, measured or not), or in runs from before
    /// that line, its client line does.
    fn used(&self, client: &str) -> bool {
        self.files.iter().any(|f| match f.get("clients") {
            Some(ids) => ids.split(',').any(|id| id.trim() == client),
            None => f
                .get("client")
                .unwrap_or_default()
                .split("; ")
                .any(|u| u.starts_with(&format!("{client} "))),
        })
    }

    /// The columns of the other clients a C# run measured, on each server backend.
    fn client_columns(&self, spec: &Spec, suite: &Suite, backends: &[String]) -> Vec<ClientColumn> {
        let language = self.key.1;
        spec.clients
            .iter()
            .filter(|c| c.suffix.is_some() && LANGUAGES[language] == "csharp")
            .filter(|c| self.used(&c.id))
            .flat_map(|client| {
                backends
                    .iter()
                    .filter(|b| spec.backend(b).server.is_some())
                    .map(|backend| {
                        let name =
                            format!("{backend}_{}", client.suffix.as_deref().unwrap_or_default());
                        let cannot = client.refuses(&suite.id, spec.backend(backend)).is_some();
                        ClientColumn {
                            client: client.id.clone(),
                            backend: backend.clone(),
                            name: name.clone(),
                            cells: suite
                                .operations
                                .iter()
                                .map(|op| match self.cell(spec, &op.id, backend, &name) {
                                    Err(_) if cannot => Err(Absence::ClientCannot),
                                    other => other,
                                })
                                .collect(),
                        }
                    })
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// The run's table of `suite`, or none where no input measured the suite at this size;
    /// missing cells are refused unless `allow_missing`.
    fn table(&self, spec: &Spec, suite: &Suite, allow_missing: bool) -> Result<Option<Table>> {
        let (variants, language, b, n) = self.key;
        let [b_key, n_key] = [&spec.sizes[0].key, &spec.sizes[1].key];
        let backends = self.backends(spec, suite);
        let mut rows = Vec::new();
        for op in &suite.operations {
            let mut row: Vec<Result<Cell, Absence>> = backends
                .iter()
                .map(|backend| self.cell(spec, &op.id, backend, backend))
                .collect();
            let (fastest, servers) = mark(spec, &backends, &mut row);
            rows.push(Row {
                operation: op.id.clone(),
                cells: row,
                fastest,
                servers,
            });
        }
        let table = Table {
            variants,
            language: LANGUAGES[language].to_string(),
            suite: suite.id.clone(),
            background: b,
            operations: n,
            clients: self.client_columns(spec, suite, &backends),
            backends,
            rows,
            provenance: merge_provenance(&self.files, &[b_key, n_key, &"round".to_string()]),
            sources: self.files.iter().map(|f| f.path.clone()).collect(),
            rounds: self.rounds.len(),
            measured: self.measured.clone(),
            environment: environment(&self.files),
            splits: splits(&self.files, suite),
        };
        let mut absent: Vec<String> = table
            .absences()
            .map(|(op, backend, _)| format!("{op}/{backend}"))
            .collect();
        if absent.len() == suite.operations.len() * table.backends.len() {
            return Ok(None); // No input measured this suite at this size.
        }
        absent.extend(table.clients_missing());
        if !absent.is_empty() && !allow_missing {
            bail!(
                "{}: the table {} lacks {} (pass --allow-missing to publish it with gaps)",
                table.sources.join(", "),
                table.id(),
                absent.join(", ")
            );
        }
        Ok(Some(table))
    }
}

/// The suite's split cells of a table's inputs, in the suite's order of operations, then the
/// order the inputs give them.
fn splits(group: &[&ResultFile], suite: &Suite) -> Vec<SplitCell> {
    let mut cells: Vec<((usize, &str), Vec<&Split>)> = Vec::new();
    for line in group.iter().flat_map(|f| &f.splits) {
        let Some(k) = suite.operations.iter().position(|o| o.id == line.operation) else {
            continue;
        };
        let key = (k, line.backend.as_str());
        match cells.iter_mut().find(|(c, _)| *c == key) {
            Some((_, rounds)) => rounds.push(&line.split),
            None => cells.push((key, vec![&line.split])),
        }
    }
    cells.sort_by_key(|((k, _), _)| *k);
    cells
        .into_iter()
        .map(|((k, backend), rounds)| {
            SplitCell::of_rounds(&suite.operations[k].id, backend, &rounds)
        })
        .collect()
}

/// Bolds the fastest server cell of a row and compares every Doublets cell with it; compares each
/// further server's fastest cell with the first server's (in the spec's order of servers). Returns
/// the fastest cell's backend and the servers' comparisons.
fn mark(
    spec: &Spec,
    backends: &[String],
    row: &mut [Result<Cell, Absence>],
) -> (Option<String>, Vec<ServerComparison>) {
    let family = |k: usize| spec.backend(&backends[k]).family.as_str();
    let fastest_of = |server: Option<&str>| {
        (0..row.len())
            .filter(|&k| family(k) == "redis")
            .filter(|&k| {
                server.is_none_or(|s| spec.backend(&backends[k]).server.as_deref() == Some(s))
            })
            .filter_map(|k| row[k].as_ref().ok().map(|c| (k, c.clone())))
            .min_by(|a, b| a.1.median_ns.total_cmp(&b.1.median_ns))
    };
    let Some((fastest, server)) = fastest_of(None) else {
        return (None, Vec::new());
    };
    let mut per_server = spec
        .servers
        .iter()
        .filter_map(|s| fastest_of(Some(&s.id)).map(|(_, cell)| (s.name.clone(), cell)));
    let servers = match per_server.next() {
        Some((against, first)) => per_server
            .map(|(name, cell)| ServerComparison {
                server: name,
                against: against.clone(),
                comparison: compare(&cell, &first),
            })
            .collect(),
        None => Vec::new(),
    };
    for (k, cell) in row.iter_mut().enumerate() {
        if let Ok(cell) = cell {
            cell.fastest_server = k == fastest;
            if family(k) == "doublets" {
                cell.comparison = Some(compare(cell, &server));
            }
        }
    }
    (Some(backends[fastest].clone()), servers)
}

/// A clients table's row: the operation, and its cells per client, per mode.
pub type ClientsRow = (String, Vec<Vec<Result<Cell, Absence>>>);

/// One server's cells of a suite at one size through every client of both languages: Rust's
/// (redis-rs) from the Rust table, C#'s default client from the C# table's columns, the other C#
/// clients from its client columns.
#[derive(Clone, Debug)]
pub struct ClientsTable {
    pub suite: String,
    pub background: u64,
    pub operations: u64,
    /// The server's id and its name with version, as the runs give it.
    pub server: String,
    pub server_name: String,
    /// The modes the server backends ran in (NonTransaction, Transaction, Pipeline).
    pub modes: Vec<String>,
    /// Each client's package and version with its language: "redis-rs 1.8.1 (Rust)".
    pub clients: Vec<String>,
    pub rows: Vec<ClientsRow>,
    /// How many rounds the C# cells were measured in.
    pub rounds: usize,
    /// The code of the tables its cells come from: the C# table's, unless the Rust one's is
    /// older code and the C# one's current.
    pub measured: crate::measured::MeasuredCode,
}

impl ClientsTable {
    /// One mode's cells as a table whose columns are the clients: a chart per mode keeps each to
    /// a handful of series.
    pub fn for_mode(&self, mode: &str) -> Option<Table> {
        let m = self.modes.iter().position(|x| x == mode)?;
        let mut table = self.as_table();
        table.backends = self
            .clients
            .iter()
            .map(|c| c.split(" (").next().unwrap_or(c).to_string())
            .collect();
        for (row, (_, cells)) in table.rows.iter_mut().zip(&self.rows) {
            row.cells = cells.iter().map(|by_mode| by_mode[m].clone()).collect();
        }
        Some(table)
    }

    /// As a table whose columns are client × mode, for a chart.
    pub fn as_table(&self) -> Table {
        let columns: Vec<String> = self
            .clients
            .iter()
            .flat_map(|c| {
                let client = c.split(" (").next().unwrap_or(c).to_string();
                self.modes.iter().map(move |m| format!("{client} {m}"))
            })
            .collect();
        Table {
            variants: false,
            language: "clients".into(),
            suite: self.suite.clone(),
            background: self.background,
            operations: self.operations,
            backends: columns,
            rows: self
                .rows
                .iter()
                .map(|(operation, cells)| Row {
                    operation: operation.clone(),
                    cells: cells.iter().flatten().cloned().collect(),
                    fastest: None,
                    servers: Vec::new(),
                })
                .collect(),
            clients: Vec::new(),
            provenance: BTreeMap::new(),
            sources: Vec::new(),
            rounds: self.rounds,
            measured: self.measured.clone(),
            environment: Vec::new(),
            splits: Vec::new(),
        }
    }
}

/// The clients tables: for each C# table that ran other clients, one per server it ran on.
pub fn clients(spec: &Spec, tables: &[Table]) -> Vec<ClientsTable> {
    let mut out = Vec::new();
    for t in tables
        .iter()
        .filter(|t| t.language == "csharp" && !t.clients.is_empty())
    {
        let rust = tables.iter().find(|r| {
            r.language == "rust"
                && (r.suite.as_str(), r.background, r.operations)
                    == (t.suite.as_str(), t.background, t.operations)
        });
        let csharp_clients: Vec<&str> = t
            .provenance
            .get("client")
            .map_or(Vec::new(), |c| c.split("; ").collect());
        for server in &spec.servers {
            let backends: Vec<&String> = t
                .backends
                .iter()
                .filter(|b| spec.backend(b).server.as_deref() == Some(server.id.as_str()))
                .collect();
            if backends.is_empty() {
                continue;
            }
            let modes: Vec<String> = backends
                .iter()
                .map(|b| b[server.name.len() + 1..].to_string())
                .collect();
            let mut clients = Vec::new();
            if let Some(rust) = rust {
                let client = rust.provenance.get("client").cloned().unwrap_or_default();
                clients.push((format!("{client} (Rust)"), rust, None));
            }
            for client in &spec.clients {
                let Some(named) = csharp_clients
                    .iter()
                    .find(|u| u.starts_with(&format!("{} ", client.id)))
                else {
                    continue;
                };
                let other = client.suffix.as_ref().map(|_| client.id.as_str());
                if other.is_some_and(|id| !t.clients.iter().any(|c| c.client == id)) {
                    continue;
                }
                clients.push((format!("{named} (C#)"), t, other));
            }
            let cell = |table: &Table, other: Option<&str>, row: usize, backend: &str| match other {
                None => table
                    .backends
                    .iter()
                    .position(|b| b == backend)
                    .map_or(Err(Absence::NotRun), |k| table.rows[row].cells[k].clone()),
                Some(id) => table
                    .clients
                    .iter()
                    .find(|c| c.client == id && c.backend == backend)
                    .map_or(Err(Absence::NotRun), |c| c.cells[row].clone()),
            };
            let rows = t
                .rows
                .iter()
                .enumerate()
                .map(|(k, row)| {
                    let cells = clients
                        .iter()
                        .map(|(_, table, other)| {
                            // The Rust table's rows are the same operations in the same order.
                            backends.iter().map(|b| cell(table, *other, k, b)).collect()
                        })
                        .collect();
                    (row.operation.clone(), cells)
                })
                .collect();
            let server_name = t
                .provenance
                .get("redis")
                .and_then(|r| {
                    r.split("; ")
                        .find(|s| s.starts_with(&format!("{} ", server.name)))
                        .map(|s| s.split(" (").next().unwrap_or(s).to_string())
                })
                .unwrap_or_else(|| server.name.clone());
            out.push(ClientsTable {
                suite: t.suite.clone(),
                background: t.background,
                operations: t.operations,
                server: server.id.clone(),
                server_name,
                modes,
                clients: clients.into_iter().map(|(name, ..)| name).collect(),
                rows,
                rounds: t.rounds,
                measured: match rust {
                    Some(r) if !r.measured.current => r.measured.clone(),
                    _ => t.measured.clone(),
                },
            });
        }
    }
    out
}

/// Each input's machine, in round order; a round measured in pieces names each piece's part.
fn environment(group: &[&ResultFile]) -> Vec<Environment> {
    let mut environment: Vec<Environment> = group.iter().map(|f| Environment::of(f)).collect();
    let rounds: Vec<u32> = environment.iter().map(|e| e.round).collect();
    for e in &mut environment {
        if rounds.iter().filter(|&&r| r == e.round).count() == 1 {
            e.part = None; // a whole round in one file
        }
    }
    environment.sort_by(|a, b| (a.round, &a.part).cmp(&(b.round, &b.part)));
    environment
}

fn merge_provenance(group: &[&ResultFile], skip: &[&String]) -> BTreeMap<String, String> {
    let mut merged: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in group {
        for (key, value, _) in &file.provenance {
            if skip.contains(&key) || ENVIRONMENT.contains(&key.as_str()) {
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
        let cell = |rounds: &[f64]| {
            Cell::from_rounds(
                rounds
                    .iter()
                    .enumerate()
                    .map(|(r, &v)| (r as u32, v, 1.0))
                    .collect(),
            )
        };
        // Six rounds, clear of each other in every one: faster or slower, by the rounds' ratios.
        let fast = [100.0, 101.0, 99.0, 100.0, 102.0, 98.0];
        let slow = [1000.0, 990.0, 1010.0, 1000.0, 1020.0, 980.0];
        let c = compare(&cell(&fast), &cell(&slow));
        assert_eq!((c.verdict, c.ratio), (Verdict::Faster, 10.0));
        assert_eq!(compare(&cell(&slow), &cell(&fast)).verdict, Verdict::Slower);
        // Rounds that cross: inconclusive, never "same" for being close.
        let crossing = [100.0, 130.0, 110.0, 120.0, 105.0, 125.0];
        let c = compare(
            &cell(&crossing),
            &cell(&[125.0, 105.0, 120.0, 100.0, 130.0, 110.0]),
        );
        assert_eq!(c.verdict, Verdict::Inconclusive);
        // Three rounds or one: an interval below 95%, or none, says nothing either way.
        let c = compare(&cell(&fast[..3]), &cell(&slow[..3]));
        assert_eq!((c.verdict, c.level), (Verdict::NoVerdict, Some(0.75)));
        let c = compare(&cell(&[100.0]), &cell(&[1000.0]));
        assert_eq!((c.verdict, c.low), (Verdict::NoVerdict, None));
    }

    #[test]
    fn rounds_give_the_median_and_its_interval() {
        let cell = Cell::from_rounds(vec![(2, 110.0, 2.0), (1, 100.0, 1.0), (3, 130.0, 3.0)]);
        assert_eq!(cell.rounds_ns, [100.0, 110.0, 130.0]);
        assert_eq!((cell.median_ns, cell.sd_ns), (110.0, 2.0));
        // Three rounds: the median's interval spans them.
        assert_eq!(cell.interval_ns, Some((100.0, 130.0)));
        assert_eq!(Cell::from_rounds(vec![(1, 100.0, 5.0)]).interval_ns, None);
    }
}
