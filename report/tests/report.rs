//! The report end to end on fixture results: snapshots of what it writes, idempotence, `--check`,
//! and one test per refusal.

use std::path::{Path, PathBuf};

use report::{outputs, run, Args};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

/// A work folder with the fixture READMEs and the given result files.
struct Workspace {
    dir: tempfile::TempDir,
}

impl Workspace {
    fn new(results: &[(&str, String)]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        for readme in ["README.md", "README.ru.md"] {
            std::fs::copy(Path::new(FIXTURES).join(readme), dir.path().join(readme)).unwrap();
        }
        std::fs::create_dir(dir.path().join("results")).unwrap();
        for (name, text) in results {
            std::fs::write(dir.path().join("results").join(name), text).unwrap();
        }
        Self { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn args(&self) -> Args {
        Args {
            results: vec![self.path("results")],
            spec: Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/benchmarks.yaml"),
            readme: self.path("README.md"),
            readme_ru: self.path("README.ru.md"),
            charts: self.path("docs/charts"),
            summary: self.path("docs/results.json"),
            pages: self.path("docs"),
            allow_missing: false,
            check: false,
            commit: None,
            fingerprint: Some("fixture".into()),
            require_current: false,
            allow_busy: false,
            command: Some("cargo run -p report -- docs/sample-results".into()),
        }
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(name)).unwrap()
    }
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(Path::new(FIXTURES).join(name)).unwrap()
}

/// The checkout's spec, as the plan and the report read it.
fn real_spec() -> contract::spec::Spec {
    contract::spec::Spec::load(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/benchmarks.yaml"),
    )
    .unwrap()
}

/// The B = 1,000 fixture as a piece of round 1: measured at `fingerprint`, of `families`, in
/// `language` on `servers`, through `clients` where it names some.
fn piece(
    fingerprint: &str,
    families: &str,
    language: &str,
    servers: &str,
    clients: Option<&str>,
) -> String {
    let clients = clients.map_or(String::new(), |c| format!("# clients: {c}\n"));
    fixture("rust-b1000.txt")
        .replace(
            "# fingerprint: fixture",
            &format!("# fingerprint: {fingerprint}"),
        )
        .replace(
            "# families: doublets,redis",
            &format!("# families: {families}"),
        )
        .replace(
            "# language: rust\n",
            &format!("# language: {language}\n# round: 1\n# servers: {servers}\n{clients}"),
        )
}

/// The fixture at B = 10,000 measured with N = 100 too, so that both sizes share a line.
fn b10000_n100() -> String {
    fixture("rust-b10000.txt").replace("# operations: 1000\n", "# operations: 100\n")
}

fn both_sizes() -> Workspace {
    Workspace::new(&[
        ("rust-b1000.txt", fixture("rust-b1000.txt")),
        ("rust-b10000.txt", b10000_n100()),
    ])
}

/// The chart links point into the temporary folder: make them stable for snapshots.
fn stable(text: &str, workspace: &Workspace) -> String {
    text.replace(&workspace.dir.path().display().to_string(), "<work>")
}

#[test]
fn runs_with_different_n_never_share_a_line_against_b() {
    let work = Workspace::new(&[
        ("rust-b1000.txt", fixture("rust-b1000.txt")),
        ("rust-b10000.txt", fixture("rust-b10000.txt")),
    ]);
    run(&work.args()).unwrap();
    let readme = work.read("README.md");
    assert!(
        !readme.contains("sizes.svg"),
        "N = 100 and N = 1,000 on one line"
    );
    assert!(!work.path("docs/charts/rust-create-n100-sizes.svg").exists());
}

#[test]
fn writes_both_readmes_charts_and_summary() {
    let work = both_sizes();
    assert_eq!(run(&work.args()).unwrap(), Vec::<String>::new());
    insta::assert_snapshot!("readme_en", stable(&work.read("README.md"), &work));
    insta::assert_snapshot!("readme_ru", stable(&work.read("README.ru.md"), &work));
    insta::assert_snapshot!(
        "chart_time",
        work.read("docs/charts/rust-links-b1000-n100-time.svg")
    );
    for chart in [
        "rust-typical-b10000-n100-relative.svg",
        "rust-typical-b10000-n100-relative.ru.svg",
        "rust-create-n100-sizes.svg",
        "rust-queue_pop-n100-sizes.ru.svg",
    ] {
        assert!(
            work.read(&format!("docs/charts/{chart}"))
                .starts_with("<svg"),
            "{chart}"
        );
    }
    assert!(work
        .read("README.ru.md")
        .contains("rust-links-b1000-n100-time.ru.svg"));
    let summary: serde_json::Value = serde_json::from_str(&work.read("docs/results.json")).unwrap();
    assert_eq!(
        summary["tables"].as_array().unwrap().len(),
        4,
        "two suites at two sizes"
    );
    assert_eq!(
        summary["tables"][0]["rows"][0]["cells"]["Redis_Pipeline"]["fastest_server"],
        true
    );
    assert_eq!(
        summary["tables"][0]["provenance"]["cpus"], 2,
        "whole numbers are numbers"
    );
    assert!(work.path("docs/results.schema.json").exists());
}

#[test]
fn memory_runs_become_a_table_and_a_chart_per_suite() {
    let work = Workspace::new(&[
        ("rust-b1000.txt", fixture("rust-b1000.txt")),
        ("memory-b1000.json", fixture("memory-b1000.json")),
        ("memory-b10000.json", fixture("memory-b10000.json")),
    ]);
    run(&work.args()).unwrap();
    for (readme, heading, chart) in [
        (
            "README.md",
            "#### Memory: what each store holds for the background",
            "memory-links.svg",
        ),
        (
            "README.ru.md",
            "#### Память: сколько занимает фон в каждом хранилище",
            "memory-links.ru.svg",
        ),
    ] {
        let text = work.read(readme);
        assert_eq!(text.matches(heading).count(), 2, "{readme}: one per suite");
        assert!(text.contains("| Doublets_Split_Volatile | 10"), "{readme}");
        assert!(text.contains(chart), "{readme}");
    }
    for chart in ["memory-links.svg", "memory-typical.svg"] {
        let svg = work.read(&format!("docs/charts/{chart}"));
        assert!(svg.contains("resident memory per B"), "{chart}");
    }
    let svg = work.read("docs/charts/memory-links.ru.svg");
    assert!(svg.contains("резидентная память на единицу B"), "{svg}");
    let summary: serde_json::Value = serde_json::from_str(&work.read("docs/results.json")).unwrap();
    let figures = summary["memory"][0]["figures"].as_array().unwrap();
    assert_eq!(figures.len(), 6, "three stores, two suites");
    assert!(figures.iter().all(|f| f["rss_growth"].as_u64().is_some()));
}

#[test]
fn a_memory_run_of_other_code_is_labelled_and_refused_when_current_is_required() {
    let work = Workspace::new(&[("memory-b1000.json", fixture("memory-b1000.json"))]);
    let older = Args {
        fingerprint: Some("0ddba11".into()),
        ..work.args()
    };
    run(&older).unwrap();
    let page = work.read("docs/memory.md");
    assert!(
        page.contains("Older code: measured at commit be528e7+changes, not the checkout's"),
        "{page}"
    );
    let e = format!(
        "{:#}",
        run(&Args {
            require_current: true,
            ..older
        })
        .unwrap_err()
    );
    assert!(
        e.contains("results of fingerprint fixture (commit be528e7e9840f6807515a86fbd2b572a0d5df000+changes) are not of the checkout's code"),
        "{e}"
    );
}

#[test]
fn a_malformed_memory_run_is_refused_by_name() {
    let work = Workspace::new(&[("memory-b1000.json", "{\"background\": 1}".into())]);
    let error = format!("{:#}", run(&work.args()).unwrap_err());
    assert!(
        error.contains("memory-b1000.json: not a memory run"),
        "{error}"
    );
}

#[test]
fn a_second_run_changes_nothing_and_check_agrees() {
    let work = both_sizes();
    run(&work.args()).unwrap();
    let first = work.read("README.md");
    run(&work.args()).unwrap();
    assert_eq!(work.read("README.md"), first);
    let check = Args {
        check: true,
        ..work.args()
    };
    assert_eq!(run(&check).unwrap(), Vec::<String>::new());
    // Outside the markers every byte stays.
    assert!(
        first.starts_with("# Fixture\n\nIntro stays byte for byte.\n\n<!-- findings:start -->\n")
    );
    assert!(first.ends_with("<!-- results:end -->\n\nMiddle.\n\nEnd.\n"));
}

#[test]
fn check_reports_stale_outputs_and_writes_nothing() {
    let work = both_sizes();
    let check = Args {
        check: true,
        ..work.args()
    };
    let stale = run(&check).unwrap();
    assert!(stale.iter().any(|p| p.ends_with("README.md")), "{stale:?}");
    assert!(!work.path("docs").exists(), "--check wrote files");
    assert_eq!(work.read("README.md"), fixture("README.md"));
}

#[test]
fn charts_no_result_makes_are_reported_by_check_and_removed() {
    let work = both_sizes();
    run(&work.args()).unwrap();
    // A chart of a result that has since been removed, and a file that is not a chart.
    let orphan = work.path("docs/charts/load-rust-links-b100000-p99.svg");
    std::fs::write(&orphan, "<svg/>").unwrap();
    std::fs::write(work.path("docs/charts/notes.txt"), "kept").unwrap();
    let check = Args {
        check: true,
        ..work.args()
    };
    assert_eq!(
        run(&check).unwrap(),
        vec![format!(
            "{} (no result makes it: remove it)",
            orphan.display()
        )]
    );
    assert!(orphan.exists(), "--check removed a file");
    run(&work.args()).unwrap();
    assert!(!orphan.exists());
    assert_eq!(work.read("docs/charts/notes.txt"), "kept");
    assert_eq!(run(&check).unwrap(), Vec::<String>::new());
}

/// Runs the report on the fixture with one line changed; returns its error and checks that
/// nothing was written.
fn refusal(name: &str, edit: impl Fn(&str) -> String) -> String {
    let work = Workspace::new(&[(name, edit(&fixture("rust-b1000.txt")))]);
    let error = format!("{:#}", outputs(&work.args()).unwrap_err());
    run(&work.args()).unwrap_err();
    assert_eq!(
        work.read("README.md"),
        fixture("README.md"),
        "a refused run wrote the README"
    );
    assert!(!work.path("docs").exists(), "a refused run wrote charts");
    error
}

#[test]
fn refuses_a_malformed_bencher_line() {
    let e = refusal("r.txt", |t| {
        t.replacen("bench:       5,570 ns/iter", "bench:       fast", 1)
    });
    assert!(e.contains("r.txt:16: the figures read"), "{e}");
}

#[test]
fn refuses_a_malformed_header() {
    let e = refusal("r.txt", |t| t.replacen("# os:", "# flavour:", 1));
    assert!(e.contains("r.txt:15: unknown header \"flavour\""), "{e}");
}

#[test]
fn refuses_an_unknown_operation_or_backend() {
    let e = refusal("r.txt", |t| t.replacen("test create/", "test creat/", 1));
    assert!(
        e.contains("r.txt:16: the spec has no operation \"creat\""),
        "{e}"
    );
    let e = refusal("r.txt", |t| {
        t.replacen(
            "create/Doublets_United_Volatile",
            "create/Doublets_United_Persistent",
            1,
        )
    });
    assert!(
        e.contains("r.txt:16: the suite \"links\" has no backend \"Doublets_United_Persistent\""),
        "{e}"
    );
}

#[test]
fn refuses_missing_cells_unless_allowed() {
    let drop_line = |t: &str| {
        t.lines()
            .filter(|l| !l.starts_with("test update/Redis_Pipeline"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let e = refusal("r.txt", drop_line);
    assert!(
        e.contains("the table rust-links-b1000-n100 lacks update/Redis_Pipeline")
            && e.contains("--allow-missing"),
        "{e}"
    );

    let work = Workspace::new(&[("r.txt", drop_line(&fixture("rust-b1000.txt")))]);
    run(&Args {
        allow_missing: true,
        ..work.args()
    })
    .unwrap();
    let readme = work.read("README.md");
    // One round: a time without an interval.
    assert!(readme.contains("| Update | 17.3 µs ("), "{readme}");
    assert!(
        readme.contains("— Update / Redis_Pipeline: missing from the results."),
        "{readme}"
    );
}

#[test]
fn rounds_of_one_code_at_different_commits_share_a_table() {
    let round = |n: u32, commit: &str| {
        fixture("rust-b1000.txt")
            .replace("0123456789abcdef", commit)
            .replace(
                "# language: rust\n",
                &format!("# language: rust\n# round: {n}\n"),
            )
    };
    let work = Workspace::new(&[
        ("r1.txt", round(1, "0123456789abcdef")),
        ("r2.txt", round(2, "fedcba9876543210")),
    ]);
    run(&work.args()).unwrap();
    let readme = work.read("README.md");
    assert!(readme.contains("2 rounds"), "{readme}");
    assert!(!readme.contains("Not the current code"), "{readme}");
}

/// Languages of one size with different rounds each say theirs: "2 rounds of each language" would
/// claim an interval C# does not have.
#[test]
fn languages_with_different_rounds_each_say_theirs() {
    let round = |language: &str, n: u32| {
        fixture("rust-b1000.txt").replace(
            "# language: rust\n",
            &format!("# language: {language}\n# round: {n}\n"),
        )
    };
    let work = Workspace::new(&[
        ("rust-r1.txt", round("rust", 1)),
        ("rust-r2.txt", round("rust", 2)),
        ("csharp-r1.txt", round("csharp", 1)),
    ]);
    run(&work.args()).unwrap();
    let (readme, russian) = (work.read("README.md"), work.read("README.ru.md"));
    assert!(
        readme.contains("**B = 1,000, N = 100**: 2 rounds of Rust, 1 round of C#, measured"),
        "{readme}"
    );
    assert!(
        readme.contains(
            "B = 1,000 (Rust): 2 rounds (50% intervals); B = 1,000 (C#): 1 round (no interval)"
        ),
        "{readme}"
    );
    assert!(!readme.contains("of each language"), "{readme}");
    assert!(
        russian.contains("2 раунда на Rust, 1 раунд на C#"),
        "{russian}"
    );
}

/// One result set per piece: of two sets of different code for one language and size, the newer
/// is kept once it has as many complete rounds as the older, the other is left out, never mixed.
#[test]
fn sets_of_different_code_never_mix_and_the_newer_complete_one_is_kept() {
    let text = fixture("rust-b1000.txt");
    let set = |fingerprint: &str, date: &str, round: u32, scale: u64| {
        let headers = text
            .replace(
                "# fingerprint: fixture",
                &format!("# fingerprint: {fingerprint}"),
            )
            .replace("2026-11-30T19:50:00Z", date)
            .replace(
                "# language: rust\n",
                &format!("# language: rust\n# round: {round}\n"),
            );
        headers
            .lines()
            .map(
                |l| match l.strip_prefix("test create/Doublets_United_Volatile ... bench:") {
                    Some(_) => format!(
                        "test create/Doublets_United_Volatile ... bench: {} ns/iter (+/- 1)",
                        1000 * scale
                    ),
                    None => l.to_string(),
                },
            )
            .map(|l| l + "\n")
            .collect::<String>()
    };
    let older = set("fixture", "2026-11-30T19:50:00Z", 1, 7);
    let newer = |round| set("0ddba11", "2026-12-04T10:00:00Z", round, 3);
    // The newer set has one round, the older two: the older stays.
    let work = Workspace::new(&[
        ("old-r1.txt", older.clone()),
        ("old-r2.txt", older.replace("# round: 1", "# round: 2")),
        ("new-r1.txt", newer(1)),
    ]);
    run(&work.args()).unwrap();
    let json = work.read("docs/results.json");
    assert!(
        json.contains("7000.0") && !json.contains("3000.0"),
        "the older set is shown whole"
    );
    // With its second round the newer one replaces it, labelled as code this checkout is not.
    let work = Workspace::new(&[
        ("old-r1.txt", older.clone()),
        ("old-r2.txt", older.replace("# round: 1", "# round: 2")),
        ("new-r1.txt", newer(1)),
        ("new-r2.txt", newer(2)),
    ]);
    run(&work.args()).unwrap();
    let json = work.read("docs/results.json");
    assert!(
        json.contains("3000.0") && !json.contains("7000.0"),
        "the newer set is shown whole"
    );
    let readme = work.read("README.md");
    assert!(
        readme.contains(
            "measured from code not in this repository (commit `0123456`, fingerprint `0ddba11`)"
        ),
        "{readme}"
    );
    // The spec's plan asks 6 rounds at B = 1,000: a newer set with them replaces an older one of
    // 7, which has more rounds but is of older code.
    let mut files: Vec<(String, String)> = (1..=7)
        .map(|r| {
            let round = older.replace("# round: 1", &format!("# round: {r}"));
            (format!("old-r{r}.txt"), round)
        })
        .collect();
    files.extend((1..=6).map(|r| (format!("new-r{r}.txt"), newer(r))));
    let files: Vec<(&str, String)> = files.iter().map(|(n, t)| (n.as_str(), t.clone())).collect();
    let work = Workspace::new(&files);
    run(&work.args()).unwrap();
    let json = work.read("docs/results.json");
    assert!(
        json.contains("3000.0") && !json.contains("7000.0"),
        "the planned rounds win"
    );
}

#[test]
fn refuses_inputs_of_one_table_from_different_code_in_one_round() {
    let text = fixture("rust-b1000.txt");
    let (doublets, redis): (Vec<&str>, Vec<&str>) = text
        .lines()
        .filter(|l| l.starts_with("test "))
        .partition(|l| l.contains("/Doublets_"));
    let headers: String = text
        .lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect();
    let work = Workspace::new(&[
        ("a.txt", format!("{headers}{}\n", doublets.join("\n"))),
        (
            "b.txt",
            format!(
                "{}{}\n",
                headers.replace("# fingerprint: fixture", "# fingerprint: other"),
                redis.join("\n")
            ),
        ),
    ]);
    // Two sets, each missing the other's cells: the kept one is refused as incomplete, and its
    // cells are never filled from the other.
    let e = format!("{:#}", outputs(&work.args()).unwrap_err());
    assert!(e.contains("missing"), "{e}");
}

#[test]
fn refuses_results_of_another_commit_than_the_published_one() {
    let work = Workspace::new(&[("r.txt", fixture("rust-b1000.txt"))]);
    let e = format!(
        "{:#}",
        outputs(&Args {
            commit: Some("feedface".into()),
            ..work.args()
        })
        .unwrap_err()
    );
    assert!(
        e.contains("r.txt:4: measured commit 0123456789abcdef, not feedface"),
        "{e}"
    );
    outputs(&Args {
        commit: Some("0123456789abcdef".into()),
        ..work.args()
    })
    .unwrap();
}

#[test]
fn refuses_a_cell_given_twice() {
    let e = refusal("r.txt", |t| {
        format!("{t}test create/Redis_Pipeline ... bench: 1 ns/iter (+/- 0)\n")
    });
    assert!(
        e.contains("create/Redis_Pipeline is given twice in round 1"),
        "{e}"
    );
}

#[test]
fn results_of_other_code_are_labelled_everywhere_and_refused_when_current_is_required() {
    let work = Workspace::new(&[("r.txt", fixture("rust-b1000.txt"))]);
    let older = Args {
        fingerprint: Some("0ddba11".into()),
        ..work.args()
    };
    run(&older).unwrap();
    let label =
        "measured from code not in this repository (commit `0123456`, fingerprint `fixture`)";
    for readme in ["README.md", "docs/links-rust.md", "docs/typical-rust.md"] {
        let text = work.read(readme);
        assert!(
            text.contains(label) || text.contains("older code: measured at commit 0123456"),
            "{readme}: {text}"
        );
    }
    let readme = work.read("README.md");
    let findings = &readme[..readme.find("## Findings").unwrap() + 2000];
    assert!(
        findings.contains(&format!("every figure here was {label}")),
        "{findings}"
    );
    assert!(readme.contains("Rust†"), "the headline marks the cell");
    let json: serde_json::Value = serde_json::from_str(&work.read("docs/results.json")).unwrap();
    let measured = &json["tables"][0]["measured"];
    assert_eq!(measured["current"], false);
    assert_eq!(measured["fingerprint"], "fixture");
    assert_eq!(measured["measured_commit"], "0123456789abcdef");
    assert_eq!(json["headline"][0]["current"], false);
    for chart in std::fs::read_dir(work.path("docs/charts")).unwrap() {
        let svg = std::fs::read_to_string(chart.unwrap().path()).unwrap();
        assert!(
            svg.contains("older code: measured at commit 0123456")
                || svg.contains("старый код: измерено на коммите 0123456"),
            "every chart says so"
        );
    }
    // The current code's own results carry no label.
    run(&work.args()).unwrap();
    let readme = work.read("README.md");
    assert!(
        !readme.contains("Not the current code")
            && !readme.contains("older code")
            && !readme.contains("Rust†")
    );
    let e = format!(
        "{:#}",
        outputs(&Args {
            require_current: true,
            ..older
        })
        .unwrap_err()
    );
    assert!(
        e.contains("--require-current publishes only current results"),
        "{e}"
    );
}

#[test]
fn rounds_publish_the_median_and_the_spread() {
    let text = fixture("rust-b1000.txt");
    let round = |k: u32, scale: f64| -> String {
        let mut out = format!("# round: {k}\n");
        for line in text.lines() {
            match line.split_once(" ... bench: ") {
                Some((name, figures)) => {
                    let (median, rest) = figures.trim_start().split_once(" ns/iter").unwrap();
                    let median: f64 = median.replace(',', "").parse().unwrap();
                    out.push_str(&format!(
                        "{name} ... bench: {} ns/iter{rest}\n",
                        (median * scale).round()
                    ));
                }
                None => out.push_str(&format!("{line}\n")),
            }
        }
        out
    };
    let work = Workspace::new(&[
        ("r1.txt", round(1, 1.0)),
        ("r2.txt", round(2, 1.5)),
        ("r3.txt", round(3, 1.1)),
    ]);
    let json = outputs(&work.args())
        .unwrap()
        .into_iter()
        .find(|(p, _)| p.ends_with("results.json"))
        .unwrap()
        .1;
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["version"], 15);
    let cell = &value["tables"][0]["rows"][0]["cells"]["Doublets_United_Volatile"];
    assert_eq!(cell["status"], "measured");
    let rounds: Vec<f64> = cell["rounds_ns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(rounds.len(), 3);
    assert_eq!(cell["median_ns"].as_f64().unwrap(), rounds[2]);
    assert_eq!(cell["high_ns"].as_f64().unwrap(), rounds[1]);
    // Three rounds: their range, which holds the median 75% of the time, and no verdict.
    assert_eq!(cell["level"], 0.75);
    assert_eq!(cell["comparison"]["verdict"], "none");
    assert_eq!(value["tables"][0]["rounds"], 3);
    // A round missing from a cell leaves a gap, never a median of fewer rounds.
    let without: String = round(2, 1.0)
        .lines()
        .filter(|l| !l.starts_with("test create/Redis_Pipeline"))
        .map(|l| format!("{l}\n"))
        .collect();
    let work = Workspace::new(&[("r1.txt", round(1, 1.0)), ("r2.txt", without)]);
    let e = format!("{:#}", outputs(&work.args()).unwrap_err());
    assert!(e.contains("lacks create/Redis_Pipeline"), "{e}");
}

#[test]
fn refuses_a_readme_without_markers() {
    let work = Workspace::new(&[("r.txt", fixture("rust-b1000.txt"))]);
    std::fs::write(work.path("README.ru.md"), "# Без маркеров\n").unwrap();
    let e = format!("{:#}", run(&work.args()).unwrap_err());
    assert!(
        e.contains("README.ru.md: the marker <!-- findings:start --> is missing"),
        "{e}"
    );
    assert_eq!(work.read("README.md"), fixture("README.md"));
}

/// The relative luminance of an sRGB colour (WCAG 2).
fn luminance((r, g, b): (u8, u8, u8)) -> f64 {
    let channel = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.03928 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)
}

fn contrast(a: (u8, u8, u8), b: (u8, u8, u8)) -> f64 {
    let (x, y) = (luminance(a), luminance(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

fn hex(text: &str) -> (u8, u8, u8) {
    let byte = |k: usize| u8::from_str_radix(&text[k..k + 2], 16).unwrap();
    (byte(1), byte(3), byte(5))
}

#[test]
fn every_chart_has_a_title_readable_text_and_a_mark_per_legend_entry() {
    let work = Workspace::new(&[
        ("rust-b1000.txt", split_round(1, |_| 0.2)),
        ("rust-b10000.txt", b10000_n100()),
        ("memory-b1000.json", fixture("memory-b1000.json")),
        ("memory-b10000.json", fixture("memory-b10000.json")),
        ("load-rust-b1000.json", fixture("load-rust-b1000.json")),
        ("load-csharp-b1000.json", fixture("load-csharp-b1000.json")),
    ]);
    run(&work.args()).unwrap();
    // The fixtures' charts, and the published ones (longer names: every client and server).
    let published = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/charts");
    let charts: Vec<_> = [work.path("docs/charts"), published]
        .iter()
        .flat_map(|dir| std::fs::read_dir(dir).unwrap())
        .map(|e| e.unwrap().path())
        .collect();
    assert!(charts.len() > 20, "{charts:?}");
    for chart in charts {
        let svg = std::fs::read_to_string(&chart).unwrap();
        let name = chart.display();
        let between = |open: &str, close: &str| -> String {
            let start = svg
                .find(open)
                .unwrap_or_else(|| panic!("{name}: no {open}"))
                + open.len();
            svg[start..start + svg[start..].find(close).unwrap()].to_string()
        };
        // A title and a description of what it shows, in the chart's own language.
        let title = between("<title>", "</title>");
        assert!(title.len() > 20, "{name}: title {title:?}");
        assert!(!between("<desc>", "</desc>").is_empty(), "{name}");
        let russian = name.to_string().ends_with(".ru.svg");
        assert_eq!(
            title.chars().any(|c| ('а'..='я').contains(&c)),
            russian,
            "{name}: {title}"
        );
        // Text colours at WCAG AA on GitHub's light (white) and dark (#0d1117) backgrounds, and
        // no text outside the recoloured ink.
        let style = between("<style>", "</style>");
        let colours: Vec<&str> = style
            .match_indices("fill: #")
            .map(|(k, _)| &style[k + 6..k + 13])
            .collect();
        assert_eq!(colours.len(), 2, "{name}: {style}");
        assert!(
            contrast(hex(colours[0]), (255, 255, 255)) >= 4.5,
            "{name}: light text {}",
            colours[0]
        );
        assert!(
            contrast(hex(colours[1]), (0x0d, 0x11, 0x17)) >= 4.5,
            "{name}: dark text {}",
            colours[1]
        );
        for (k, _) in svg.match_indices("<text ") {
            let tag = &svg[k..k + svg[k..].find('>').unwrap()];
            assert!(
                tag.contains("fill=\"#808080\""),
                "{name}: text outside the ink: {tag}"
            );
        }
        texts_fit(&svg, &name.to_string());
        // Every legend swatch has a mark of its colour in the plot.
        for (k, _) in svg.match_indices("width=\"12\" height=\"12\"") {
            let tag = &svg[k..k + svg[k..].find("/>").unwrap()];
            let fill = &tag[tag.find("fill=\"").unwrap() + 6..][..7];
            let marks = svg.matches(&format!("fill=\"{fill}\"")).count()
                + svg.matches(&format!("stroke=\"{fill}\"")).count();
            assert!(marks > 1, "{name}: the legend entry {fill} has no mark");
        }
    }
}

/// Every text of a chart lies inside it, and no two texts of one line overlap, by their estimated
/// extents ([`report::charts::text_width`]): a title cut at both edges or legend names written over
/// each other fail here.
fn texts_fit(svg: &str, name: &str) {
    let attribute = |tag: &str, key: &str| -> Option<String> {
        let at = tag.find(&format!(" {key}=\""))? + key.len() + 3;
        Some(tag[at..at + tag[at..].find('"')?].to_string())
    };
    let number = |tag: &str, key: &str| attribute(tag, key).and_then(|v| v.parse::<f64>().ok());
    let width = number(&svg[..svg.find('>').unwrap()], "width").unwrap();
    // (y, left, right, text) of every horizontal text.
    let mut boxes: Vec<(f64, f64, f64, String)> = Vec::new();
    for (k, _) in svg.match_indices("<text ") {
        let tag = &svg[k..k + svg[k..].find('>').unwrap()];
        if tag.contains("transform=") {
            continue; // the rotated axis description runs along the height
        }
        let body = &svg[k + tag.len() + 1..];
        let text = body[..body.find("</text>").unwrap()]
            .trim()
            .replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">");
        let (x, y, size) = (
            number(tag, "x").unwrap(),
            number(tag, "y").unwrap(),
            number(tag, "font-size").unwrap(),
        );
        let extent = report::charts::text_width(&text, size);
        let left = match attribute(tag, "text-anchor").as_deref() {
            Some("middle") => x - extent / 2.0,
            Some("end") => x - extent,
            _ => x,
        };
        assert!(
            left >= 0.0 && left + extent <= width,
            "{name}: {text:?} spans {left:.0}–{:.0} px of {width}",
            left + extent
        );
        let this = (y, left, left + extent, text);
        // Plotters may label one log tick twice, at one place: that draws as one text.
        if !boxes.contains(&this) {
            boxes.push(this);
        }
    }
    for (k, a) in boxes.iter().enumerate() {
        for b in &boxes[k + 1..] {
            assert!(
                (a.0 - b.0).abs() > 1.0 || a.2 <= b.1 || b.2 <= a.1,
                "{name}: {a:?} and {b:?} overlap"
            );
        }
    }
}

/// The fixture run with Garnet beside Redis: Garnet's modes take `scale` times Redis' own.
/// A fixture's bencher line of a Redis cell: its name and median.
fn redis_line(line: &str) -> Option<(&str, f64)> {
    let rest = line
        .strip_prefix("test ")
        .filter(|l| l.contains("/Redis_"))?;
    let (name, figures) = rest.split_once(" ... bench:").unwrap();
    let median = figures
        .split(" ns/iter")
        .next()
        .unwrap()
        .trim()
        .replace(',', "");
    Some((name, median.parse().unwrap()))
}

fn with_garnet(scale: f64) -> String {
    let mut out = String::new();
    for line in fixture("rust-b1000.txt").lines() {
        out.push_str(line);
        out.push('\n');
        if line == "# families: doublets,redis" {
            out.push_str("# servers: redis,garnet\n");
        }
        if let Some((name, median)) = redis_line(line) {
            out.push_str(&format!(
                "test {} ... bench: {} ns/iter (+/- 1)\n",
                name.replace("/Redis_", "/Garnet_"),
                (median * scale).round()
            ));
        }
    }
    out
}

#[test]
fn garnet_gets_its_columns_each_doublets_cell_names_its_server_and_garnet_is_compared_with_redis() {
    let work = Workspace::new(&[("rust-b1000.txt", with_garnet(0.5))]);
    run(&work.args()).unwrap();
    let readme = work.read("README.md");
    assert!(
        readme.contains(
            "BENCHMARK_SERVERS=redis,garnet BENCHMARK_CPUS=1 examples/run-comparison.sh 1000 100"
        ),
        "the reproduce command names the servers: {readme}"
    );
    assert!(
        readme.contains("1 round of Rust alone")
            && readme.contains("BENCHMARK_LANGUAGES=rust BENCHMARK_SERVERS=redis,garnet"),
        "a size measured in one language says so and reproduces that language alone: {readme}"
    );
    assert!(
        readme.contains(
            "| Garnet_NonTransaction | Garnet_Transaction | Garnet_Pipeline | Garnet vs Redis |"
        ),
        "{readme}"
    );
    assert!(
        readme.contains("× against Garnet, 1 round: no verdict)"),
        "{readme}"
    );
    assert!(
        readme.contains("| 2×, 1 round: no verdict |"),
        "Garnet at half Redis' time, from one round: a point, not a verdict: {readme}"
    );
    let ru = work.read("README.ru.md");
    assert!(
        ru.contains("| Garnet относительно Redis |")
            && ru.contains("× относительно Garnet, 1 раунд: без вывода)"),
        "{ru}"
    );
    let json: serde_json::Value = serde_json::from_str(&work.read("docs/results.json")).unwrap();
    let row = &json["tables"][0]["rows"][0];
    assert_eq!(row["fastest"], "Garnet_Pipeline");
    assert_eq!(row["servers"][0]["server"], "Garnet");
    assert_eq!(row["servers"][0]["against"], "Redis");
    // One round has no interval, so the rule says nothing either way.
    assert_eq!(row["servers"][0]["comparison"]["verdict"], "none");
    assert_eq!(row["servers"][0]["comparison"]["ratio"], 2.0);

    // Both languages at one size: one command when they were measured alike, else each language's.
    let as_csharp = |text: &str| text.replace("# language: rust", "# language: csharp");
    let commands = |rust: String| {
        let work = Workspace::new(&[
            ("rust-b1000.txt", rust),
            ("csharp-b1000.txt", as_csharp(&fixture("rust-b1000.txt"))),
        ]);
        run(&Args {
            allow_missing: true, // the C# clients' columns
            ..work.args()
        })
        .unwrap();
        work.read("README.md")
    };
    let readme = commands(fixture("rust-b1000.txt"));
    assert!(
        readme.contains("of each language")
            && readme.contains("Reproduce: `BENCHMARK_ROUNDS=1 BENCHMARK_CPUS=1 examples/run-comparison.sh 1000 100`.")
            && !readme.contains("BENCHMARK_LANGUAGES"),
        "{readme}"
    );
    let readme = commands(with_garnet(0.5));
    assert!(
        readme.contains("Reproduce: `BENCHMARK_ROUNDS=1 BENCHMARK_LANGUAGES=csharp BENCHMARK_CPUS=1 examples/run-comparison.sh 1000 100; BENCHMARK_ROUNDS=1 BENCHMARK_LANGUAGES=rust BENCHMARK_SERVERS=redis,garnet BENCHMARK_CPUS=1 examples/run-comparison.sh 1000 100`."),
        "languages measured on different servers are reproduced each alone: {readme}"
    );

    // Results of Redis alone (no `servers`, as before servers were a choice) get no Garnet column.
    let alone = Workspace::new(&[("rust-b1000.txt", fixture("rust-b1000.txt"))]);
    run(&alone.args()).unwrap();
    let readme = alone.read("README.md");
    assert!(
        !readme.contains("| Garnet_") && !readme.contains("faster than Redis)"),
        "{readme}"
    );
}

/// A language's load runs at one B, one per round: each cell is their median, with the lowest and
/// highest beside it, in the tables and in docs/results.json.
#[test]
fn load_runs_show_their_median_and_spread() {
    let round = |n: u32, scale: f64| {
        let mut run: serde_json::Value =
            serde_json::from_str(&fixture("load-rust-b1000.json")).unwrap();
        run["provenance"]["round"] = n.to_string().into();
        run["provenance"]["date"] = format!("2026-12-02T0{n}:00:00Z").into();
        for f in run["figures"].as_array_mut().unwrap() {
            let rate = f["per_second"].as_f64().unwrap();
            f["per_second"] = (rate * scale).into();
        }
        serde_json::to_string_pretty(&run).unwrap()
    };
    let work = Workspace::new(&[
        ("rust-b1000.txt", fixture("rust-b1000.txt")),
        ("load-rust-b1000-r1.json", round(1, 0.8)),
        ("load-rust-b1000-r2.json", round(2, 1.25)),
        ("load-rust-b1000-r3.json", round(3, 1.0)),
    ]);
    run(&work.args()).unwrap();
    let page = work.read("docs/load.md");
    assert!(page.contains("each cell the median of 3 runs"), "{page}");
    // K = 1 of Doublets_United_Volatile's KeyValue Set: 5M a second in the fixture.
    assert!(page.contains("| 5.00M [4.00M–6.25M] |"), "{page}");
    let json: serde_json::Value = serde_json::from_str(&work.read("docs/results.json")).unwrap();
    let first = &json["load"][0]["figures"][0];
    assert_eq!(first["per_second"], 5_000_000.0);
    assert_eq!(
        first["runs"],
        serde_json::json!([4_000_000.0, 6_250_000.0, 5_000_000.0])
    );
    // The same round twice, of one code, is a mistake the report names.
    let twice = Workspace::new(&[
        ("load-rust-b1000-r1.json", round(1, 1.0)),
        ("load-rust-b1000-r1-again.json", round(1, 1.0)),
    ]);
    let e = format!("{:#}", run(&twice.args()).unwrap_err());
    assert!(e.contains("two Rust load runs at B = 1000, round 1"), "{e}");
}

#[test]
fn load_runs_become_tables_and_charts_against_clients() {
    let work = Workspace::new(&[
        ("rust-b1000.txt", fixture("rust-b1000.txt")),
        ("load-rust-b1000.json", fixture("load-rust-b1000.json")),
        ("load-csharp-b1000.json", fixture("load-csharp-b1000.json")),
    ]);
    run(&work.args()).unwrap();
    for (readme, headings, versus, charts) in [
        (
            "docs/load.md",
            [
                "#### Load, Rust: concurrent clients, B = 1,000",
                "#### Load, C#: concurrent clients, B = 1,000",
            ],
            "Against redis-benchmark",
            [
                "load-rust-typical-b1000-writes-per-second.svg",
                "load-csharp-typical-b1000-writes-per-second.svg",
            ],
        ),
        (
            "docs/load.ru.md",
            [
                "#### Нагрузка, Rust: одновременные клиенты, B = 1\u{a0}000",
                "#### Нагрузка, C#: одновременные клиенты, B = 1\u{a0}000",
            ],
            "Рядом с redis-benchmark",
            [
                "load-rust-typical-b1000-writes-p99.ru.svg",
                "load-csharp-typical-b1000-writes-p99.ru.svg",
            ],
        ),
    ] {
        let text = work.read(readme);
        for heading in headings {
            assert_eq!(
                text.matches(heading).count(),
                1,
                "{readme}: the typical suite only, once per language"
            );
        }
        // redis-benchmark stands beside Rust's rows only.
        assert_eq!(text.matches(versus).count(), 1, "{readme}");
        assert!(text.contains("| SET -P 16 |"), "{readme}");
        assert!(
            text.contains("| KeyValue Set | Doublets_United_Volatile |")
                && text.contains("| KeyValue Set | Redis_NonTransaction_FreeRedis |"),
            "{readme}"
        );
        for chart in charts {
            assert!(text.contains(chart), "{readme}: {chart}");
        }
    }
    assert!(work
        .read("docs/load.md")
        .contains("`_NonTransaction` alone is StackExchange.Redis, `_FreeRedis` FreeRedis"));
    // The README keeps a summary of each run and links the page.
    let readme = work.read("README.md");
    assert!(
        readme.contains("#### Concurrent clients: a summary")
            && readme.contains("| Rust, B = 1,000 | Doublets_United_Volatile |")
            && readme.contains("(docs/load.md)"),
        "{readme}"
    );
    let svg = work.read("docs/charts/load-csharp-typical-b1000-writes-per-second.svg");
    assert!(
        svg.contains("C#, Typical Redis usage") && svg.contains("K = 32"),
        "{svg}"
    );
    let summary: serde_json::Value = serde_json::from_str(&work.read("docs/results.json")).unwrap();
    let (rust, csharp) = (&summary["load"][0], &summary["load"][1]);
    assert_eq!(
        (rust["language"].as_str(), csharp["language"].as_str()),
        (Some("rust"), Some("csharp"))
    );
    assert_eq!(rust["figures"].as_array().unwrap().len(), 12);
    assert_eq!(csharp["figures"].as_array().unwrap().len(), 18);
    assert_eq!(rust["redis_benchmark"][0]["test"], "set");

    // A load run of other code than the checkout is labelled, like any result.
    let alone = Workspace::new(&[("load-csharp-b1000.json", fixture("load-csharp-b1000.json"))]);
    run(&Args {
        fingerprint: Some("0ddba11".into()),
        ..alone.args()
    })
    .unwrap();
    let page = alone.read("docs/load.md");
    assert!(page.contains("Older code: measured at commit"), "{page}");
    // Two runs of one language at one B: which would the README show?
    let twice = Workspace::new(&[
        ("load-csharp-b1000.json", fixture("load-csharp-b1000.json")),
        (
            "load-csharp-b1000-again.json",
            fixture("load-csharp-b1000.json"),
        ),
    ]);
    let e = format!("{:#}", run(&twice.args()).unwrap_err());
    assert!(
        e.contains("two C# load runs at B = 1000, round 1, of one code"),
        "{e}"
    );
}

/// The Rust fixture with the payload suite's server cells, and its C# twin run through every
/// client: the other clients' cells at `scale` times the default's, FreeRedis's payload
/// transactions left out as the spec says.
fn with_clients(scale: f64) -> (String, String) {
    let payload: String = [
        "payload_1b",
        "payload_2kib",
        "payload_20kib",
        "payload_mixed",
    ]
    .iter()
    .flat_map(|op| {
        ["NonTransaction", "Transaction", "Pipeline"]
            .iter()
            .enumerate()
            .map(move |(k, mode)| {
                format!(
                    "test {op}/Redis_{mode} ... bench: {} ns/iter (+/- 9)\n",
                    100_000 * (3 - k)
                )
            })
    })
    .collect();
    let rust = fixture("rust-b1000.txt") + &payload;
    let mut csharp = String::new();
    for line in rust.lines() {
        let line = line
            .replace("# language: rust", "# language: csharp")
            .replace(
                "# client: redis-rs 1.8.1",
                "# client: StackExchange.Redis 3.4.35; FreeRedis 1.5.5; CSRedisCore 3.8.807",
            );
        csharp.push_str(&line);
        csharp.push('\n');
        let Some((name, median)) = redis_line(&line) else {
            continue;
        };
        for client in ["FreeRedis", "CSRedisCore"] {
            if client == "FreeRedis"
                && name.starts_with("payload_")
                && name.ends_with("_Transaction")
            {
                continue;
            }
            csharp.push_str(&format!(
                "test {name}_{client} ... bench: {} ns/iter (+/- 1)\n",
                (median * scale).round()
            ));
        }
    }
    (rust, csharp)
}

#[test]
fn every_client_gets_its_row_beside_redis_rs_and_a_mode_it_cannot_run_says_why() {
    let (rust, csharp) = with_clients(2.0);
    let work = Workspace::new(&[
        ("rust-b1000.txt", rust),
        ("csharp-b1000.txt", csharp.clone()),
    ]);
    run(&work.args()).unwrap();
    let readme = work.read("docs/clients.md")
        + &work.read("docs/payload-csharp.md")
        + &work.read("docs/method.md");
    for expected in [
        "#### Clients: Links storage on Redis 7.0.15, B = 1,000, N = 100",
        "| Operation | Client | NonTransaction | Transaction | Pipeline |",
        "| Create | redis-rs 1.8.1 (Rust) |",
        "|  | StackExchange.Redis 3.4.35 (C#) |",
        "|  | FreeRedis 1.5.5 (C#) |",
        "|  | CSRedisCore 3.8.807 (C#) |",
        "#### Clients: Payloads on Redis 7.0.15, B = 1,000, N = 100",
        "— FreeRedis, Transaction: not run: FreeRedis 1.5.5 hands back",
        "Its server columns are StackExchange.Redis 3.4.35's; every client is on the clients page.",
        "Doublets does not run this suite: it stores numbers and links between them",
    ] {
        assert!(
            readme.contains(expected),
            "{expected:?} is missing: {readme}"
        );
    }
    // The main C# tables keep the default client's columns only.
    assert!(!readme.contains("| Redis_Pipeline_FreeRedis |"), "{readme}");
    let ru = work.read("docs/clients.ru.md");
    assert!(
        ru.contains("#### Клиенты: Хранение связей на Redis 7.0.15")
            && ru.contains("этот набор не запускает: FreeRedis 1.5.5"),
        "{ru}"
    );
    // A chart per mode, a series per client.
    for mode in ["nontransaction", "transaction", "pipeline"] {
        let chart = work.read(&format!(
            "docs/charts/clients-links-b1000-n100-redis-{mode}.svg"
        ));
        assert!(
            chart.contains("FreeRedis 1.5.5") && chart.contains("redis-rs 1.8.1"),
            "{chart}"
        );
    }
    let json: serde_json::Value = serde_json::from_str(&work.read("docs/results.json")).unwrap();
    let table = json["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["language"] == "csharp" && t["suite"] == "payload")
        .unwrap();
    assert_eq!(
        table["rows"][0]["cells"]["Redis_Transaction_FreeRedis"]["status"],
        "client_cannot"
    );
    assert_eq!(
        table["rows"][0]["cells"]["Redis_Pipeline_CSRedisCore"]["status"],
        "measured"
    );

    // A client's cell missing from the results is refused like any other.
    let without = csharp.replace("test create/Redis_Pipeline_CSRedisCore", "test ignored/x");
    let gaps = Workspace::new(&[(
        "csharp-b1000.txt",
        without
            .lines()
            .filter(|l| !l.starts_with("test ignored/"))
            .map(|l| format!("{l}\n"))
            .collect(),
    )]);
    let error = format!("{:#}", run(&gaps.args()).unwrap_err());
    assert!(
        error.contains("create/Redis_Pipeline (CSRedisCore)"),
        "{error}"
    );
}

/// The README's first screen holds the findings, and every figure, size and store a finding names
/// is one the results hold: a ratio of the headline, a memory figure, a size measured, a backend run.
#[test]
fn the_first_screen_holds_findings_that_the_results_back() {
    use report::format::{bytes, Lang};
    // Three rounds at B = 1,000, each store's cells scaled alike within a round but differently
    // across rounds, so that the geometric means have an interval to print.
    let round = |k: u32, doublets: f64, redis: f64| {
        scaled_round(k, move |name| {
            if name.contains("Doublets") {
                doublets
            } else {
                redis * if name.contains("Each") { 1.3 } else { 1.0 }
            }
        })
    };
    let work = Workspace::new(&[
        ("rust-b1000-r1.txt", round(1, 1.0, 1.0)),
        ("rust-b1000-r2.txt", round(2, 1.2, 0.9)),
        ("rust-b1000-r3.txt", round(3, 0.8, 1.1)),
        ("rust-b10000.txt", b10000_n100()),
        ("memory-b1000.json", fixture("memory-b1000.json")),
        ("memory-b10000.json", fixture("memory-b10000.json")),
        ("load-rust-b1000.json", fixture("load-rust-b1000.json")),
    ]);
    run(&work.args()).unwrap();
    let readme = work.read("README.md");
    let screen: Vec<&str> = readme.lines().take(report::readme::FIRST_SCREEN).collect();
    // The conditions, with what one request per round trip cost, come before the first number.
    let conditions = screen
        .iter()
        .position(|l| l.starts_with("**Conditions of every figure below**"))
        .unwrap_or_else(|| panic!("no conditions on the first screen:\n{}", screen.join("\n")));
    let first_number = screen
        .iter()
        .position(|l| l.starts_with("- **") || l.starts_with('|'))
        .unwrap();
    assert!(conditions < first_number, "{}", screen.join("\n"));
    assert!(
        screen[conditions].contains("B = 1,000: 3 rounds (75% intervals)")
            && screen[conditions].contains("cost at least "),
        "{}",
        screen[conditions]
    );
    let findings: Vec<&str> = screen
        .iter()
        .copied()
        .skip_while(|l| !l.contains("<!-- findings:start -->"))
        .take_while(|l| !l.contains("<!-- findings:end -->"))
        .filter(|l| l.starts_with("- **"))
        .collect();
    assert!(
        findings.len() >= 5,
        "the first screen holds no findings:\n{}",
        screen.join("\n")
    );

    let json: serde_json::Value = serde_json::from_str(&work.read("docs/results.json")).unwrap();
    let number = |v: &serde_json::Value| v.as_f64().unwrap();
    let mut ratios: Vec<String> = Vec::new();
    for line in json["headline"].as_array().unwrap() {
        for kind in ["best", "one_by_one"] {
            if let Some(r) = line[kind]["ratio"].as_f64() {
                ratios.push(report::findings::times(r, Lang::En));
            }
        }
    }
    // Each table's geometric mean over its operations, recomputed here from the cells' rounds:
    // per round the mean of that round's ratios, then the median and the range over rounds.
    let tables = json["tables"].as_array().unwrap();
    let summaries = json["summary"].as_array().unwrap();
    assert!(!summaries.is_empty());
    for summary in summaries {
        let of = |t: &serde_json::Value| {
            ["language", "suite", "background", "operations"]
                .iter()
                .all(|k| t[k] == summary[k])
        };
        let table = tables.iter().find(|t| of(t)).unwrap();
        let kind = match summary["against"].as_str().unwrap() {
            "fastest" => "best",
            _ => "one_by_one",
        };
        let rounds = |line: &serde_json::Value, backend: &str| -> Vec<f64> {
            let row = table["rows"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["operation"] == line["operation"])
                .unwrap();
            row["cells"][backend]["rounds_ns"]
                .as_array()
                .unwrap()
                .iter()
                .map(number)
                .collect()
        };
        let per_operation: Vec<Vec<f64>> = json["headline"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|l| of(l) && !l[kind].is_null())
            .map(|l| {
                let (d, s) = (
                    rounds(l, l[kind]["doublets"].as_str().unwrap()),
                    rounds(l, l[kind]["server"].as_str().unwrap()),
                );
                s.iter().zip(&d).map(|(s, d)| s / d).collect()
            })
            .collect();
        let n = per_operation[0].len();
        let mut means: Vec<f64> = (0..n)
            .map(|k| {
                let logs: f64 = per_operation.iter().map(|o| o[k].ln()).sum();
                (logs / per_operation.len() as f64).exp()
            })
            .collect();
        means.sort_by(f64::total_cmp);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9 * b;
        let median = report::stats::median(means.iter().copied());
        assert!(close(number(&summary["ratio"]), median), "{summary}");
        if n > 1 {
            // At 3 rounds the interval is the range (75%).
            assert!(
                n != 3 || close(number(&summary["low"]), means[0]),
                "{summary}"
            );
            assert!(
                n != 3 || close(number(&summary["high"]), means[n - 1]),
                "{summary}"
            );
            for end in ["low", "high"] {
                ratios.push(report::findings::times(number(&summary[end]), Lang::En));
            }
        }
        ratios.push(report::findings::times(median, Lang::En));
    }
    // What one request per round trip cost, recomputed: its fastest cell per request (the spec's
    // requests of the operation at the table's B and N) in the tables that compare it with
    // Doublets, and each cell's time were every request to wait 200 µs instead.
    let spec = real_spec();
    let mut one_by_one: Vec<(f64, f64)> = Vec::new();
    for table in tables {
        let rows = table["rows"].as_array().unwrap();
        let has = |prefix: &str| {
            rows.iter().any(|r| {
                r["cells"]
                    .as_object()
                    .unwrap()
                    .keys()
                    .any(|k| k.starts_with(prefix))
            })
        };
        if !has("Doublets") {
            continue;
        }
        let suite = spec.suite(table["suite"].as_str().unwrap()).unwrap();
        let sizes = [
            table["background"].as_u64().unwrap(),
            table["operations"].as_u64().unwrap(),
        ];
        for row in rows {
            let cell = &row["cells"]["Redis_NonTransaction"];
            if cell["status"] != "measured" {
                continue;
            }
            let operation = suite
                .operations
                .iter()
                .find(|o| o.id == row["operation"].as_str().unwrap())
                .unwrap();
            let requests = operation
                .work
                .requests(&sizes, |_, _| Ok(()))
                .unwrap()
                .len();
            one_by_one.push((number(&cell["median_ns"]), requests as f64));
        }
    }
    let fastest = one_by_one
        .iter()
        .map(|(m, r)| m / r)
        .fold(f64::MAX, f64::min);
    let at_200_us = report::stats::geometric(
        one_by_one
            .iter()
            .map(|(m, r)| (m + r * (200_000.0 - fastest)) / m),
    );
    for expected in [
        format!(
            "cost at least {} a request",
            report::format::duration(fastest, Lang::En)
        ),
        format!(
            "grow at least {}× at 200 µs",
            report::findings::times(at_200_us, Lang::En)
        ),
    ] {
        assert!(
            screen[conditions].contains(&expected),
            "{expected}: {}",
            screen[conditions]
        );
    }
    let mut sizes: Vec<u64> = json["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["background"].as_u64().unwrap())
        .collect();
    let mut amounts: Vec<String> = Vec::new();
    let mut backends: Vec<String> = Vec::new();
    for run in json["memory"].as_array().unwrap() {
        let b = run["background"].as_u64().unwrap();
        sizes.push(b);
        for f in run["figures"].as_array().unwrap() {
            amounts.push(bytes(number(&f["rss_growth"]) / b as f64, Lang::En));
            if let Some(reserved) = f["reserved"].as_f64() {
                amounts.push(bytes(reserved, Lang::En));
            }
        }
    }
    let mut latencies: Vec<String> = Vec::new();
    for run in json["load"].as_array().unwrap() {
        sizes.push(run["background"].as_u64().unwrap());
        let figures = run["figures"].as_array().unwrap();
        for f in figures {
            latencies.push(report::format::duration(
                number(&f["latency_ns"]["p99"]),
                Lang::En,
            ));
            backends.push(f["backend"].as_str().unwrap().to_string());
            // A load factor: the same store and operation at the most clients over one client.
            let same = |g: &&serde_json::Value| {
                g["backend"] == f["backend"] && g["operation"] == f["operation"]
            };
            if f["clients"] == 1 {
                for g in figures.iter().filter(same) {
                    ratios.push(report::findings::times(
                        number(&g["per_second"]) / number(&f["per_second"]),
                        Lang::En,
                    ));
                }
            }
        }
    }
    for table in json["tables"].as_array().unwrap() {
        for row in table["rows"].as_array().unwrap() {
            backends.extend(row["cells"].as_object().unwrap().keys().cloned());
        }
    }
    let sizes: Vec<String> = sizes
        .iter()
        .map(|b| report::format::whole(*b, Lang::En))
        .collect();
    for finding in findings {
        for ratio in finding.split(' ').filter_map(|w| w.strip_suffix('×')) {
            for end in ratio.split('–') {
                assert!(
                    ratios.iter().any(|r| r == end),
                    "{end}× is no ratio of the results: {finding}"
                );
            }
        }
        for (at, _) in finding.match_indices("B = ") {
            let size: String = finding[at + 4..]
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == ',')
                .collect();
            let size = size.trim_end_matches(',');
            assert!(
                sizes.iter().any(|s| s == size),
                "B = {size} was not measured: {finding}"
            );
        }
        for amount in finding
            .split([' ', '–', '('])
            .collect::<Vec<_>>()
            .windows(2)
        {
            if ["B", "KiB", "MiB", "GiB"].contains(&amount[1]) && amount[0].parse::<f64>().is_ok() {
                let text = format!("{} {}", amount[0], amount[1]);
                assert!(
                    amounts.contains(&text),
                    "{text} is no memory figure of the results: {finding}"
                );
            }
        }
        for (at, _) in finding.match_indices("p99 ") {
            let words: Vec<&str> = finding[at + 4..].splitn(4, [' ', '–']).collect();
            for pair in [&words[0..2], &words[2..4]] {
                let (value, unit) = (pair[0], pair[1].trim_end_matches([')', ';', ',']));
                if value.parse::<f64>().is_ok() {
                    let text = format!("{value} {unit}");
                    assert!(
                        latencies.contains(&text),
                        "p99 {text} is no latency of the results: {finding}"
                    );
                }
            }
        }
        for name in finding.split('`').skip(1).step_by(2) {
            assert!(
                backends.iter().any(|b| b == name),
                "`{name}` was not run: {finding}"
            );
        }
    }
}

/// The environment of the plan's piece `id`, with nothing measured.
fn all_pieces_of(spec: &contract::spec::Spec, id: &str) -> Vec<(String, String)> {
    let all = report::plan::pending(spec, &[], &[], &[], "current");
    let piece = all.iter().find(|p| p.id() == id).expect(id);
    piece.command(spec).2
}

/// The re-measure plan: a piece is done once a result of the checkout's code holds it (a round of
/// one family is half done), results of older code count for nothing, a round too long for a
/// window is split, or flagged where no split is short enough, and the load has a piece per run.
#[test]
fn the_plan_lists_what_the_checkouts_code_lacks() {
    use contract::results::ResultFile;
    use report::plan::{pending, LONGEST_MINUTES};
    let spec = real_spec();
    let round = |fingerprint: &str, families: &str| {
        // B = 1,000 is published with Redis over a Unix socket too.
        let text = piece(
            fingerprint,
            families,
            "rust",
            "redis,garnet,redis-unix",
            None,
        );
        ResultFile::parse(&text, "r1.txt").unwrap()
    };
    let ids = |files: &[ResultFile]| -> Vec<String> {
        pending(&spec, files, &[], &[], "current")
            .iter()
            .map(|p| p.id())
            .collect()
    };
    let nothing = ids(&[]);
    assert_eq!(
        nothing[0], "rust-b1000-n100-r1",
        "B = 1,000 first: {nothing:?}"
    );
    assert!(nothing.contains(&"memory-b10000000".to_string()));
    let done = ids(&[round("current", "doublets,redis")]);
    assert!(
        !done.contains(&"rust-b1000-n100-r1".to_string()),
        "{done:?}"
    );
    assert!(
        done.contains(&"rust-b1000-n100-r2".to_string())
            && done.contains(&"csharp-b1000-n100-r1".to_string())
    );
    assert_eq!(ids(&[round("older", "doublets,redis")]), nothing);
    // The load at each of its sizes: one piece per run the plan asks for, each with its round,
    // and a run of this code done once its round is there.
    let runs = spec.publish.as_ref().unwrap().load_runs;
    let load_pieces: Vec<&String> = nothing
        .iter()
        .filter(|id| id.starts_with("load-rust-b1000-"))
        .collect();
    assert_eq!(load_pieces.len(), runs as usize, "{load_pieces:?}");
    assert_eq!(load_pieces[0], "load-rust-b1000-r1");
    let load_run = |round: u32| {
        let mut run: contract::load::LoadRun =
            serde_json::from_str(&fixture("load-rust-b1000.json")).unwrap();
        run.provenance
            .insert("fingerprint".into(), "current".into());
        run.provenance.insert("round".into(), round.to_string());
        run
    };
    let left: Vec<String> = pending(&spec, &[], &[], &[load_run(2)], "current")
        .iter()
        .map(|p| p.id())
        .filter(|id| id.starts_with("load-rust-b1000-"))
        .collect();
    assert!(
        left.contains(&"load-rust-b1000-r1".to_string())
            && !left.contains(&"load-rust-b1000-r2".to_string()),
        "{left:?}"
    );
    let r3 = all_pieces_of(&spec, "load-rust-b1000-r3");
    assert!(
        r3.contains(&("BENCHMARK_ROUND".to_string(), "3".to_string())),
        "{r3:?}"
    );
    assert_eq!(ids(&[round("current", "doublets")]), nothing);
    let all = pending(&spec, &[], &[], &[], "current");
    let csharp: Vec<(String, f64)> = all
        .iter()
        .filter(|p| p.id().starts_with("csharp-b1000000-"))
        .map(|p| (p.id(), p.minutes))
        .collect();
    assert_eq!(
        csharp.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>(),
        [
            "csharp-b1000000-n1000-r1-doublets",
            "csharp-b1000000-n1000-r1-redis-StackExchange.Redis",
            "csharp-b1000000-n1000-r1-redis-FreeRedis",
            "csharp-b1000000-n1000-r1-redis-CSRedisCore",
        ],
        "C# at 1,000,000: Doublets, then Redis through one client at a time"
    );
    assert!(
        all.iter().all(|p| p.minutes <= LONGEST_MINUTES),
        "no piece longer than a window"
    );
    // A piece of one client runs that client alone, and is done once a result of it is there.
    let free_redis = all
        .iter()
        .find(|p| p.id() == "csharp-b1000000-n1000-r1-redis-FreeRedis")
        .unwrap();
    let (_, _, vars) = free_redis.command(&spec);
    assert!(vars.contains(&("BENCHMARK_CLIENTS".to_string(), "FreeRedis".to_string())));
    assert!(vars.contains(&("BENCHMARK_BACKEND".to_string(), "redis".to_string())));
    let csharp_round = |families: &str, clients: Option<&str>| {
        let text = piece("current", families, "csharp", "redis", clients)
            .replace("# background_links: 1000", "# background_links: 1000000")
            .replace("# operations: 100", "# operations: 1000");
        ResultFile::parse(&text, "c1.txt").unwrap()
    };
    let left = |files: &[ResultFile]| -> Vec<String> {
        ids(files)
            .into_iter()
            .filter(|id| id.starts_with("csharp-b1000000-"))
            .collect()
    };
    let two_clients = [
        csharp_round("doublets", None),
        csharp_round("redis", Some("StackExchange.Redis")),
        csharp_round("redis", Some("CSRedisCore,FreeRedis")),
    ];
    assert_eq!(
        left(&two_clients[..2]),
        [
            "csharp-b1000000-n1000-r1-redis-FreeRedis",
            "csharp-b1000000-n1000-r1-redis-CSRedisCore"
        ]
    );
    assert!(left(&two_clients).is_empty(), "{:?}", left(&two_clients));
    // A whole C# round of Redis (no clients named: every client) holds every client's piece.
    assert!(left(&[csharp_round("doublets,redis", None)]).is_empty());
    // At 10,000,000 Rust's Redis is too long for a window whole (its digests take minutes each):
    // a piece per suite, each run with the suite variable and done by a file of that suite; C#
    // measures Doublets alone there, and says so to the bench.
    let at_10m = |language: &str| -> Vec<String> {
        all.iter()
            .map(|p| p.id())
            .filter(|id| id.starts_with(&format!("{language}-b10000000-")))
            .collect()
    };
    assert_eq!(
        at_10m("rust"),
        [
            "rust-b10000000-n1000-r1-doublets",
            "rust-b10000000-n1000-r1-redis-links",
            "rust-b10000000-n1000-r1-redis-typical",
            "rust-b10000000-n1000-r1-redis-payload",
        ]
    );
    assert_eq!(at_10m("csharp"), ["csharp-b10000000-n1000-r1-doublets"]);
    let csharp_10m = all_pieces_of(&spec, "csharp-b10000000-n1000-r1-doublets");
    assert!(csharp_10m.contains(&("BENCHMARK_BACKEND".to_string(), "doublets".to_string())));
    let typical = all_pieces_of(&spec, "rust-b10000000-n1000-r1-redis-typical");
    assert!(typical.contains(&("BENCHMARK_SUITES".to_string(), "typical".to_string())));
    let links_of_10m = piece("current", "redis", "rust", "redis", None)
        .replace("# background_links: 1000", "# background_links: 10000000")
        .replace("# operations: 100", "# operations: 1000")
        .replace("# families: redis", "# families: redis\n# suites: links");
    let links_of_10m = ResultFile::parse(&links_of_10m, "l.txt").unwrap();
    let rust_left: Vec<String> = ids(&[links_of_10m])
        .into_iter()
        .filter(|id| id.starts_with("rust-b10000000-"))
        .collect();
    assert_eq!(
        rust_left,
        [
            "rust-b10000000-n1000-r1-doublets",
            "rust-b10000000-n1000-r1-redis-typical",
            "rust-b10000000-n1000-r1-redis-payload",
        ]
    );
}

/// A size's rounds are taken at two times: once half of a language's rounds are measured at one
/// time, the rest wait until 6 hours after the latest of them; a size with rounds at two times
/// already, a language with fewer rounds, and the other language do not wait.
#[test]
fn half_a_sizes_rounds_at_one_time_make_the_rest_wait_for_a_second() {
    use contract::results::ResultFile;
    use report::plan::{pending, waits_until};
    use std::time::SystemTime;
    let spec = real_spec();
    let round = |n: u32, date: &str| {
        let text = piece(
            "current",
            "doublets,redis",
            "rust",
            "redis,garnet,redis-unix",
            None,
        )
        .replace("# round: 1\n", &format!("# round: {n}\n"))
        .replace("2026-11-30T19:50:00Z", date);
        ResultFile::parse(&text, &format!("r{n}.txt")).unwrap()
    };
    let at = |date: &str| humantime::parse_rfc3339(date).unwrap();
    let waits = |files: &[ResultFile], now: &str| -> Vec<(String, SystemTime)> {
        pending(&spec, files, &[], &[], "current")
            .iter()
            .filter_map(|p| {
                Some((
                    p.id(),
                    waits_until(&spec, files, "current", p, &[], at(now))?,
                ))
            })
            .collect()
    };
    let three = [
        round(1, "2026-12-07T08:56:00Z"),
        round(2, "2026-12-07T09:10:00Z"),
        round(3, "2026-12-07T09:33:00Z"),
    ];
    let later = at("2026-12-07T15:33:00Z");
    assert_eq!(
        waits(&three, "2026-12-07T10:00:00Z"),
        [4, 5, 6].map(|n| (format!("rust-b1000-n100-r{n}"), later)),
        "the rest of Rust at B = 1,000 waits; C# and B = 10,000 do not"
    );
    assert!(
        waits(&three, "2026-12-07T15:34:00Z").is_empty(),
        "after 6 hours, nothing waits"
    );
    assert!(
        waits(&three[..2], "2026-12-07T10:00:00Z").is_empty(),
        "2 rounds of 6: go on"
    );
    let taken_apart = [
        round(1, "2026-12-06T20:00:00Z"),
        round(2, "2026-12-07T09:10:00Z"),
        round(3, "2026-12-07T09:33:00Z"),
    ];
    assert!(
        waits(&taken_apart, "2026-12-07T10:00:00Z").is_empty(),
        "rounds at two times already: the rest go on"
    );
    // One run takes no more than half either: with nothing held, the rounds it measures first
    // count as taken now.
    let all = pending(&spec, &[], &[], &[], "current");
    let rust_1000: Vec<&report::plan::Piece> = all
        .iter()
        .filter(|p| p.id().starts_with("rust-b1000-n100-"))
        .collect();
    let now = at("2026-12-07T16:00:00Z");
    let waits_after =
        |k: usize| waits_until(&spec, &[], "current", rust_1000[k], &rust_1000[..k], now);
    assert_eq!(waits_after(2), None, "the third round of six goes on");
    assert_eq!(
        waits_after(3),
        Some(at("2026-12-07T22:00:00Z")),
        "the fourth waits"
    );
}

/// A round measured a client at a time is a round only once every client is there: until then
/// the older code's whole round stays published, never half replaced.
#[test]
fn a_round_split_by_client_replaces_the_older_one_only_when_whole() {
    use contract::results::ResultFile;
    let spec = real_spec();
    let file_at = |(b, n): (u64, u64), fingerprint: &str, families: &str, clients: Option<&str>| {
        let text = piece(fingerprint, families, "csharp", "redis", clients)
            .replace(
                "# background_links: 1000\n",
                &format!("# background_links: {b}\n"),
            )
            .replace("# operations: 100\n", &format!("# operations: {n}\n"));
        let date = if fingerprint == "newer" {
            "2026-12-05T10:00:00Z"
        } else {
            "2026-11-30T19:50:00Z"
        };
        let text = text.replace("2026-11-30T19:50:00Z", date);
        let clients = clients.unwrap_or("every");
        ResultFile::parse(&text, &format!("{fingerprint}-{families}-{clients}.txt")).unwrap()
    };
    let file = |fingerprint: &str, families: &str, clients: Option<&str>| {
        file_at((1000, 100), fingerprint, families, clients)
    };
    let kept = |files: Vec<ResultFile>| -> Vec<String> {
        let selected = report::measured::select(files, vec![], vec![], &spec);
        let mut kept: Vec<String> = selected
            .files
            .iter()
            .map(|f| f.get("fingerprint").unwrap().to_string())
            .collect();
        kept.dedup();
        kept
    };
    let older = file("older", "doublets,redis", None);
    let part = [
        file("newer", "doublets", None),
        file("newer", "redis", Some("StackExchange.Redis")),
        file("newer", "redis", Some("FreeRedis")),
    ];
    let mut files = vec![older.clone()];
    files.extend(part.iter().cloned());
    assert_eq!(
        kept(files.clone()),
        ["older"],
        "two clients of three are not a round"
    );
    files.push(file("newer", "redis", Some("CSRedisCore")));
    assert_eq!(kept(files), ["newer"], "the third completes it");
    // The Doublets piece alone ran no server, yet the plan asks C# at B = 1,000,000 for Redis.
    assert_eq!(
        kept(vec![
            file_at((1_000_000, 1000), "older", "doublets,redis", None),
            file_at((1_000_000, 1000), "newer", "doublets", None),
        ]),
        ["older"],
        "Doublets alone is not a round where the plan asks for a server"
    );
}

/// The memory statement is made per suite, from the figures: a suite whose Redis growth passes
/// Doublets' says where, and the other suite says Redis holds less, each by its own figures.
#[test]
fn the_memory_finding_says_per_suite_where_redis_passes_doublets() {
    let memory = |typical_redis_at_10000: &str| {
        Workspace::new(&[
            ("memory-b1000.json", fixture("memory-b1000.json")),
            (
                "memory-b10000.json",
                fixture("memory-b10000.json").replacen(
                    "\"rss_growth\": 1572864",
                    &format!("\"rss_growth\": {typical_redis_at_10000}"),
                    1,
                ),
            ),
        ])
    };
    let finding = |work: &Workspace| {
        run(&work.args()).unwrap();
        let readme = work.read("README.md");
        readme
            .lines()
            .find(|l| l.starts_with("- **Memory**"))
            .unwrap_or_else(|| panic!("no memory finding:\n{readme}"))
            .to_string()
    };
    let measured = finding(&memory("1572864"));
    assert!(
        measured.contains("Links storage: Doublets reserves")
            && measured.contains("per link")
            && measured.contains("Typical Redis usage: Doublets reserves")
            && measured.contains("per key"),
        "{measured}"
    );
    assert_eq!(
        measured
            .matches("so Redis holds less at every B measured (up to 10,000)")
            .count(),
        2,
        "{measured}"
    );
    // Typical usage's Redis planted above both Doublets stores at B = 10,000: only its clause moves.
    let planted = finding(&memory("90000000"));
    assert!(
        planted
            .contains("so Redis holds less up to B = 1,000 and more from B = 10,000 on. [memory]"),
        "{planted}"
    );
    assert_eq!(
        planted
            .matches("so Redis holds less at every B measured (up to 10,000)")
            .count(),
        1,
        "{planted}"
    );
}

#[test]
fn a_busy_round_is_left_out_unless_allowed_and_the_method_page_shows_each_rounds_machine() {
    let round = |k: u32, others: &str, machine: &str| {
        format!(
            "# round: {k}\n# other_processes: {others} of the CPU time while it ran\n# machine: {machine}\n# steal: 0.05% of the CPU time while it ran\n# calibration_start: round trip 65 µs median, 103 µs p99 (2000 PINGs to Redis); loop 105 ms\n# calibration_end: round trip 67 µs median, 150 µs p99 (2000 PINGs to Redis); loop 102 ms\n{}",
            fixture("rust-b1000.txt")
        )
    };
    let files = [
        ("r1.txt", round(1, "0.4%", "quiet")),
        ("r2.txt", round(2, "48.5%", "busy")),
    ];
    let work = Workspace::new(&files);
    run(&work.args()).unwrap();
    let json: serde_json::Value = serde_json::from_str(&work.read("docs/results.json")).unwrap();
    assert_eq!(json["tables"][0]["rounds"], 1, "the busy round is left out");
    let environment = &json["tables"][0]["environment"];
    assert_eq!(environment[0]["machine"], "quiet");
    assert!(json["tables"][0]["provenance"].get("machine").is_none());
    let method = work.read("docs/method.md");
    assert!(
        method.contains("| B = 1,000, N = 100 | Rust | 1 | 65 → 67 (p99 103 → 150) | 105 → 102 | 0.4% | 0.05% | quiet |"),
        "{method}"
    );
    let work = Workspace::new(&files);
    run(&Args {
        allow_busy: true,
        ..work.args()
    })
    .unwrap();
    let json: serde_json::Value = serde_json::from_str(&work.read("docs/results.json")).unwrap();
    assert_eq!(json["tables"][0]["rounds"], 2, "--allow-busy keeps it");
    assert!(work
        .read("docs/method.md")
        .contains("| 48.5% | 0.05% | busy |"));
}

/// The fixture as round `k`, each time scaled by `scale` of its cell's name.
fn scaled_round(k: u32, scale: impl Fn(&str) -> f64) -> String {
    let mut out = format!("# round: {k}\n");
    for line in fixture("rust-b1000.txt").lines() {
        match line.split_once(" ... bench: ") {
            Some((name, figures)) => {
                let (median, rest) = figures.trim_start().split_once(" ns/iter").unwrap();
                let median: f64 = median.replace(',', "").parse().unwrap();
                let median = (median * scale(name)).round();
                out.push_str(&format!("{name} ... bench: {median} ns/iter{rest}\n"));
            }
            None => out.push_str(&format!("{line}\n")),
        }
    }
    out
}

#[test]
fn a_fresh_round_is_compared_with_the_published_intervals() {
    let folder = |files: Vec<(String, String)>| {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        dir
    };
    // Redis moves from round to round, Doublets not: every ratio's interval has a width.
    let redis = |name: &str| name.contains("/Redis_");
    let published = folder(
        (1..=6)
            .map(|k| {
                let round = scaled_round(k, |n| if redis(n) { 0.8 + 0.1 * k as f64 } else { 1.0 });
                (format!("r{k}.txt"), round)
            })
            .collect(),
    );
    let fresh = |scale: f64| scaled_round(1, move |n: &str| if redis(n) { scale } else { 1.0 });
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let spec = contract::spec::Spec::load(&root.join("spec/benchmarks.yaml")).unwrap();
    let tables = |dir: &tempfile::TempDir| {
        report::tables_of(&spec, &root, &[dir.path().to_path_buf()]).unwrap()
    };
    // A round within the published ones: every cell and ratio inside.
    let same = folder(vec![("f.txt".into(), fresh(1.05))]);
    let a = report::reproduce::compare(&spec, &tables(&published), &tables(&same));
    assert!(a.cells > 0 && a.ratios > 0, "{a:?}");
    assert_eq!(
        (a.cells_inside, a.ratios_inside),
        (a.cells, a.ratios),
        "{a:?}"
    );
    // Redis three times slower than published: its cells and every ratio against it outside.
    let changed = folder(vec![("f.txt".into(), fresh(3.0))]);
    let a = report::reproduce::compare(&spec, &tables(&published), &tables(&changed));
    assert_eq!(a.ratios_inside, 0, "{a:?}");
    assert!(a.cells_inside > 0 && a.cells_inside < a.cells, "{a:?}");
    assert!(
        a.details.iter().all(|d| d.ends_with("(outside)")),
        "{:?}",
        a.details
    );
}

/// A round of the Rust fixture with a split line after every Redis cell: the server executing
/// `share` of each cell's time (by mode), a tenth of that in scripts.
fn split_round(k: u32, share: impl Fn(&str) -> f64) -> String {
    let mut out = String::new();
    for line in scaled_round(k, |_| 1.0).lines() {
        out.push_str(&format!("{line}\n"));
        let Some((name, figures)) = line.split_once(" ... bench: ") else {
            continue;
        };
        let name = name.trim_start_matches("test ");
        if !name.contains("/Redis_") {
            continue;
        }
        let wall: f64 = figures
            .trim_start()
            .split_once(" ns/iter")
            .unwrap()
            .0
            .replace(',', "")
            .parse()
            .unwrap();
        let executing = wall * share(name) * (0.9 + 0.1 * k as f64);
        out.push_str(&format!(
            "split {name} ... wall {} ns, native {} ns, script {} ns, transaction 0 ns, server cpu {} ns, client cpu {} ns, 10 iterations\n",
            wall.round(),
            (executing * 0.9).round(),
            (executing * 0.1).round(),
            (wall * 0.5).round(),
            (wall * 0.3).round()
        ));
    }
    out
}

#[test]
fn where_a_servers_time_goes_is_published_per_cell_and_quoted_per_mode() {
    let share = |name: &str| match name.rsplit('_').next().unwrap() {
        "NonTransaction" => 0.02,
        "Transaction" => 0.3,
        _ => 0.25,
    };
    let work = Workspace::new(&[
        ("rust-b1000-r1.txt", split_round(1, share)),
        ("rust-b1000-r2.txt", split_round(2, share)),
        ("rust-b1000-r3.txt", split_round(3, share)),
    ]);
    run(&work.args()).unwrap();
    let json: serde_json::Value = serde_json::from_str(&work.read("docs/results.json")).unwrap();
    // Every Redis cell's split is in the JSON, each figure the median of its rounds.
    let mut shares: std::collections::BTreeMap<String, Vec<f64>> = Default::default();
    let mut cells = 0;
    for table in json["tables"].as_array().unwrap() {
        for split in table["splits"].as_array().unwrap() {
            cells += 1;
            assert_eq!(split["rounds"], 3);
            let f = |k: &str| split[k].as_f64().unwrap();
            let executing = f("native_ns") + f("script_ns") + f("transaction_ns");
            let backend = split["backend"].as_str().unwrap();
            let rounds: Vec<f64> = (1..=3)
                .map(|k| share(backend) * (0.9 + 0.1 * k as f64))
                .collect();
            assert!(
                (executing / f("wall_ns") - rounds[1]).abs() < 1e-3,
                "{split}"
            );
            let mode = backend.trim_start_matches("Redis_").to_string();
            shares
                .entry(mode)
                .or_default()
                .push(executing / f("wall_ns"));
        }
    }
    assert_eq!(cells, 51);
    // The first screen quotes, per mode, the median share over the cells.
    let readme = work.read("README.md");
    let line = readme
        .lines()
        .find(|l| l.starts_with("- **Where a server's time goes**"))
        .unwrap_or_else(|| panic!("no split finding:\n{readme}"));
    for (mode, mut shares) in shares {
        shares.sort_by(f64::total_cmp);
        let median = 100.0 * shares[shares.len() / 2];
        let expected = format!(
            "{mode} {}%",
            report::format::trim_zeros(report::format::significant(
                median,
                report::format::Lang::En
            ))
        );
        assert!(line.contains(&expected), "{expected}: {line}");
    }
    // Each suite page has the table, with the server's execution against Doublets.
    let page = work.read("docs/typical-rust.md");
    assert!(
        page.contains("**Where the time goes** (Rust, B = 1,000, N = 100)"),
        "{page}"
    );
    let row = page
        .lines()
        .find(|l| l.starts_with("| KeyValue Get | Redis_Pipeline |"))
        .unwrap_or_else(|| panic!("no split row:\n{page}"));
    assert!(row.ends_with("× |"), "{row}");
    // Results without splits say so instead.
    let plain = Workspace::new(&[("rust-b1000.txt", fixture("rust-b1000.txt"))]);
    run(&plain.args()).unwrap();
    assert!(plain
        .read("README.md")
        .contains("**Not split in these results: where a server's time goes**"));
    assert!(plain
        .read("docs/typical-rust.md")
        .contains("The Redis cells are not split here"));
    // A server that refused the readings is quoted, in its own words.
    let words = "NOPERM this user has no permissions to run the 'info' command";
    let refused = Workspace::new(&[(
        "rust-b1000.txt",
        format!("# unsplit: Redis: {words}\n{}", fixture("rust-b1000.txt")),
    )]);
    run(&refused.args()).unwrap();
    assert!(refused
        .read("README.md")
        .contains("but the server measured refused the readings it takes (INFO cpu commandstats)"));
    let page = refused.read("docs/typical-rust.md");
    assert!(
        page.contains(&format!("The Redis cells are not split: the server refused the readings (INFO cpu commandstats), answering “{words}”.")),
        "{page}"
    );
    assert!(refused
        .read("docs/typical-rust.ru.md")
        .contains(&format!("ответив «{words}»")));
}

/// A run of durable and distant stores beside their twins (B = 1,000, measured here in Rust:
/// docs/sample-results' variants file, its fingerprint the fixtures'): pages of their own, apart
/// from the main tables, whatever the main tables' code.
#[test]
fn durable_and_network_stores_are_set_beside_their_twins() {
    let work = Workspace::new(&[
        ("rust-b1000.txt", fixture("rust-b1000.txt")),
        (
            "rust-variants-b1000.txt",
            fixture("rust-variants-b1000.txt"),
        ),
    ]);
    run(&work.args()).unwrap();
    // The main tables keep the stores in RAM on loopback alone.
    let main = work.read("docs/links-rust.md");
    for variant in ["RedisAof", "RedisRack", "NonVolatile", "GarnetAof"] {
        assert!(
            !main.contains(variant),
            "{variant} in the main table:\n{main}"
        );
    }
    let durable = work.read("docs/durable.md");
    for header in [
        "| Operation | Mode | Redis | RedisAof (fsync every second) | RedisAofAlways (fsync before each answer) |",
        "| Operation | Layout | Doublets_Volatile | Doublets_NonVolatile (fsync on close) |",
        "| Operation | Mode | Garnet | GarnetAof (commit before each answer) |",
    ] {
        assert!(durable.contains(header), "no {header}:\n{durable}");
    }
    assert!(work
        .read("docs/durable.ru.md")
        .contains("RedisAof (fsync раз в секунду)"));
    let network = work.read("docs/network.md");
    assert!(
        network.contains("| Round trips per iteration |"),
        "{network}"
    );
    // Where each request is its own round trip an iteration of N = 100 waits on about 100 of
    // them, and on about one where they go in one pipeline: what the column is for.
    let summary: serde_json::Value = serde_json::from_str(&work.read("docs/results.json")).unwrap();
    let trips = |backend: &str| {
        summary["variants"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["backend"] == backend && v["suite"] == "typical")
            .and_then(|v| {
                v["rows"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|r| r["operation"] == "kv_get")
            })
            .and_then(|r| r["round_trips_per_iteration"].as_f64())
            .unwrap_or_else(|| panic!("no round trips for {backend}"))
    };
    let one_by_one = trips("RedisRegion_NonTransaction");
    assert!((80.0..=120.0).contains(&one_by_one), "{one_by_one}");
    let pipelined = trips("RedisRegion_Pipeline");
    assert!((0.5..=2.0).contains(&pipelined), "{pipelined}");
    // Each durable cell is against its twin: slower than it, as writing to a file must be.
    let aof = summary["variants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["backend"] == "RedisAofAlways_NonTransaction" && v["suite"] == "typical")
        .unwrap();
    assert_eq!(aof["twin"], "Redis_NonTransaction");
    let set = aof["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["operation"] == "kv_set")
        .unwrap();
    assert!(set["slowdown"]["ratio"].as_f64().unwrap() > 1.5, "{set}");
    // Both pages are listed beside the others, and the first screen says what was measured
    // instead of that nothing was.
    let readme = work.read("README.md");
    assert!(readme.contains("(docs/durable.md)"));
    assert!(readme.contains("(docs/network.md)"));
    assert!(
        readme.contains(
            "- **Durable and over a network** (B = 1,000, one round: no intervals, no verdicts;"
        ),
        "{readme}"
    );
    assert!(
        readme.contains("RedisAofAlways (fsync before each answer) ×"),
        "{readme}"
    );
    assert!(!readme.contains("not measured yet"), "{readme}");
}

/// A round's parts are the suite and family pairs that have cells: the payload suite has no
/// Doublets, so no round waits for a Doublets piece of it.
#[test]
fn a_suite_without_a_family_asks_no_part_of_it() {
    let spec = real_spec();
    let every = report::parts::every_suite(&spec);
    let families = ["doublets".to_string(), "redis".to_string()];
    let parts = report::parts::of_run(&spec, "rust", &every, &families, &["redis".into()], &[]);
    let pairs: Vec<(&str, &str)> = parts
        .iter()
        .map(|p| (p.suite.as_str(), p.family.as_str()))
        .collect();
    assert!(pairs.contains(&("links", "doublets")) && pairs.contains(&("payload", "redis")));
    assert!(!pairs.contains(&("payload", "doublets")), "{pairs:?}");
}
