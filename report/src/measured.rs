//! Which code each result measured, and whether it is still the checkout's. A result of older code
//! is published with a label that says so wherever its figures appear, never passed off as
//! current; `--require-current` refuses it instead. Of two sets for the same piece (a language and
//! size, a memory size, a load run) measured from different code, one is kept, so that no figure
//! combines rounds of different code.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
    process::Command,
};

use anyhow::{bail, Result};
use contract::{
    load::LoadRun,
    memory::MemoryRun,
    results::ResultFile,
    spec::{Spec, SPEC_PATH},
};
use schemars::JsonSchema;
use serde::Serialize;

use crate::{format::Lang, parts};

/// The command that measures again what is not current.
pub const REMEASURE: &str = "examples/remeasure.sh";

/// The code a result measured, against the checkout's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct MeasuredCode {
    /// The commit it was measured at, as the result records it ("+changes" when the work tree
    /// differed from it), or a commit recorded with the same fingerprint and no changes.
    pub measured_commit: String,
    /// The fingerprint of the measured code (the spec's `fingerprint` paths).
    pub fingerprint: String,
    /// Whether that is the checkout's fingerprint: the figures are of the code in this checkout.
    pub current: bool,
    /// Whether this repository holds the measured commit.
    pub commit_known: bool,
    /// The fingerprinted paths changed between the measured commit and the checkout (the spec only
    /// where what it measures changed), from git; empty when current or the commit is unknown.
    pub changed_since: Vec<String>,
}

/// The (fingerprint, commit) every input records.
pub fn recorded<'a>(
    files: &'a [ResultFile],
    memory: &'a [MemoryRun],
    load: &'a [LoadRun],
) -> Vec<(&'a str, &'a str)> {
    let runs = memory
        .iter()
        .map(|r| &r.provenance)
        .chain(load.iter().map(|r| &r.provenance))
        .map(|p| {
            let get = |key: &str| p.get(key).map_or("", String::as_str);
            (get("fingerprint"), get("commit"))
        });
    files
        .iter()
        .map(|f| {
            let get = |key: &str| f.get(key).unwrap_or_default();
            (get("fingerprint"), get("commit"))
        })
        .chain(runs)
        .collect()
}

/// Refuses results of any code but the checkout's: `report --require-current`, for publishing a
/// finished re-measure.
pub fn require_current(code: &Code) -> Result<()> {
    if let Some(old) = code.values().find(|m| !m.current) {
        bail!(
            "results of fingerprint {} (commit {}) are not of the checkout's code: \
             --require-current publishes only current results; measure again with {REMEASURE}",
            old.fingerprint,
            old.measured_commit,
        );
    }
    Ok(())
}

/// The checkout results are held against: its fingerprint, and git to tell what changed since.
pub struct Checkout {
    root: PathBuf,
    fingerprint: String,
    paths: Vec<String>,
}

impl Checkout {
    pub fn new(root: &Path, fingerprint: String, paths: &[String]) -> Self {
        Self {
            root: root.to_path_buf(),
            fingerprint,
            paths: paths.to_vec(),
        }
    }

    /// What every fingerprint among the inputs measured. A fingerprint recorded with a clean
    /// commit in one file and "+changes" in another is the clean commit's code.
    pub fn resolve<'a>(
        &self,
        recorded: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<BTreeMap<String, MeasuredCode>> {
        let mut commits: BTreeMap<&str, &str> = BTreeMap::new();
        for (fingerprint, commit) in recorded {
            let known = commits.entry(fingerprint).or_insert(commit);
            if known.ends_with("+changes") && !commit.ends_with("+changes") {
                *known = commit;
            }
        }
        commits
            .into_iter()
            .map(|(fingerprint, commit)| {
                Ok((fingerprint.to_string(), self.of(fingerprint, commit)?))
            })
            .collect()
    }

    fn of(&self, fingerprint: &str, commit: &str) -> Result<MeasuredCode> {
        let current = fingerprint == self.fingerprint;
        let base = commit.trim_end_matches("+changes");
        let commit_known = is_hex(base)
            && self
                .git(&["cat-file", "-e", &format!("{base}^{{commit}}")])
                .is_some();
        // A shallow clone lacks the history that says what changed: a label made there would
        // call known code unknown, so it is refused instead.
        if !current
            && !commit_known
            && self
                .git(&["rev-parse", "--is-shallow-repository"])
                .as_deref()
                == Some("true\n")
        {
            bail!(
                "{}: a shallow clone cannot tell what changed since commit {base}, which results of \
                 older code are labelled with: fetch the history first (git fetch --unshallow)",
                self.root.display()
            );
        }
        let changed_since = if current || !commit_known {
            Vec::new()
        } else {
            self.changed_since(base)?
        };
        Ok(MeasuredCode {
            measured_commit: commit.to_string(),
            fingerprint: fingerprint.to_string(),
            current,
            commit_known,
            changed_since,
        })
    }

    /// The fingerprinted paths that differ between `commit` and the work tree, untracked files
    /// included; the spec only when what it measures differs, not its prose.
    fn changed_since(&self, commit: &str) -> Result<Vec<String>> {
        let mut args = vec!["diff", "--name-only", "--relative", commit, "--"];
        args.extend(self.paths.iter().map(String::as_str));
        let Some(diff) = self.git(&args) else {
            bail!("git diff {commit} failed in {}", self.root.display());
        };
        let mut args = vec!["ls-files", "--others", "--exclude-standard", "--"];
        args.extend(self.paths.iter().map(String::as_str));
        let untracked = self.git(&args).unwrap_or_default();
        let mut changed: Vec<String> = diff
            .lines()
            .chain(untracked.lines())
            .map(str::to_string)
            .collect();
        changed.sort();
        changed.dedup();
        if changed.iter().any(|p| p == SPEC_PATH) && !self.spec_measures_otherwise(commit)? {
            changed.retain(|p| p != SPEC_PATH);
        }
        Ok(changed)
    }

    fn spec_measures_otherwise(&self, commit: &str) -> Result<bool> {
        use contract::fingerprint::measured;
        let Some(then) = self.git(&["show", &format!("{commit}:{SPEC_PATH}")]) else {
            return Ok(true); // no spec then: it changed
        };
        let now = std::fs::read(self.root.join(SPEC_PATH))?;
        Ok(measured(then.as_bytes()).ok() != measured(&now).ok())
    }

    fn git(&self, args: &[&str]) -> Option<String> {
        Command::new("git")
            .arg("-C")
            .arg(&self.root)
            .args(args)
            .stderr(std::process::Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
    }
}

fn is_hex(text: &str) -> bool {
    (7..=40).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// What a reader is told about figures of `measured`, none when current: "measured at commit
/// `8256d79` (fingerprint `f86671a`); the measured code has changed since (rust/src/harness.rs, …):
/// re-measure with `examples/remeasure.sh`".
pub fn label(measured: &MeasuredCode, lang: Lang) -> Option<String> {
    if measured.current {
        return None;
    }
    let commit = short(&measured.measured_commit);
    let fingerprint = short(&measured.fingerprint);
    let uncommitted = measured.measured_commit.ends_with("+changes");
    let shown: Vec<&str> = measured
        .changed_since
        .iter()
        .take(4)
        .map(String::as_str)
        .collect();
    let more = measured.changed_since.len() - shown.len();
    let changed = match (lang, more) {
        (_, 0) => shown.join(", "),
        (Lang::En, more) => format!("{}, and {more} more", shown.join(", ")),
        (Lang::Ru, more) => format!("{} и ещё {more}", shown.join(", ")),
    };
    let at = match (measured.commit_known, uncommitted, lang) {
        (false, _, Lang::En) => format!("measured from code not in this repository (commit `{commit}`, fingerprint `{fingerprint}`)"),
        (false, _, Lang::Ru) => format!("измерено на коде, которого нет в этом репозитории (коммит `{commit}`, отпечаток `{fingerprint}`)"),
        (true, true, Lang::En) => format!("measured at commit `{commit}` with uncommitted changes (fingerprint `{fingerprint}`)"),
        (true, true, Lang::Ru) => format!("измерено на коммите `{commit}` с незакоммиченными изменениями (отпечаток `{fingerprint}`)"),
        (true, false, Lang::En) => format!("measured at commit `{commit}` (fingerprint `{fingerprint}`)"),
        (true, false, Lang::Ru) => format!("измерено на коммите `{commit}` (отпечаток `{fingerprint}`)"),
    };
    let since = match (changed.is_empty(), lang) {
        (true, Lang::En) => "that is not the checkout's measured code".to_string(),
        (true, Lang::Ru) => "это не измеряемый код этой копии".to_string(),
        (false, Lang::En) => format!("the measured code has changed since ({changed})"),
        (false, Lang::Ru) => format!("измеряемый код с тех пор изменился ({changed})"),
    };
    let again = match lang {
        Lang::En => "re-measure with",
        Lang::Ru => "измерьте заново с",
    };
    Some(format!("{at}; {since}: {again} `{REMEASURE}`"))
}

/// The short form beside a table, a run or a chart: "older code: measured at commit 8256d79 (see
/// the conditions)"; empty when current.
pub fn note(measured: &MeasuredCode, lang: Lang) -> String {
    if measured.current {
        return String::new();
    }
    let commit = short(&measured.measured_commit);
    match lang {
        Lang::En => format!(
            "older code: measured at commit {commit}, not the checkout's (see the conditions)"
        ),
        Lang::Ru => {
            format!("старый код: измерено на коммите {commit}, не на текущем (см. условия)")
        }
    }
}

fn short(text: &str) -> String {
    let (base, rest) = text.split_at(text.find('+').unwrap_or(text.len()));
    format!("{}{rest}", &base[..base.len().min(7)])
}

/// A chart title's second line for figures of older code; empty when current.
pub fn mark(measured: &MeasuredCode, lang: Lang) -> String {
    let note = note(measured, lang);
    if note.is_empty() {
        note
    } else {
        format!("\n{note}")
    }
}

/// The bench result files of rounds during which the machine was quiet, and a line for each
/// busy one left out: other processes used more than conditions::BUSY_ABOVE of its CPU time, so
/// its figures measured a shared machine. `allow_busy` keeps them (their tables then say "busy").
pub fn quiet(files: Vec<ResultFile>, allow_busy: bool) -> (Vec<ResultFile>, Vec<String>) {
    if allow_busy {
        return (files, Vec::new());
    }
    let (quiet, busy): (Vec<ResultFile>, Vec<ResultFile>) = files
        .into_iter()
        .partition(|f| f.get("machine") != Some("busy"));
    let left_out = busy
        .iter()
        .map(|f| {
            let others = f.get("other_processes").unwrap_or("unknown");
            format!(
                "{}: a busy round (other processes: {others}); --allow-busy publishes it",
                f.at("machine")
            )
        })
        .collect();
    (quiet, left_out)
}

/// What the inputs hold, one set per piece, and the sets left out.
pub struct Selected {
    pub files: Vec<ResultFile>,
    pub memory: Vec<MemoryRun>,
    pub load: Vec<LoadRun>,
    /// Each set left out, in words: which piece, which code, why.
    pub dropped: Vec<Dropped>,
}

/// A set of bench result files left out in favour of another set of the same language and size.
pub struct Dropped {
    /// In words: which piece, which code, how many rounds, which set is kept.
    pub text: String,
    pub paths: Vec<String>,
    /// The fingerprint of the kept set.
    pub kept: String,
}

/// Keeps one set per piece: the newest set (by its latest date) that has the rounds the spec's
/// `publish` plan asks of its size; while none has, the one with the most complete rounds (the
/// newest of equals), so that a newer set replaces an older one once it holds the plan's rounds, or
/// as many as the older where the older has fewer, and until then the older stays published. A
/// round is complete when it ran every family of the spec (a piece of one family is half a round).
/// Memory and load runs are one run each: the newest is kept.
pub fn select(
    files: Vec<ResultFile>,
    memory: Vec<MemoryRun>,
    load: Vec<LoadRun>,
    spec: &contract::spec::Spec,
) -> Selected {
    let (files, dropped) = select_bench(files, spec);
    let memory = newest(
        memory,
        |r| r.background.to_string(),
        |r| &r.provenance,
        |r| format!("the memory run at B = {}", r.background),
    );
    let load = crate::load_runs::select(load, spec);
    Selected {
        files,
        memory,
        load,
        dropped,
    }
}

/// The bench's result files to publish: of each piece (language, B, N, and whether it varies the
/// stores), the set of one fingerprint that has the plan's rounds, else the most complete rounds,
/// else the newest; the others left out, each said.
fn select_bench(
    files: Vec<ResultFile>,
    spec: &contract::spec::Spec,
) -> (Vec<ResultFile>, Vec<Dropped>) {
    let (b_key, n_key) = (spec.sizes[0].key.as_str(), spec.sizes[1].key.as_str());
    let mut dropped = Vec::new();
    let get = |f: &ResultFile, key: &str| f.get(key).unwrap_or_default().to_string();
    // A run of durable or distant stores is a piece of its own beside the main one.
    type Piece = (bool, String, String, String);
    let mut pieces: BTreeMap<Piece, BTreeMap<String, Vec<ResultFile>>> = BTreeMap::new();
    for file in files {
        let piece = (
            crate::variants::varies(spec, &file),
            get(&file, "language"),
            get(&file, b_key),
            get(&file, n_key),
        );
        pieces
            .entry(piece)
            .or_default()
            .entry(get(&file, "fingerprint"))
            .or_default()
            .push(file);
    }
    let mut kept = Vec::new();
    for ((variants, language, b, n), sets) in pieces {
        let planned = planned_size(spec, &b, &n).map(|(_, s)| s.rounds as usize);
        // (has the plan's rounds, complete rounds below them, date): a set with the plan's rounds
        // outranks any without, however many more rounds an older one holds.
        let score = |set: &Vec<ResultFile>| {
            let date = set.iter().map(|f| get(f, "date")).max().unwrap_or_default();
            let rounds = complete_rounds(set, spec);
            let complete = planned.is_some_and(|p| rounds >= p);
            (complete, if complete { 0 } else { rounds }, date)
        };
        let best = sets
            .iter()
            .max_by_key(|(_, set)| score(set))
            .map(|(f, _)| f.clone())
            .unwrap_or_default();
        for (fingerprint, set) in sets {
            if fingerprint == best {
                kept.extend(set);
            } else {
                let rounds = complete_rounds(&set, spec);
                dropped.push(Dropped {
                    text: format!(
                        "{language}{} at B = {b}, N = {n}: {rounds} complete round(s) of fingerprint {} (kept: {})",
                        if variants { " (durable and distant stores)" } else { "" },
                        short(&fingerprint),
                        short(&best)
                    ),
                    paths: set.iter().map(|f| f.path.clone()).collect(),
                    kept: best.clone(),
                });
            }
        }
    }
    (kept, dropped)
}

/// The newest run of each piece (`piece`: a memory run's B, a load run's round); the others are
/// left out, and said on stderr.
pub(crate) fn newest<R>(
    runs: Vec<R>,
    piece: impl Fn(&R) -> String,
    provenance: impl Fn(&R) -> &BTreeMap<String, String>,
    describe: impl Fn(&R) -> String,
) -> Vec<R> {
    let get = |r: &R, key: &str| provenance(r).get(key).cloned().unwrap_or_default();
    let mut best: BTreeMap<String, (String, String)> = BTreeMap::new();
    for run in &runs {
        let (date, fingerprint) = (get(run, "date"), get(run, "fingerprint"));
        match best.get(&piece(run)) {
            Some((newer, _)) if *newer >= date => {}
            _ => {
                best.insert(piece(run), (date, fingerprint));
            }
        }
    }
    let (kept, dropped): (Vec<_>, Vec<_>) = runs
        .into_iter()
        .partition(|r| best[&piece(r)] == (get(r, "date"), get(r, "fingerprint")));
    for r in dropped {
        eprintln!(
            "left out: {} of {} (a newer one is kept)",
            describe(&r),
            get(&r, "date")
        );
    }
    kept
}

/// The rounds of a set that hold every part of a round: every suite's every family, and the
/// server family on every server the set ran, through every client (a piece of one suite, family,
/// server or client is part of a round). A set that ran no server yet needs those the `publish`
/// plan gives its language and size: a Doublets piece alone is half a round where the plan asks
/// for servers too.
fn complete_rounds(set: &[ResultFile], spec: &Spec) -> usize {
    let mut rounds: BTreeMap<&str, BTreeSet<parts::Part>> = BTreeMap::new();
    for file in set {
        rounds
            .entry(file.get("round").unwrap_or("1"))
            .or_default()
            .extend(parts::of_file(spec, file));
    }
    let language = set
        .first()
        .and_then(|f| f.get("language"))
        .unwrap_or_default();
    let mut servers: BTreeSet<String> = rounds
        .values()
        .flatten()
        .filter(|p| !p.server.is_empty())
        .map(|p| p.server.clone())
        .collect();
    if servers.is_empty() {
        servers.extend(planned_servers(set, spec, language));
    }
    let servers: Vec<String> = servers.into_iter().collect();
    let families: Vec<String> = spec.default_families();
    let every = parts::every_suite(spec);
    let whole = parts::of_run(spec, language, &every, &families, &servers, &[]);
    rounds.values().filter(|held| whole.is_subset(held)).count()
}

/// The servers the spec's `publish` plan measures `language` on at the set's size; none where the
/// plan does not name the size.
fn planned_servers(set: &[ResultFile], spec: &Spec, language: &str) -> Vec<String> {
    let (b_key, n_key) = (spec.sizes[0].key.as_str(), spec.sizes[1].key.as_str());
    let size = |key: &str| set.first().and_then(|f| f.get(key)).unwrap_or_default();
    planned_size(spec, size(b_key), size(n_key))
        .map(|(publish, s)| s.servers.get(language).unwrap_or(&publish.servers).clone())
        .unwrap_or_default()
}

/// The `publish` plan's entry for the size B = `b`, N = `n` (as the result files write them),
/// with the plan it belongs to.
fn planned_size<'s>(
    spec: &'s Spec,
    b: &str,
    n: &str,
) -> Option<(
    &'s contract::spec::Publish,
    &'s contract::spec::PublishedSize,
)> {
    let publish = spec.publish.as_ref()?;
    let size = publish
        .bench
        .iter()
        .find(|s| s.background.to_string() == b && s.operations.to_string() == n)?;
    Some((publish, size))
}

/// The code of every fingerprint among the published inputs.
pub type Code = BTreeMap<String, MeasuredCode>;

/// The code a memory or load run measured, by the fingerprint it records.
pub fn of_run<'c>(
    code: &'c Code,
    provenance: &BTreeMap<String, String>,
) -> Option<&'c MeasuredCode> {
    provenance.get("fingerprint").and_then(|f| code.get(f))
}

/// The note of a memory or load run: empty when current.
pub fn run_note(code: &Code, provenance: &BTreeMap<String, String>, lang: Lang) -> String {
    of_run(code, provenance).map_or_else(String::new, |m| note(m, lang))
}

/// The title mark of a memory or load run: empty when current.
pub fn run_mark(code: &Code, provenance: &BTreeMap<String, String>, lang: Lang) -> String {
    of_run(code, provenance).map_or_else(String::new, |m| mark(m, lang))
}

/// Every published set not of the checkout's code, grouped by the code it measured: "Rust at
/// B = 1,000, memory at B = 1,000 …: Not the current code: …", or "Every figure: …" when all are.
pub fn older_code(
    tables: &[crate::tables::Table],
    memory: &[MemoryRun],
    load: &[LoadRun],
    code: &Code,
    lang: Lang,
) -> Vec<String> {
    let mut pieces: Vec<(String, String)> = Vec::new(); // (fingerprint, piece)
    let mut push = |fingerprint: &str, piece: String| {
        if !pieces.iter().any(|(f, p)| f == fingerprint && *p == piece) {
            pieces.push((fingerprint.to_string(), piece));
        }
    };
    for t in tables {
        let piece = match lang {
            Lang::En => format!(
                "{} at B = {}",
                crate::view::language_name(&t.language),
                crate::format::whole(t.background, lang)
            ),
            Lang::Ru => format!(
                "{} при B = {}",
                crate::view::language_name(&t.language),
                crate::format::whole(t.background, lang)
            ),
        };
        push(&t.measured.fingerprint, piece);
    }
    for r in memory {
        let piece = match lang {
            Lang::En => format!("memory at B = {}", crate::format::whole(r.background, lang)),
            Lang::Ru => format!(
                "память при B = {}",
                crate::format::whole(r.background, lang)
            ),
        };
        push(
            r.provenance.get("fingerprint").map_or("", String::as_str),
            piece,
        );
    }
    for r in load {
        let language = crate::view::language_name(r.language());
        let piece = match lang {
            Lang::En => format!(
                "load ({language}) at B = {}",
                crate::format::whole(r.background, lang)
            ),
            Lang::Ru => format!(
                "нагрузка ({language}) при B = {}",
                crate::format::whole(r.background, lang)
            ),
        };
        push(
            r.provenance.get("fingerprint").map_or("", String::as_str),
            piece,
        );
    }
    let older: Vec<&MeasuredCode> = code.values().filter(|m| !m.current).collect();
    let all_older = pieces
        .iter()
        .all(|(f, _)| code.get(f).is_some_and(|m| !m.current));
    older
        .into_iter()
        .filter_map(|m| {
            let label = label(m, lang)?;
            let of: Vec<&str> = pieces
                .iter()
                .filter(|(f, _)| *f == m.fingerprint)
                .map(|(_, p)| p.as_str())
                .collect();
            if of.is_empty() {
                return None;
            }
            let every = all_older && code.values().filter(|m| !m.current).count() == 1;
            Some(match (every, lang) {
                (true, Lang::En) => {
                    format!("**Not the current code**: every figure here was {label}.")
                }
                (true, Lang::Ru) => format!("**Не текущий код**: каждое число здесь {label}."),
                (false, Lang::En) => {
                    format!("**Not the current code**: {}: {label}.", of.join(", "))
                }
                (false, Lang::Ru) => format!("**Не текущий код**: {}: {label}.", of.join(", ")),
            })
        })
        .collect()
}
