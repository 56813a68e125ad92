//! The servers a run talks to: the one REDIS_URL names (identified from INFO server), or disposable
//! ones of the kinds the spec declares (Redis, Garnet), started on free loopback ports with no
//! persistence and stopped when dropped; how each runs the links library (functions or a script),
//! the database a run may use, and how a run leaves that database as it found it.
//!
//! A run never deletes or overwrites what it did not write: it refuses a non-empty database unless
//! BENCHMARK_ALLOW_FLUSH=1, loads its function library under a name tied to the library's content
//! (so it never replaces a user's), and when it ends (success, failure, panic or Ctrl-C) removes the
//! keys it wrote and the library it loaded. On a server with scripts only, the script stays in the
//! server's script cache: it is not data, and only SCRIPT FLUSH, which would remove everyone's
//! scripts, could take it out.

use std::{
    os::unix::process::CommandExt,
    path::PathBuf,
    process::{Child, Command, Stdio},
    sync::{Arc, LazyLock, Mutex},
    thread,
    time::{Duration, Instant},
};

use anyhow::{bail, Context};
use redis::{Client, Cmd, Connection, ToRedisArgs};

use crate::{
    durable::{Folder, Stop, StoreFolder},
    network::Netns,
    redis_store::{items, Mode, RedisStore, Restarts},
    spec::{Compact, ServerKind, Spec},
};

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
    /// The same without its `#!lua` line, as `SCRIPT LOAD` takes it, and its SHA-1.
    pub script: String,
    pub sha: String,
}

pub static LIBRARY: LazyLock<Library> = LazyLock::new(|| {
    let name = format!(
        "rvd_{}",
        &sha1_smol::Sha1::from(LIBRARY_SOURCE).digest().to_string()[..12]
    );
    let code = LIBRARY_SOURCE.replace(LIBRARY_TOKEN, &name);
    let script = code
        .split_once('\n')
        .map_or("", |(_, rest)| rest)
        .to_string();
    Library {
        sha: sha1_smol::Sha1::from(&script).digest().to_string(),
        script,
        code,
        name,
    }
});

/// How a server runs the library: as functions, or (servers without them, like Garnet) as a script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scripting {
    Functions,
    Scripts,
}

impl Scripting {
    /// The library's functions as this path calls them.
    pub fn calls(self) -> &'static Calls {
        static FUNCTIONS: LazyLock<Calls> = LazyLock::new(|| Calls::new(Scripting::Functions));
        static SCRIPTS: LazyLock<Calls> = LazyLock::new(|| Calls::new(Scripting::Scripts));
        match self {
            Scripting::Functions => &FUNCTIONS,
            Scripting::Scripts => &SCRIPTS,
        }
    }

    /// For the method text and the provenance.
    pub fn describe(self) -> &'static str {
        match self {
            Scripting::Functions => "functions: FUNCTION LOAD, FCALL",
            Scripting::Scripts => "scripts: SCRIPT LOAD, EVALSHA",
        }
    }
}

/// One of the library's functions as a command, its arguments to follow: `FCALL <name> 0` or
/// `EVALSHA <sha> 0 <function>`. Made once: commands are built inside measured loops.
pub struct Call {
    command: &'static str,
    head: Vec<String>,
}

impl Call {
    pub fn with(&self, args: impl ToRedisArgs) -> Cmd {
        let mut command = redis::cmd(self.command);
        command.arg(&self.head).arg(args);
        command
    }
}

/// The library's functions, called one way.
pub struct Calls {
    pub create_point: Call,
    pub create: Call,
    pub update: Call,
    pub delete: Call,
    pub create_points: Call,
}

impl Calls {
    fn new(scripting: Scripting) -> Self {
        let call = |function: &str| match scripting {
            Scripting::Functions => Call {
                command: "FCALL",
                head: vec![format!("{}_{function}", LIBRARY.name), "0".into()],
            },
            Scripting::Scripts => Call {
                command: "EVALSHA",
                head: vec![LIBRARY.sha.clone(), "0".into(), function.into()],
            },
        };
        Calls {
            create_point: call("create_point"),
            create: call("create"),
            update: call("update"),
            delete: call("delete"),
            create_points: call("create_points"),
        }
    }
}

/// What every suite needs of a server beyond its own commands: counting, finding and removing
/// the run's keys, and transactions.
const HARNESS_COMMANDS: [&str; 8] = [
    "INFO", "COMMAND", "DBSIZE", "SCAN", "UNLINK", "CLIENT", "MULTI", "EXEC",
];

/// Makes the kernel stop the child `command` starts (SIGTERM) when this process dies, however it
/// dies, so that no server or tool outlives the run.
pub fn ends_with_this_process(command: &mut Command) {
    // SAFETY: prctl is async-signal-safe and touches only this child.
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// A server this process started. Dropping it stops it; if this process dies first the kernel
/// stops it (PR_SET_PDEATHSIG), so no server outlives the run. A durable one restarts on its
/// files ([`DisposableServer::restart`]), on the same port.
pub struct DisposableServer {
    /// Its process: another one after each restart.
    child: Mutex<Child>,
    pub url: String,
    /// The private folder of its Unix socket, where its start takes one: removed when it stops.
    folder: Option<PathBuf>,
    /// The folder of a durable server's files, in the run's folder for durable stores: removed
    /// when it stops (declared after the process, which Drop stops first).
    data: Option<StoreFolder>,
    /// The host of its own a server with a round trip runs on: removed when it stops (declared
    /// after the process, which Drop stops first).
    pub netns: Option<Netns>,
    kind: ServerKind,
    port: u16,
}

/// A free loopback port that no other server of this process was given. A port is free when
/// picked and taken only when the server binds it, seconds later for Garnet (a .NET tool); tests
/// start servers in parallel, and a second server given the same port meanwhile would bind it
/// first, so that the first one's readiness check found the other's server.
fn free_port() -> Option<u16> {
    static GIVEN: std::sync::Mutex<std::collections::BTreeSet<u16>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    let mut given = GIVEN.lock().unwrap_or_else(|e| e.into_inner());
    (0..100).find_map(|_| portpicker::pick_unused_port().filter(|&port| given.insert(port)))
}

impl DisposableServer {
    /// Starts a server of `kind` on a free loopback port, after its `prepare` command; a durable
    /// one keeps its files in a folder of its own in `files`, the run's folder for durable stores.
    pub fn start(kind: &ServerKind, files: Option<&Folder>) -> anyhow::Result<Self> {
        if let Some((program, args)) = kind.prepare.split_first() {
            let status = Command::new(program)
                .args(args)
                .current_dir(crate::repository())
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .status()
                .map_err(|e| {
                    anyhow::anyhow!(
                        "cannot run {program} ({e}) to prepare {}: install {}",
                        kind.name,
                        kind.install
                    )
                })?;
            if !status.success() {
                bail!(
                    "`{}` failed ({status}), so {} cannot start",
                    kind.prepare.join(" "),
                    kind.name
                );
            }
        }
        let mut last_error = None;
        // A free port can be taken between picking and binding it: try a few.
        for _ in 0..5 {
            let port =
                free_port().with_context(|| format!("no free loopback port for {}", kind.name))?;
            match Self::start_on(kind, port, files) {
                Ok(server) => return Ok(server),
                Err(e) => last_error = Some(e),
            }
        }
        Err(last_error.expect("tried at least once"))
    }

    fn start_on(kind: &ServerKind, port: u16, files: Option<&Folder>) -> anyhow::Result<Self> {
        let data = match (kind.keeps_files(), files) {
            (false, _) => None,
            (true, Some(files)) => Some(files.store(&format!("{}-{port}", kind.id))?),
            (true, None) => bail!(
                "{} keeps its data in files, in the folder a bench run makes for durable stores: \
                 run it from the bench",
                kind.name
            ),
        };
        // A server reached through a Unix socket gets it in a folder only this user can enter,
        // named for its port, which no other server of this process has.
        let folder = kind.socket().then(|| {
            std::env::temp_dir().join(format!("redis-vs-doublets-{}-{port}", std::process::id()))
        });
        let socket = folder.as_ref().map(|f| f.join("server.sock"));
        let netns = match kind.round_trip_us {
            Some(round_trip) => Some(Netns::create(&kind.name, round_trip, port)?),
            None => None,
        };
        if let Some(folder) = &folder {
            std::os::unix::fs::DirBuilderExt::mode(&mut std::fs::DirBuilder::new(), 0o700)
                .create(folder)
                .with_context(|| {
                    format!("creating {} for {}'s socket", folder.display(), kind.name)
                })?;
        }
        let url = match (&socket, &netns) {
            (Some(socket), _) => format!("redis+unix://{}?db=0", socket.display()),
            (None, Some(netns)) => format!("redis://{}:{port}/0", netns.host),
            (None, None) => format!("redis://127.0.0.1:{port}/0"),
        };
        let args = Self::args(kind, port, socket.as_deref(), data.as_ref(), netns.as_ref());
        let child = launch(kind, &args, &url).inspect_err(|_| {
            if let Some(folder) = &folder {
                std::fs::remove_dir_all(folder).ok();
            }
        })?;
        Ok(Self {
            child: Mutex::new(child),
            url,
            folder,
            data,
            netns,
            kind: kind.clone(),
            port,
        })
    }

    /// The command line of a server of `kind`: the spec's `start` with its port, its socket, the
    /// folder of its files and the address it binds in its namespace, run there.
    fn args(
        kind: &ServerKind,
        port: u16,
        socket: Option<&std::path::Path>,
        data: Option<&StoreFolder>,
        netns: Option<&Netns>,
    ) -> Vec<String> {
        let args: Vec<String> = kind
            .start
            .iter()
            .map(|a| a.replace("{port}", &port.to_string()))
            .map(|a| match socket {
                Some(socket) => a.replace("{socket}", &socket.display().to_string()),
                None => a,
            })
            .map(|a| match data {
                Some(data) => a.replace("{dir}", &data.path().display().to_string()),
                None => a,
            })
            .map(|a| match netns {
                Some(netns) => a.replace("{host}", &netns.server.to_string()),
                None => a,
            })
            .collect();
        match netns {
            Some(netns) => netns.exec(&args),
            None => args,
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.lock().unwrap_or_else(|e| e.into_inner()).id()
    }

    /// Stops a durable server (SIGTERM: Redis fsyncs its append-only file and exits; or SIGKILL,
    /// where the run's stores stop as if killed) and starts it again on the same port and files,
    /// which it loads before it accepts a connection. Every connection to it is then gone: its
    /// stores connect again.
    pub fn restart(&self) -> anyhow::Result<()> {
        let Some(data) = &self.data else {
            bail!("{} keeps nothing to restart on", self.kind.name);
        };
        let mut child = self.child.lock().unwrap_or_else(|e| e.into_inner());
        let kill = data.stop == Stop::Kill;
        signal(child.id(), if kill { libc::SIGKILL } else { libc::SIGTERM });
        let status = child.wait()?;
        // Garnet does not handle SIGTERM: it ends as the signal ends it (its launcher then exits
        // with 128 + 15), as a killed server would.
        let ended = status.success()
            || status.code() == Some(128 + libc::SIGTERM)
            || std::os::unix::process::ExitStatusExt::signal(&status) == Some(libc::SIGTERM);
        if !kill && !ended {
            bail!("{} exited with {status} when stopped", self.kind.name);
        }
        let socket = self.folder.as_ref().map(|f| f.join("server.sock"));
        let args = Self::args(
            &self.kind,
            self.port,
            socket.as_deref(),
            self.data.as_ref(),
            self.netns.as_ref(),
        );
        *child = launch(&self.kind, &args, &self.url)?;
        match &self.kind.compact {
            Some(compact) => self.compact(compact),
            None => Ok(()),
        }
    }

    /// Rewrites the server's files from the data it has just read back, and waits until the
    /// rewrite is done: the next restart reads the background and one cell's writes.
    fn compact(&self, compact: &Compact) -> anyhow::Result<()> {
        let mut con = Client::open(self.url.as_str())?.get_connection()?;
        let mut command = redis::cmd(&compact.command[0]);
        compact.command[1..].iter().for_each(|word| {
            command.arg(word);
        });
        command
            .query::<redis::Value>(&mut con)
            .with_context(|| format!("{} refused {}", self.kind.name, compact.command.join(" ")))?;
        let started = Instant::now();
        loop {
            let info: String = redis::cmd("INFO").arg("persistence").query(&mut con)?;
            let lines: Vec<&str> = info.lines().map(str::trim).collect();
            if compact
                .done
                .iter()
                .all(|field| lines.contains(&field.as_str()))
            {
                return Ok(());
            }
            if started.elapsed() > Duration::from_secs(600) {
                bail!(
                    "{}: {} had not finished after 600 s (INFO persistence: {})",
                    self.kind.name,
                    compact.command.join(" "),
                    lines.join(" ")
                );
            }
            thread::sleep(Duration::from_millis(10));
        }
    }
}

/// Starts `args`, a server of `kind`, and waits until `url` answers.
fn launch(kind: &ServerKind, args: &[String], url: &str) -> anyhow::Result<Child> {
    let mut command = Command::new(&args[0]);
    command
        .args(&args[1..])
        .current_dir(crate::repository())
        // Its own process group: a launcher (`dotnet tool run`) and the server it starts are
        // stopped together, and Ctrl-C reaches the bench, which stops them.
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    ends_with_this_process(&mut command);
    let mut child = command.spawn().map_err(|e| {
        anyhow::anyhow!("cannot start {} ({e}): install {}", kind.name, kind.install)
    })?;
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            let mut stderr = String::new();
            if let Some(mut pipe) = child.stderr.take() {
                std::io::Read::read_to_string(&mut pipe, &mut stderr).ok();
            }
            bail!(
                "{} at {url} exited with {status}: {}",
                kind.name,
                stderr.trim()
            );
        }
        // A server that loads its files accepts connections before it answers: PING says
        // LOADING until the data is in.
        let answer = Client::open(url)?
            .get_connection()
            .and_then(|mut con| redis::cmd("PING").query::<String>(&mut con));
        if answer.is_ok() {
            // Whatever it writes to stderr from now on is read, so that it never blocks on it.
            if let Some(mut pipe) = child.stderr.take() {
                thread::spawn(move || std::io::copy(&mut pipe, &mut std::io::sink()));
            }
            return Ok(child);
        }
        if let (Err(e), true) = (answer, started.elapsed() > Duration::from_secs(60)) {
            bail!("{} at {url} did not answer within 60 s: {e}", kind.name);
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// Stops a server this process started, with every process of its group.
fn stop(pid: u32) {
    signal(pid, libc::SIGTERM);
}

/// Sends `signal` to a server this process started, and to every process of its group.
fn signal(pid: u32, signal: libc::c_int) {
    // SAFETY: signals only the process group of a server this process started.
    unsafe { libc::kill(-(pid as libc::pid_t), signal) };
}

impl Drop for DisposableServer {
    fn drop(&mut self) {
        let child = self.child.get_mut().unwrap_or_else(|e| e.into_inner());
        stop(child.id());
        if child.wait().is_err() {
            child.kill().ok();
        }
        if let Some(folder) = &self.folder {
            std::fs::remove_dir_all(folder).ok();
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

/// Every server this process uses now: a disposable one (its process of the moment and its socket
/// folder), or what removes the run's writes.
type Active = (usize, Option<Arc<DisposableServer>>, Cleanup);
static ACTIVE: Mutex<Vec<Active>> = Mutex::new(Vec::new());

/// Makes Ctrl-C (and SIGTERM) end the run cleanly: every disposable server is stopped (it also
/// would be through PDEATHSIG, but only once this process is gone), what the run wrote to a
/// server it did not start is removed, and so are the durable stores' folders. Call once, before
/// any server is used or folder made.
pub fn stop_on_interrupt() -> anyhow::Result<()> {
    ctrlc::set_handler(|| {
        let active = ACTIVE.lock().unwrap_or_else(|e| e.into_inner()).clone();
        for (_, disposable, cleanup) in active {
            match disposable {
                Some(server) => {
                    stop(server.pid());
                    if let Some(folder) = &server.folder {
                        std::fs::remove_dir_all(folder).ok();
                    }
                }
                None => {
                    if let Err(e) = cleanup.interrupt() {
                        eprintln!("interrupted: could not remove the benchmark's keys: {e:#}");
                    }
                }
            }
        }
        crate::durable::remove_all();
        crate::network::remove_all();
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
        let cleanup = Cleanup {
            client: client.clone(),
            written: Arc::default(),
        };
        let token = Arc::as_ptr(&cleanup.written) as usize;
        ACTIVE.lock().unwrap_or_else(|e| e.into_inner()).push((
            token,
            disposable.clone(),
            cleanup.clone(),
        ));
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

/// Which of `kinds` the server is, and its version, from INFO server: its `server_name` where it
/// reports one (Garnet does; Redis 7 does not), else the first kind whose version field it has.
/// Whether `url` reaches its server through a Unix socket (`redis+unix://` or `unix://`).
/// Loads the library as a script into the cache of the server `described` (which a restart
/// empties: it is not data), checking that the server hashes it as this run does.
pub fn load_script<C: redis::ConnectionLike>(con: &mut C, described: &str) -> anyhow::Result<()> {
    let sha: String = redis::cmd("SCRIPT")
        .arg("LOAD")
        .arg(&LIBRARY.script)
        .query(con)
        .context("loading redis/links.lua as a script")?;
    if sha != LIBRARY.sha {
        bail!(
            "{described} answered SCRIPT LOAD with {sha}, not the script's SHA-1 {}",
            LIBRARY.sha
        );
    }
    Ok(())
}

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

/// How the server can run the library: functions where it has them, else scripts, else refused.
/// Asked without writing: COMMAND INFO, and SCRIPT EXISTS (a server may list EVALSHA yet have
/// scripting switched off, as Garnet without --lua does).
fn scripting(con: &mut Connection) -> anyhow::Result<Scripting> {
    if missing_commands(con, &["FUNCTION", "FCALL"])?.is_empty() {
        return Ok(Scripting::Functions);
    }
    let missing = missing_commands(con, &["SCRIPT", "EVALSHA"])?;
    let answer = if missing.is_empty() {
        match redis::cmd("SCRIPT")
            .arg("EXISTS")
            .arg(&LIBRARY.sha)
            .query::<Vec<i64>>(con)
        {
            Ok(_) => return Ok(Scripting::Scripts),
            Err(e) => format!("SCRIPT EXISTS answers {e}"),
        }
    } else {
        format!("it lacks {}", missing.join(", "))
    };
    bail!(
        "it has neither functions (FUNCTION, FCALL) nor scripts ({answer}), and the links suite \
         runs redis/links.lua: use Redis 7 or later, or a server with Lua scripts (Garnet: --lua)"
    )
}

/// Which of `commands` the server does not know (COMMAND INFO answers nil for them).
fn missing_commands(
    con: &mut Connection,
    commands: &[&'static str],
) -> anyhow::Result<Vec<&'static str>> {
    let known: Vec<redis::Value> = redis::cmd("COMMAND")
        .arg("INFO")
        .arg(commands)
        .query(con)
        .context("the server does not answer COMMAND INFO")?;
    Ok(commands
        .iter()
        .zip(&known)
        .filter(|(_, info)| **info == redis::Value::Nil)
        .map(|(name, _)| *name)
        .collect())
}

/// Whether this library is loaded already. FUNCTION LIST matches names by pattern: only the
/// exact name counts.
fn function_loaded(con: &mut Connection) -> anyhow::Result<bool> {
    let present: Vec<redis::Value> = redis::cmd("FUNCTION")
        .arg("LIST")
        .arg("LIBRARYNAME")
        .arg(&LIBRARY.name)
        .query(con)?;
    let name = redis::Value::BulkString(LIBRARY.name.clone().into_bytes());
    Ok(present.into_iter().any(|library| {
        items(library).is_ok_and(|fields| {
            fields.windows(2).any(|pair| {
                pair[0] == redis::Value::BulkString(b"library_name".to_vec()) && pair[1] == name
            })
        })
    }))
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
