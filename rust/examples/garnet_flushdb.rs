//! `cargo run --release -p redis-vs-doublets --example garnet_flushdb`: why the benches empty a
//! database key by key and never with FLUSHDB. On a disposable Garnet (the spec's), four rounds of
//! the KeyValue Delete cell's work as a bare loop: 1,000 keys, then iterations of 100 DELs of
//! existing keys and 100 SETs that put them back, each pipelined, every DEL's reply counted. Each
//! round starts from an empty database, emptied the way the round names: FLUSHDB, or SCAN and
//! UNLINK. Prints how many DELs of a key that existed answered 0; exits 1 if a round emptied key by
//! key saw any (the benches would then need another way).
//!
//! Seen here with Garnet 2.2.8: a fresh server answers every DEL right; after a FLUSHDB, one
//! iteration in some thousands answers 0 for tens of its 100 existing keys (and deletes them), so
//! a checked cell fails for the server's fault. Emptied key by key, every round is right.

use anyhow::{bail, Context};
use redis::Connection;
use redis_vs_doublets::{load_spec, resp::server::Server};

const KEYS: u64 = 1_000;
const ITERATIONS: u32 = 8_000;

fn main() -> anyhow::Result<()> {
    let spec = load_spec()?;
    let garnet = spec
        .servers
        .iter()
        .find(|s| s.id == "garnet")
        .context("the spec declares no garnet server")?;
    // One server for every round: each after the first follows a round on it, as a suite follows
    // another in a bench run.
    let server = Server::start(garnet, None)?;
    let mut con = server.connect()?;
    let mut wrong_after_scan = 0;
    for emptying in [
        "nothing (a fresh server)",
        "FLUSHDB",
        "SCAN and UNLINK",
        "FLUSHDB",
        "SCAN and UNLINK",
    ] {
        match emptying {
            "FLUSHDB" => redis::cmd("FLUSHDB").exec(&mut con)?,
            "SCAN and UNLINK" => unlink_all(&mut con)?,
            _ => {}
        }
        let (wrong, iterations) = round(&mut con)?;
        println!(
            "emptied by {emptying}: {wrong} DELs of existing keys answered 0, in {iterations} of {ITERATIONS} iterations"
        );
        if emptying == "SCAN and UNLINK" {
            wrong_after_scan += wrong;
        }
    }
    if wrong_after_scan > 0 {
        bail!("{wrong_after_scan} wrong DEL replies even on a database emptied key by key");
    }
    Ok(())
}

/// One round: the keys loaded, then the iterations; the wrong replies and the iterations with any.
fn round(con: &mut Connection) -> anyhow::Result<(u64, u32)> {
    let mut load = redis::pipe();
    (1..=KEYS).for_each(|k| {
        load.cmd("SET").arg(format!("k:{k}")).arg(k).ignore();
    });
    load.exec(con)?;
    let (mut wrong, mut iterations) = (0, 0);
    for _ in 0..ITERATIONS {
        let mut delete = redis::pipe();
        (KEYS - 99..=KEYS).rev().for_each(|k| {
            delete.cmd("DEL").arg(format!("k:{k}"));
        });
        let replies: Vec<u64> = delete.query(con)?;
        let zeros = replies.iter().filter(|&&r| r == 0).count() as u64;
        if zeros > 0 {
            wrong += zeros;
            iterations += 1;
        }
        let mut restore = redis::pipe();
        (KEYS - 99..=KEYS).for_each(|k| {
            restore.cmd("SET").arg(format!("k:{k}")).arg(k).ignore();
        });
        restore.exec(con)?;
    }
    Ok((wrong, iterations))
}

fn unlink_all(con: &mut Connection) -> anyhow::Result<()> {
    let mut cursor = 0u64;
    loop {
        let (next, keys): (u64, Vec<String>) = redis::cmd("SCAN")
            .arg(cursor)
            .arg("COUNT")
            .arg(10_000)
            .query(con)?;
        if !keys.is_empty() {
            redis::cmd("UNLINK").arg(keys).exec(con)?;
        }
        if next == 0 {
            return Ok(());
        }
        cursor = next;
    }
}
