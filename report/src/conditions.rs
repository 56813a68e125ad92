//! The conditions block that opens the READMEs' findings, before their first number: the machine,
//! the servers, the rounds behind each size, and what one round trip cost here, which sets every
//! ratio against one request per round trip, with what another round trip would make of those
//! ratios.

use contract::spec::Spec;

use crate::{
    format::{duration, whole, Lang},
    tables::{rounds_by_language, Cell, Table},
    view::language_name,
};

/// Round trips of networks the block translates the ratios to: another host in the same rack, and
/// one in another zone of the same region.
const NETWORKS_NS: [(f64, &str, &str); 2] = [
    (
        200_000.0,
        "another host in the rack",
        "другой хост в стойке",
    ),
    (1_000_000.0, "another zone", "другая зона"),
];

/// The backend whose every request is its own round trip.
const ONE_BY_ONE: &str = "Redis_NonTransaction";

/// One `Redis_NonTransaction` cell: its time per iteration and the requests of one iteration.
struct OneByOne {
    median_ns: f64,
    requests: usize,
}

impl OneByOne {
    fn per_request_ns(&self) -> f64 {
        self.median_ns / self.requests as f64
    }

    /// How many times its time would be if each request waited `network_ns` instead of
    /// `round_trip_ns`.
    fn over(&self, round_trip_ns: f64, network_ns: f64) -> f64 {
        (self.median_ns + self.requests as f64 * (network_ns - round_trip_ns)) / self.median_ns
    }
}

/// Every `Redis_NonTransaction` cell of the tables that compare it with Doublets (the payload
/// suite has servers alone), with its operation's requests per iteration.
fn one_by_one(spec: &Spec, tables: &[&Table]) -> Vec<OneByOne> {
    let mut cells = Vec::new();
    let doublets = |t: &Table| {
        t.backends
            .iter()
            .any(|b| spec.backend(b).family == "doublets")
    };
    for table in tables.iter().filter(|t| doublets(t)) {
        let Some(k) = table.backends.iter().position(|b| b == ONE_BY_ONE) else {
            continue;
        };
        let Some(suite) = spec.suite(&table.suite) else {
            continue;
        };
        for row in &table.rows {
            let (Some(Ok(Cell { median_ns, .. })), Some(operation)) = (
                row.cells.get(k),
                suite.operations.iter().find(|o| o.id == row.operation),
            ) else {
                continue;
            };
            let requests = operation
                .work
                .requests(&[table.background, table.operations], |_, _| Ok(()))
                .map_or(0, |r| r.len());
            if requests > 0 {
                cells.push(OneByOne {
                    median_ns: *median_ns,
                    requests,
                });
            }
        }
    }
    cells
}

/// The median of the PING round trips the rounds recorded before their first cell
/// ("round trip 9 µs median, …"), where any did.
fn recorded_ping_ns(tables: &[&Table]) -> Option<f64> {
    let pings: Vec<f64> = tables
        .iter()
        .flat_map(|t| &t.environment)
        .filter_map(|e| e.calibration_start.as_deref())
        .filter_map(|c| {
            let text = c.strip_prefix("round trip ")?;
            let (value, _) = text.split_once(" µs median")?;
            value.trim().parse::<f64>().ok().map(|us| us * 1e3)
        })
        .collect();
    (!pings.is_empty()).then(|| crate::stats::median(pings.into_iter()))
}

/// "B = 1,000 and 10,000: 3 rounds (75% intervals); B = 100,000: 1 round (no interval)"; a size
/// whose languages have different rounds is named with each: "B = 1,000 (Rust): 4 rounds …".
fn rounds_text(tables: &[&Table], lang: Lang) -> String {
    let mut sizes: Vec<u64> = tables.iter().map(|t| t.background).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut by_rounds: std::collections::BTreeMap<usize, Vec<(u64, &str)>> = Default::default();
    for b in sizes {
        let languages = rounds_by_language(tables.iter().copied().filter(|t| t.background == b));
        let mut counts = languages.values().copied();
        let first = counts.next().unwrap_or(1);
        if counts.all(|r| r == first) {
            by_rounds.entry(first).or_default().push((b, ""));
        } else {
            for (language, rounds) in languages {
                by_rounds.entry(rounds).or_default().push((b, language));
            }
        }
    }
    by_rounds
        .into_iter()
        .rev()
        .map(|(rounds, mut sizes)| {
            sizes.sort_unstable();
            sizes.dedup();
            let sizes: Vec<String> = sizes
                .iter()
                .map(|(b, language)| match *language {
                    "" => whole(*b, lang),
                    language => format!("{} ({})", whole(*b, lang), language_name(language)),
                })
                .collect();
            let (and, level) = (
                if lang == Lang::En { " and " } else { " и " },
                crate::stats::level(rounds).map(crate::stats::level_text),
            );
            let sizes = sizes.join(and);
            match (lang, level) {
                (Lang::En, Some(level)) => {
                    format!("B = {sizes}: {rounds} rounds ({level} intervals)")
                }
                (Lang::En, None) => format!("B = {sizes}: 1 round (no interval)"),
                (Lang::Ru, Some(level)) => format!(
                    "B = {sizes}: {rounds} {} (интервалы {level})",
                    ["раунд", "раунда", "раундов"][crate::format::russian_form(rounds as u64)]
                ),
                (Lang::Ru, None) => format!("B = {sizes}: 1 раунд (без интервала)"),
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Every value the tables' inputs give `key`, once each, in the order met, joined by " / ": the
/// sizes may have run on different machines, and the block names each.
fn values(tables: &[&Table], key: &str) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for value in tables
        .iter()
        .filter_map(|t| t.provenance.get(key))
        .flat_map(|v| v.split("; "))
    {
        if !seen.contains(&value) {
            seen.push(value);
        }
    }
    seen.join(" / ")
}

/// The machine in a few words: "AMD EPYC, 2 logical CPUs, 23.5 GiB, Debian GNU/Linux 12
/// (bookworm), Linux 6.18.44, unpinned".
fn machine(tables: &[&Table], lang: Lang) -> String {
    let placement = crate::view::placement(&values(tables, "placement"), lang);
    let cpus = match lang {
        Lang::En => format!("{} logical CPUs", values(tables, "cpus")),
        Lang::Ru => format!("логических процессоров: {}", values(tables, "cpus")),
    };
    [
        values(tables, "cpu"),
        cpus,
        crate::view::provenance_text(&values(tables, "memory"), lang),
        values(tables, "os"),
        values(tables, "kernel"),
        placement,
    ]
    .into_iter()
    .filter(|v| !v.is_empty())
    .collect::<Vec<_>>()
    .join(", ")
}

/// The block, or none without tables.
pub fn conditions(spec: &Spec, tables: &[Table], lang: Lang) -> Option<String> {
    let tables: Vec<&Table> = tables.iter().collect();
    if tables.is_empty() {
        return None;
    }
    let servers: Vec<String> = values(&tables, "redis")
        .split(" / ")
        .map(|s| s.split(" (").next().unwrap_or(s).to_string())
        .collect();
    let machine = machine(&tables, lang);
    let servers = servers.join(", ");
    let rounds = rounds_text(&tables, lang);
    let mut text = match lang {
        Lang::En => format!(
            "**Conditions of every figure below**: {machine}. {servers} on loopback, keeping nothing on disk. {rounds}."
        ),
        Lang::Ru => format!(
            "**Условия всех чисел ниже**: {machine}. {servers} на loopback, без записи на диск. {rounds}."
        ),
    };
    let cells = one_by_one(spec, &tables);
    let Some(fastest) = cells
        .iter()
        .map(OneByOne::per_request_ns)
        .min_by(f64::total_cmp)
    else {
        return Some(text);
    };
    let ping = recorded_ping_ns(&tables).map(|p| match lang {
        Lang::En => format!(
            "; a PING's round trip, where rounds recorded it: {} median",
            duration(p, lang)
        ),
        Lang::Ru => format!(
            "; обмен PING, где раунды его записали: медиана {}",
            duration(p, lang)
        ),
    });
    // The fastest cost per request is the round trip and more (the protocol, the client, the
    // server's work): taking all of it as the round trip a network replaces understates what a
    // network adds, so the translated ratios are lower bounds.
    let networks: Vec<String> = NETWORKS_NS
        .iter()
        .filter(|(network, ..)| *network > fastest)
        .map(|&(network, en, ru)| {
            let factors = cells.iter().map(|c| c.over(fastest, network));
            let factor = crate::stats::geometric(factors);
            let factor = crate::findings::times(factor, lang);
            match lang {
                Lang::En => format!("{factor}× at {} ({en})", duration(network, lang)),
                Lang::Ru => format!(
                    "в {factor} раза при обмене {} ({ru})",
                    duration(network, lang)
                ),
            }
        })
        .collect();
    let fastest = duration(fastest, lang);
    let ping = ping.unwrap_or_default();
    text += &match lang {
        Lang::En => format!(
            " **One request per round trip** (`{ONE_BY_ONE}`) cost at least {fastest} a request here (its fastest cell per request: the loopback round trip, the protocol, the client and the server's work{ping})."
        ),
        Lang::Ru => format!(
            " **Каждый запрос отдельным обменом** (`{ONE_BY_ONE}`) стоил здесь не меньше {fastest} на запрос (самая быстрая его ячейка на запрос: обмен через loopback, протокол, клиент и работа сервера{ping})."
        ),
    };
    if !networks.is_empty() {
        text += &match lang {
            Lang::En => format!(
                " Over a network each of its requests waits for that network's round trip instead, so its times, and its ratios to Doublets, would grow at least {} (geometric mean over its cells; arithmetic on these figures, not a measurement).",
                networks.join(" and ")
            ),
            Lang::Ru => format!(
                " В сети каждый его запрос ждёт обмена этой сети, так что его время и отношения к Doublets выросли бы не меньше чем {} (среднее геометрическое по его ячейкам; расчёт по этим числам, а не измерение).",
                networks.join(" и ")
            ),
        };
    }
    Some(text)
}
