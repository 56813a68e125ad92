//! The disposable servers a run starts: on free loopback ports (or a socket, or a host of their
//! own), stopped when dropped or when this process dies, a durable one restarted on its files.

use std::{
    os::unix::process::CommandExt,
    path::PathBuf,
    process::{Child, Command, Stdio},
    sync::Mutex,
    thread,
    time::{Duration, Instant},
};

use anyhow::{bail, Context};
use redis::Client;

use crate::{
    durable::{Folder, Stop, StoreFolder},
    network::Netns,
    spec::{Compact, ServerKind},
};

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

impl DisposableServer {
    /// For an interrupt: stops the server now and removes its socket folder.
    pub(super) fn stop_for_interrupt(&self) {
        stop(self.pid());
        if let Some(folder) = &self.folder {
            std::fs::remove_dir_all(folder).ok();
        }
    }
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
