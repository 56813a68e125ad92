//! What each store holds in memory once a suite's background is loaded and checked (the spec's
//! `memory` section says what is measured and how; `src/bin/memory.rs` runs it).
//!
//! - Doublets: the bytes its memory blocks hold in use and have reserved (its own accounting, read
//!   through [`crate::blocks::Counted`]), and the growth of the resident memory of a process that holds nothing
//!   but the store: the figure is taken before the model exists, and the store is checked after.
//! - A server: `used_memory` growth, `used_memory_dataset`, and the server's RSS growth and total
//!   from `INFO memory` (Garnet's fields for the same, see [`InfoMemory`]), read before and after
//!   the checked load, with the allocator it names.

use anyhow::{anyhow, bail, Context};

use crate::{
    blocks::Footprint,
    harness,
    resp::server::Server,
    resp::store::{Mode, RedisRequest},
    spec::{Suite, Tally},
    store::{Model, Request, Store},
};

pub use contract::memory::{Figure, MemoryRun};

/// The figures as a plain-text table, a block per suite, each store against Redis.
pub fn table(spec: &crate::spec::Spec, figures: &[Figure]) -> String {
    use std::fmt::Write;
    let human = |n: u64| crate::preflight::bytes(n.into());
    let mut out = String::new();
    for suite in &spec.suites {
        let rows: Vec<&Figure> = figures.iter().filter(|f| f.suite == suite.id).collect();
        let Some(first) = rows.first() else { continue };
        let redis = rows.iter().copied().find(|f| f.backend == "Redis");
        writeln!(
            out,
            "{}, B = {}",
            suite.name.en,
            crate::grouped::Grouped(first.background)
        )
        .unwrap();
        writeln!(
            out,
            "{:<26} {:>12} {:>12} {:>12} {:>12} {:>12} {:>9}",
            "store", "accounted", "reserved", "RSS growth", "RSS total", "per B", "vs Redis"
        )
        .unwrap();
        for f in &rows {
            let ratio = redis.filter(|r| r.rss_growth > 0).map_or("—".into(), |r| {
                format!("{:.2}×", f.rss_growth as f64 / r.rss_growth as f64)
            });
            writeln!(
                out,
                "{:<26} {:>12} {:>12} {:>12} {:>12} {:>12} {:>9}",
                f.backend,
                human(f.accounted),
                f.reserved.map_or("—".into(), human),
                human(f.rss_growth),
                human(f.rss_total),
                format!("{:.0} B", f.per_background()),
                ratio
            )
            .unwrap();
        }
        if let Some(allocator) = redis.and_then(|r| r.allocator.as_deref()) {
            writeln!(out, "(Redis allocator: {allocator})").unwrap();
        }
        out.push('\n');
    }
    out
}

/// The resident memory of this process, in bytes, after the allocator has returned what it holds
/// free to the system (glibc keeps freed heap pages resident and hands them out again, so a store
/// could grow into memory the harness freed and seem smaller than it is).
pub fn rss() -> anyhow::Result<u64> {
    // SAFETY: malloc_trim only releases free memory of glibc's own heap.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        libc::malloc_trim(0);
    }
    memory_stats::memory_stats()
        .map(|m| m.physical_mem as u64)
        .context("cannot read this process's resident memory")
}

/// Loads a suite's background into a fresh doublets store in this process, which must hold nothing
/// else of size, and measures it; then checks the store against the model (built only after the
/// figures are taken, so that it is not counted). Returns no figure unless the check passes.
pub fn doublets<R: Request, M: Model<R>, S: Store<R> + Footprint>(
    suite: &Suite,
    backend: &str,
    sizes: &[u64],
    make: impl FnOnce() -> anyhow::Result<S>,
) -> anyhow::Result<Figure> {
    let what = format!("suite {} background", suite.id);
    let expected = suite
        .background_expected
        .tally(sizes)
        .map_err(anyhow::Error::msg)?;
    // The requests are built first and kept until after the second reading, so that both readings
    // hold them: the allocator would keep their pages resident even once they are freed.
    let requests: Vec<R> = harness::requests(&suite.background, sizes, &what)?;
    let before = rss()?;
    let mut store = make()?;
    let mut loaded = Tally::default();
    store
        .load(&requests, |f| loaded.add(R::id(&f)))
        .map_err(|e| anyhow!("{backend}: loading the background: {e:#}"))?;
    if loaded != expected {
        bail!("{backend}: loading the background reported {loaded}, expected {expected}");
    }
    let after = rss()?;
    let reserved = store.blocks().reserved();
    let links = store
        .census()?
        .0
        .first()
        .map(|(_, n)| *n)
        .context("a doublets store counts its links")?;
    // The load only creates, so the records in use are the links and the header record.
    let accounted = (links + 1) * store.blocks().per_link();
    drop(requests);
    // The process with nothing but the store (and the program itself).
    let total = rss()?;

    let requests: Vec<R> = harness::requests(&suite.background, sizes, &what)?;
    let mut model = M::default();
    model.run(&requests, |_| {})?;
    drop(requests);
    harness::verify(&mut store, &mut model, backend, 0)?;
    Ok(Figure {
        suite: suite.id.clone(),
        backend: backend.to_string(),
        background: sizes[0],
        accounted,
        reserved: Some(reserved),
        dataset: None,
        rss_growth: after.saturating_sub(before),
        rss_total: total,
        allocator: None,
    })
}

/// The fields of `INFO memory` the measurement reads. Redis and Garnet name them differently:
/// Garnet's own accounting is the size of its main store (index and log), its RSS the process's
/// physical memory, and it has no dataset figure and no allocator to name (the .NET GC).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InfoMemory {
    pub used_memory: u64,
    pub used_memory_dataset: Option<u64>,
    pub used_memory_rss: u64,
    pub mem_allocator: Option<String>,
}

impl InfoMemory {
    /// Parses the reply of `INFO memory` (`field:value` lines under `# Memory`): the first of each
    /// field's names that the reply has.
    pub fn parse(text: &str) -> anyhow::Result<Self> {
        let field = |names: &[&str]| -> Option<&str> {
            names.iter().find_map(|name| {
                text.lines()
                    .find_map(|l| l.trim().strip_prefix(name)?.strip_prefix(':'))
            })
        };
        let number = |names: &[&str]| -> anyhow::Result<Option<u64>> {
            field(names)
                .map(|value| {
                    value.parse().with_context(|| {
                        format!("INFO memory: {} is {value:?}, not a number", names[0])
                    })
                })
                .transpose()
        };
        let required = |names: &[&str]| -> anyhow::Result<u64> {
            number(names)?.with_context(|| format!("INFO memory has none of {}", names.join(", ")))
        };
        Ok(Self {
            used_memory: required(&["used_memory", "total_main_store_size"])?,
            used_memory_dataset: number(&["used_memory_dataset"])?,
            used_memory_rss: required(&["used_memory_rss", "proc_physical_memory_size"])?,
            mem_allocator: field(&["mem_allocator"]).map(str::to_string),
        })
    }

    /// Reads `INFO memory` once the server has sampled its RSS anew: `used_memory_rss` is taken by
    /// the server's cron (10 times a second by default), so a reading right after a load would
    /// show the RSS from before it.
    pub fn read(con: &mut redis::Connection) -> anyhow::Result<Self> {
        std::thread::sleep(std::time::Duration::from_millis(300));
        let text: String = redis::cmd("INFO").arg("memory").query(con)?;
        Self::parse(&text)
    }
}

/// Loads a suite's background into the server's claimed database, checked against the model, and
/// measures what the server holds for it; removes the suite's keys afterwards.
pub fn redis<R: RedisRequest, M: Model<R>>(
    server: &Server,
    suite: &Suite,
    sizes: &[u64],
    allow_flush: bool,
) -> anyhow::Result<Figure> {
    let mut store = server.store(R::KEYS, allow_flush, Mode::Pipeline)?;
    let measured = (|| -> anyhow::Result<Figure> {
        let before = InfoMemory::read(&mut store.con)?;
        let requests: Vec<R> = harness::requests(
            &suite.background,
            sizes,
            &format!("suite {} background", suite.id),
        )?;
        let expected = suite
            .background_expected
            .tally(sizes)
            .map_err(anyhow::Error::msg)?;
        let mut model = M::default();
        model.run(&requests, |_| {})?;
        // The checked load alone: no cell follows, so no digest is taken to compare with.
        harness::load(
            &mut store,
            &mut model,
            &requests,
            expected,
            &server.kind.name,
        )?;
        // The loading connection's buffers count in used_memory: read over a fresh connection,
        // as the first reading was, once that one is closed.
        drop(store);
        let after = InfoMemory::read(&mut server.connect()?)?;
        Ok(Figure {
            suite: suite.id.clone(),
            backend: server.kind.name.clone(),
            background: sizes[0],
            accounted: after.used_memory.saturating_sub(before.used_memory),
            reserved: None,
            dataset: after.used_memory_dataset,
            rss_growth: after.used_memory_rss.saturating_sub(before.used_memory_rss),
            rss_total: after.used_memory_rss,
            allocator: after.mem_allocator,
        })
    })();
    let released = server.release();
    let figure = measured?;
    released?;
    Ok(figure)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_memory_is_read_by_field() {
        let text = "# Memory\r\nused_memory:1048576\r\nused_memory_human:1.00M\r\n\
                    used_memory_rss:4194304\r\nused_memory_dataset:524288\r\n\
                    used_memory_dataset_perc:50.00%\r\nmem_allocator:jemalloc-5.3.0\r\n";
        assert_eq!(
            InfoMemory::parse(text).unwrap(),
            InfoMemory {
                used_memory: 1_048_576,
                used_memory_dataset: Some(524_288),
                used_memory_rss: 4_194_304,
                mem_allocator: Some("jemalloc-5.3.0".into()),
            }
        );
        let garnet = "# Memory\r\nproc_physical_memory_size:80019456\r\n\
                      total_main_store_size:176161792\r\n";
        assert_eq!(
            InfoMemory::parse(garnet).unwrap(),
            InfoMemory {
                used_memory: 176_161_792,
                used_memory_dataset: None,
                used_memory_rss: 80_019_456,
                mem_allocator: None,
            }
        );
        let missing = InfoMemory::parse("used_memory:1\r\n")
            .unwrap_err()
            .to_string();
        assert!(missing.contains("used_memory_rss"), "{missing}");
        let bad = InfoMemory::parse(&text.replace("4194304", "4M")).unwrap_err();
        assert!(
            bad.to_string().contains("used_memory_rss is \"4M\""),
            "{bad}"
        );
    }
}
