//! The servers a run talks to: the one REDIS_URL names (identified from INFO server), or disposable
//! ones of the kinds the spec declares (Redis, Garnet); the database a run may use, and how a run
//! leaves that database as it found it.
//!
//! A run never deletes or overwrites what it did not write: it refuses a non-empty database unless
//! BENCHMARK_ALLOW_FLUSH=1, loads its function library under a name tied to the library's content
//! (so it never replaces a user's), and when it ends (success, failure, panic or Ctrl-C) removes the
//! keys it wrote and the library it loaded. On a server with scripts only, the script stays in the
//! server's script cache: it is not data, and only SCRIPT FLUSH, which would remove everyone's
//! scripts, could take it out.

use std::sync::Arc;

use anyhow::{bail, Context};
use redis::{Client, Connection};

use crate::{
    durable::Folder,
    resp::{
        cleanup::{delete_matching, redact, Cleanup},
        library::{function_loaded, load_script, scripting, Scripting, LIBRARY},
        process::DisposableServer,
        reply::missing_commands,
        store::{Mode, RedisStore, Restarts},
    },
    spec::{ServerKind, Spec},
};

/// What every suite needs of a server beyond its own commands: counting, finding and removing
/// the run's keys, and transactions.
const HARNESS_COMMANDS: [&str; 8] = [
    "INFO", "COMMAND", "DBSIZE", "SCAN", "UNLINK", "CLIENT", "MULTI", "EXEC",
];

/// The server's words if it refuses the readings that split a cell's time (`INFO cpu
/// commandstats`, which changes nothing on it), or what its reply lacks; a failure to reach it is
/// an error.
fn split_refused(con: &mut Connection) -> anyhow::Result<Option<String>> {
    match redis::cmd("INFO")
        .arg(&crate::split::Reading::SECTIONS)
        .query::<String>(con)
    {
        Ok(info) => Ok(crate::split::Reading::parse(&info)
            .err()
            .map(|e| format!("{e:#}"))),
        Err(e) if e.is_io_error() || e.is_connection_dropped() => {
            Err(e).context("INFO cpu commandstats")
        }
        // The server's own words ("NOPERM this user has no permissions…"), not the client's name
        // for the error.
        Err(e) => Ok(Some(match (e.code(), e.detail()) {
            (Some(code), Some(detail)) => format!("{code} {detail}"),
            _ => e.to_string(),
        })),
    }
}

/// A server of this run: REDIS_URL's, or a disposable one (kept alive as long as this value).
/// Dropping it removes what the run wrote to a server it did not start.
pub struct Server {
    pub url: String,
    pub disposable: Option<Arc<DisposableServer>>,
    /// What it is, from INFO server: one of the spec's servers.
    pub kind: ServerKind,
    /// Its version, from the field of INFO server the spec names.
    pub version: String,
    /// How it runs the links suite's library.
    pub scripting: Scripting,
    /// The server's words where it refused the readings that split a cell's time ([`crate::split`]):
    /// a server the run did not start may deny `INFO` to the user it is given (an ACL). Its cells
    /// are then not split, and the run goes on.
    pub split_refused: Option<String>,
    client: Client,
    cleanup: Cleanup,
}

impl Server {
    /// The servers a run uses: the one REDIS_URL names (identified from INFO server), else a
    /// disposable server of each kind BENCHMARK_SERVERS names, a durable one keeping its files in
    /// `files`, the run's folder for durable stores.
    pub fn from_env(spec: &Spec, files: Option<&Folder>) -> anyhow::Result<Vec<Self>> {
        match Self::url() {
            Some(url) => Ok(vec![Self::at(url, &spec.servers)?]),
            None => Self::kinds(spec)?
                .into_iter()
                .map(|kind| Self::start(kind, files))
                .collect(),
        }
    }

    /// REDIS_URL, where it names a server.
    fn url() -> Option<String> {
        std::env::var("REDIS_URL")
            .ok()
            .filter(|u| !u.trim().is_empty())
    }

    /// The ids of the disposable servers [`Server::from_env`] starts: none where REDIS_URL names
    /// a server, else the kinds BENCHMARK_SERVERS names.
    pub fn disposable_ids(spec: &Spec) -> anyhow::Result<Vec<&str>> {
        match Self::url() {
            Some(_) => Ok(Vec::new()),
            None => Ok(Self::kinds(spec)?
                .into_iter()
                .map(|k| k.id.as_str())
                .collect()),
        }
    }

    fn kinds(spec: &Spec) -> anyhow::Result<Vec<&ServerKind>> {
        spec.servers_from(std::env::var(&spec.server_env).ok())
            .map_err(anyhow::Error::msg)
    }

    /// Starts a disposable server of `kind`; a durable one keeps its files in `files`.
    pub fn start(kind: &ServerKind, files: Option<&Folder>) -> anyhow::Result<Self> {
        let server = DisposableServer::start(kind, files)?;
        let url = server.url.clone();
        Self::open(url, Some(Arc::new(server)), std::slice::from_ref(kind))
    }

    /// The server at `url`, which must be one of `kinds`.
    pub fn at(url: String, kinds: &[ServerKind]) -> anyhow::Result<Self> {
        Self::open(url, None, kinds)
    }

    fn open(
        url: String,
        disposable: Option<Arc<DisposableServer>>,
        kinds: &[ServerKind],
    ) -> anyhow::Result<Self> {
        let client = Client::open(url.as_str()).with_context(|| {
            format!(
                "REDIS_URL={} is not a Redis URL (redis://[user:password@]host:port/db)",
                redact(&url)
            )
        })?;
        let mut con = client
            .get_connection()
            .with_context(|| format!("cannot connect to the server at {}", redact(&url)))?;
        let (kind, version) = identify(&mut con, kinds, socket(&url))
            .with_context(|| format!("the server at {}", redact(&url)))?;
        let scripting = scripting(&mut con)
            .with_context(|| format!("the server at {} ({} {version})", redact(&url), kind.name))?;
        let split_refused = match kind.split_missing {
            Some(_) => None,
            None => split_refused(&mut con)?,
        };
        let cleanup = Cleanup::active(client.clone(), disposable.clone());
        Ok(Self {
            cleanup,
            url,
            disposable,
            kind: kind.clone(),
            version,
            scripting,
            split_refused,
            client,
        })
    }

    /// Whether its cells are split: its spec gives no reason they cannot be, and it did not refuse
    /// the readings.
    pub fn splits(&self) -> bool {
        self.kind.split_missing.is_none() && self.split_refused.is_none()
    }

    /// Whether its stores check themselves by DEBUG DIGEST: a disposable server whose spec says it
    /// has one (the digest covers every database, and a server the run did not start may have
    /// others in use).
    pub fn digest(&self) -> bool {
        self.disposable.is_some() && self.kind.digest
    }

    /// The URL as messages show it: without its password.
    pub fn shown(&self) -> String {
        redact(&self.url)
    }

    pub fn connect(&self) -> anyhow::Result<Connection> {
        self.client
            .get_connection()
            .with_context(|| format!("cannot connect to {} at {}", self.kind.name, self.shown()))
    }

    /// "Redis 7.0.15", as the provenance and messages name it.
    pub fn describe(&self) -> String {
        format!("{} {}", self.kind.name, self.version)
    }

    /// The backend name of `mode` on this server, as the spec names it: "Garnet_Pipeline".
    pub fn backend(&self, mode: Mode) -> String {
        format!("{}_{mode}", self.kind.name)
    }

    /// A store over a new claimed connection (see [`Server::claim`]), in `mode`.
    pub fn store(
        &self,
        patterns: &[&'static str],
        allow_flush: bool,
        mode: Mode,
    ) -> anyhow::Result<RedisStore> {
        Ok(self.store_on(self.claim(patterns, allow_flush)?, mode))
    }

    /// A store of this server on `con`, in `mode`.
    fn store_on(&self, con: Connection, mode: Mode) -> RedisStore {
        RedisStore {
            con,
            mode,
            calls: self.scripting.calls(),
            window: self.kind.pipeline_window,
            digest: self.digest(),
            changes: self.kind.changes.clone(),
            split: self.splits(),
            restarts: self
                .disposable
                .clone()
                .filter(|_| self.kind.keeps_files())
                .map(|server| Restarts {
                    server,
                    connect: |url| Ok(Client::open(url)?.get_connection()?),
                    script: (self.scripting == Scripting::Scripts).then(|| self.describe()),
                }),
        }
    }

    /// One more connection to the database a store of this run claimed, in `mode`: a concurrent
    /// client's. It is closed with the others if the run is interrupted.
    pub fn join(&self, mode: Mode) -> anyhow::Result<RedisStore> {
        let mut con = self.connect()?;
        let id: i64 = redis::cmd("CLIENT").arg("ID").query(&mut con)?;
        self.cleanup
            .written
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clients
            .push(id);
        Ok(self.store_on(con, mode))
    }

    /// For a tool of this run (redis-benchmark) about to write keys matching `patterns` to the
    /// database the run claimed: an interrupted run removes them too.
    pub fn will_write(&self, patterns: &[&'static str]) {
        self.cleanup
            .written
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .patterns
            .extend(patterns);
    }

    /// Removes the keys matching `patterns` that such a tool wrote.
    pub fn remove(&self, patterns: &[&str]) -> anyhow::Result<()> {
        delete_matching(&mut self.connect()?, patterns)
    }

    /// Everything a run needs of the server, checked before any work and without writing:
    /// reachable, the commands the suites use, and a database the run may use.
    pub fn preflight(&self, allow_flush: bool) -> anyhow::Result<()> {
        let mut con = self.connect()?;
        let missing = missing_commands(&mut con, &HARNESS_COMMANDS)?;
        if !missing.is_empty() {
            bail!(
                "the server at {} ({}) lacks {}, which the benches need",
                self.shown(),
                self.describe(),
                missing.join(", ")
            );
        }
        self.refuse_foreign(&mut con, allow_flush).map(drop)
    }

    fn refuse_foreign(&self, con: &mut Connection, allow_flush: bool) -> anyhow::Result<u64> {
        let keys: u64 = redis::cmd("DBSIZE").query(con)?;
        if keys > 0 && !allow_flush && self.disposable.is_none() {
            bail!(
                "the database at REDIS_URL={} holds {keys} keys, and a run needs it empty: \
                 point REDIS_URL at an empty database, or set BENCHMARK_ALLOW_FLUSH=1 to empty it",
                self.shown()
            );
        }
        Ok(keys)
    }

    /// A connection to an empty database with the function library loaded, for a suite whose keys
    /// match `patterns`. A non-empty database is emptied only on a disposable server or when
    /// `allow_flush` says so; otherwise it is refused, whatever it holds.
    pub fn claim(
        &self,
        patterns: &[&'static str],
        allow_flush: bool,
    ) -> anyhow::Result<Connection> {
        let mut con = self.connect()?;
        if self.refuse_foreign(&mut con, allow_flush)? > 0 {
            // Key by key, not FLUSHDB: after a FLUSHDB, Garnet 2.2.8 now and then answers DEL of
            // an existing key with 0 (rust/examples/garnet_flushdb.rs shows it), which would fail
            // the next suite's checks for the server's fault, not the store's.
            delete_matching(&mut con, &["*"])?;
        }
        let mut written = self
            .cleanup
            .written
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        written.patterns.extend(patterns);
        written
            .clients
            .push(redis::cmd("CLIENT").arg("ID").query(&mut con)?);
        match self.scripting {
            Scripting::Functions => {
                if !function_loaded(&mut con)? {
                    redis::cmd("FUNCTION")
                        .arg("LOAD")
                        .arg(&LIBRARY.code)
                        .exec(&mut con)
                        .context("loading redis/links.lua")?;
                    written.library = true;
                }
            }
            // A script cache entry is not data, and there is no way to remove one entry
            // (SCRIPT FLUSH would remove everyone's): it stays, under its content's SHA-1.
            Scripting::Scripts => load_script(&mut con, &self.describe())?,
        }
        Ok(con)
    }

    /// Removes what the run wrote so far (a suite's keys, the library), keeping the server.
    pub fn release(&self) -> anyhow::Result<()> {
        if self.disposable.is_some() {
            // A disposable server holds nothing but the run's, and goes with it.
            return Ok(());
        }
        self.cleanup.run().with_context(|| {
            format!(
                "removing the benchmark's keys and function library from {}",
                self.shown()
            )
        })
    }
}

/// Whether `url` reaches its server through a Unix socket (`redis+unix://` or `unix://`).
fn socket(url: &str) -> bool {
    url.starts_with("redis+unix://") || url.starts_with("unix://")
}

/// Which of `kinds` the server is, from INFO server and the transport: a Redis reached through a
/// Unix socket is the spec's server of that transport (RedisUnix), whose cells its name marks.
fn identify<'k>(
    con: &mut Connection,
    kinds: &'k [ServerKind],
    socket: bool,
) -> anyhow::Result<(&'k ServerKind, String)> {
    let info: String = redis::cmd("INFO")
        .arg("server")
        .query(con)
        .context("INFO server failed")?;
    let field = |name: &str| {
        info.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
            .map(|v| v.trim().to_string())
    };
    let name = field("server_name");
    let found = kinds
        .iter()
        .filter(|k| k.socket() == socket)
        .find_map(|kind| {
            // The spec's ids of one server program begin with the name it gives (garnet,
            // garnet-aof), so the first of them declared is the one a REDIS_URL server is.
            let named = name.as_deref().is_none_or(|n| {
                let id = kind.id.to_ascii_lowercase();
                let n = n.to_ascii_lowercase();
                id == n || id.starts_with(&format!("{n}-"))
            });
            field(&kind.version_field)
                .filter(|_| named)
                .map(|v| (kind, v))
        });
    found.with_context(|| {
        let known: Vec<String> = kinds
            .iter()
            .filter(|k| k.socket() == socket)
            .map(|k| format!("{} ({})", k.name, k.version_field))
            .collect();
        format!(
            "INFO server names {}, which is none of the servers the spec knows {}: {} (a \
             server of another kind needs an entry under `servers:` in spec/benchmarks.yaml, with \
             its version field, and its three backends)",
            name.as_deref().unwrap_or("no server_name"),
            match socket {
                true => "through a Unix socket",
                false => "over TCP",
            },
            known.join(", ")
        )
    })
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Err(e) = self.release() {
            eprintln!("warning: {e:#}");
        }
        self.cleanup.inactive();
    }
}
