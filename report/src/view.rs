//! What the templates see: the spec and the tables with every number already formatted for one
//! language. The templates hold all the wording.

use std::collections::BTreeMap;

use redis_vs_doublets::spec::{Spec, Work};
use serde::Serialize;

use crate::{
    format::{duration, significant, whole, Lang},
    tables::{Absence, Table, Verdict, SAME_WITHIN},
};

#[derive(Serialize)]
pub struct View {
    pub command: String,
    pub same_within_percent: f64,
    pub sizes: Vec<SizeView>,
    pub family_env: String,
    pub families: Vec<FamilyView>,
    pub suites: Vec<SuiteView>,
}

#[derive(Serialize)]
pub struct SizeView {
    symbol: String,
    env: String,
    default: String,
    description: String,
}

#[derive(Serialize)]
pub struct FamilyView {
    id: String,
    env_value: String,
    mode: String,
    samples: usize,
    warm_up: String,
    measurement: String,
    backends: Vec<BackendView>,
}

#[derive(Serialize)]
pub struct BackendView {
    name: String,
    description: String,
}

#[derive(Serialize)]
pub struct SuiteView {
    id: String,
    name: String,
    background: String,
    background_work: String,
    operations: Vec<OperationView>,
    tables: Vec<TableView>,
    /// Operation name → chart of time against B, per language (when several sizes were measured).
    size_charts: Vec<SizeChartsView>,
}

#[derive(Serialize)]
pub struct OperationView {
    id: String,
    name: String,
    description: String,
    work: String,
    undo: Option<String>,
    expected: String,
    times: u64,
}

#[derive(Serialize)]
pub struct TableView {
    language: String,
    background: u64,
    background_text: String,
    operations: u64,
    operations_text: String,
    backends: Vec<String>,
    rows: Vec<RowView>,
    provenance: BTreeMap<String, String>,
    absences: Vec<AbsenceView>,
    chart_log: String,
    chart_linear: String,
}

#[derive(Serialize)]
pub struct RowView {
    name: String,
    cells: Vec<CellView>,
}

#[derive(Serialize)]
pub struct CellView {
    time: Option<String>,
    bold: bool,
    verdict: Option<Verdict>,
    ratio: String,
    /// The ratio as printed, for plural forms: a whole number when printed without decimals.
    ratio_value: serde_json::Value,
}

#[derive(Serialize)]
pub struct AbsenceView {
    cell: String,
    reason: Absence,
}

#[derive(Serialize)]
pub struct SizeChartsView {
    language: String,
    operations_text: String,
    charts: Vec<(String, String)>,
}

/// The language names tables print.
pub fn language_name(id: &str) -> &'static str {
    match id {
        "csharp" => "C#",
        _ => "Rust",
    }
}

fn work(work: &Work) -> String {
    let requests: Vec<&str> = work.requests.iter().map(|t| t.text.as_str()).collect();
    match &work.range {
        Some(range) => format!("for i in {range}: {}", requests.join("; ")),
        None => requests.join("; "),
    }
}

/// A ratio as [`significant`] prints it: whole from 100 up, with decimals below.
fn printed(ratio: f64) -> serde_json::Value {
    if ratio >= 100.0 {
        serde_json::Value::from(
            significant(ratio, Lang::En)
                .replace(',', "")
                .parse::<u64>()
                .unwrap_or(0),
        )
    } else {
        serde_json::Value::from(ratio)
    }
}

/// Chart file names, relative to the charts folder.
pub fn chart_name(table: &Table, log: bool) -> String {
    format!("{}-{}.svg", table.id(), if log { "log" } else { "linear" })
}

pub fn size_chart_name(language: &str, operations: u64, operation: &str) -> String {
    format!("{language}-{operation}-n{operations}-sizes.svg")
}

pub fn build(
    spec: &Spec,
    tables: &[Table],
    size_charts: &BTreeMap<(String, u64, String), String>,
    charts_link: &str,
    command: &str,
    lang: Lang,
) -> View {
    let text = |t: &redis_vs_doublets::spec::Text| {
        if lang == Lang::En {
            t.en.clone()
        } else {
            t.ru.clone()
        }
    };
    let seconds = |s: f64| significant(s, lang);
    let op_name = |id: &str| {
        spec.suites
            .iter()
            .flat_map(|s| &s.operations)
            .find(|o| o.id == id)
            .map_or(id.to_string(), |o| o.name.clone())
    };
    View {
        command: command.to_string(),
        same_within_percent: SAME_WITHIN * 100.0,
        sizes: spec
            .sizes
            .iter()
            .map(|s| SizeView {
                symbol: s.symbol.clone(),
                env: s.env.clone(),
                default: whole(s.default, lang),
                description: text(&s.description),
            })
            .collect(),
        family_env: spec.family_env.clone(),
        families: spec
            .families
            .iter()
            .map(|f| FamilyView {
                id: f.id.clone(),
                env_value: f.env_value.clone(),
                mode: format!("{:?}", f.sampling.mode).to_lowercase(),
                samples: f.sampling.samples,
                warm_up: seconds(f.sampling.warm_up_seconds),
                measurement: seconds(f.sampling.measurement_seconds),
                backends: spec
                    .backends
                    .iter()
                    .filter(|b| b.family == f.id)
                    .map(|b| BackendView {
                        name: b.name.clone(),
                        description: text(&b.description),
                    })
                    .collect(),
            })
            .collect(),
        suites: spec
            .suites
            .iter()
            .map(|suite| SuiteView {
                id: suite.id.clone(),
                name: text(&suite.name),
                background: text(&suite.background_description),
                background_work: work(&suite.background),
                operations: suite
                    .operations
                    .iter()
                    .map(|op| OperationView {
                        id: op.id.clone(),
                        name: op.name.clone(),
                        description: text(&op.description),
                        work: work(&op.work),
                        undo: op.undo.as_ref().map(work),
                        expected: op.expected.ids.to_string(),
                        times: op.expected.times,
                    })
                    .collect(),
                tables: tables
                    .iter()
                    .filter(|t| t.suite == suite.id)
                    .map(|t| table(t, &op_name, charts_link, lang))
                    .collect(),
                size_charts: {
                    let mut by_language: BTreeMap<(String, u64), Vec<(String, String)>> =
                        BTreeMap::new();
                    for ((language, operations, operation), file) in size_charts {
                        if suite.operations.iter().any(|o| &o.id == operation) {
                            by_language
                                .entry((language.clone(), *operations))
                                .or_default()
                                .push((op_name(operation), format!("{charts_link}/{file}")));
                        }
                    }
                    let mut views: Vec<(u64, SizeChartsView)> = by_language
                        .into_iter()
                        .map(|((language, operations), mut charts)| {
                            charts.sort_by_key(|(name, _)| {
                                suite.operations.iter().position(|o| &o.name == name)
                            });
                            let view = SizeChartsView {
                                language: language_name(&language).to_string(),
                                operations_text: whole(operations, lang),
                                charts,
                            };
                            (operations, view)
                        })
                        .collect();
                    views.sort_by_key(|(n, v)| (v.language != "Rust", *n));
                    let views: Vec<SizeChartsView> = views.into_iter().map(|(_, v)| v).collect();
                    views
                },
            })
            .collect(),
    }
}

fn table(t: &Table, op_name: &dyn Fn(&str) -> String, charts_link: &str, lang: Lang) -> TableView {
    TableView {
        language: language_name(&t.language).to_string(),
        background: t.background,
        background_text: whole(t.background, lang),
        operations: t.operations,
        operations_text: whole(t.operations, lang),
        backends: t.backends.clone(),
        rows: t
            .rows
            .iter()
            .map(|row| RowView {
                name: op_name(&row.operation),
                cells: row
                    .cells
                    .iter()
                    .map(|cell| match cell {
                        Ok(c) => CellView {
                            time: Some(duration(c.median_ns, lang)),
                            bold: c.fastest_redis,
                            verdict: c.comparison.map(|c| c.verdict),
                            ratio: c
                                .comparison
                                .map(|c| significant(c.ratio, lang))
                                .unwrap_or_default(),
                            ratio_value: c
                                .comparison
                                .map_or(serde_json::Value::Null, |c| printed(c.ratio)),
                        },
                        Err(_) => CellView {
                            time: None,
                            bold: false,
                            verdict: None,
                            ratio: String::new(),
                            ratio_value: serde_json::Value::Null,
                        },
                    })
                    .collect(),
            })
            .collect(),
        provenance: t.provenance.clone(),
        absences: t
            .absences()
            .map(|(op, backend, reason)| AbsenceView {
                cell: format!("{} / {backend}", op_name(op)),
                reason,
            })
            .collect(),
        chart_log: format!("{charts_link}/{}", chart_name(t, true)),
        chart_linear: format!("{charts_link}/{}", chart_name(t, false)),
    }
}
