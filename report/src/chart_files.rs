//! Every chart file the report writes, in both languages (the Russian README links the Russian
//! ones): per table its times and its times relative to the servers, where each server cell's
//! time goes, each durable or distant store against its twin, the clients side by side, time
//! against B, and the load and memory measurements.

use std::{collections::BTreeSet, path::PathBuf};

use anyhow::Result;
use contract::spec::Suite;

use crate::{
    charts, format::Lang, measured, memory_series, size_series, tables, variants, view, Args,
    Inputs,
};

/// The charts drawn that the pages link only where they exist.
pub struct Drawn {
    /// (language, N, operation): time against B.
    pub sizes: BTreeSet<(String, u64, String)>,
    /// Suites with a chart of memory per B against B.
    pub memory: BTreeSet<String>,
}

/// Every chart, as (file, SVG), and which of the optional ones were drawn.
pub fn all(args: &Args, inputs: &Inputs) -> Result<(Vec<(PathBuf, String)>, Drawn)> {
    let mut drawing = Drawing {
        args,
        inputs,
        colours: charts::Colours::new(&inputs.spec),
        files: Vec::new(),
        drawn: Drawn {
            sizes: BTreeSet::new(),
            memory: BTreeSet::new(),
        },
    };
    for lang in [Lang::En, Lang::Ru] {
        drawing.tables(lang)?;
        drawing.splits(lang)?;
        drawing.variants(lang)?;
        drawing.clients(lang)?;
        drawing.sizes(lang)?;
        drawing.load(lang)?;
        drawing.memory(lang)?;
    }
    Ok((drawing.files, drawing.drawn))
}

struct Drawing<'a> {
    args: &'a Args,
    inputs: &'a Inputs,
    colours: charts::Colours,
    files: Vec<(PathBuf, String)>,
    drawn: Drawn,
}

impl<'a> Drawing<'a> {
    fn suite(&self, id: &str) -> &'a Suite {
        self.inputs
            .spec
            .suite(id)
            .expect("tables are built from the spec")
    }

    /// An operation's name, or its id where the suite has no such operation.
    fn operation_name(suite: &Suite, id: &str) -> String {
        suite
            .operations
            .iter()
            .find(|o| o.id == id)
            .map_or(id.to_string(), |o| o.name.clone())
    }

    /// The names of a table's rows.
    fn names(&self, table: &tables::Table) -> Vec<String> {
        let suite = self.suite(&table.suite);
        table
            .rows
            .iter()
            .map(|r| Self::operation_name(suite, &r.operation))
            .collect()
    }

    fn add(&mut self, file: String, svg: String) {
        self.files.push((self.args.charts.join(file), svg));
    }

    /// Per table, its times, and its times relative to its servers where it has any.
    fn tables(&mut self, lang: Lang) -> Result<()> {
        for table in &self.inputs.tables {
            let name = lang.text(&self.suite(&table.suite).name);
            for kind in [charts::Kind::Time, charts::Kind::Relative] {
                if kind == charts::Kind::Relative && !view::has_server(table) {
                    continue; // nothing to be relative to
                }
                let svg = charts::table(
                    table,
                    &self.names(table),
                    kind,
                    &view::chart_title(table, &name, kind, lang),
                    &self.colours,
                    lang,
                )?;
                self.add(view::chart_name(table, kind, lang), svg);
            }
        }
        Ok(())
    }

    /// Where each server cell's time goes, per backend.
    fn splits(&mut self, lang: Lang) -> Result<()> {
        for table in &self.inputs.tables {
            let suite = self.suite(&table.suite);
            for backend in view::split_backends(table) {
                let cells: Vec<&tables::SplitCell> = table
                    .splits
                    .iter()
                    .filter(|s| s.backend == backend)
                    .collect();
                let names: Vec<String> = cells
                    .iter()
                    .map(|c| Self::operation_name(suite, &c.operation))
                    .collect();
                let cells: Vec<_> = cells.iter().map(|c| &c.split).collect();
                let title = view::split_chart_title(table, &lang.text(&suite.name), backend, lang);
                let svg = charts::split(&cells, &names, &title, lang)?;
                self.add(view::split_chart_name(table, backend, lang), svg);
            }
        }
        Ok(())
    }

    /// Each durable or distant store's time against its twin's.
    fn variants(&mut self, lang: Lang) -> Result<()> {
        let spec = &self.inputs.spec;
        for table in &self.inputs.variant_tables {
            let name = lang.text(&self.suite(&table.suite).name);
            for kind in [variants::Kind::Durable, variants::Kind::Network] {
                for group in variants::groups(spec, table, kind) {
                    let ratios = variants::ratio_table(table, &group);
                    let svg = charts::table(
                        &ratios,
                        &self.names(&ratios),
                        charts::Kind::Twin,
                        &variants::chart_title(table, &group, &name, lang),
                        &self.colours,
                        lang,
                    )?;
                    self.add(variants::chart_name(table, &group, lang), svg);
                }
            }
        }
        Ok(())
    }

    /// The .NET clients side by side, per mode.
    fn clients(&mut self, lang: Lang) -> Result<()> {
        for clients in tables::clients(&self.inputs.spec, &self.inputs.tables) {
            let name = lang.text(&self.suite(&clients.suite).name);
            for mode in &clients.modes {
                let Some(table) = clients.for_mode(mode) else {
                    continue;
                };
                let svg = charts::table(
                    &table,
                    &self.names(&table),
                    charts::Kind::Time,
                    &view::clients_chart_title(&clients, &name, mode, lang),
                    &self.colours,
                    lang,
                )?;
                self.add(view::clients_chart_name(&clients, mode, lang), svg);
            }
        }
        Ok(())
    }

    /// Time against B, per language, N and operation measured at more than one B.
    fn sizes(&mut self, lang: Lang) -> Result<()> {
        let Inputs { spec, tables, .. } = self.inputs;
        for ((language, operations, operation), series) in size_series(tables) {
            let name = spec
                .suites
                .iter()
                .flat_map(|s| &s.operations)
                .find(|o| o.id == operation)
                .map_or(operation.clone(), |o| o.name.clone());
            let older = tables
                .iter()
                .filter(|t| t.language == language && t.operations == operations)
                .map(|t| measured::mark(&t.measured, lang))
                .find(|m| !m.is_empty())
                .unwrap_or_default();
            let title = view::size_chart_title(&language, &name, operations, lang) + &older;
            let svg = charts::sizes(&series, &title, &self.colours, lang)?;
            self.add(
                view::size_chart_name(&language, operations, &operation, lang),
                svg,
            );
            self.drawn.sizes.insert((language, operations, operation));
        }
        Ok(())
    }

    /// Per load run, suite and operation: requests per second and p99 against clients.
    fn load(&mut self, lang: Lang) -> Result<()> {
        let Inputs {
            spec, code, load, ..
        } = self.inputs;
        for run in load {
            for suite in &spec.suites {
                for (kind, operation, by_store) in view::load_chart_series(spec, run, &suite.id) {
                    for metric in [charts::LoadMetric::PerSecond, charts::LoadMetric::P99] {
                        let series: Vec<(String, Vec<(u64, f64)>)> = by_store
                            .iter()
                            .map(|(store, batch, points)| {
                                let values = points
                                    .iter()
                                    .map(|(k, per_second, p99)| match metric {
                                        charts::LoadMetric::PerSecond => (*k, *per_second),
                                        charts::LoadMetric::P99 => (*k, *p99),
                                    })
                                    .collect();
                                // A latency is one timed batch's: the legend says how big.
                                let name = match metric {
                                    charts::LoadMetric::P99 => {
                                        view::batch_name(store, *batch, lang)
                                    }
                                    charts::LoadMetric::PerSecond => store.clone(),
                                };
                                (name, values)
                            })
                            .collect();
                        let title = view::load_chart_title(
                            run.language(),
                            &lang.text(&suite.name),
                            &operation,
                            run.background,
                            metric,
                            lang,
                        ) + &measured::run_mark(code, &run.provenance, lang);
                        let svg = charts::clients(&series, &title, metric, &self.colours, lang)?;
                        self.add(
                            view::load_chart_name(run, &suite.id, kind, metric, lang),
                            svg,
                        );
                    }
                }
            }
        }
        Ok(())
    }

    /// Per suite measured at more than one B, memory per B against B.
    fn memory(&mut self, lang: Lang) -> Result<()> {
        let Inputs {
            spec, code, memory, ..
        } = self.inputs;
        for suite in &spec.suites {
            let series = memory_series(memory, &suite.id);
            if series.iter().any(|(_, points)| points.len() > 1) {
                let older = memory
                    .iter()
                    .map(|r| measured::run_mark(code, &r.provenance, lang))
                    .find(|m| !m.is_empty())
                    .unwrap_or_default();
                let title = view::memory_chart_title(&lang.text(&suite.name), lang) + &older;
                let svg = charts::memory(&series, &title, &self.colours, lang)?;
                self.add(view::memory_chart_name(&suite.id, lang), svg);
                self.drawn.memory.insert(suite.id.clone());
            }
        }
        Ok(())
    }
}
