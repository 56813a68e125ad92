//! The re-measure's ledger: `examples/remeasure.sh` adds a line to `ledger.tsv` in the results
//! folder for every piece it keeps (when, which piece, its result file, the seconds it took and
//! the minutes estimated), so that the method page shows what a re-measure of the checkout's code
//! has cost so far against its estimate, beside what it has left.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::Serialize;

use crate::format::Lang;

/// The ledger's name in a results folder; the results reader passes over it.
pub const FILE: &str = "ledger.tsv";

/// One kept piece, as remeasure.sh wrote it.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub date: String,
    pub piece: String,
    pub file: String,
    pub seconds: f64,
    pub estimate_minutes: f64,
}

/// Every ledger line of the results folders among `paths`, each kept only while its result file
/// is still there (a file an older set's replacement removed is no longer published).
pub fn read(paths: &[PathBuf]) -> Result<Vec<Entry>> {
    let mut entries = Vec::new();
    for dir in paths.iter().filter(|p| p.is_dir()) {
        let path = dir.join(FILE);
        if !path.exists() {
            continue;
        }
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("{}: cannot read", path.display()))?;
        for (k, line) in text.lines().enumerate() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let entry = parse(line).with_context(|| {
                format!(
                    "{}:{}: not a ledger line (date, piece, file, seconds, estimated minutes, \
                     tab-separated)",
                    path.display(),
                    k + 1
                )
            })?;
            if dir.join(&entry.file).exists() {
                entries.push(entry);
            }
        }
    }
    Ok(entries)
}

fn parse(line: &str) -> Result<Entry> {
    let fields: Vec<&str> = line.split('\t').collect();
    let [date, piece, file, seconds, estimate] = fields[..] else {
        bail!("{} fields, not 5", fields.len());
    };
    let number = |text: &str, what: &str| -> Result<f64> {
        text.parse::<f64>()
            .ok()
            .filter(|n| n.is_finite() && *n >= 0.0)
            .with_context(|| format!("{what} \"{text}\" is not a number of 0 or more"))
    };
    Ok(Entry {
        date: date.to_string(),
        piece: piece.to_string(),
        file: file.to_string(),
        seconds: number(seconds, "seconds")?,
        estimate_minutes: number(estimate, "estimated minutes")?,
    })
}

/// The pieces measured of the checkout's code (their result files carry its fingerprint, as
/// [`crate::plan::Piece::file`] names them), each once (its latest line).
pub fn of_code<'e>(entries: &'e [Entry], fingerprint: &str) -> Vec<&'e Entry> {
    let short = &fingerprint[..fingerprint.len().min(7)];
    let mut kept: Vec<&Entry> = Vec::new();
    for entry in entries.iter().filter(|e| {
        Path::new(&e.file)
            .file_stem()
            .is_some_and(|s| s.to_string_lossy().ends_with(&format!("-{short}")))
    }) {
        kept.retain(|k| k.file != entry.file);
        kept.push(entry);
    }
    kept
}

/// One line of the method page's ledger.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Row {
    pub piece: String,
    pub date: String,
    pub took: String,
    pub estimate: String,
    /// Took over estimate, "1.07×".
    pub ratio: String,
}

/// The ledger as the method page shows it: a row per piece, and the total as its last row.
pub fn rows(entries: &[&Entry], lang: Lang) -> Vec<Row> {
    let minutes = |m: f64| {
        let text = match lang {
            Lang::En => format!("{m:.1} min"),
            Lang::Ru => format!("{m:.1} мин"),
        };
        text.replace('.', &lang.decimal_separator().to_string())
    };
    let row = |piece: String, date: String, took: f64, estimate: f64| Row {
        piece,
        date,
        took: minutes(took),
        estimate: minutes(estimate),
        ratio: if estimate > 0.0 {
            format!("{:.2}×", took / estimate).replace('.', &lang.decimal_separator().to_string())
        } else {
            "—".into()
        },
    };
    let mut rows: Vec<Row> = entries
        .iter()
        .map(|e| {
            row(
                e.piece.clone(),
                e.date
                    .chars()
                    .take(16)
                    .collect::<String>()
                    .replace('T', " "),
                e.seconds / 60.0,
                e.estimate_minutes,
            )
        })
        .collect();
    if entries.len() > 1 {
        rows.push(row(
            match lang {
                Lang::En => format!("all {} pieces", entries.len()),
                Lang::Ru => format!("все куски ({})", entries.len()),
            },
            String::new(),
            entries.iter().map(|e| e.seconds).sum::<f64>() / 60.0,
            entries.iter().map(|e| e.estimate_minutes).sum(),
        ));
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ledger_keeps_the_checkouts_pieces_still_published_and_refuses_a_bad_line_by_number() {
        let dir = tempfile::tempdir().unwrap();
        for file in [
            "rust-b1000-n100-r1-abcdef1.txt",
            "load-rust-b1000-r1-abcdef1.json",
        ] {
            std::fs::write(dir.path().join(file), "").unwrap();
        }
        std::fs::write(
            dir.path().join(FILE),
            "# date\tpiece\tfile\tseconds\testimate\n\
             2026-12-07T09:00:00Z\trust-b1000-n100-r1\trust-b1000-n100-r1-abcdef1.txt\t600\t9.5\n\
             2026-12-07T09:10:00Z\tload-rust-b1000-r1\tload-rust-b1000-r1-abcdef1.json\t240\t4\n\
             2026-12-07T09:20:00Z\tmemory-b1000\tmemory-b1000-abcdef1.json\t60\t1\n\
             2026-12-01T09:20:00Z\trust-b1000-n100-r2\trust-b1000-n100-r2-0123456.txt\t60\t1\n",
        )
        .unwrap();
        let entries = read(&[dir.path().to_path_buf()]).unwrap();
        // The memory file is gone: its line is not published any more.
        assert_eq!(entries.len(), 2);
        let ours = of_code(&entries, "abcdef1234");
        let rows = rows(&ours, Lang::En);
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].ratio, "1.05×");
        assert_eq!(rows[2].piece, "all 2 pieces");
        assert_eq!(
            (rows[2].took.as_str(), rows[2].estimate.as_str()),
            ("14.0 min", "13.5 min")
        );
        assert!(of_code(&entries, "0123456").is_empty(), "its file is gone");

        std::fs::write(dir.path().join(FILE), "2026-12-07\tx\tx.txt\tmany\t1\n").unwrap();
        let error = format!("{:#}", read(&[dir.path().to_path_buf()]).unwrap_err());
        assert!(
            error.contains("ledger.tsv:1:") && error.contains("\"many\""),
            "{error}"
        );
    }
}
