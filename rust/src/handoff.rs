//! The spec as the C# harness runs it, read and checked here alone: the spec file as data, the
//! sizes, families, servers, clients and suites the run's variables choose, and each suite's work with its
//! expressions as terms the harness only evaluates. Any refusal is this side's, with the file,
//! line and column; the C# harness has no spec reader of its own.

use serde::Serialize;

use crate::{
    preflight,
    spec::{Spec, Suite},
};

/// What the C# harness gets for a run.
#[derive(Serialize)]
struct Handoff<'a> {
    /// The spec file, for the messages that name it.
    path: &'a str,
    /// The spec file as JSON, once checked: servers, clients, families, backends and the rest,
    /// under the names the YAML gives them.
    document: serde_json::Value,
    sizes: Vec<u64>,
    /// The ids of the families the family variable chooses.
    families: Vec<String>,
    /// The ids of the disposable servers the server variable chooses.
    servers: Vec<&'a str>,
    /// The ids of the clients the client variable chooses.
    clients: Vec<&'a str>,
    /// The suites the suite variable chooses, in the spec's order.
    suites: &'a [Suite],
}

/// The spec `text` (read from `path`, which errors name) checked with the run's variables (`get`
/// reads one) as the Rust bench checks them, every suite's requests built at the chosen sizes,
/// with `available` bytes of memory; as JSON.
pub fn for_csharp(
    text: &str,
    path: &str,
    get: impl Fn(&str) -> Option<String>,
    available: u64,
) -> anyhow::Result<String> {
    let spec = crate::checked(Spec::parse(text, path))?;
    let inputs = preflight::inputs_of_either_language(&spec, &get, available)?;
    let servers = spec.servers_from(get(&spec.server_env));
    let servers = servers.map_err(anyhow::Error::msg)?;
    let clients = spec.clients_from(get(&spec.client_env));
    let clients = clients.map_err(anyhow::Error::msg)?;
    // Untyped, YAML 1.1 would read the size symbol N as false: only true and false are booleans.
    let mut yaml = serde_saphyr::Options::default();
    yaml.strict_booleans = true;
    let handoff = Handoff {
        path,
        document: serde_saphyr::from_str_with_options(text, yaml)?,
        sizes: inputs.sizes,
        families: inputs.families,
        servers: servers.iter().map(|s| s.id.as_str()).collect(),
        clients: clients.iter().map(|c| c.id.as_str()).collect(),
        suites: &spec.narrowed_to(&inputs.suites).suites,
    };
    Ok(serde_json::to_string(&handoff)?)
}
