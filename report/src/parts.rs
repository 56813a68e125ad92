//! The parts of a round: what a result file holds and what a whole round needs, so that the plan
//! knows which pieces are done and the report which rounds are complete. A round is split where it
//! is too long for one window (by family, then server, then the C# bench's client), and its pieces
//! are one round again only when every part is there.

use std::collections::BTreeSet;

use contract::{results::ResultFile, spec::Spec};

/// One family's cells: Doublets' (`server` and `client` empty), or a server family's on one
/// server through one client (empty for Rust's redis-rs, the only client it has).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Part {
    pub family: String,
    pub server: String,
    pub client: String,
}

/// The parts a run of `language` measures: `families`, the server family's on each of `servers`
/// through each of `clients` (C#: every client of the spec where `clients` is empty).
pub fn of_run(
    spec: &Spec,
    language: &str,
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
    for family in families {
        let server_family = spec
            .backends
            .iter()
            .any(|b| b.family == *family && b.server.is_some());
        if !server_family {
            parts.insert(Part {
                family: family.clone(),
                server: String::new(),
                client: String::new(),
            });
            continue;
        }
        for server in servers {
            for client in &clients {
                parts.insert(Part {
                    family: family.clone(),
                    server: server.clone(),
                    client: client.clone(),
                });
            }
        }
    }
    parts
}

/// The parts a result file holds, from its header. Files from before each choice name none: they
/// ran every family, on Redis, through every client.
pub fn of_file(spec: &Spec, file: &ResultFile) -> BTreeSet<Part> {
    let list = |key: &str| -> Option<Vec<String>> {
        file.get(key).map(|text| {
            text.split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        })
    };
    let families = list("families").unwrap_or_else(|| spec.default_families());
    let servers = list("servers").unwrap_or_else(|| vec!["redis".to_string()]);
    let clients = list("clients").unwrap_or_default();
    of_run(
        spec,
        file.get("language").unwrap_or_default(),
        &families,
        &servers,
        &clients,
    )
}
