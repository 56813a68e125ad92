//! The pages beside the READMEs: what each holds, its file name, and the view it renders. The
//! READMEs keep the findings, the headline, B = 1,000 and the largest size per suite, memory and a
//! load summary; every table lives on a page, one click away (the durable and network ones only
//! there).

use serde::Serialize;

use crate::{format::Lang, tables::LANGUAGES, view::View};

/// One page: its kind picks what of the view it shows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Page {
    /// One suite in one language, every size.
    Suite { suite: String, language: String },
    /// Every server through every client of both languages.
    Clients,
    /// Concurrent clients, every table.
    Load,
    /// What each store holds in memory.
    Memory,
    /// Durable stores beside the same stores in RAM.
    Durable,
    /// Servers a network away beside the same server on loopback.
    Network,
    /// How everything is measured (the spec's method text).
    Method,
}

/// A page file's name in the pages folder: "memory.md", "memory.ru.md".
pub fn page_file(stem: &str, lang: Lang) -> String {
    match lang {
        Lang::En => format!("{stem}.md"),
        Lang::Ru => format!("{stem}.ru.md"),
    }
}

/// A suite page's file name: "links-rust.md".
pub fn suite_page(suite: &str, language: &str, lang: Lang) -> String {
    page_file(&format!("{suite}-{language}"), lang)
}

impl Page {
    pub fn file(&self, lang: Lang) -> String {
        match self {
            Page::Suite { suite, language } => suite_page(suite, language, lang),
            Page::Clients => page_file("clients", lang),
            Page::Load => page_file("load", lang),
            Page::Memory => page_file("memory", lang),
            Page::Durable => page_file("durable", lang),
            Page::Network => page_file("network", lang),
            Page::Method => page_file("method", lang),
        }
    }

    /// The pages these results fill, in the order the READMEs list them.
    pub fn all(view: &View) -> Vec<Page> {
        let mut pages = Vec::new();
        for suite in &view.suites {
            for language in LANGUAGES {
                let name = crate::view::language_name(language);
                if suite.tables.iter().any(|t| t.language == name) {
                    pages.push(Page::Suite {
                        suite: suite.id.clone(),
                        language: language.to_string(),
                    });
                }
            }
        }
        if view.suites.iter().any(|s| !s.clients.is_empty()) {
            pages.push(Page::Clients);
        }
        if view.suites.iter().any(|s| !s.load.is_empty()) {
            pages.push(Page::Load);
        }
        if view.suites.iter().any(|s| s.memory.is_some()) {
            pages.push(Page::Memory);
        }
        if view.suites.iter().any(|s| !s.durable.is_empty()) {
            pages.push(Page::Durable);
        }
        if view.suites.iter().any(|s| !s.network.is_empty()) {
            pages.push(Page::Network);
        }
        pages.push(Page::Method);
        pages
    }

    /// The view with only what this page shows.
    pub fn select(&self, view: &View) -> View {
        let mut view = view.clone();
        for suite in &mut view.suites {
            let keep_tables = match self {
                Page::Suite { suite: s, language } if *s == suite.id => {
                    let name = crate::view::language_name(language);
                    suite.tables.retain(|t| t.language == name);
                    suite.size_charts.retain(|c| c.language == name);
                    true
                }
                _ => false,
            };
            if !keep_tables {
                suite.tables.clear();
                suite.size_charts.clear();
            }
            if *self != Page::Clients {
                suite.clients.clear();
            }
            if *self != Page::Load {
                suite.load.clear();
                suite.load_summary.clear();
            }
            if *self != Page::Memory {
                suite.memory = None;
            }
            if *self != Page::Durable {
                suite.durable.clear();
            }
            if *self != Page::Network {
                suite.network.clear();
            }
        }
        view.page = Some(self.clone());
        view
    }
}

/// The README's selection: per suite and language the smallest and the largest size, memory and
/// the load summary (the full load tables and every clients table are on their pages).
pub fn readme(view: &View) -> View {
    let mut view = view.clone();
    for suite in &mut view.suites {
        let tables = suite.tables.clone();
        suite.tables.retain(|t| {
            let sizes = tables
                .iter()
                .filter(|o| o.language == t.language)
                .map(|o| o.background);
            let (lo, hi) = (sizes.clone().min(), sizes.max());
            Some(t.background) == lo || Some(t.background) == hi
        });
        suite.clients.clear();
        suite.load.clear();
        suite.size_charts.clear();
        suite.durable.clear();
        suite.network.clear();
    }
    view
}
