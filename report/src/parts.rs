//! The parts of a round: what a result file holds and what a whole round needs, so that the plan
//! knows which pieces are done and the report which rounds are complete. A round is split where it
//! is too long for one window (by family, then server, then the C# bench's client, then suite),
//! and its pieces are one round again only when every part is there.

use std::collections::BTreeSet;

use contract::{results::ResultFile, spec::Spec};

/// One suite's cells of one family: Doublets' (`server` and `client` empty), or a server
/// family's on one server through one client (empty for Rust's redis-rs, the only client it has).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Part {
    pub suite: String,
    pub family: String,
    pub server: String,
    pub client: String,
}

/// Every suite's id, in the spec's order: what a run measures unless it names some.
pub fn every_suite(spec: &Spec) -> Vec<String> {
    spec.suites.iter().map(|s| s.id.clone()).collect()
}

/// The parts a run of `language` measures: in each of `suites`, its `families` (the payload suite
/// has no Doublets), the server family's on each of `servers` through each of `clients` (C#:
/// every client of the spec where `clients` is empty).
pub fn of_run(
    spec: &Spec,
    language: &str,
    suites: &[String],
    families: &[String],
    servers: &[String],
    clients: &[String],
) -> BTreeSet<Part> {
    let clients: Vec<String> = match (language, clients) {
        ("csharp", []) => spec.clients.iter().map(|c| c.id.clone()).collect(),
        ("csharp", some) => some.to_vec(),
        _ => vec![String::new()],
    };
    let mut parts = BTreeSet::new();
    let has = |suite: &str, family: &str| {
        let suite = spec.suites.iter().find(|s| s.id == suite);
        suite.is_some_and(|s| s.backends.iter().any(|b| spec.backend(b).family == family))
    };
    let pairs = suites
        .iter()
        .flat_map(|s| families.iter().map(move |f| (s, f)));
    for (suite, family) in pairs.filter(|(s, f)| has(s, f)) {
        let part = |server: &str, client: &str| Part {
            suite: suite.clone(),
            family: family.clone(),
            server: server.to_string(),
            client: client.to_string(),
        };
        let server_family = spec
            .backends
            .iter()
            .any(|b| b.family == *family && b.server.is_some());
        if !server_family {
            parts.insert(part("", ""));
            continue;
        }
        for server in servers {
            for client in &clients {
                parts.insert(part(server, client));
            }
        }
    }
    parts
}

/// The parts a result file holds, from its header. Files from before each choice name none: they
/// ran every suite and family, on Redis, through every client.
pub fn of_file(spec: &Spec, file: &ResultFile) -> BTreeSet<Part> {
    let list = |key: &str| -> Option<Vec<String>> {
        file.get(key).map(|text| {
            text.split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        })
    };
    let suites = list("suites").unwrap_or_else(|| every_suite(spec));
    let families = list("families").unwrap_or_else(|| spec.default_families());
    let servers = list("servers").unwrap_or_else(|| vec!["redis".to_string()]);
    let clients = list("clients").unwrap_or_default();
    of_run(
        spec,
        file.get("language").unwrap_or_default(),
        &suites,
        &families,
        &servers,
        &clients,
    )
}
