//! Whether published figures reproduce: fresh rounds of published sizes against the published
//! tables, as the share of cells whose fresh median lies inside the published interval and the
//! share of Doublets-vs-Redis ratios (against Redis' fastest mode and against one request per
//! round trip) whose fresh value does. A published interval holds the median of rounds like the
//! published ones, not every future round, so even a machine that reproduces puts some fresh
//! rounds outside; a low share says the rounds were taken under conditions that have changed.

use crate::{headline, tables::Table};

/// How many of the fresh figures lie inside their published intervals.
#[derive(Debug, Default, PartialEq)]
pub struct Agreement {
    /// Cells with a published interval, and those inside it.
    pub cells: usize,
    pub cells_inside: usize,
    /// Doublets-vs-Redis ratios with a published interval, and those inside it.
    pub ratios: usize,
    pub ratios_inside: usize,
    /// Fresh figures whose published counterpart has no interval (one round).
    pub without_interval: usize,
    /// A line per ratio: published, fresh, inside or not.
    pub details: Vec<String>,
}

/// Compares each fresh table with the published one of its language, suite and size.
pub fn compare(spec: &contract::spec::Spec, published: &[Table], fresh: &[Table]) -> Agreement {
    let mut a = Agreement::default();
    let same = |p: &&Table, f: &Table| {
        (&p.language, &p.suite, p.background, p.operations)
            == (&f.language, &f.suite, f.background, f.operations)
    };
    for f in fresh {
        let Some(p) = published.iter().find(|p| same(p, f)) else {
            continue;
        };
        for row in &f.rows {
            let Some(published_row) = p.rows.iter().find(|r| r.operation == row.operation) else {
                continue;
            };
            for (k, cell) in row.cells.iter().enumerate() {
                let backend = &f.backends[k];
                let Some(j) = p.backends.iter().position(|b| b == backend) else {
                    continue;
                };
                let (Ok(cell), Ok(was)) = (cell, &published_row.cells[j]) else {
                    continue;
                };
                match was.interval_ns {
                    Some((low, high)) => {
                        a.cells += 1;
                        a.cells_inside +=
                            usize::from(low <= cell.median_ns && cell.median_ns <= high);
                    }
                    None => a.without_interval += 1,
                }
            }
        }
    }
    let was = headline::lines(spec, published);
    for line in headline::lines(spec, fresh) {
        let Some(old) = was.iter().find(|o| {
            (&o.language, &o.suite, o.background, o.operation.as_str())
                == (
                    &line.language,
                    &line.suite,
                    line.background,
                    line.operation.as_str(),
                )
        }) else {
            continue;
        };
        // One request per round trip, where it is not already the fastest mode.
        let one_by_one = line
            .one_by_one
            .as_ref()
            .filter(|r| r.server != line.best.server);
        let against = [
            (Some(&old.best), Some(&line.best)),
            (old.one_by_one.as_ref(), one_by_one),
        ];
        for (old, new) in against {
            let (Some(old), Some(new)) = (old, new) else {
                continue;
            };
            let (Some(low), Some(high)) = (old.low, old.high) else {
                a.without_interval += 1;
                continue;
            };
            let inside = low <= new.ratio && new.ratio <= high;
            a.ratios += 1;
            a.ratios_inside += usize::from(inside);
            a.details.push(format!(
                "{} {} B = {} {} against {}: published {:.3}× [{low:.3}–{high:.3}×], fresh {:.3}×{}",
                line.language,
                line.suite,
                line.background,
                line.operation,
                new.server,
                old.ratio,
                new.ratio,
                if inside { "" } else { "  (outside)" }
            ));
        }
    }
    a
}
