//! The interface every store implements, so one harness drives doublets, Redis and the plain models.

use std::fmt;

/// A request a suite's stores understand, built from a spec template (`update i 0 0`).
pub trait Request: Sized + Clone + fmt::Debug {
    /// What a request reports: a link, a value.
    type Found: Copy + Ord + fmt::Debug;

    /// Builds a request from a verb and its arguments (`None` is `*`), or says why it cannot.
    fn build(verb: &str, args: &[Option<u64>]) -> Result<Self, String>;

    /// The number the spec's expected results count for a found item (a link id, a value).
    fn id(found: &Self::Found) -> u64;

    /// Whether the request only reads, by a path [`SharedRead::read`] takes: concurrent clients of
    /// an in-process store run such requests under a shared lock.
    fn reads(&self) -> bool;

    /// Checks a batch before any of it runs, so a bad argument writes nothing.
    fn validate(_batch: &[Self]) -> anyhow::Result<()> {
        Ok(())
    }
}

/// Counts that pin a store's size down (Redis: the keys in the database; doublets: its links).
/// Probes check the ids an operation can reach; the census catches what lies beyond them, such as
/// a stale key above B+N. Taken after the checked load, it must stay the same after every cell.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Census(pub Vec<(&'static str, u64)>);

impl fmt::Display for Census {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .0
            .iter()
            .map(|(what, n)| format!("{n} {what}"))
            .collect();
        f.write_str(&parts.join(", "))
    }
}

/// A store that runs batches of requests: one batch is one benchmark iteration.
pub trait Store<R: Request> {
    /// Runs `batch` and reports every link or value it found or changed, in request order (the order
    /// within one query's results is the store's own). Returns only when every request is done.
    fn run(&mut self, batch: &[R], found: impl FnMut(R::Found)) -> anyhow::Result<()>;

    /// Loads background data; a store may use a faster path than `run`, with the same result.
    fn load(&mut self, batch: &[R], found: impl FnMut(R::Found)) -> anyhow::Result<()> {
        self.run(batch, found)
    }

    /// Runs read-only requests for a check, by the fastest path the store has (checks are not
    /// measured, and a million one-round-trip probes would take minutes).
    fn check(&mut self, batch: &[R], found: impl FnMut(R::Found)) -> anyhow::Result<()> {
        self.run(batch, found)
    }

    /// The store's own counts of what it holds.
    fn census(&mut self) -> anyhow::Result<Census>;

    /// A digest of everything the store holds, computed where the data is ([`crate::digest`]), or
    /// `None` where it has none: its checks then read the whole background back.
    fn digest(&mut self) -> anyhow::Result<Option<String>> {
        Ok(None)
    }

    /// The store's own count of every change made to its data, by any client, where it keeps one
    /// that never goes back (else `None`): while it stays, nothing wrote, so a read-only cell that
    /// leaves it as the last check found it left the background as that check proved it.
    fn changes(&mut self) -> anyhow::Result<Option<String>> {
        Ok(None)
    }

    /// Closes a durable store and opens it again from what it keeps (its files), for the check
    /// after each cell; `false` for a store that keeps nothing.
    fn restart(&mut self) -> anyhow::Result<bool> {
        Ok(false)
    }

    /// What a server reports it has done so far ([`crate::split`]), or `None` for a store that
    /// reports nothing (an in-process one, or a server that does not).
    fn reading(&mut self) -> anyhow::Result<Option<crate::split::Reading>> {
        Ok(None)
    }
}

/// A store several threads may read at once (doublets: readers share a store; writers need it
/// alone). `read` runs requests that only read, through a shared reference.
pub trait SharedRead<R: Request>: Store<R> {
    fn read(&self, batch: &[R], found: impl FnMut(R::Found)) -> anyhow::Result<()>;
}

/// The plain model a suite's stores are checked against.
pub trait Model<R: Request>: Store<R> + Default {
    /// Read-only requests whose answers pin the whole state down (every link, key, queue entry and
    /// member), probing ids at least up to `up_to` to catch leftovers of undone work.
    fn probes(&self, up_to: u64) -> Vec<R>;

    /// Read-only requests that pin down what lies around `found` (what one operation reported):
    /// with the store's counts they show that undoing the operation restored it, without probing
    /// the whole background.
    fn probes_around(&self, found: &[R::Found]) -> Vec<R>;
}
