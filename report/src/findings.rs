//! The findings on the READMEs' first screen: a handful of statements computed from the results
//! (never written by hand), each with its range over sizes and languages and a link to its
//! tables. A statement the data does not support at some size says where.

use contract::{
    load::LoadRun,
    memory::MemoryRun,
    spec::{Spec, Suite},
};
use serde::Serialize;

use crate::{
    format::{bytes, duration, per_second, significant, whole, Lang},
    headline::{Against, Line, Summary},
    stats::Verdict,
    tables::Table,
    view::language_name,
};

/// One statement, formatted for one language, with the figures it quotes (for the test that every
/// figure on the first screen is one the results hold).
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    pub text: String,
}

/// (lowest, highest) of some values, none when there are none.
fn range(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((f64::min(lo, v), f64::max(hi, v))),
    })
}

/// A ratio's number: three significant digits, without kept zeros below 100 ("2.2", not "2.20";
/// from 100 up there are no decimals, and "16,800" keeps its thousands).
pub fn times(value: f64, lang: Lang) -> String {
    if value >= 100.0 {
        significant(value, lang)
    } else {
        crate::format::trim_zeros(significant(value, lang))
    }
}

/// A range printed by `print`: "12–345", or "12" when both ends print alike.
fn printed_range((lo, hi): (f64, f64), print: impl Fn(f64) -> String) -> String {
    let (lo, hi) = (print(lo), print(hi));
    if lo == hi {
        lo
    } else {
        format!("{lo}–{hi}")
    }
}

/// "12–345×" or "12×".
fn times_range(range: (f64, f64), lang: Lang) -> String {
    format!("{}×", printed_range(range, |v| times(v, lang)))
}

/// "B = 1,000 … 1,000,000", or one size.
pub(crate) fn sizes_text(mut sizes: Vec<u64>, lang: Lang) -> String {
    sizes.sort_unstable();
    sizes.dedup();
    match (sizes.first(), sizes.last()) {
        (Some(a), Some(b)) if a != b => format!("B = {} … {}", whole(*a, lang), whole(*b, lang)),
        (Some(a), _) => format!("B = {}", whole(*a, lang)),
        _ => String::new(),
    }
}

/// A link to one page, named in the reader's language: `[memory](docs/memory.md)`.
pub(crate) fn page_link(page: &str, [en, ru]: [&str; 2], pages: &str, lang: Lang) -> String {
    let name = match lang {
        Lang::En => en,
        Lang::Ru => ru,
    };
    format!("[{name}]({pages}/{})", crate::pages::page_file(page, lang))
}

/// The pages of a suite, one per language measured: "[Rust](…) · [C#](…)".
fn page_links(languages: &[&str], suite: &str, pages: &str, lang: Lang) -> String {
    let mut languages = languages.to_vec();
    languages.dedup();
    languages
        .iter()
        .map(|l| {
            format!(
                "[{}]({pages}/{})",
                language_name(l),
                crate::pages::suite_page(suite, l, lang)
            )
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// Whether an operation only reads: no request of its work writes (the suite's `reads`, which the
/// benches hold the stores to) and it has no undo.
pub fn reads_only(spec: &Spec, operation: &str) -> bool {
    spec.suites
        .iter()
        .flat_map(|suite| &suite.operations)
        .any(|o| o.id == operation && !o.writes())
}

/// Every statement, in reading order: one per question (against Redis' fastest mode, against one
/// request per round trip, memory, concurrent clients).
pub fn findings(
    spec: &Spec,
    (tables, variants, lines): (&[Table], &[Table], &[Line]),
    memory: &[MemoryRun],
    load: &[LoadRun],
    pages: &str,
    lang: Lang,
) -> Vec<Finding> {
    let summaries = crate::headline::summaries(lines);
    [Against::Fastest, Against::OneByOne]
        .into_iter()
        .filter_map(|against| speed(spec, &summaries, against, pages, lang))
        .chain(memory_finding(spec, memory, pages, lang))
        .chain(load_finding(spec, load, pages, lang))
        .chain(std::iter::once(split_finding(spec, tables, pages, lang)))
        .chain(crate::variants::finding(spec, variants, pages, lang))
        .map(|text| Finding { text })
        .collect()
}

/// Where a server's time goes: per language, at the smallest size whose tables split their server
/// cells, for each mode the median over those cells (the default client's, every suite) of the
/// server's execution as a share of the end-to-end time; without any split, that these results
/// have none.
fn split_finding(spec: &Spec, tables: &[Table], pages: &str, lang: Lang) -> String {
    let mut parts = Vec::new();
    for language in crate::tables::LANGUAGES {
        let split: Vec<&Table> = tables
            .iter()
            .filter(|t| t.language == language && !t.splits.is_empty())
            .collect();
        let Some(b) = split.iter().map(|t| t.background).min() else {
            continue;
        };
        let mut modes: Vec<(String, Vec<f64>)> = Vec::new();
        for t in split.iter().filter(|t| t.background == b) {
            for cell in t.splits.iter().filter(|c| t.backends.contains(&c.backend)) {
                let Some(server) = spec.server_of(&cell.backend) else {
                    continue;
                };
                let mode = cell.backend[server.name.len()..].trim_start_matches('_');
                let share = cell.split.execution_ns() / cell.split.wall_ns;
                match modes.iter_mut().find(|(m, _)| m == mode) {
                    Some((_, shares)) => shares.push(share),
                    None => modes.push((mode.to_string(), vec![share])),
                }
            }
        }
        let modes: Vec<String> = modes
            .into_iter()
            .map(|(mode, shares)| {
                let percent = 100.0 * crate::stats::median(shares.into_iter());
                format!(
                    "{mode} {}%",
                    crate::format::trim_zeros(significant(percent, lang))
                )
            })
            .collect();
        let at = match lang {
            Lang::En => "at",
            Lang::Ru => "при",
        };
        parts.push(format!(
            "{} {at} B = {}: {}",
            language_name(language),
            whole(b, lang),
            modes.join(", ")
        ));
    }
    let method = page_link("method", ["method", "методика"], pages, lang);
    let refused = tables.iter().any(|t| t.provenance.contains_key("unsplit"));
    match (parts.is_empty(), lang) {
        (true, Lang::En) if refused => format!(
            "**Not split in these results: where a server's time goes** (its own execution, the round trip, the protocol and the client): the bench splits every Redis cell ({method}), but the server measured refused the readings it takes (INFO cpu commandstats), so every server figure here is end to end."
        ),
        (true, Lang::Ru) if refused => format!(
            "**В этих результатах не разделено, на что уходит время сервера** (его собственное исполнение, обмен, протокол и клиент): бенчмарк разбивает каждую ячейку Redis ({method}), но измеренный сервер отказал в нужном для этого чтении (INFO cpu commandstats), поэтому каждое число сервера здесь — время от начала до конца."
        ),
        (false, Lang::En) => format!(
            "**Where a server's time goes**: the server's own execution of the commands (its scripts and MULTI/EXEC included), as a share of the end-to-end time, the median over a table's server cells: {}; the rest is the round trip, the protocol and the client. Each cell's split, with the server's and the client's CPU, is on its suite's page ({method}).",
            parts.join(" · ")
        ),
        (false, Lang::Ru) => format!(
            "**На что уходит время сервера**: собственное исполнение команд сервером (вместе со скриптами и MULTI/EXEC) как доля времени от начала до конца, медиана по серверным ячейкам таблицы: {}; остальное — обмен, протокол и клиент. Разбивка каждой ячейки, с процессорным временем сервера и клиента, — на странице её набора ({method}).",
            parts.join(" · ")
        ),
        (true, Lang::En) => format!(
            "**Not split in these results: where a server's time goes** (its own execution, the round trip, the protocol and the client): the bench splits every Redis cell ({method}), but these results were measured before it did, so every server figure here is end to end."
        ),
        (true, Lang::Ru) => format!(
            "**В этих результатах не разделено, на что уходит время сервера** (его собственное исполнение, обмен, протокол и клиент): бенчмарк разбивает каждую ячейку Redis ({method}), но эти результаты измерены раньше, поэтому каждое число сервера здесь — время от начала до конца."
        ),
    }
}

/// The sizes a suite's speed is quoted at: the one with the most rounds (the smallest B among
/// equals), where its intervals are narrowest, and the largest measured, where the gap is least
/// alike (B changes the depth of Doublets' trees and the size of Redis' tables).
pub fn quoted_sizes(summaries: &[&Summary]) -> Vec<(u64, u64)> {
    let size = |s: &&Summary| (s.background, s.operations);
    let most = summaries
        .iter()
        .min_by_key(|s| (std::cmp::Reverse(s.rounds), s.background, s.operations))
        .map(size);
    let largest = summaries
        .iter()
        .max_by_key(|s| (s.background, s.operations))
        .map(size);
    let mut sizes: Vec<(u64, u64)> = most.into_iter().chain(largest).collect();
    sizes.dedup();
    sizes
}

/// One question's line: per suite, Doublets against one Redis mode as the geometric mean over the
/// suite's operations, with its interval and level, per language, at the quoted sizes.
fn speed(
    spec: &Spec,
    summaries: &[Summary],
    against: Against,
    pages: &str,
    lang: Lang,
) -> Option<String> {
    let mut suites = Vec::new();
    let mut undecided = false;
    for suite in &spec.suites {
        let of: Vec<&Summary> = summaries
            .iter()
            .filter(|s| s.suite == suite.id && s.against == against)
            .collect();
        let at_sizes: Vec<String> = quoted_sizes(&of)
            .into_iter()
            .map(|(b, n)| {
                let cells: Vec<String> = of
                    .iter()
                    .filter(|s| (s.background, s.operations) == (b, n))
                    .map(|s| {
                        undecided |= s.of.verdict == Verdict::NoVerdict;
                        crate::view::headline_cell(&s.of, language_name(&s.language), lang)
                    })
                    .collect();
                let at = match lang {
                    Lang::En => "at",
                    Lang::Ru => "при",
                };
                format!(
                    "{} {at} B = {}, N = {}",
                    cells.join(" · "),
                    whole(b, lang),
                    whole(n, lang)
                )
            })
            .collect();
        if at_sizes.is_empty() {
            continue;
        }
        let languages: Vec<&str> = of.iter().map(|s| s.language.as_str()).collect();
        suites.push(format!(
            "{}: {} ({})",
            lang.text(&suite.name),
            at_sizes.join("; "),
            page_links(&languages, &suite.id, pages, lang)
        ));
    }
    if suites.is_empty() {
        return None;
    }
    let (level, rounds) = (
        (crate::stats::LEVEL * 100.0).round(),
        crate::stats::rounds_for_level(),
    );
    let mode = match (against, lang) {
        (Against::Fastest, Lang::En) => "**Against Redis' fastest mode** (per operation the fastest of one request per round trip, one MULTI/EXEC or one pipeline per iteration of N requests)",
        (Against::Fastest, Lang::Ru) => "**Против самого быстрого режима Redis** (для каждой операции самого быстрого из трёх: каждый запрос отдельным обменом, один MULTI/EXEC или один конвейер на итерацию из N запросов)",
        (Against::OneByOne, Lang::En) => "**Against one request per round trip** (`Redis_NonTransaction`: each request waits for its answer before the next is sent)",
        (Against::OneByOne, Lang::Ru) => "**Против режима «каждый запрос отдельным обменом»** (`Redis_NonTransaction`: следующий запрос уходит, когда пришёл ответ на предыдущий)",
    };
    let mut text = match lang {
        Lang::En => format!(
            "{mode}: how many times as long Redis took as Doublets, the geometric mean over a suite's operations [interval over the rounds, its level]. {}.",
            suites.join(". ")
        ),
        Lang::Ru => format!(
            "{mode}: во сколько раз больше времени тратил Redis, чем Doublets, — среднее геометрическое по операциям набора [интервал по раундам, его уровень]. {}.",
            suites.join(". ")
        ),
    };
    if undecided {
        text += &match lang {
            Lang::En => {
                format!(" No verdict yet: a verdict needs a {level}% interval, {rounds} rounds.")
            }
            Lang::Ru => {
                format!(" Вывода пока нет: для него нужен интервал {level}%, {rounds} раундов.")
            }
        };
    }
    Some(text)
}

/// Memory, suite by suite (they cross differently): Doublets' fixed reserve and bytes per link or
/// key, Redis' bytes per link or key, and between which measured sizes Redis' resident growth
/// passes Doublets'.
fn memory_finding(spec: &Spec, runs: &[MemoryRun], pages: &str, lang: Lang) -> Option<String> {
    let parts: Vec<String> = spec
        .suites
        .iter()
        .filter_map(|suite| memory_of_suite(runs, suite, lang))
        .collect();
    if parts.is_empty() {
        return None;
    }
    let link = page_link("memory", ["memory", "память"], pages, lang);
    Some(match lang {
        Lang::En => format!("**Memory**: {}. {link}", parts.join(". ")),
        Lang::Ru => format!("**Память**: {}. {link}", parts.join(". ")),
    })
}

/// One suite's memory statement, or none where it lacks Doublets or Redis figures.
fn memory_of_suite(runs: &[MemoryRun], suite: &Suite, lang: Lang) -> Option<String> {
    let name = lang.text(&suite.name);
    let figures: Vec<_> = runs
        .iter()
        .flat_map(|r| &r.figures)
        .filter(|f| f.suite == suite.id)
        .collect();
    let doublets: Vec<_> = figures.iter().filter(|f| f.reserved.is_some()).collect();
    let redis: Vec<_> = figures.iter().filter(|f| f.backend == "Redis").collect();
    if doublets.is_empty() || redis.is_empty() {
        return None;
    }
    let smallest_b = doublets.iter().map(|f| f.background).min()?;
    let largest_b = doublets.iter().map(|f| f.background).max()?;
    let reserve = range(
        doublets
            .iter()
            .filter(|f| f.background == smallest_b)
            .map(|f| f.reserved.unwrap_or(0) as f64),
    )?;
    let per_item = range(
        doublets
            .iter()
            .filter(|f| f.background == largest_b)
            .map(|f| f.per_background()),
    )?;
    let redis_per = range(redis.iter().map(|f| f.per_background()))?;
    // The measured sizes between which Redis' growth passes every Doublets store's.
    let mut sizes: Vec<u64> = redis.iter().map(|f| f.background).collect();
    sizes.sort_unstable();
    let heavier = |b: u64| {
        let r = redis
            .iter()
            .find(|f| f.background == b)
            .map(|f| f.rss_growth);
        let d = doublets
            .iter()
            .filter(|f| f.background == b)
            .map(|f| f.rss_growth)
            .max();
        matches!((r, d), (Some(r), Some(d)) if r > d)
    };
    let cross = sizes.iter().position(|&b| heavier(b));
    let bytes_range = |range| printed_range(range, |v| bytes(v, lang));
    let unit = lang.text(&suite.unit);
    let crossing = match (cross, lang) {
        (Some(0), Lang::En) => format!(
            "so Redis holds more from the smallest B measured ({}) on",
            whole(sizes[0], lang)
        ),
        (Some(0), Lang::Ru) => format!(
            "так что Redis занимает больше уже при самом малом измеренном B ({})",
            whole(sizes[0], lang)
        ),
        (Some(k), Lang::En) => format!(
            "so Redis holds less up to B = {} and more from B = {} on",
            whole(sizes[k - 1], lang),
            whole(sizes[k], lang)
        ),
        (Some(k), Lang::Ru) => format!(
            "так что до B = {} Redis занимает меньше, а начиная с B = {} — больше",
            whole(sizes[k - 1], lang),
            whole(sizes[k], lang)
        ),
        (None, Lang::En) => format!(
            "so Redis holds less at every B measured (up to {})",
            whole(*sizes.last()?, lang)
        ),
        (None, Lang::Ru) => format!(
            "так что Redis занимает меньше при каждом измеренном B (до {})",
            whole(*sizes.last()?, lang)
        ),
    };
    Some(match lang {
        Lang::En => format!(
            "{name}: Doublets reserves {} up front (its two stores), then needs {} per {unit} (B = {}); Redis grows by {} per {unit}, {crossing}",
            bytes_range(reserve),
            bytes_range(per_item),
            whole(largest_b, lang),
            bytes_range(redis_per),
        ),
        Lang::Ru => format!(
            "{name}: Doublets сразу резервирует {} (два его хранилища), затем тратит {} на {unit} (B = {}); Redis растёт на {} на {unit}, {crossing}",
            bytes_range(reserve),
            bytes_range(per_item),
            whole(largest_b, lang),
            bytes_range(redis_per),
        ),
    })
}

/// One class of load rows: the range of its factors from the fewest clients to the most, of its
/// rates at the most, and of its p99 latencies at the most (ns).
pub type Scaling = [Option<(f64, f64)>; 3];

/// Concurrent clients, reads and writes apart: how each store's rate changes from the fewest
/// clients to the most (the most's requests per second over the fewest's, for every run, store
/// and operation), Doublets' reads and writes and Redis' one request per round trip.
pub fn load_scaling(spec: &Spec, runs: &[LoadRun]) -> Option<[Scaling; 3]> {
    let load = spec.load.as_ref()?;
    let (&first_k, &last_k) = (load.clients.first()?, load.clients.last()?);
    // Load rows name server backends with their depth or client: only Doublets' names are plain.
    let doublets = |backend: &str| {
        spec.backends
            .iter()
            .any(|b| b.name == backend && b.family == "doublets")
    };
    let class =
        |f: &contract::load::Figure| match (doublets(&f.backend), reads_only(spec, &f.operation)) {
            (true, true) => Some(0),
            (true, false) => Some(1),
            _ if f.backend == "Redis_NonTransaction" => Some(2),
            _ => None,
        };
    let mut changes: [Vec<f64>; 3] = Default::default();
    let mut most: [Vec<f64>; 3] = Default::default();
    let mut p99: [Vec<f64>; 3] = Default::default();
    for run in runs {
        for f in run.figures.iter().filter(|f| f.clients == first_k) {
            let Some(c) = class(f) else { continue };
            let Some(last) = run.figures.iter().find(|g| {
                g.clients == last_k && g.backend == f.backend && g.operation == f.operation
            }) else {
                continue;
            };
            changes[c].push(last.per_second / f.per_second);
            most[c].push(last.per_second);
            p99[c].push(last.latency_ns.p99 as f64);
        }
    }
    Some([0, 1, 2].map(|k| [&changes[k], &most[k], &p99[k]].map(|v| range(v.iter().copied()))))
}

fn load_finding(spec: &Spec, runs: &[LoadRun], pages: &str, lang: Lang) -> Option<String> {
    let load = spec.load.as_ref()?;
    let (&first_k, &last_k) = (load.clients.first()?, load.clients.last()?);
    let [[reads, reads_at, reads_p99], [writes, writes_at, writes_p99], [one, one_at, one_p99]] =
        load_scaling(spec, runs)?;
    let (reads, writes, one) = (reads?, writes?, one?);
    let printed = |r: Option<(f64, f64)>, print: &dyn Fn(f64) -> String| {
        r.map_or("—".into(), |range| printed_range(range, print))
    };
    let rates = |r| printed(r, &|v| per_second(v, lang));
    let p99 = |r| printed(r, &|v| duration(v, lang));
    let sizes = sizes_text(runs.iter().map(|r| r.background).collect(), lang);
    let cpus = runs
        .iter()
        .filter_map(|r| r.provenance.get("cpus"))
        .next()
        .cloned()
        .unwrap_or_default();
    let link = page_link("load", ["load", "нагрузка"], pages, lang);
    Some(match lang {
        Lang::En => format!(
            "**Concurrent clients, reads and writes apart** (K = {first_k} against {last_k} on {cpus} CPUs, {sizes}; a closed loop: each client sends its next request when the last is answered): Doublets' reads change {} (to {} requests/s, p99 {}); its writes, one at a time behind the store's lock, {} (to {}, p99 {}); Redis with one request per round trip {} (to {}, p99 {}). A factor is the rate at K = {last_k} over the rate at K = {first_k}, per store, operation and run; a p99 is at K = {last_k}, of a timed batch (a Doublets batch holds several requests, a server's one), and under a closed loop it is the latency at the rate the store kept up, not at a fixed offered rate. {link}",
            times_range(reads, lang), rates(reads_at), p99(reads_p99), times_range(writes, lang), rates(writes_at), p99(writes_p99), times_range(one, lang), rates(one_at), p99(one_p99)
        ),
        Lang::Ru => format!(
            "**Одновременные клиенты, чтение и запись отдельно** (K = {first_k} против {last_k} на {cpus} процессорах, {sizes}; замкнутый цикл: клиент отправляет следующий запрос, получив ответ на предыдущий): скорость чтения Doublets меняется в {} раза (до {} запросов/с, p99 {}); его записи, по одной за раз под блокировкой хранилища, — в {} раза (до {}, p99 {}); Redis, где каждый запрос — отдельный обмен, — в {} раза (до {}, p99 {}). Множитель — скорость при K = {last_k}, делённая на скорость при K = {first_k}, для каждого хранилища, операции и прогона; p99 — при K = {last_k}, для измеряемой пачки (у Doublets в пачке несколько запросов, у сервера один), и в замкнутом цикле это задержка при той скорости, которую хранилище выдержало, а не при заданной нагрузке. {link}",
            times_range(reads, lang).trim_end_matches('×'), rates(reads_at), p99(reads_p99), times_range(writes, lang).trim_end_matches('×'), rates(writes_at), p99(writes_p99), times_range(one, lang).trim_end_matches('×'), rates(one_at), p99(one_p99)
        ),
    })
}
