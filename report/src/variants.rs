//! The durable and the network sections: each store made durable, or moved to a host of its own,
//! beside the store it varies (the spec's `variant_of`: its twin), from the runs that measured
//! both. A run that measured any such store makes tables of its own ([`crate::tables`] keeps them
//! apart from the main tables, whose stores all keep their data in RAM on this host), and these
//! sections read their columns in pairs: the variant and its twin, measured in the same rounds.

use std::collections::BTreeMap;

use contract::{results::ResultFile, spec::Spec};
use serde::Serialize;

use crate::{
    format::{duration, whole, Lang},
    tables::{Cell, Table},
};

/// What a variant changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Its data is kept in files, and survives a restart.
    Durable,
    /// Its server runs on a host of its own, a stated round trip away.
    Network,
}

impl Kind {
    /// Its word: the result file's line on its conditions, its page and its charts' prefix.
    pub fn word(self) -> &'static str {
        match self {
            Kind::Durable => "durable",
            Kind::Network => "network",
        }
    }
}

/// The store `backend` varies: the backend of its server's (or family's) `variant_of` in the same
/// mode (or layout); `None` for a store that varies none.
pub fn twin(spec: &Spec, backend: &str) -> Option<String> {
    let backend = spec.backends.iter().find(|b| b.name == backend)?;
    match &backend.server {
        Some(id) => {
            let server = spec.servers.iter().find(|s| s.id == *id)?;
            let of = server.variant_of.as_deref()?;
            let of = spec.servers.iter().find(|s| s.id == of)?;
            let mode = backend.name.strip_prefix(&format!("{}_", server.name))?;
            Some(format!("{}_{mode}", of.name))
        }
        None => {
            let of = spec.family(&backend.family).variant_of.as_deref()?;
            spec.backends
                .iter()
                .find(|b| b.family == of && b.layout == backend.layout)
                .map(|b| b.name.clone())
        }
    }
}

/// When a durable store's files are synced, in a few words: the `fsync` of its server or family
/// (`id`).
pub fn fsync<'s>(spec: &'s Spec, id: &str) -> Option<&'s contract::spec::Text> {
    match spec.servers.iter().find(|s| s.id == id) {
        Some(server) => server.fsync.as_ref(),
        None => spec.families.iter().find(|f| f.id == id)?.fsync.as_ref(),
    }
}

/// What `backend` varies in, if it is a variant.
pub fn kind(spec: &Spec, backend: &str) -> Option<Kind> {
    let backend = spec.backends.iter().find(|b| b.name == backend)?;
    match backend.server.as_deref() {
        Some(id) => {
            let server = spec.servers.iter().find(|s| s.id == id)?;
            if server.durable.is_some() {
                Some(Kind::Durable)
            } else {
                server.round_trip_us.map(|_| Kind::Network)
            }
        }
        None => spec
            .family(&backend.family)
            .durable
            .as_ref()
            .map(|_| Kind::Durable),
    }
}

/// Whether a result file ran a family or a server that varies another: its cells make the
/// durable and network tables, never the main ones.
pub fn varies(spec: &Spec, file: &ResultFile) -> bool {
    let listed = |key: &str| -> Vec<String> {
        file.get(key)
            .unwrap_or_default()
            .split(',')
            .map(|s| s.trim().to_string())
            .collect()
    };
    let (families, servers) = (listed("families"), listed("servers"));
    spec.families
        .iter()
        .any(|f| f.variant_of.is_some() && families.contains(&f.id))
        || spec
            .servers
            .iter()
            .any(|s| s.variant_of.is_some() && servers.contains(&s.id))
}

/// A variant's column beside its twin's, in one table.
#[derive(Clone, Debug)]
pub struct Pair {
    /// Indexes into the table's backends.
    pub variant: usize,
    pub twin: usize,
}

/// The table's variants of `kind` whose twin it also holds, in the table's order.
pub fn pairs(spec: &Spec, table: &Table, kind: Kind) -> Vec<Pair> {
    table
        .backends
        .iter()
        .enumerate()
        .filter(|(_, b)| self::kind(spec, b) == Some(kind))
        .filter_map(|(variant, b)| {
            let twin = twin(spec, b)?;
            let twin = table.backends.iter().position(|t| *t == twin)?;
            Some(Pair { variant, twin })
        })
        .collect()
}

/// The round trip measured to each server on a host of its own, in µs, as a result file's network
/// line gives it (the bench's `provenance::networks`: "RedisRack: …, round trip 278 µs
/// median, …; RedisRegion: …"), by server name. A table whose rounds differ gets the median.
pub fn round_trips(table: &Table) -> BTreeMap<String, f64> {
    let Some(line) = table.provenance.get(Kind::Network.word()) else {
        return BTreeMap::new();
    };
    // Rounds that differ are merged as "a / b": each part is one round's line.
    let mut seen: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for round in line.split(" / ") {
        for entry in round.split("; ") {
            let Some((name, text)) = entry.split_once(": ") else {
                continue;
            };
            let Some(after) = text.split("round trip ").nth(1) else {
                continue;
            };
            let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
            if let Ok(us) = digits.parse::<f64>() {
                seen.entry(name.to_string()).or_default().push(us);
            }
        }
    }
    seen.into_iter()
        .map(|(name, values)| (name, crate::stats::median(values.into_iter())))
        .collect()
}

/// How many round trips one iteration waits on: the growth of its time between the nearest and
/// the farthest distant store of a group's row (`cells`, the twin's first, with each store's
/// round trip in µs) over the growth of their round trips. `None` with fewer than two distant
/// cells, or round trips not known.
pub fn round_trips_per_iteration(cells: &[Option<&Cell>], trips: &[Option<f64>]) -> Option<f64> {
    let points: Vec<(f64, f64)> = cells
        .iter()
        .zip(trips)
        .skip(1)
        .filter_map(|(cell, trip)| Some(((*trip)?, cell.as_ref()?.median_ns)))
        .collect();
    let near = points.iter().min_by(|a, b| a.0.total_cmp(&b.0))?;
    let far = points.iter().max_by(|a, b| a.0.total_cmp(&b.0))?;
    (far.0 > near.0).then(|| (far.1 - near.1) / ((far.0 - near.0) * 1e3))
}

/// One twin store and its variants of one kind in a table: a column per store (the twin's first),
/// a row per operation and slot (a server's mode, a Doublets store's layout).
#[derive(Clone, Debug)]
pub struct Group {
    pub kind: Kind,
    /// Each store's name ("Redis", "RedisAof"; "Doublets_Volatile") and the id of its server or
    /// family in the spec, the twin's first.
    pub stores: Vec<(String, String)>,
    /// The slots in table order: modes ("Pipeline") or layouts ("United").
    pub slots: Vec<String>,
    /// `[slot][store]`: that backend's column in the table.
    pub columns: Vec<Vec<Option<usize>>>,
}

/// A backend's store (its name, its server's or family's id) and slot.
fn store_and_slot(spec: &Spec, backend: &str) -> (String, String, String) {
    match spec.server_of(backend) {
        Some(server) => {
            let mode = backend
                .strip_prefix(&format!("{}_", server.name))
                .unwrap_or(backend);
            (server.name.clone(), server.id.clone(), mode.to_string())
        }
        None => {
            let b = spec.backend(backend);
            let layout = b.layout.map_or(String::new(), |l| format!("{l:?}"));
            let store = backend.replacen(&format!("_{layout}"), "", 1);
            (store, b.family.clone(), layout)
        }
    }
}

/// The table's groups of `kind`: one per twin store with variants in it.
pub fn groups(spec: &Spec, table: &Table, kind: Kind) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for pair in pairs(spec, table, kind) {
        let (twin, twin_id, slot) = store_and_slot(spec, &table.backends[pair.twin]);
        let (variant, variant_id, _) = store_and_slot(spec, &table.backends[pair.variant]);
        let g = match groups.iter().position(|g| g.stores[0].0 == twin) {
            Some(g) => g,
            None => {
                groups.push(Group {
                    kind,
                    stores: vec![(twin, twin_id)],
                    slots: Vec::new(),
                    columns: Vec::new(),
                });
                groups.len() - 1
            }
        };
        let group = &mut groups[g];
        let s = match group.slots.iter().position(|x| *x == slot) {
            Some(s) => s,
            None => {
                group.slots.push(slot);
                group.columns.push(vec![None; group.stores.len()]);
                group.slots.len() - 1
            }
        };
        let c = match group.stores.iter().position(|x| x.0 == variant) {
            Some(c) => c,
            None => {
                group.stores.push((variant, variant_id));
                for row in &mut group.columns {
                    row.push(None);
                }
                group.stores.len() - 1
            }
        };
        group.columns[s][0] = Some(pair.twin);
        group.columns[s][c] = Some(pair.variant);
    }
    groups
}

/// A variant's rounds over its twin's, paired: how many times as long it took, with its interval.
pub fn slowdown(variant: &Cell, twin: &Cell) -> crate::stats::Ratio {
    crate::stats::of_rounds(&crate::stats::paired(&twin.rounds_ns, &variant.rounds_ns))
}

/// A group's cells of one table row and slot: each store's cell where measured.
pub fn cells<'t>(
    table: &'t Table,
    group: &Group,
    row: usize,
    slot: usize,
) -> Vec<Option<&'t Cell>> {
    group.columns[slot]
        .iter()
        .map(|c| c.and_then(|c| table.rows[row].cells[c].as_ref().ok()))
        .collect()
}

/// The round trip to each of a network group's stores, in µs: as measured where the table's
/// network line gives it, else as the spec sets it (the twin, on loopback: none).
pub fn group_round_trips(spec: &Spec, table: &Table, group: &Group) -> Vec<Option<f64>> {
    let measured = round_trips(table);
    group
        .stores
        .iter()
        .map(|(name, id)| {
            measured.get(name).copied().or_else(|| {
                spec.servers
                    .iter()
                    .find(|s| s.id == *id)
                    .and_then(|s| s.round_trip_us)
                    .map(|us| us as f64)
            })
        })
        .collect()
}

/// A group as a table of ratios for a chart: a row per operation, a column per variant and slot
/// ("RedisAof_Pipeline ÷ Redis_Pipeline"), each cell the rounds' variant-over-twin ratios.
pub fn ratio_table(table: &Table, group: &Group) -> Table {
    let mut columns: Vec<(usize, usize, String)> = Vec::new();
    for (s, row) in group.columns.iter().enumerate() {
        for (c, column) in row.iter().enumerate().skip(1) {
            if let (Some(variant), Some(twin)) = (column, row[0]) {
                let name = format!("{} ÷ {}", table.backends[*variant], table.backends[twin]);
                columns.push((s, c, name));
            }
        }
    }
    let mut out = table.clone();
    out.backends = columns.iter().map(|c| c.2.clone()).collect();
    out.clients = Vec::new();
    out.splits = Vec::new();
    for (k, row) in out.rows.iter_mut().enumerate() {
        row.fastest = None;
        row.servers = Vec::new();
        row.cells = columns
            .iter()
            .map(|&(s, c, _)| {
                let cells = cells(table, group, k, s);
                let (Some(twin), Some(variant)) = (cells[0], cells[c]) else {
                    return Err(crate::tables::Absence::Missing);
                };
                let ratios = crate::stats::paired(&twin.rounds_ns, &variant.rounds_ns);
                Ok(Cell::from_rounds(
                    ratios
                        .iter()
                        .enumerate()
                        .map(|(r, v)| (r as u32, *v, 0.0))
                        .collect(),
                ))
            })
            .collect();
    }
    out
}

/// One group of one table as the pages print it: every figure formatted for one language.
#[derive(Clone, Serialize)]
pub struct SectionView {
    language: String,
    background: u64,
    background_text: String,
    operations_text: String,
    /// The twin's store: "Redis", "Doublets_Volatile".
    twin: String,
    /// What the slot column holds: "Mode", "Layout".
    slot: String,
    /// A header per store: the twin's name, then each variant's with its fsync policy or its
    /// round trip.
    headers: Vec<String>,
    rows: Vec<SectionRowView>,
    /// A network group: its last column says how many round trips an iteration waits on.
    network: bool,
    rounds: usize,
    /// The run's durable or network line: the disk and its fdatasync, or each network.
    conditions: String,
    command: String,
    /// What it measured, when not the checkout's code.
    label: String,
    chart: String,
}

#[derive(Clone, Serialize)]
pub struct SectionRowView {
    operation: String,
    slot: String,
    /// The twin's time, then each variant's with how many times the twin's it took.
    cells: Vec<String>,
    round_trips: String,
}

/// A group's chart file: "durable-rust-links-b1000-n100-redis.svg".
pub fn chart_name(table: &Table, group: &Group, lang: Lang) -> String {
    let store = group.stores[0].0.to_lowercase().replace('_', "-");
    crate::view::svg(
        format!("{}-{}-{store}", group.kind.word(), table.id()),
        lang,
    )
}

pub fn chart_title(table: &Table, group: &Group, suite: &str, lang: Lang) -> String {
    let language = crate::view::language_name(&table.language);
    let sizes = crate::format::sizes(table.background, table.operations, lang);
    let twin = &group.stores[0].0;
    let second = crate::view::second_line(table.rounds, &table.measured, lang);
    match (group.kind, lang) {
        (Kind::Durable, Lang::En) => {
            format!("{language}, {suite}: durable against {twin} in RAM ({sizes}){second}")
        }
        (Kind::Durable, Lang::Ru) => {
            format!("{language}, {suite}: на диске против {twin} в ОЗУ ({sizes}){second}")
        }
        (Kind::Network, Lang::En) => {
            format!(
                "{language}, {suite}: over a network against {twin} on loopback ({sizes}){second}"
            )
        }
        (Kind::Network, Lang::Ru) => {
            format!("{language}, {suite}: по сети против {twin} на loopback ({sizes}){second}")
        }
    }
}

/// Every group of `kind` of the suite's tables, as the pages print them.
pub fn views(
    spec: &Spec,
    tables: &[Table],
    suite: &str,
    kind: Kind,
    charts_link: &str,
    lang: Lang,
) -> Vec<SectionView> {
    let mut views = Vec::new();
    for table in tables.iter().filter(|t| t.suite == suite) {
        for group in groups(spec, table, kind) {
            views.push(view(spec, table, &group, charts_link, lang));
        }
    }
    views
}

fn view(spec: &Spec, table: &Table, group: &Group, charts_link: &str, lang: Lang) -> SectionView {
    let suite = spec
        .suite(&table.suite)
        .expect("tables are built from the spec");
    let trips = group_round_trips(spec, table, group);
    let headers = (0..group.stores.len())
        .map(|c| header(spec, group, c, trips[c], lang))
        .collect();
    let mut rows = Vec::new();
    for (k, op) in suite.operations.iter().enumerate() {
        for (s, slot) in group.slots.iter().enumerate() {
            let cells = cells(table, group, k, s);
            let texts = cells
                .iter()
                .enumerate()
                .map(|(c, cell)| {
                    let Some(cell) = cell else {
                        return "—".to_string();
                    };
                    let time = format!(
                        "{} {}",
                        duration(cell.median_ns, lang),
                        crate::view::spread(cell.interval_ns, cell.median_ns)
                    );
                    match (c, cells[0]) {
                        (0, _) | (_, None) => time.trim_end().to_string(),
                        (_, Some(twin)) => {
                            let r = slowdown(cell, twin);
                            let interval = match (r.low, r.high, r.level) {
                                (Some(lo), Some(hi), Some(level)) => format!(
                                    " [{}–{}, {}]",
                                    crate::findings::times(lo, lang),
                                    crate::findings::times(hi, lang),
                                    crate::stats::level_text(level)
                                ),
                                _ => String::new(),
                            };
                            format!(
                                "{} (×{}{interval})",
                                time.trim_end(),
                                crate::findings::times(r.ratio, lang)
                            )
                        }
                    }
                })
                .collect();
            rows.push(SectionRowView {
                operation: op.name.clone(),
                slot: slot.clone(),
                cells: texts,
                round_trips: round_trips_per_iteration(&cells, &trips)
                    .map_or("—".into(), |r| crate::findings::times(r, lang)),
            });
        }
    }
    let families = table
        .provenance
        .get("families")
        .map(|f| format!("{}={f} ", spec.family_env))
        .unwrap_or_default();
    SectionView {
        language: crate::view::language_name(&table.language).to_string(),
        background: table.background,
        background_text: whole(table.background, lang),
        operations_text: whole(table.operations, lang),
        twin: group.stores[0].0.clone(),
        slot: if spec.servers.iter().any(|s| s.id == group.stores[0].1) {
            lang.pick("Mode", "Режим").to_string()
        } else {
            lang.pick("Layout", "Раскладка").to_string()
        },
        headers,
        rows,
        network: group.kind == Kind::Network,
        rounds: table.rounds,
        conditions: table
            .provenance
            .get(group.kind.word())
            .cloned()
            .unwrap_or_default(),
        command: families + &crate::view::reproduce(spec, table, &[]),
        label: crate::measured::note(&table.measured, lang),
        chart: format!("{charts_link}/{}", chart_name(table, group, lang)),
    }
}

/// The first screen's statement on durable and distant stores: for each variant store the median
/// over every cell of both languages of how many times its twin's time it took, and the largest;
/// and how many round trips an iteration waits on over a network, one request per round trip
/// against a transaction or a pipeline. `None` without such results.
pub fn finding(spec: &Spec, tables: &[Table], pages: &str, lang: Lang) -> Option<String> {
    // (store, its header where first met, every ratio with its cell named)
    type Ratios = Vec<(f64, String)>;
    let mut stores: Vec<(String, String, Ratios)> = Vec::new();
    let (mut one_by_one, mut batched) = (Vec::new(), Vec::new());
    for kind in [Kind::Durable, Kind::Network] {
        for table in tables {
            let suite = spec.suite(&table.suite)?;
            for group in groups(spec, table, kind) {
                let trips = group_round_trips(spec, table, &group);
                for (s, slot) in group.slots.iter().enumerate() {
                    for (k, op) in suite.operations.iter().enumerate() {
                        let cells = cells(table, &group, k, s);
                        if kind == Kind::Network {
                            if let Some(r) = round_trips_per_iteration(&cells, &trips) {
                                let per = r / table.operations as f64;
                                if slot == "NonTransaction" {
                                    one_by_one.push(per);
                                } else {
                                    batched.push(r);
                                }
                            }
                        }
                        let Some(twin) = cells[0] else { continue };
                        for (c, cell) in cells.iter().enumerate().skip(1) {
                            let Some(cell) = cell else { continue };
                            let store = &group.stores[c].0;
                            let at = format!(
                                "{}, {}, {slot}",
                                crate::view::language_name(&table.language),
                                op.name
                            );
                            let ratio = slowdown(cell, twin).ratio;
                            match stores.iter_mut().find(|(name, ..)| name == store) {
                                Some((.., ratios)) => ratios.push((ratio, at)),
                                None => stores.push((
                                    store.clone(),
                                    header(spec, &group, c, trips[c], lang),
                                    vec![(ratio, at)],
                                )),
                            }
                        }
                    }
                }
            }
        }
    }
    if stores.is_empty() {
        return None;
    }
    let times = |v: f64| crate::findings::times(v, lang);
    let parts: Vec<String> = stores
        .iter()
        .map(|(_, header, ratios)| {
            let median = crate::stats::median(ratios.iter().map(|r| r.0));
            let (most, at) = ratios
                .iter()
                .max_by(|a, b| a.0.total_cmp(&b.0))
                .expect("a store is listed with its first ratio");
            match lang {
                Lang::En => format!(
                    "{header} ×{} (up to ×{}, {at})",
                    times(median),
                    times(*most)
                ),
                Lang::Ru => format!("{header} ×{} (до ×{}, {at})", times(median), times(*most)),
            }
        })
        .collect();
    let rounds = tables.iter().map(|t| t.rounds).max().unwrap_or(1);
    let sizes = crate::findings::sizes_text(tables.iter().map(|t| t.background).collect(), lang);
    let links = format!(
        "{} · {}",
        crate::findings::page_link(Kind::Durable.word(), ["durable", "на диске"], pages, lang),
        crate::findings::page_link(Kind::Network.word(), ["network", "по сети"], pages, lang)
    );
    let one_round = match (rounds, lang) {
        (1, Lang::En) => ", one round: no intervals, no verdicts",
        (1, Lang::Ru) => ", один раунд: без интервалов и выводов",
        _ => "",
    };
    let mut text = match lang {
        Lang::En => format!(
            "**Durable and over a network** ({sizes}{one_round}; {links}): how many times as long each took as the same store in RAM on loopback, the median over its cells of both languages: {}.",
            parts.join("; ")
        ),
        Lang::Ru => format!(
            "**На диске и по сети** ({sizes}{one_round}; {links}): во сколько раз дольше, чем то же хранилище в ОЗУ на loopback, медиана по его ячейкам на обоих языках: {}.",
            parts.join("; ")
        ),
    };
    if !one_by_one.is_empty() && !batched.is_empty() {
        let (each, batch) = (
            times(crate::stats::median(one_by_one.into_iter())),
            times(crate::stats::median(batched.into_iter())),
        );
        text += &match lang {
            Lang::En => format!(" Over a network, one request per round trip waited {each} round trips per operation of an iteration, one transaction or pipeline {batch} per iteration (medians over their cells)."),
            Lang::Ru => format!(" По сети при каждом запросе отдельным обменом итерация ждала {each} обмена на операцию, при одной транзакции или конвейере — {batch} на итерацию (медианы по их ячейкам)."),
        };
    }
    Some(text)
}

/// A store's column header: the twin's name; a durable store's with its fsync policy; a distant
/// one's with its round trip.
fn header(spec: &Spec, group: &Group, c: usize, trip: Option<f64>, lang: Lang) -> String {
    let (name, id) = &group.stores[c];
    match (group.kind, c) {
        (Kind::Network, 0) => format!("{name} (loopback)"),
        (Kind::Durable, 0) => name.clone(),
        (Kind::Network, _) => {
            let us = trip.map_or("?".into(), |us| whole(us.round() as u64, lang));
            match lang {
                Lang::En => format!("{name} ({us} µs round trip)"),
                Lang::Ru => format!("{name} ({us} мкс туда и обратно)"),
            }
        }
        (Kind::Durable, _) => match fsync(spec, id) {
            Some(fsync) => format!("{name} ({})", lang.text(fsync)),
            None => name.clone(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> Spec {
        Spec::load(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/benchmarks.yaml"),
        )
        .unwrap()
    }

    #[test]
    fn every_variant_has_a_twin_in_each_of_its_suites() {
        let spec = spec();
        let variants: Vec<&str> = spec
            .backends
            .iter()
            .map(|b| b.name.as_str())
            .filter(|b| kind(&spec, b).is_some())
            .collect();
        assert_eq!(variants.len(), 17, "{variants:?}");
        for suite in &spec.suites {
            for backend in suite
                .backends
                .iter()
                .filter(|b| variants.contains(&b.as_str()))
            {
                let twin = twin(&spec, backend).unwrap();
                assert!(suite.backends.contains(&twin), "{backend}: {twin}");
                assert_eq!(kind(&spec, &twin), None, "{twin} varies another");
            }
        }
        assert_eq!(
            twin(&spec, "RedisAofAlways_Pipeline").unwrap(),
            "Redis_Pipeline"
        );
        assert_eq!(
            twin(&spec, "GarnetAof_Transaction").unwrap(),
            "Garnet_Transaction"
        );
        assert_eq!(
            twin(&spec, "Doublets_Split_NonVolatile").unwrap(),
            "Doublets_Split_Volatile"
        );
        assert_eq!(kind(&spec, "RedisRack_NonTransaction"), Some(Kind::Network));
        assert_eq!(twin(&spec, "Redis_Pipeline"), None);
        assert_eq!(twin(&spec, "RedisUnix_Pipeline"), None);
    }

    #[test]
    fn round_trips_per_iteration_is_the_slope_over_the_distant_stores() {
        let cell = |ns: f64| Cell::from_rounds(vec![(1, ns, 0.0)]);
        let (twin, near, far) = (cell(3_000.0), cell(28_000_000.0), cell(112_000_000.0));
        // 100 requests one by one: 100 round trips each 840 µs longer cost 84 ms more.
        let trips = [None, Some(280.0), Some(1_120.0)];
        let r = round_trips_per_iteration(&[Some(&twin), Some(&near), Some(&far)], &trips).unwrap();
        assert!((r - 100.0).abs() < 1e-9, "{r}");
        // One distant store, or round trips not known, say nothing.
        assert_eq!(
            round_trips_per_iteration(&[Some(&twin), Some(&near), None], &trips),
            None
        );
        assert_eq!(
            round_trips_per_iteration(&[Some(&twin), Some(&near), Some(&far)], &[None, None, None]),
            None
        );
    }
}
