//! Result files: one per run (one language, one or more backend families, one size), read by the
//! report tool. Each is a few `# key: value` provenance lines, then Criterion's bencher lines:
//!
//! ```text
//! # language: rust
//! # background_links: 1000
//! # operations: 100
//! # commit: 0123abc
//! test create/Doublets_United_Volatile ... bench:       2,382 ns/iter (+/- 57)
//! test create/Redis_Pipeline ... bench:     215,310 ns/iter (+/- 3,120)
//! split create/Redis_Pipeline ... wall 214,880 ns, native 21,300 ns, script 60,100 ns, transaction 0 ns, server cpu 98,000 ns, client cpu 41,000 ns, 10 iterations
//! ```
//!
//! A `split` line follows its cell's bencher line where the server reported where the time went.
//!
//! A shell script can write one by hand (`echo "# key: value"` and the bench's stdout); the Rust
//! bench and the C# harness write it themselves, with only the cells that passed every check.

use std::path::Path;

/// Keys every result file must carry; the report refuses a file without them.
pub const REQUIRED: [&str; 6] = [
    "language",
    "background_links",
    "operations",
    "commit",
    "fingerprint",
    "date",
];

/// Keys a result file may carry besides the required ones.
pub const OPTIONAL: [&str; 27] = [
    "families",
    // The suites a file holds, where a round was measured a suite at a time (none: every one).
    "suites",
    "servers",
    // Where the durable stores kept their files: the folder's file system and fsync latency.
    "durable",
    // The networks to servers on hosts of their own, each with its measured round trip.
    "network",
    // The servers that refused the readings of a split, with their words.
    "unsplit",
    "clients",
    "memory",
    "kernel",
    "round",
    "redis",
    "client",
    "doublets",
    "toolchain",
    "runtime",
    "cpu",
    "cpu_mhz",
    "hypervisor",
    "steal",
    "other_processes",
    "machine",
    "calibration_start",
    "calibration_end",
    "cpus",
    "placement",
    "ci_run",
    "os",
];

/// One cell: the median time of one iteration and its standard deviation, in nanoseconds.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    pub operation: String,
    pub backend: String,
    pub median_ns: f64,
    pub sd_ns: f64,
    /// Where it was read, for errors ("file:line").
    pub at: String,
}

/// Where one server cell's time went ([`crate::split`]), as its `split` line gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct SplitLine {
    pub operation: String,
    pub backend: String,
    pub split: crate::split::Split,
    /// Where it was read, for errors ("file:line").
    pub at: String,
}

#[derive(Clone, Debug, Default)]
pub struct ResultFile {
    pub path: String,
    /// Provenance in file order, with the line of each.
    pub provenance: Vec<(String, String, usize)>,
    pub measurements: Vec<Measurement>,
    pub splits: Vec<SplitLine>,
}

impl ResultFile {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.provenance
            .iter()
            .find(|(k, ..)| k == key)
            .map(|(_, v, _)| v.as_str())
    }

    /// "file:line" of a provenance key, or the file alone.
    pub fn at(&self, key: &str) -> String {
        match self.provenance.iter().find(|(k, ..)| k == key) {
            Some((.., line)) => format!("{}:{line}", self.path),
            None => self.path.clone(),
        }
    }

    pub fn read(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Parses a result file. Criterion may print a cell's name and figures apart, with other output
    /// between them, so a `test NAME ... ` without figures waits for the next `bench:`.
    pub fn parse(text: &str, path: &str) -> Result<Self, String> {
        let mut file = ResultFile {
            path: path.to_string(),
            ..Default::default()
        };
        let mut pending: Option<(String, usize)> = None;
        for (k, line) in text.lines().enumerate() {
            let number = k + 1;
            let at = format!("{path}:{number}");
            let trimmed = line.trim();
            if let Some(header) = trimmed.strip_prefix('#') {
                let (key, value) = header.split_once(':').ok_or_else(|| {
                    format!("{at}: a header line reads \"# key: value\", got {trimmed:?}")
                })?;
                let key = key.trim();
                if !REQUIRED.contains(&key) && !OPTIONAL.contains(&key) {
                    return Err(format!(
                        "{at}: unknown header \"{key}\" (known: {}, {})",
                        REQUIRED.join(", "),
                        OPTIONAL.join(", ")
                    ));
                }
                if file.get(key).is_some() {
                    return Err(format!("{at}: \"{key}\" is given twice"));
                }
                file.provenance
                    .push((key.to_string(), value.trim().to_string(), number));
                continue;
            }
            if let Some(split) = trimmed.strip_prefix("split ") {
                let (name, split) =
                    crate::split::Split::parse(split).map_err(|e| format!("{at}: {e}"))?;
                let (operation, backend) = name
                    .split_once('/')
                    .ok_or_else(|| format!("{at}: \"{name}\" is not OPERATION/BACKEND"))?;
                if !file
                    .measurements
                    .iter()
                    .any(|m| m.operation == operation && m.backend == backend)
                {
                    return Err(format!(
                        "{at}: a split of \"{name}\", which has no bencher line before it"
                    ));
                }
                file.splits.push(SplitLine {
                    operation: operation.to_string(),
                    backend: backend.to_string(),
                    split,
                    at,
                });
                continue;
            }
            let mut rest = trimmed;
            if let Some(after) = rest.strip_prefix("test ") {
                let (name, tail) = after
                    .split_once(" ... ")
                    .or_else(|| after.strip_suffix(" ...").map(|n| (n, "")))
                    .ok_or_else(|| format!("{at}: a bencher line reads \"test NAME ... bench: N ns/iter (+/- D)\", got {trimmed:?}"))?;
                if let Some((previous, line)) = pending.take() {
                    return Err(format!("{path}:{line}: \"{previous}\" has no figures"));
                }
                pending = Some((name.trim().to_string(), number));
                rest = tail.trim();
            }
            if rest.is_empty() {
                continue;
            }
            if let Some(figures) = rest.strip_prefix("bench:") {
                let (name, line) = pending.take().ok_or_else(|| {
                    format!("{at}: figures without a \"test NAME ...\" before them")
                })?;
                let (median_ns, sd_ns) = figures_of(figures).map_err(|e| format!("{at}: {e}"))?;
                let (operation, backend) = name
                    .split_once('/')
                    .ok_or_else(|| format!("{path}:{line}: \"{name}\" is not OPERATION/BACKEND"))?;
                file.measurements.push(Measurement {
                    operation: operation.to_string(),
                    backend: backend.to_string(),
                    median_ns,
                    sd_ns,
                    at: format!("{path}:{line}"),
                });
            } else if pending.is_none() {
                return Err(format!(
                    "{at}: not a header, a bencher line, a split line or a blank line: {trimmed:?}"
                ));
            }
        }
        if let Some((name, line)) = pending {
            return Err(format!("{path}:{line}: \"{name}\" has no figures"));
        }
        for key in REQUIRED {
            if file.get(key).is_none() {
                return Err(format!("{path}: the header \"# {key}: …\" is missing"));
            }
        }
        Ok(file)
    }
}

/// "  2,382 ns/iter (+/- 57)" → (2382, 57).
fn figures_of(text: &str) -> Result<(f64, f64), String> {
    let bad = || {
        format!(
            "the figures read \"N ns/iter (+/- D)\", got {:?}",
            text.trim()
        )
    };
    let (median, rest) = text.trim().split_once(' ').ok_or_else(bad)?;
    let (unit, sd) = rest.trim().split_once(' ').ok_or_else(bad)?;
    let scale = match unit {
        "ns/iter" => 1.0,
        "us/iter" | "µs/iter" => 1e3,
        "ms/iter" => 1e6,
        "s/iter" => 1e9,
        _ => return Err(bad()),
    };
    let sd = sd
        .trim()
        .strip_prefix("(+/-")
        .and_then(|s| s.strip_suffix(')'))
        .ok_or_else(bad)?;
    let number = |s: &str| s.trim().replace(',', "").parse::<f64>().map_err(|_| bad());
    Ok((number(median)? * scale, number(sd)? * scale))
}

/// The bencher line of one cell, exactly as Criterion prints it.
pub fn bencher_line(operation: &str, backend: &str, median_ns: f64, sd_ns: f64) -> String {
    format!(
        "test {operation}/{backend} ... bench: {:>11} ns/iter (+/- {})",
        crate::grouped::Grouped(median_ns.round() as u64),
        crate::grouped::Grouped(sd_ns.round() as u64)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADERS: &str = "# language: rust\n# background_links: 1000\n# operations: 100\n# commit: abc\n# fingerprint: f00d\n# date: 2026-11-30\n";

    #[test]
    fn reads_headers_and_lines_even_when_criterion_splits_them() {
        let text = format!(
            "{HEADERS}test create/Redis_Pipeline ... bench:   1,234,567 ns/iter (+/- 8,910)\n\ntest update/Redis_Pipeline ... \nWarning: slow\nbench: 12 ns/iter (+/- 0)\n"
        );
        let file = ResultFile::parse(&text, "r.txt").unwrap();
        assert_eq!(file.get("operations"), Some("100"));
        assert_eq!(file.measurements.len(), 2);
        assert_eq!(
            (file.measurements[0].median_ns, file.measurements[0].sd_ns),
            (1_234_567.0, 8_910.0)
        );
        assert_eq!(file.measurements[1].operation, "update");
        assert_eq!(file.measurements[1].at, "r.txt:9");
    }

    #[test]
    fn refuses_malformed_lines_with_their_place() {
        let parse =
            |extra: &str| ResultFile::parse(&format!("{HEADERS}{extra}"), "r.txt").unwrap_err();
        assert!(parse("test create ... bench: 1 ns/iter (+/- 0)\n")
            .starts_with("r.txt:7: \"create\" is not OPERATION/BACKEND"));
        assert!(parse("test a/b ... bench: fast\n").starts_with("r.txt:7: the figures"));
        assert!(parse("test a/b ...\n").starts_with("r.txt:7: \"a/b\" has no figures"));
        assert!(parse("# colour: blue\n").starts_with("r.txt:7: unknown header \"colour\""));
        assert!(parse("# commit: def\n").starts_with("r.txt:7: \"commit\" is given twice"));
        assert!(parse("hello\n").starts_with("r.txt:7: not a header"));
        assert!(
            ResultFile::parse("test a/b ... bench: 1 ns/iter (+/- 0)\n", "r.txt")
                .unwrap_err()
                .contains("\"# language: …\" is missing")
        );
    }

    #[test]
    fn reads_a_split_after_its_cell_and_refuses_one_without_it() {
        let split = "split create/Redis_Pipeline ... wall 2,000 ns, native 100 ns, script 300 ns, transaction 0 ns, server cpu 900 ns, client cpu 400 ns, 10 iterations\n";
        let cell = "test create/Redis_Pipeline ... bench: 2,100 ns/iter (+/- 9)\n";
        let file = ResultFile::parse(&format!("{HEADERS}{cell}{split}"), "r.txt").unwrap();
        assert_eq!(file.splits.len(), 1);
        assert_eq!(file.splits[0].split.script_ns, 300.0);
        assert_eq!(file.splits[0].at, "r.txt:8");
        let alone = ResultFile::parse(&format!("{HEADERS}{split}"), "r.txt").unwrap_err();
        assert!(
            alone.starts_with(
                "r.txt:7: a split of \"create/Redis_Pipeline\", which has no bencher line"
            ),
            "{alone}"
        );
        let broken = ResultFile::parse(
            &format!("{HEADERS}{cell}split create/Redis_Pipeline ... wall 1 ns\n"),
            "r.txt",
        )
        .unwrap_err();
        assert!(
            broken.starts_with("r.txt:8: a split line reads"),
            "{broken}"
        );
    }

    #[test]
    fn writes_lines_criterion_style_that_read_back() {
        let line = bencher_line("each_all", "Doublets_Split_Volatile", 8926.4, 202.0);
        assert_eq!(
            line,
            "test each_all/Doublets_Split_Volatile ... bench:       8,926 ns/iter (+/- 202)"
        );
        let file = ResultFile::parse(&format!("{HEADERS}{line}\n"), "r").unwrap();
        assert_eq!(file.measurements[0].median_ns, 8926.0);
    }
}
