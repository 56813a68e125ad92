//! What a run wrote to a server it did not start, and its removal however the run ends (success,
//! failure, panic or Ctrl-C); and URLs as messages show them, without their passwords.

use std::{
    sync::{Arc, Mutex},
    thread,
};

use anyhow::Context;
use redis::{Client, Connection};

use crate::resp::{library::LIBRARY, process::DisposableServer};

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
pub(super) struct Written {
    /// SCAN patterns covering every key the claimed suites write.
    pub(super) patterns: Vec<&'static str>,
    /// Whether this run loaded the library (one already there belongs to someone else).
    pub(super) library: bool,
    /// The server's ids of the run's connections, so that an interrupt can stop their writes.
    pub(super) clients: Vec<i64>,
}

/// Removes what a run wrote to a server it did not start; shared with the Ctrl-C handler.
#[derive(Clone)]
pub struct Cleanup {
    client: Client,
    pub(super) written: Arc<Mutex<Written>>,
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
                Some(server) => server.stop_for_interrupt(),
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
    /// What removes the run's writes to the server `client` reaches, registered with `disposable`
    /// (the server's process, where the run started it) for an interrupt until [`Self::inactive`].
    pub(super) fn active(client: Client, disposable: Option<Arc<DisposableServer>>) -> Self {
        let cleanup = Self {
            client,
            written: Arc::default(),
        };
        let token = Arc::as_ptr(&cleanup.written) as usize;
        ACTIVE
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((token, disposable, cleanup.clone()));
        cleanup
    }

    /// No longer for an interrupt to stop or clean: its server is dropped.
    pub(super) fn inactive(&self) {
        let token = Arc::as_ptr(&self.written) as usize;
        ACTIVE
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|(t, ..)| *t != token);
    }

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
pub(super) fn delete_matching(con: &mut Connection, patterns: &[&str]) -> anyhow::Result<()> {
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
