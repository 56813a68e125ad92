//! The Redis server a run talks to: the one REDIS_URL names, or a disposable one started on a free
//! loopback port (no persistence) and stopped when dropped, and the database it may empty.

use std::{
    os::unix::process::CommandExt,
    process::{Child, Command, Stdio},
    thread,
    time::{Duration, Instant},
};

use anyhow::{bail, Context};
use redis::{Client, Connection};

/// The function library both languages load (functions prefixed `links_`).
pub const LIBRARY: &str = include_str!("../../redis/links.lua");

/// Set in a database this project emptied, so a later run knows the data in it is its own.
const OWNER_KEY: &str = "redisvsdoublets:owner";

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
}

impl DisposableServer {
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

/// The server of this run: REDIS_URL's, or a disposable one (kept alive as long as this value).
pub struct Server {
    pub url: String,
    pub disposable: Option<DisposableServer>,
    client: Client,
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
        let client = Client::open(url.as_str())
            .with_context(|| format!("REDIS_URL={url} is not a Redis URL"))?;
        Ok(Self {
            url,
            disposable,
            client,
        })
    }

    pub fn from_env() -> anyhow::Result<Self> {
        Self::new(std::env::var("REDIS_URL").ok())
    }

    pub fn connect(&self) -> anyhow::Result<Connection> {
        self.client
            .get_connection()
            .with_context(|| format!("cannot connect to Redis at {}", self.url))
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

    /// A connection to an empty database with the function library loaded. A non-empty database
    /// is emptied only when this project emptied it before, or when `allow_flush` says so.
    pub fn claim(&self, allow_flush: bool) -> anyhow::Result<Connection> {
        let mut con = self.connect()?;
        let keys: u64 = redis::cmd("DBSIZE").query(&mut con)?;
        let ours: bool = redis::cmd("EXISTS").arg(OWNER_KEY).query(&mut con)?;
        if keys > 0 && !ours && !allow_flush && self.disposable.is_none() {
            bail!(
                "the database at REDIS_URL={} holds {keys} keys this benchmark did not write, and a run empties it: \
                 point REDIS_URL at an empty database, or set BENCHMARK_ALLOW_FLUSH=1 to empty it anyway",
                self.url
            );
        }
        redis::cmd("FLUSHDB").exec(&mut con)?;
        redis::cmd("SET").arg(OWNER_KEY).arg(1).exec(&mut con)?;
        redis::cmd("FUNCTION")
            .arg("LOAD")
            .arg("REPLACE")
            .arg(LIBRARY)
            .exec(&mut con)
            .context("loading redis/links.lua")?;
        Ok(con)
    }
}
