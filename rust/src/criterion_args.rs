//! Which cells Criterion's command line selects, read before any cell runs: a cell Criterion
//! would skip must skip its checks, split and restart too (at B = 1,000,000 a skipped server
//! cell would still pay a digest of 13 s), and `--list` must list without running anything.

use regex::Regex;

/// The cells a bench run selects, as Criterion 0.8 reads its arguments: a bare FILTER (a regex,
/// or the whole name with `--exact`), none with `--ignored`; `--list` names them and runs none.
pub struct Selection {
    filter: Filter,
    /// `--list`: Criterion prints the names it is given and runs nothing.
    pub list: bool,
    /// Criterion's test mode (no `--bench`, as `cargo test` runs a bench): each selected cell
    /// runs once, checked, and none is measured.
    pub test: bool,
}

enum Filter {
    All,
    Regex(Regex),
    Exact(String),
    None,
}

/// Criterion 0.8's options that take a value (`clap` definitions in its `configure_from_args`):
/// the word after one of them is its value, not the filter.
const VALUED: [&str; 19] = [
    "-c",
    "--color",
    "-s",
    "--save-baseline",
    "-b",
    "--baseline",
    "--baseline-lenient",
    "--format",
    "--profile-time",
    "--load-baseline",
    "--sample-size",
    "--warm-up-time",
    "--measurement-time",
    "--nresamples",
    "--noise-threshold",
    "--confidence-level",
    "--significance-level",
    "--plotting-backend",
    "--output-format",
];

impl Selection {
    /// The selection of `args`, the bench's arguments after the program's name.
    pub fn parse(args: impl IntoIterator<Item = String>) -> anyhow::Result<Selection> {
        let (mut filter, mut exact, mut ignored, mut list, mut bench) =
            (None, false, false, false, false);
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--exact" => exact = true,
                "--ignored" => ignored = true,
                "--list" => list = true,
                "--bench" => bench = true,
                valued if VALUED.contains(&valued) => {
                    args.next();
                }
                flag if flag.starts_with('-') => {}
                _ if filter.is_none() => filter = Some(arg),
                _ => {}
            }
        }
        let filter = match filter {
            _ if ignored => Filter::None,
            None => Filter::All,
            Some(text) if exact => Filter::Exact(text),
            Some(text) => Filter::Regex(Regex::new(&text).map_err(|e| {
                anyhow::anyhow!("the bench's filter {text:?} is not a regular expression: {e}")
            })?),
        };
        Ok(Selection {
            filter,
            list,
            test: !bench && !list,
        })
    }

    /// Whether Criterion runs (or lists) the cell `id` ("operation/backend").
    pub fn selects(&self, id: &str) -> bool {
        match &self.filter {
            Filter::All => true,
            Filter::Regex(regex) => regex.is_match(id),
            Filter::Exact(exact) => id == exact,
            Filter::None => false,
        }
    }

    /// Whether cell `id` is measured: selected, and not only listed.
    pub fn measures(&self, id: &str) -> bool {
        self.selects(id) && !self.list
    }
}

#[cfg(test)]
mod tests {
    use super::Selection;

    fn parse(args: &str) -> Selection {
        Selection::parse(args.split_whitespace().map(String::from)).unwrap()
    }

    #[test]
    fn the_filter_is_the_first_word_that_is_no_option_or_value() {
        let selection = parse("--output-format bencher ^create/ --bench");
        assert!(selection.measures("create/Redis_Pipeline"));
        assert!(!selection.selects("update/Redis_Pipeline"));
        let selection = parse("--bench --sample-size 10 --exact create/Redis");
        assert!(selection.selects("create/Redis"));
        assert!(!selection.selects("create/Redis_Pipeline"));
        assert!(parse("--bench").selects("anything"));
        assert!(!parse("--bench --ignored").selects("anything"));
        let listed = parse("--list create");
        assert!(listed.selects("create/Redis") && !listed.measures("create/Redis"));
        // As `cargo test` runs a bench: each cell once, none measured; `cargo bench` adds --bench.
        assert!(parse("^create/").test && !listed.test && !selection.test);
    }

    #[test]
    fn a_filter_that_is_no_regex_is_refused() {
        let error = Selection::parse(["(".to_string()])
            .err()
            .unwrap()
            .to_string();
        assert!(error.contains("not a regular expression"), "{error}");
    }
}
