//! The findings on the READMEs' first screen: a handful of statements computed from the results
//! (never written by hand), each with its range over sizes and languages and a link to its
//! tables. A statement the data does not support at some size says where.

use redis_vs_doublets::{load::LoadRun, memory::MemoryRun, spec::Spec};
use serde::Serialize;

use crate::{
    format::{bytes, per_second, significant, whole, Lang},
    headline::Line,
    stats::Verdict,
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

/// "в 12–345 раз", "в 1,5–2,2 раза": the form the upper end takes (a decimal takes "раза").
fn times_range_ru(range: (f64, f64)) -> String {
    let text = times_range(range, Lang::Ru);
    let number = text.trim_end_matches('×');
    let last = number.rsplit('–').next().unwrap_or(number);
    let form = last
        .replace(['\u{a0}', ' '], "")
        .parse::<u64>()
        .map_or(1, crate::format::russian_form);
    format!("в {number} {}", ["раз", "раза", "раз"][form])
}

/// "B = 1,000 … 1,000,000", or one size.
fn sizes_text(mut sizes: Vec<u64>, lang: Lang) -> String {
    sizes.sort_unstable();
    sizes.dedup();
    match (sizes.first(), sizes.last()) {
        (Some(a), Some(b)) if a != b => format!("B = {} … {}", whole(*a, lang), whole(*b, lang)),
        (Some(a), _) => format!("B = {}", whole(*a, lang)),
        _ => String::new(),
    }
}

fn languages_text(lines: &[&Line], lang: Lang) -> String {
    let mut names: Vec<&str> = lines.iter().map(|l| language_name(&l.language)).collect();
    names.dedup();
    match (names.len(), lang) {
        (1, Lang::En) => format!("in {} alone", names[0]),
        (1, Lang::Ru) => format!("только на {}", names[0]),
        (_, Lang::En) => "in both languages".into(),
        (_, Lang::Ru) => "на обоих языках".into(),
    }
}

/// A link to one page, named in the reader's language: `[memory](docs/memory.md)`.
fn page_link(page: &str, [en, ru]: [&str; 2], pages: &str, lang: Lang) -> String {
    let name = match lang {
        Lang::En => en,
        Lang::Ru => ru,
    };
    format!("[{name}]({pages}/{})", crate::pages::page_file(page, lang))
}

/// The pages of a suite, one per language measured: "[Rust](…) · [C#](…)".
fn page_links(lines: &[&Line], suite: &str, pages: &str, lang: Lang) -> String {
    let mut languages: Vec<&str> = lines.iter().map(|l| l.language.as_str()).collect();
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

/// Whether an operation only reads: every request of its work is one that concurrent clients of
/// an in-process store run under the shared lock (the suite's own [`Request::reads`]).
pub fn reads_only(spec: &Spec, operation: &str) -> bool {
    use redis_vs_doublets::{
        links::LinkRequest, payload::PayloadRequest, store::Request, typical::UsageRequest,
    };
    fn all_read<R: Request>(work: &redis_vs_doublets::spec::Work) -> bool {
        work.requests(&[1000, 10], R::build)
            .is_ok_and(|requests| requests.iter().all(R::reads))
    }
    spec.suites.iter().any(|suite| {
        suite
            .operations
            .iter()
            .filter(|o| o.id == operation)
            .any(|o| {
                // The one place the report names the suites' request types.
                match suite.id.as_str() {
                    "links" => all_read::<LinkRequest>(&o.work),
                    "typical" => all_read::<UsageRequest>(&o.work),
                    "payload" => all_read::<PayloadRequest>(&o.work),
                    _ => false,
                }
            })
    })
}

/// Every statement, in reading order.
pub fn findings(
    spec: &Spec,
    lines: &[Line],
    memory: &[MemoryRun],
    load: &[LoadRun],
    pages: &str,
    lang: Lang,
) -> Vec<Finding> {
    let mut found = Vec::new();
    for suite in &spec.suites {
        let of_suite: Vec<&Line> = lines.iter().filter(|l| l.suite == suite.id).collect();
        if let Some(text) = speed(
            &of_suite,
            &suite.id,
            &lang.text(&suite.name),
            spec,
            pages,
            lang,
        ) {
            found.push(Finding { text });
        }
    }
    if let Some(text) = growth(spec, lines, lang) {
        found.push(Finding { text });
    }
    if let Some(text) = memory_finding(spec, memory, pages, lang) {
        found.push(Finding { text });
    }
    if let Some(text) = load_finding(spec, load, pages, lang) {
        found.push(Finding { text });
    }
    found
}

/// One suite against Redis: its fastest mode and its one request per round trip.
fn speed(
    lines: &[&Line],
    suite: &str,
    name: &str,
    spec: &Spec,
    pages: &str,
    lang: Lang,
) -> Option<String> {
    let best = range(lines.iter().map(|l| l.best.ratio))?;
    let one = range(
        lines
            .iter()
            .filter_map(|l| l.one_by_one.as_ref().map(|r| r.ratio)),
    );
    let sizes = sizes_text(lines.iter().map(|l| l.background).collect(), lang);
    let languages = languages_text(lines, lang);
    // A verdict needs an interval at the report's level; where a size has fewer rounds, its ratios
    // are what its rounds measured, and the sentence says no more than that.
    let op = |id: &str| {
        spec.suite(suite)
            .and_then(|s| s.operations.iter().find(|o| o.id == id))
            .map_or(id.to_string(), |o| o.name.clone())
    };
    let not_faster: Vec<String> = lines
        .iter()
        .filter(|l| !matches!(l.best.verdict, Verdict::Faster | Verdict::NoVerdict))
        .map(|l| {
            format!(
                "{} ({}, B = {})",
                op(&l.operation),
                language_name(&l.language),
                whole(l.background, lang)
            )
        })
        .collect();
    let undecided = undecided(lines, lang);
    let links = page_links(lines, suite, pages, lang);
    let one_text = |times: &dyn Fn((f64, f64)) -> String| one.map_or("—".into(), times);
    let mut text = match (lang, undecided.is_empty()) {
        (Lang::En, true) => format!(
            "**{name}: Doublets is {} faster than Redis' fastest mode** (per operation the fastest of one request per round trip, one MULTI/EXEC or one pipeline per iteration of N requests), and {} faster than one request per round trip (`Redis_NonTransaction`), {sizes}, {languages}.",
            times_range(best, lang),
            one_text(&|r| times_range(r, lang)),
        ),
        (Lang::En, false) => format!(
            "**{name}: Redis' fastest mode took {} as long as Doublets** (per operation the fastest of one request per round trip, one MULTI/EXEC or one pipeline per iteration of N requests), and one request per round trip (`Redis_NonTransaction`) {} as long, {sizes}, {languages}.",
            times_range(best, lang),
            one_text(&|r| times_range(r, lang)),
        ),
        (Lang::Ru, true) => format!(
            "**{name}: Doublets {} быстрее самого быстрого режима Redis** (для каждой операции самого быстрого из трёх: запрос за обмен, один MULTI/EXEC или один конвейер на итерацию из N запросов) и {} быстрее режима «один запрос — один обмен» (`Redis_NonTransaction`), {sizes}, {languages}.",
            times_range_ru(best),
            one_text(&times_range_ru),
        ),
        (Lang::Ru, false) => format!(
            "**{name}: самый быстрый режим Redis тратил {} больше времени, чем Doublets** (для каждой операции самый быстрый из трёх: запрос за обмен, один MULTI/EXEC или один конвейер на итерацию из N запросов), а режим «один запрос — один обмен» (`Redis_NonTransaction`) — {} больше, {sizes}, {languages}.",
            times_range_ru(best),
            one_text(&times_range_ru),
        ),
    };
    if !not_faster.is_empty() {
        text += &match lang {
            Lang::En => format!(
                " Not shown faster by its {}% interval: {}.",
                (crate::stats::LEVEL * 100.0).round(),
                not_faster.join(", ")
            ),
            Lang::Ru => format!(
                " Интервал {}% не показывает, что быстрее: {}.",
                (crate::stats::LEVEL * 100.0).round(),
                not_faster.join(", ")
            ),
        };
    }
    text += &undecided;
    Some(format!("{text} {links}"))
}

/// " No verdict at B = 1,000 and 10,000 (3 rounds: 75% intervals) or B = 100,000 (1 round): …",
/// for the sizes whose rounds give no interval at the level a verdict needs; empty when none.
fn undecided(lines: &[&Line], lang: Lang) -> String {
    let mut by_rounds: std::collections::BTreeMap<usize, Vec<u64>> = Default::default();
    for l in lines
        .iter()
        .filter(|l| l.best.verdict == Verdict::NoVerdict)
    {
        by_rounds.entry(l.rounds).or_default().push(l.background);
    }
    if by_rounds.is_empty() {
        return String::new();
    }
    let groups: Vec<String> = by_rounds
        .into_iter()
        .rev()
        .map(|(rounds, mut sizes)| {
            sizes.sort_unstable();
            sizes.dedup();
            let sizes: Vec<String> = sizes.iter().map(|b| whole(*b, lang)).collect();
            let level = crate::stats::level(rounds).map(crate::stats::level_text);
            match (lang, level) {
                (Lang::En, Some(level)) => {
                    format!(
                        "B = {} ({rounds} rounds: {level} intervals)",
                        sizes.join(", ")
                    )
                }
                (Lang::En, None) => format!("B = {} (1 round: no interval)", sizes.join(", ")),
                (Lang::Ru, Some(level)) => format!(
                    "B = {} ({rounds} {}: интервалы {level})",
                    sizes.join(", "),
                    ["раунд", "раунда", "раундов"][crate::format::russian_form(rounds as u64)]
                ),
                (Lang::Ru, None) => format!("B = {} (1 раунд: интервала нет)", sizes.join(", ")),
            }
        })
        .collect();
    let (level, rounds) = (
        (crate::stats::LEVEL * 100.0).round(),
        crate::stats::rounds_for_level(),
    );
    match lang {
        Lang::En => format!(
            " No verdict at {}: these are the ratios the rounds measured, and a verdict needs a {level}% interval, {rounds} rounds.",
            groups.join("; ")
        ),
        Lang::Ru => format!(
            " Без вывода при {}: это отношения, измеренные в раундах, а для вывода нужен интервал {level}%, {rounds} раундов.",
            groups.join("; ")
        ),
    }
}

/// How the gap changes from the smallest B to the largest, per language: the median over a
/// table's operations of the ratio against Redis' fastest mode.
fn growth(spec: &Spec, lines: &[Line], lang: Lang) -> Option<String> {
    let mut parts = Vec::new();
    for suite in &spec.suites {
        let mut of_suite = Vec::new();
        for language in crate::tables::LANGUAGES {
            let of: Vec<&Line> = lines
                .iter()
                .filter(|l| l.language == language && l.suite == suite.id)
                .collect();
            let (Some(first), Some(last)) = (
                of.iter().map(|l| l.background).min(),
                of.iter().map(|l| l.background).max(),
            ) else {
                continue;
            };
            if first == last {
                continue;
            }
            let median_at = |b: u64| {
                let ratios = of.iter().filter(|l| l.background == b);
                crate::stats::median(ratios.map(|l| l.best.ratio))
            };
            let at = |b: u64| times(median_at(b), lang);
            let at_ru = |b: u64| times_range_ru((median_at(b), median_at(b)));
            let (from, to) = (whole(first, lang), whole(last, lang));
            of_suite.push(match lang {
                Lang::En => format!(
                    "{} {}× at B = {from} → {}× at {to}",
                    language_name(language),
                    at(first),
                    at(last)
                ),
                Lang::Ru => format!(
                    "{} {} при B = {from} → {} при {to}",
                    language_name(language),
                    at_ru(first),
                    at_ru(last)
                ),
            });
        }
        if !of_suite.is_empty() {
            parts.push(format!(
                "{}: {}",
                lang.text(&suite.name),
                of_suite.join(", ")
            ));
        }
    }
    if parts.is_empty() {
        return None;
    }
    Some(match lang {
        Lang::En => format!(
            "**As B grows**, the median over a suite's operations of the gap against Redis' fastest mode goes, {}.",
            parts.join("; ")
        ),
        Lang::Ru => format!(
            "**С ростом B** разрыв с самым быстрым режимом Redis (медиана по операциям набора) меняется так: {}.",
            parts.join("; ")
        ),
    })
}

/// Memory, suite by suite (they cross differently): Doublets' fixed reserve and bytes per link or
/// key, Redis' bytes per link or key, and between which measured sizes Redis' resident growth
/// passes Doublets'.
fn memory_finding(spec: &Spec, runs: &[MemoryRun], pages: &str, lang: Lang) -> Option<String> {
    let parts: Vec<String> = spec
        .suites
        .iter()
        .filter_map(|suite| memory_of_suite(runs, &suite.id, &lang.text(&suite.name), lang))
        .collect();
    if parts.is_empty() {
        return None;
    }
    let link = page_link("memory", ["memory", "память"], pages, lang);
    Some(match lang {
        Lang::En => format!("**Memory**: {}. {link}", parts.join("; ")),
        Lang::Ru => format!("**Память**: {}. {link}", parts.join("; ")),
    })
}

/// One suite's memory statement, or none where it lacks Doublets or Redis figures.
fn memory_of_suite(runs: &[MemoryRun], suite: &str, name: &str, lang: Lang) -> Option<String> {
    let figures: Vec<_> = runs
        .iter()
        .flat_map(|r| &r.figures)
        .filter(|f| f.suite == suite)
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
    // The links suite's background is links; the typical suite's, keys.
    let (unit_en, unit_ru) = if suite == "links" {
        ("link", "связь")
    } else {
        ("key", "ключ")
    };
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
            "{name}: Doublets reserves {} up front (its two stores), then needs {} per {unit_en} (B = {}); Redis grows by {} per {unit_en}, {crossing}",
            bytes_range(reserve),
            bytes_range(per_item),
            whole(largest_b, lang),
            bytes_range(redis_per),
        ),
        Lang::Ru => format!(
            "{name}: Doublets сразу резервирует {} (два его хранилища), затем тратит {} на {unit_ru} (B = {}); Redis растёт на {} на {unit_ru}, {crossing}",
            bytes_range(reserve),
            bytes_range(per_item),
            whole(largest_b, lang),
            bytes_range(redis_per),
        ),
    })
}

/// One class of load rows: the range of its factors from the fewest clients to the most, and of
/// its rates at the most.
pub type Scaling = (Option<(f64, f64)>, Option<(f64, f64)>);

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
    let class = |f: &redis_vs_doublets::load::Figure| match (
        doublets(&f.backend),
        reads_only(spec, &f.operation),
    ) {
        (true, true) => Some(0),
        (true, false) => Some(1),
        _ if f.backend == "Redis_NonTransaction" => Some(2),
        _ => None,
    };
    let mut changes: [Vec<f64>; 3] = Default::default();
    let mut most: [Vec<f64>; 3] = Default::default();
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
        }
    }
    let [a, b, c] = [0, 1, 2].map(|k| {
        (
            range(changes[k].iter().copied()),
            range(most[k].iter().copied()),
        )
    });
    Some([a, b, c])
}

fn load_finding(spec: &Spec, runs: &[LoadRun], pages: &str, lang: Lang) -> Option<String> {
    let load = spec.load.as_ref()?;
    let (&first_k, &last_k) = (load.clients.first()?, load.clients.last()?);
    let [(reads, reads_at), (writes, writes_at), (one, one_at)] = load_scaling(spec, runs)?;
    let (reads, writes, one) = (reads?, writes?, one?);
    let rates = |r: Option<(f64, f64)>| {
        r.map_or("—".into(), |range| {
            printed_range(range, |v| per_second(v, lang))
        })
    };
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
            "**Concurrent clients, reads and writes apart** (K = {first_k} against {last_k} on {cpus} CPUs, {sizes}): Doublets' reads change {} (to {} requests/s); its writes, one at a time behind the store's lock, {} (to {}); Redis with one request per round trip {} (to {}). A factor is the rate at K = {last_k} over the rate at K = {first_k}, per store, operation and run. {link}",
            times_range(reads, lang), rates(reads_at), times_range(writes, lang), rates(writes_at), times_range(one, lang), rates(one_at)
        ),
        Lang::Ru => format!(
            "**Одновременные клиенты, чтение и запись отдельно** (K = {first_k} против {last_k} на {cpus} процессорах, {sizes}): скорость чтения Doublets меняется в {} раза (до {} запросов/с); его записи, по одной за раз под блокировкой хранилища, — в {} раза (до {}); Redis с одним запросом за обмен — в {} раза (до {}). Множитель — скорость при K = {last_k}, делённая на скорость при K = {first_k}, для каждого хранилища, операции и прогона. {link}",
            times_range(reads, lang).trim_end_matches('×'), rates(reads_at), times_range(writes, lang).trim_end_matches('×'), rates(writes_at), times_range(one, lang).trim_end_matches('×'), rates(one_at)
        ),
    })
}
