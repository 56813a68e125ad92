//! The Redis server a run talks to: the one REDIS_URL names, or a disposable one started on a free
//! loopback port (no persistence) and stopped when dropped; the database it may use, and how a run
//! leaves that database as it found it.
//!
//! A run never deletes or overwrites what it did not write: it refuses a non-empty database unless
//! BENCHMARK_ALLOW_FLUSH=1, loads its function library under a name tied to the library's content
//! (so it never replaces a user's), and when it ends (success, failure, panic or Ctrl-C) removes the
//! keys it wrote and the library it loaded.

use std::{
    os::unix::process::CommandExt,
    process::{Child, Command, Stdio},
    sync::{Arc, LazyLock, Mutex},
    thread,
    time::{Duration, Instant},
};

use anyhow::{bail, Context};
use redis::{Client, Connection};

use crate::redis_store::items;

/// The function library both languages load, as `redis/links.lua` holds it.
const LIBRARY_SOURCE: &str = include_str!("../../redis/links.lua");

/// The token `redis/links.lua` writes where the library's name goes.
const LIBRARY_TOKEN: &str = "__LIBRARY__";

/// The links library as a server holds it.
pub struct Library {
    /// `rvd_` and the first 12 hex digits of the source's SHA-1: a user's library cannot carry
    /// it by accident, and checkouts with different sources never replace each other's.
    pub name: String,
    /// The source with the name filled in, as `FUNCTION LOAD` takes it.
    pub code: String,
    /// The server-wide names of its functions, made once: commands are built inside measured loops.
    pub create_point: String,
    pub create: String,
    pub update: String,
    pub delete: String,
    pub create_points: String,
}

pub static LIBRARY: LazyLock<Library> = LazyLock::new(|| {
    let name = format!(
        "rvd_{}",
        &sha1_smol::Sha1::from(LIBRARY_SOURCE).digest().to_string()[..12]
    );
    let function = |short: &str| format!("{name}_{short}");
    Library {
        code: LIBRARY_SOURCE.replace(LIBRARY_TOKEN, &name),
        create_point: function("create_point"),
        create: function("create"),
        update: function("update"),
        delete: function("delete"),
        create_points: function("create_points"),
        name,
    }
});

/// The commands every suite needs beyond plain reads and writes.
const NEEDED_COMMANDS: [&str; 4] = ["FUNCTION", "FCALL", "DBSIZE", "SCAN"];

/// A redis-server this process started. Dropping it stops it; if this process dies first the
/// kernel stops it (PR_SET_PDEATHSIG), so no server outlives the run.
pub struct DisposableServer {
    child: Child,
    pub url: String,
}

impl DisposableServer {
    pub fn start() -> anyhow::Result<Self> {
        let mut last_error = None;
        // A free port can be taken between picking and binding it: try a few.
        for _ in 0..5 {
            let port =
                portpicker::pick_unused_port().context("no free loopback port for redis-server")?;
            match Self::start_on(port) {
                Ok(server) => return Ok(server),
                Err(e) => last_error = Some(e),
            }
        }
        Err(last_error.expect("tried at least once"))
    }

    fn start_on(port: u16) -> anyhow::Result<Self> {
        let mut command = Command::new("redis-server");
        command
            .args([
                "--port",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .args(["--daemonize", "no", "--loglevel", "warning"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        // SAFETY: prctl is async-signal-safe and touches only this child.
        unsafe {
            command.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command.spawn().map_err(|e| {
            anyhow::anyhow!(
                "cannot start redis-server ({e}): install it (Debian/Ubuntu: apt-get install -y redis-server) or set REDIS_URL"
            )
        })?;
        let mut server = Self {
            child,
            url: format!("redis://127.0.0.1:{port}/0"),
        };
        let started = Instant::now();
        loop {
            if let Some(status) = server.child.try_wait()? {
                let mut stderr = String::new();
                if let Some(mut pipe) = server.child.stderr.take() {
                    std::io::Read::read_to_string(&mut pipe, &mut stderr).ok();
                }
                bail!(
                    "redis-server on port {port} exited with {status}: {}",
                    stderr.trim()
                );
            }
            if Client::open(server.url.as_str())?.get_connection().is_ok() {
                return Ok(server);
            }
            if started.elapsed() > Duration::from_secs(10) {
                bail!("redis-server on port {port} did not accept connections within 10 s");
            }
            thread::sleep(Duration::from_millis(10));
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for DisposableServer {
    fn drop(&mut self) {
        // SAFETY: kill only signals our own child, whose pid we hold until wait() reaps it.
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM) };
        if self.child.wait().is_err() {
            self.child.kill().ok();
        }
    }
}

/// `url` with its password, if any, replaced by `***`: URLs reach messages, passwords never do.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    // The user information ends at the last '@' before the path.
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => {
            let user = rest[..at].split(':').next().unwrap_or("");
            format!("{scheme}://{user}:***{}", &rest[at..])
        }
        None => url.to_string(),
    }
}

/// What a run wrote to a server it did not start, so that it can be removed however the run ends.
#[derive(Default)]
struct Written {
    /// SCAN patterns covering every key the claimed suites write.
    patterns: Vec<&'static str>,
    /// Whether this run loaded the library (one already there belongs to someone else).
    library: bool,
    /// The server's ids of the run's connections, so that an interrupt can stop their writes.
    clients: Vec<i64>,
}

/// Removes what a run wrote to a server it did not start; shared with the Ctrl-C handler.
#[derive(Clone)]
pub struct Cleanup {
    client: Client,
    written: Arc<Mutex<Written>>,
}

/// Set once an interrupt started removing what the run wrote.
static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether an interrupt is removing what the run wrote (the run then fails, as its connections
/// are closed, and must wait for the interrupt to end the process).
pub fn interrupted() -> bool {
    INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst)
}

/// Every server this process uses now: a disposable one's pid, or what removes the run's writes.
static ACTIVE: Mutex<Vec<(usize, Option<u32>, Cleanup)>> = Mutex::new(Vec::new());

/// Makes Ctrl-C (and SIGTERM) end the run cleanly: every disposable server is stopped (it also
/// would be through PDEATHSIG, but only once this process is gone), and what the run wrote to a
/// server it did not start is removed. Call once, before any server is used.
pub fn stop_on_interrupt() -> anyhow::Result<()> {
    ctrlc::set_handler(|| {
        let active = ACTIVE.lock().unwrap_or_else(|e| e.into_inner()).clone();
        for (_, disposable, cleanup) in active {
            match disposable {
                // SAFETY: signals only a server this process started.
                Some(pid) => unsafe {
                    libc::kill(pid as libc::pid_t, libc::SIGTERM);
                },
                None => {
                    if let Err(e) = cleanup.interrupt() {
                        eprintln!("interrupted: could not remove the benchmark's keys: {e:#}");
                    }
                }
            }
        }
        eprintln!("interrupted");
        std::process::exit(130);
    })
    .context("cannot install the Ctrl-C handler")
}

/// For `main`, once the run has ended: when an interrupt closed the run's connections (which is
/// why it failed), waits for the handler, which ends the process once it has cleaned up.
pub fn wait_if_interrupted() {
    if interrupted() {
        loop {
            thread::park();
        }
    }
}

impl Cleanup {
    /// For an interrupt: closes the run's connections first (the bench may be in the middle of a
    /// cell, and its next write would land after the cleanup), then removes what the run wrote.
    pub fn interrupt(&self) -> anyhow::Result<()> {
        INTERRUPTED.store(true, std::sync::atomic::Ordering::SeqCst);
        eprintln!("interrupted: removing what the run wrote…");
        let clients = std::mem::take(
            &mut self
                .written
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clients,
        );
        let mut con = self.client.get_connection()?;
        for id in clients {
            // A connection already gone is fine: it writes nothing more either way.
            redis::cmd("CLIENT")
                .arg("KILL")
                .arg("ID")
                .arg(id)
                .exec(&mut con)
                .ok();
        }
        self.run()
    }

    /// Deletes the keys the run wrote and the library it loaded. The database was empty when the
    /// run claimed it (or its owner allowed emptying it), so every key matching a suite's patterns
    /// is the run's.
    pub fn run(&self) -> anyhow::Result<()> {
        let mut written = self.written.lock().unwrap_or_else(|e| e.into_inner());
        if written.patterns.is_empty() && !written.library {
            return Ok(());
        }
        let mut con = self.client.get_connection()?;
        delete_matching(&mut con, &std::mem::take(&mut written.patterns))?;
        if std::mem::take(&mut written.library) {
            redis::cmd("FUNCTION")
                .arg("DELETE")
                .arg(&LIBRARY.name)
                .exec(&mut con)?;
        }
        Ok(())
    }
}

/// Whether `key` matches a suite's pattern: a whole name, or a prefix followed by `*`.
fn matches(pattern: &str, key: &[u8]) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => key.starts_with(prefix.as_bytes()),
        None => key == pattern.as_bytes(),
    }
}

/// Deletes every key that matches one of `patterns`, in one SCAN of the database (a SCAN per
/// pattern would walk millions of keys several times).
fn delete_matching(con: &mut Connection, patterns: &[&str]) -> anyhow::Result<()> {
    if patterns.is_empty() {
        return Ok(());
    }
    let mut cursor = 0u64;
    loop {
        let (next, mut keys): (u64, Vec<Vec<u8>>) = redis::cmd("SCAN")
            .arg(cursor)
            .arg("COUNT")
            .arg(10_000)
            .query(con)?;
        keys.retain(|key| patterns.iter().any(|p| matches(p, key)));
        if !keys.is_empty() {
            redis::cmd("UNLINK").arg(keys).exec(con)?;
        }
        if next == 0 {
            return Ok(());
        }
        cursor = next;
    }
}

/// The server of this run: REDIS_URL's, or a disposable one (kept alive as long as this value).
/// Dropping it removes what the run wrote to a server it did not start.
pub struct Server {
    pub url: String,
    pub disposable: Option<DisposableServer>,
    client: Client,
    cleanup: Cleanup,
}

impl Server {
    /// Uses `redis_url` if given, else starts a disposable server.
    pub fn new(redis_url: Option<String>) -> anyhow::Result<Self> {
        let (url, disposable) = match redis_url.filter(|u| !u.trim().is_empty()) {
            Some(url) => (url, None),
            None => {
                let server = DisposableServer::start()?;
                (server.url.clone(), Some(server))
            }
        };
        let client = Client::open(url.as_str()).with_context(|| {
            format!(
                "REDIS_URL={} is not a Redis URL (redis://[user:password@]host:port/db)",
                redact(&url)
            )
        })?;
        let cleanup = Cleanup {
            client: client.clone(),
            written: Arc::default(),
        };
        let token = Arc::as_ptr(&cleanup.written) as usize;
        ACTIVE.lock().unwrap_or_else(|e| e.into_inner()).push((
            token,
            disposable.as_ref().map(DisposableServer::pid),
            cleanup.clone(),
        ));
        Ok(Self {
            cleanup,
            url,
            disposable,
            client,
        })
    }

    pub fn from_env() -> anyhow::Result<Self> {
        Self::new(std::env::var("REDIS_URL").ok())
    }

    /// The URL as messages show it: without its password.
    pub fn shown(&self) -> String {
        redact(&self.url)
    }

    pub fn connect(&self) -> anyhow::Result<Connection> {
        self.client
            .get_connection()
            .with_context(|| format!("cannot connect to Redis at {}", self.shown()))
    }

    /// "Redis 7.0.15", from INFO server.
    pub fn version(&self) -> anyhow::Result<String> {
        let info: String = redis::cmd("INFO")
            .arg("server")
            .query(&mut self.connect()?)?;
        let version = info
            .lines()
            .find_map(|l| l.strip_prefix("redis_version:"))
            .unwrap_or("unknown");
        Ok(format!("Redis {}", version.trim()))
    }

    /// Everything a run needs of the server, checked before any work and without writing:
    /// reachable, the commands the suites use, and a database the run may use.
    pub fn preflight(&self, allow_flush: bool) -> anyhow::Result<()> {
        let mut con = self.connect()?;
        let known: Vec<redis::Value> = redis::cmd("COMMAND")
            .arg("INFO")
            .arg(&NEEDED_COMMANDS)
            .query(&mut con)
            .with_context(|| {
                format!(
                    "the server at {} does not answer COMMAND INFO",
                    self.shown()
                )
            })?;
        let missing: Vec<&str> = NEEDED_COMMANDS
            .iter()
            .zip(&known)
            .filter(|(_, info)| **info == redis::Value::Nil)
            .map(|(name, _)| *name)
            .collect();
        if !missing.is_empty() {
            bail!(
                "the server at {} ({}) lacks {}, which the benches need: use Redis 7 or later",
                self.shown(),
                self.version()?,
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
            redis::cmd("FLUSHDB").exec(&mut con)?;
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
        let present: Vec<redis::Value> = redis::cmd("FUNCTION")
            .arg("LIST")
            .arg("LIBRARYNAME")
            .arg(&LIBRARY.name)
            .query(&mut con)?;
        // FUNCTION LIST matches names by pattern: only the exact name counts.
        let name = redis::Value::BulkString(LIBRARY.name.clone().into_bytes());
        let loaded = present.into_iter().any(|library| {
            items(library).is_ok_and(|fields| {
                fields.windows(2).any(|pair| {
                    pair[0] == redis::Value::BulkString(b"library_name".to_vec()) && pair[1] == name
                })
            })
        });
        if !loaded {
            redis::cmd("FUNCTION")
                .arg("LOAD")
                .arg(&LIBRARY.code)
                .exec(&mut con)
                .context("loading redis/links.lua")?;
            written.library = true;
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

impl Drop for Server {
    fn drop(&mut self) {
        if let Err(e) = self.release() {
            eprintln!("warning: {e:#}");
        }
        let token = Arc::as_ptr(&self.cleanup.written) as usize;
        ACTIVE
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|(t, ..)| *t != token);
    }
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn patterns_are_names_or_prefixes() {
        assert!(matches("links", b"links"));
        assert!(!matches("links", b"links:free"));
        assert!(matches("links:*", b"links:free"));
        assert!(matches("pair:*", b"pair:1:1"));
        assert!(!matches("pair:*", b"pairs"));
        assert!(!matches("k:*", b"someone:else"));
    }
}
