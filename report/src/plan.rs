//! What a re-measure after a change to measured code has left to do: the pieces the spec's
//! `publish` plan asks for (a language, size and round; a load run; a memory run) that no result
//! of the checkout's code holds yet, each with its estimate, most valuable first.
//! `examples/remeasure.sh` runs them one at a time and keeps each at once; the method page lists
//! them.

use std::{
    collections::{BTreeMap, BTreeSet},
    time::{Duration, SystemTime},
};

use contract::{load::LoadRun, memory::MemoryRun, results::ResultFile, spec::Spec};

use crate::{
    parts::{self, Part},
    variance::SEPARATE_HOURS,
};

/// The longest piece this plan makes where it can split one: a session's window is 3 hours and a
/// CI job's shorter, so a piece must finish well inside either.
pub const LONGEST_MINUTES: f64 = 45.0;

/// How much longer than its estimate a piece may take: a Rust round at B = 1,000,000 took 1.03×
/// its estimate, a C# piece 1.13×, and the estimate is meant to hold within 1.2×. A piece is
/// split until this much of its estimate fits [`LONGEST_MINUTES`].
const ESTIMATE_ERROR: f64 = 1.2;

fn fits(piece: &Piece) -> bool {
    piece.minutes * ESTIMATE_ERROR <= LONGEST_MINUTES
}

/// One round of a bench at one size; `family`, `servers`, `clients` (the C# bench's; empty: every
/// one) and `suite` narrow it where a whole round is longer than [`LONGEST_MINUTES`].
#[derive(Clone, Debug, PartialEq)]
pub struct Round {
    pub language: String,
    pub background: u64,
    pub operations: u64,
    pub round: u32,
    pub family: Option<String>,
    pub servers: Vec<String>,
    pub clients: Vec<String>,
    pub suite: Option<String>,
}

impl Round {
    /// The parts of a round it measures.
    fn parts(&self, spec: &Spec) -> BTreeSet<Part> {
        let families: Vec<String> = match &self.family {
            Some(family) => vec![family.clone()],
            None => spec.default_families(),
        };
        let suites = match &self.suite {
            Some(suite) => vec![suite.clone()],
            None => parts::every_suite(spec),
        };
        parts::of_run(
            spec,
            &self.language,
            &suites,
            &families,
            &self.servers,
            &self.clients,
        )
    }
}

/// What one piece measures.
#[derive(Clone, Debug, PartialEq)]
pub enum What {
    Bench(Round),
    Load {
        language: String,
        background: u64,
        /// Which of the plan's runs (`publish.load_runs`), from 1.
        round: u32,
        servers: Vec<String>,
    },
    Memory {
        background: u64,
        servers: Vec<String>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Piece {
    pub what: What,
    /// The estimate, from the minutes the spec's plan records.
    pub minutes: f64,
}

impl Piece {
    /// Its name, and the stem of its result file: `rust-b1000-n100-r2`,
    /// `csharp-b1000000-n1000-r1-doublets`, `csharp-b1000000-n1000-r1-garnet`,
    /// `csharp-b1000000-n1000-r1-redis-FreeRedis`, `rust-b10000000-n1000-r1-redis-links`,
    /// `load-rust-b1000-r1`, `memory-b1000`.
    pub fn id(&self) -> String {
        match &self.what {
            What::Bench(r) => {
                let id = format!(
                    "{}-b{}-n{}-r{}",
                    r.language, r.background, r.operations, r.round
                );
                // A narrowed piece names its family, or its servers (and clients) for the server
                // family, and its suite.
                let narrowed = match r.family.as_deref() {
                    None => vec![],
                    Some("doublets") => vec!["doublets".to_string()],
                    Some(_) => vec![r.servers.join("-"), r.clients.join("-")],
                };
                std::iter::once(id)
                    .chain(narrowed)
                    .chain(r.suite.clone())
                    .filter(|part| !part.is_empty())
                    .collect::<Vec<_>>()
                    .join("-")
            }
            What::Load {
                language,
                background,
                round,
                ..
            } => format!("load-{language}-b{background}-r{round}"),
            What::Memory { background, .. } => format!("memory-b{background}"),
        }
    }

    /// The result file it writes, named for the code it measures, so that it never replaces a
    /// file of other code.
    pub fn file(&self, fingerprint: &str) -> String {
        let extension = match self.what {
            What::Bench(_) => "txt",
            _ => "json",
        };
        format!(
            "{}-{}.{extension}",
            self.id(),
            &fingerprint[..fingerprint.len().min(7)]
        )
    }

    /// How to run it: the command's kind (`bench-rust`, `bench-csharp`, `load-rust`,
    /// `load-csharp`, `memory`), its size argument and the environment it needs, with the
    /// variables the spec names.
    pub fn command(&self, spec: &Spec) -> (String, u64, Vec<(String, String)>) {
        let servers = |servers: &[String]| (spec.server_env.clone(), servers.join(","));
        match &self.what {
            What::Bench(r) => {
                let mut vars = vec![
                    (spec.sizes[0].env.clone(), r.background.to_string()),
                    (spec.sizes[1].env.clone(), r.operations.to_string()),
                    ("BENCHMARK_ROUND".to_string(), r.round.to_string()),
                    servers(&r.servers),
                ];
                if let Some(family) = &r.family {
                    let value = spec.family(family).env_value.clone();
                    vars.push((spec.family_env.clone(), value));
                }
                if !r.clients.is_empty() {
                    vars.push((spec.client_env.clone(), r.clients.join(",")));
                }
                if let Some(suite) = &r.suite {
                    vars.push((spec.suite_env.clone(), suite.clone()));
                }
                (format!("bench-{}", r.language), r.background, vars)
            }
            What::Load {
                language,
                background,
                round,
                servers: s,
            } => {
                let round = ("BENCHMARK_ROUND".to_string(), round.to_string());
                (
                    format!("load-{language}"),
                    *background,
                    vec![round, servers(s)],
                )
            }
            What::Memory {
                background,
                servers: s,
            } => ("memory".into(), *background, vec![servers(s)]),
        }
    }
}

/// The pieces left, most valuable first: size by size in the plan's order (B = 1,000, which the
/// README's first screen shows whole, first), each size's rounds in order with both languages,
/// then its load and memory runs, then the load and memory sizes no bench size has. A piece is
/// done when a result of the checkout's code (`fingerprint`) holds it.
pub fn pending(
    spec: &Spec,
    files: &[ResultFile],
    memory: &[MemoryRun],
    load: &[LoadRun],
    fingerprint: &str,
) -> Vec<Piece> {
    let Some(publish) = &spec.publish else {
        return Vec::new();
    };
    // The parts the checkout's results hold for one language, size and round.
    let held = |language: &str, b: u64, n: u64, round: u32| -> BTreeSet<Part> {
        of_size(spec, files, fingerprint, language, b, n)
            .filter(|f| f.get("round").unwrap_or("1") == round.to_string())
            .flat_map(|f| parts::of_file(spec, f))
            .collect()
    };
    let is_current = |p: &std::collections::BTreeMap<String, String>| {
        p.get("fingerprint").map(String::as_str) == Some(fingerprint)
    };
    let mut pieces = Vec::new();
    let mut load_done: Vec<(String, u64)> = Vec::new();
    let mut memory_done: Vec<u64> = Vec::new();
    let servers = &publish.servers;
    let mut runs_at = |b: u64, pieces: &mut Vec<Piece>| {
        if let Some(l) = &spec.load {
            if let Some(k) = l.sizes.iter().position(|s| *s == b) {
                for (language, minutes) in &publish.load_minutes {
                    if load_done.contains(&(language.clone(), b)) {
                        continue;
                    }
                    // The rounds this code has measured, each once.
                    let measured: std::collections::BTreeSet<u32> = load
                        .iter()
                        .filter(|r| r.language() == language && r.background == b)
                        .filter(|r| is_current(&r.provenance))
                        .map(|r| r.provenance.get("round").map_or(Ok(1), |n| n.parse()))
                        .collect::<Result<_, _>>()
                        .unwrap_or_default();
                    for round in (1..=publish.load_runs).filter(|n| !measured.contains(n)) {
                        pieces.push(Piece {
                            what: What::Load {
                                language: language.clone(),
                                background: b,
                                round,
                                servers: servers.clone(),
                            },
                            minutes: minutes[k],
                        });
                    }
                    load_done.push((language.clone(), b));
                }
            }
        }
        if let Some(m) = &spec.memory {
            if let Some(k) = m.sizes.iter().position(|s| *s == b) {
                let done = memory
                    .iter()
                    .any(|r| r.background == b && is_current(&r.provenance));
                if !done && !memory_done.contains(&b) {
                    let run = &publish.memory[k];
                    pieces.push(Piece {
                        what: What::Memory {
                            background: b,
                            servers: run.servers.clone().unwrap_or_else(|| servers.clone()),
                        },
                        minutes: run.minutes,
                    });
                }
                memory_done.push(b);
            }
        }
    };
    for size in &publish.bench {
        let (b, n) = (size.background, size.operations);
        for round in 1..=size.rounds {
            for language in contract::spec::LANGUAGES {
                let held = held(language, b, n, round);
                let servers = size.servers.get(language).unwrap_or(servers);
                for piece in split(spec, language, b, n, round, servers) {
                    let done = match &piece.what {
                        What::Bench(r) => r.parts(spec).is_subset(&held),
                        _ => false,
                    };
                    if !done {
                        pieces.push(piece);
                    }
                }
            }
        }
        runs_at(b, &mut pieces);
    }
    let rest: Vec<u64> = spec
        .load
        .iter()
        .flat_map(|l| l.sizes.clone())
        .chain(spec.memory.iter().flat_map(|m| m.sizes.clone()))
        .collect();
    for b in rest {
        runs_at(b, &mut pieces);
    }
    pieces
}

/// The main-round results of the checkout's code for one language and size (a run of durable or
/// distant stores holds no part of a main round).
fn of_size<'a>(
    spec: &'a Spec,
    files: &'a [ResultFile],
    fingerprint: &'a str,
    language: &'a str,
    b: u64,
    n: u64,
) -> impl Iterator<Item = &'a ResultFile> {
    let [b_key, n_key] = [&spec.sizes[0].key, &spec.sizes[1].key];
    files.iter().filter(move |f| {
        f.get("fingerprint") == Some(fingerprint)
            && !crate::variants::varies(spec, f)
            && f.get("language") == Some(language)
            && f.get(b_key) == Some(b.to_string().as_str())
            && f.get(n_key) == Some(n.to_string().as_str())
    })
}

/// When a bench piece may start, if not now: a size's rounds are taken at two times at least, so
/// that the spread between sittings is measured rather than left out of the intervals. Once half
/// a language's rounds of a size (rounded up) are measured at one time, the rest wait until
/// [`SEPARATE_HOURS`] after the latest of them has ended. `before`: the pieces a run measures
/// ahead of this one, counted as rounds taken now (a run of one plan must not take them all).
pub fn waits_until(
    spec: &Spec,
    files: &[ResultFile],
    fingerprint: &str,
    piece: &Piece,
    before: &[&Piece],
    now: SystemTime,
) -> Option<SystemTime> {
    let What::Bench(r) = &piece.what else {
        return None;
    };
    let rounds = spec
        .publish
        .as_ref()?
        .bench
        .iter()
        .find(|s| s.background == r.background && s.operations == r.operations)?
        .rounds;
    // Each other round held, with the date its latest part ended, and each the run takes first.
    let at = |date: &str| humantime::parse_rfc3339(date).ok();
    let mut ended: BTreeMap<String, String> = BTreeMap::new();
    let held = of_size(
        spec,
        files,
        fingerprint,
        &r.language,
        r.background,
        r.operations,
    )
    .filter_map(|f| {
        Some((
            f.get("round").unwrap_or("1").to_string(),
            f.get("date")?.to_string(),
        ))
    });
    let taken_now = before.iter().filter_map(|p| match &p.what {
        What::Bench(b)
            if (&b.language, b.background, b.operations)
                == (&r.language, r.background, r.operations) =>
        {
            let now = humantime::format_rfc3339_seconds(now).to_string();
            Some((b.round.to_string(), now))
        }
        _ => None,
    });
    for (round, date) in held.chain(taken_now) {
        if round != r.round.to_string() {
            let latest = ended.entry(round).or_insert_with(|| date.clone());
            if at(&date) > at(latest) {
                *latest = date;
            }
        }
    }
    let dates: Vec<Option<&str>> = ended.values().map(|d| Some(d.as_str())).collect();
    let one_time = crate::variance::times(&dates).iter().all(|&t| t == 0);
    let latest = ended.values().filter_map(|d| at(d)).max()?;
    let until = latest + Duration::from_secs_f64(SEPARATE_HOURS * 3600.0);
    (ended.len() as u32 >= rounds.div_ceil(2) && one_time && until > now).then_some(until)
}

/// One round as one piece, or, where that is longer than [`LONGEST_MINUTES`], a piece per family,
/// then per server, then (C#) per client, then per suite, each with the spec's estimate
/// ([`Spec::schedule`]: sampling, the fewest iterations of slow cells, loads and checks; a round
/// of Rust at B = 1,000,000 took 1.03× its estimate, a C# piece 1.13×). A language on no servers
/// measures Doublets alone.
fn split(
    spec: &Spec,
    language: &str,
    b: u64,
    n: u64,
    round: u32,
    servers: &[String],
) -> Vec<Piece> {
    let every_client = spec.clients_from(None).expect("every client");
    let bench =
        |family: Option<&str>, servers: &[String], clients: &[String], suite: Option<&str>| {
            let families: Vec<String> = match family {
                Some(f) => vec![f.to_string()],
                None => spec.default_families(),
            };
            let ids: Vec<&str> = servers.iter().map(String::as_str).collect();
            let through: Vec<_> = every_client
                .iter()
                .copied()
                .filter(|c| clients.is_empty() || clients.contains(&c.id))
                .collect();
            let through = (language == "csharp").then_some(&through[..]);
            let narrowed = suite.map(|s| spec.narrowed_to(&[s.to_string()]));
            let seconds = narrowed
                .as_ref()
                .unwrap_or(spec)
                .schedule(&families, &ids, through, &[b, n])
                .seconds();
            Piece {
                minutes: seconds / 60.0,
                what: What::Bench(Round {
                    language: language.to_string(),
                    background: b,
                    operations: n,
                    round,
                    family: family.map(str::to_string),
                    servers: servers.to_vec(),
                    clients: clients.to_vec(),
                    suite: suite.map(str::to_string),
                }),
            }
        };
    // A piece that fits, else one per suite that has cells of it.
    let by_suite = |family: Option<&str>, servers: &[String], clients: &[String]| {
        let whole = bench(family, servers, clients, None);
        if fits(&whole) {
            return vec![whole];
        }
        let suites = spec.suites.iter();
        suites
            .map(|s| bench(family, servers, clients, Some(&s.id)))
            .filter(|piece| piece.minutes > 0.0)
            .collect()
    };
    if servers.is_empty() {
        return by_suite(Some("doublets"), servers, &[]);
    }
    let whole = bench(None, servers, &[], None);
    if fits(&whole) {
        return vec![whole];
    }
    let mut pieces = by_suite(Some("doublets"), servers, &[]);
    for server in servers {
        let one = std::slice::from_ref(server);
        let on_server = bench(Some("redis"), one, &[], None);
        if fits(&on_server) || language != "csharp" {
            pieces.extend(by_suite(Some("redis"), one, &[]));
            continue;
        }
        for client in &every_client {
            pieces.extend(by_suite(
                Some("redis"),
                one,
                std::slice::from_ref(&client.id),
            ));
        }
    }
    let together = bench(Some("redis"), servers, &[], None);
    if servers.len() > 1 && fits(&together) {
        // The servers fit one piece together: one run starts them both.
        pieces.retain(
            |p| matches!(&p.what, What::Bench(r) if r.family.as_deref() == Some("doublets")),
        );
        pieces.push(together);
    }
    pieces
}

/// The plan in words: a line per piece with its estimate, and the total.
pub fn describe(pieces: &[Piece]) -> Vec<String> {
    // The ids' own width, so that a piece split by client keeps its minutes in the column.
    let width = pieces.iter().map(|p| p.id().len()).max().unwrap_or(0);
    let mut lines: Vec<String> = pieces
        .iter()
        .map(|p| {
            let long = if p.minutes > LONGEST_MINUTES {
                format!(" (longer than {LONGEST_MINUTES:.0} min: cannot be split further yet)")
            } else {
                String::new()
            };
            format!("{:<width$} {:>6.1} min{long}", p.id(), p.minutes)
        })
        .collect();
    let total: f64 = pieces.iter().map(|p| p.minutes).sum();
    lines.push(format!(
        "{} piece(s), {:.0} min ({:.1} h) in all",
        pieces.len(),
        total,
        total / 60.0
    ));
    lines
}
