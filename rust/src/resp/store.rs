//! A RESP server (Redis, Garnet) as a store, in the three modes the benches compare, over one
//! connection and one loaded data set (the modes only change how a batch travels).

use std::fmt;

use anyhow::{bail, Context};
use redis::{Cmd, Connection, ConnectionLike, Value};

use crate::{
    resp::{library::Calls, process::DisposableServer},
    split::Reading,
    store::{Census, Request, Store},
};

/// How the requests of one iteration reach the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Each request is one round trip.
    NonTransaction,
    /// The iteration's requests in one MULTI/EXEC.
    Transaction,
    /// The iteration's requests pipelined, in windows of the spec's pipeline_window_bytes.
    Pipeline,
}

impl Mode {
    pub const ALL: [Mode; 3] = [Mode::NonTransaction, Mode::Transaction, Mode::Pipeline];

    /// The mode's part of a backend name: `Redis_Pipeline` is Redis in `Pipeline`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::NonTransaction => "NonTransaction",
            Mode::Transaction => "Transaction",
            Mode::Pipeline => "Pipeline",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How many commands one loading or checking pipeline carries.
pub const CHUNK: usize = 10_000;

/// A request that Redis answers with one command.
pub trait RedisRequest: Request {
    /// SCAN patterns that cover every key the suite writes, so a run can remove exactly its own.
    const KEYS: &'static [&'static str];

    /// The command, calling the library's functions (if it does) as `calls` says.
    fn command(&self, calls: &Calls) -> Cmd;

    /// Reports what the reply to [`RedisRequest::command`] found or changed.
    fn decode(&self, reply: Value, found: &mut impl FnMut(Self::Found)) -> anyhow::Result<()>;

    /// Loads background data; the default pipelines the requests in chunks.
    fn load<C: ConnectionLike>(
        store: &mut RedisStore<C>,
        batch: &[Self],
        found: &mut impl FnMut(Self::Found),
    ) -> anyhow::Result<()> {
        for chunk in batch.chunks(CHUNK) {
            store.pipelined(chunk, false, found)?;
        }
        Ok(())
    }
}

/// One database of a server holding a suite's data, reached in `mode` over `con` (a client's
/// connection; tests put one that damages replies in its place).
pub struct RedisStore<C = Connection> {
    pub con: C,
    pub mode: Mode,
    /// How this server calls the library's functions.
    pub calls: &'static Calls,
    /// The most bytes of commands a pipeline writes before reading their replies.
    pub window: usize,
    /// The server answers DEBUG DIGEST for this run: a disposable one whose spec says so (a
    /// digest covers every database, and a server the run did not start may use others).
    pub digest: bool,
    /// The INFO persistence fields that count every change to the server's data
    /// ([`crate::spec::ServerKind::changes`]).
    pub changes: Vec<String>,
    /// The server reports where its time goes ([`crate::split`]): its spec gives no split_missing.
    pub split: bool,
    /// A durable server this run started, which the store restarts on its files after each cell.
    pub restarts: Option<Restarts<C>>,
}

impl<C: ConnectionLike> RedisStore<C> {
    /// Sends `batch` as one pipeline (atomic: in MULTI/EXEC) and decodes every reply. A pipeline
    /// goes in windows of at most `window` bytes of commands (a command larger than that alone),
    /// each window's replies read before the next is written: redis-rs writes a whole pipeline
    /// before reading, and a server that stops reading while its replies wait (Garnet does past
    /// about 10 MB) would otherwise never answer. A transaction cannot be split, and needs no
    /// windows: its commands are answered QUEUED until EXEC.
    pub fn pipelined<R: RedisRequest>(
        &mut self,
        batch: &[R],
        atomic: bool,
        found: &mut impl FnMut(R::Found),
    ) -> anyhow::Result<()> {
        let mut pipe = redis::pipe();
        if atomic {
            pipe.atomic();
        }
        let (mut start, mut bytes) = (0, 0);
        for (k, request) in batch.iter().enumerate() {
            let command = request.command(self.calls);
            let size: usize = command.args_iter().map(arg_bytes).sum();
            if !atomic && k > start && bytes + size > self.window {
                self.window_of(&pipe, &batch[start..k], found)?;
                pipe.clear();
                (start, bytes) = (k, 0);
            }
            bytes += size;
            pipe.add_command(command);
        }
        self.window_of(&pipe, &batch[start..], found)
    }

    /// Sends one window of a pipeline and decodes its replies.
    fn window_of<R: RedisRequest>(
        &mut self,
        pipe: &redis::Pipeline,
        requests: &[R],
        found: &mut impl FnMut(R::Found),
    ) -> anyhow::Result<()> {
        if requests.is_empty() {
            return Ok(()); // an empty pipeline is not a command
        }
        let replies: Vec<Value> = pipe
            .query(&mut self.con)
            .context("a pipelined batch failed")?;
        if replies.len() != requests.len() {
            bail!("{} replies to {} requests", replies.len(), requests.len());
        }
        for (request, reply) in requests.iter().zip(replies) {
            request.decode(reply, found)?;
        }
        Ok(())
    }
}

/// The bytes an argument of a command carries (a cursor argument, which SCAN's iterator fills in,
/// counts as none).
pub fn arg_bytes(arg: redis::Arg<&[u8]>) -> usize {
    match arg {
        redis::Arg::Simple(bytes) => bytes.len(),
        _ => 0,
    }
}

/// A durable server this run started, which its store restarts on its files after each cell,
/// and how the store connects to it again.
pub struct Restarts<C> {
    pub server: std::sync::Arc<DisposableServer>,
    pub connect: fn(&str) -> anyhow::Result<C>,
    /// For a server that runs the library as a script (Garnet), its description: a restart
    /// empties its script cache, so the library is loaded again.
    pub script: Option<String>,
}

impl<R: RedisRequest, C: ConnectionLike> Store<R> for RedisStore<C> {
    fn run(&mut self, batch: &[R], mut found: impl FnMut(R::Found)) -> anyhow::Result<()> {
        R::validate(batch)?;
        match self.mode {
            Mode::NonTransaction => {
                for request in batch {
                    let reply = request
                        .command(self.calls)
                        .query(&mut self.con)
                        .with_context(|| format!("{request:?}"))?;
                    request.decode(reply, &mut found)?;
                }
                Ok(())
            }
            Mode::Transaction => self.pipelined(batch, true, &mut found),
            Mode::Pipeline => self.pipelined(batch, false, &mut found),
        }
    }

    fn load(&mut self, batch: &[R], mut found: impl FnMut(R::Found)) -> anyhow::Result<()> {
        R::validate(batch)?;
        R::load(self, batch, &mut found)
    }

    fn check(&mut self, batch: &[R], mut found: impl FnMut(R::Found)) -> anyhow::Result<()> {
        self.pipelined(batch, false, &mut found)
    }

    fn census(&mut self) -> anyhow::Result<Census> {
        Ok(Census(vec![(
            "keys",
            redis::cmd("DBSIZE").query(&mut self.con)?,
        )]))
    }

    fn digest(&mut self) -> anyhow::Result<Option<String>> {
        if !self.digest {
            return Ok(None);
        }
        let digest: String = redis::cmd("DEBUG")
            .arg("DIGEST")
            .query(&mut self.con)
            .context(
            "DEBUG DIGEST (the spec's start command must allow it: --enable-debug-command local)",
        )?;
        Ok(Some(digest))
    }

    /// A durable server is stopped (it syncs its file) and started again on its file; the store
    /// connects again. A disposable server holds the run's database alone, so nothing else needs
    /// claiming again, and its library of functions is in its file with the data (a library
    /// loaded as a script is not, and is loaded again).
    fn restart(&mut self) -> anyhow::Result<bool> {
        let Some(restarts) = &self.restarts else {
            return Ok(false);
        };
        restarts.server.restart()?;
        self.con = (restarts.connect)(&restarts.server.url)?;
        if let Some(described) = &restarts.script {
            crate::resp::library::load_script(&mut self.con, described)?;
        }
        Ok(true)
    }

    fn reading(&mut self) -> anyhow::Result<Option<Reading>> {
        if !self.split {
            return Ok(None);
        }
        let info: String = redis::cmd("INFO")
            .arg(&Reading::SECTIONS)
            .query(&mut self.con)?;
        Reading::parse(&info).map(Some)
    }

    fn changes(&mut self) -> anyhow::Result<Option<String>> {
        if self.changes.is_empty() {
            return Ok(None);
        }
        let info: String = redis::cmd("INFO").arg("persistence").query(&mut self.con)?;
        let values = self.changes.iter().map(|field| {
            info.lines()
                .find_map(|line| line.strip_prefix(field.as_str())?.strip_prefix(':'))
                .map(|value| format!("{field}:{}", value.trim()))
                .with_context(|| format!("INFO persistence has no {field}"))
        });
        Ok(Some(values.collect::<anyhow::Result<Vec<_>>>()?.join(" ")))
    }
}
