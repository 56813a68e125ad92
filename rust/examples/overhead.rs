//! `cargo run --release -p redis-vs-doublets --example overhead [-- B N]`: what the harness adds to
//! a cell. For every operation of both suites on both doublets stores and on each server
//! BENCHMARK_SERVERS names (default Redis; a disposable one) in its three modes, the bench's own
//! measured iteration ([`Prepared::measure`]) is timed beside a bare loop making the same calls
//! (doublets' API; redis-rs commands, sent and their replies read), timed the same way: one clock
//! reading around each iteration's work, its undo untimed, the two alternating iteration by
//! iteration (each first in every other pair) so that whatever else the machine does falls on both
//! alike. Prints the medians of the rounds' times and of their ratios, and exits 1 if a Doublets
//! ratio exceeds 1.15 or a server's ratio 1.1 (the limits). OVERHEAD_FILTER=text keeps the
//! cells whose name contains it.

use std::{
    hint::black_box,
    time::{Duration, Instant},
};

use anyhow::{bail, Context};
use doublets::{data::Flow, Doublets};
use redis::{Arg, Value};
use redis_vs_doublets::{
    harness::{self, Background, Prepared},
    links::{self, DoubletsLinks, LinkRequest, LinksModel},
    load_spec,
    resp::store::{arg_bytes, Mode, RedisRequest, RedisStore},
    resp::{cleanup, server::Server},
    spec::Spec,
    store::{Model, Request, Store},
    typical::{self, DoubletsUsage, UsageModel, UsageRequest},
};

const ROUNDS: usize = 9;
const ROUND: Duration = Duration::from_millis(200);
const MIN_PAIRS: u32 = 50;

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<u64>());
    let sizes = [
        args.next().transpose()?.unwrap_or(1000),
        args.next().transpose()?.unwrap_or(100),
    ];
    let filter = std::env::var("OVERHEAD_FILTER").unwrap_or_default();
    let spec = load_spec()?;
    println!(
        "B={}, N={}: medians of {ROUNDS} rounds, bench and bare loop alternating every iteration",
        sizes[0], sizes[1]
    );
    println!(
        "{:<52} {:>12} {:>12} {:>7}",
        "cell", "bench", "bare loop", "ratio"
    );
    let mut compare = Compare {
        spec: &spec,
        sizes,
        filter,
        over: Vec::new(),
    };
    compare.suite::<LinkRequest, LinksModel, _>(
        "links",
        &["Doublets_United_Volatile"],
        links::united_store(None)?,
    )?;
    compare.suite::<LinkRequest, LinksModel, _>(
        "links",
        &["Doublets_Split_Volatile"],
        links::split_store(None)?,
    )?;
    compare.suite::<UsageRequest, UsageModel, _>(
        "typical",
        &["Doublets_United_Volatile"],
        typical::united_store(None)?,
    )?;
    compare.suite::<UsageRequest, UsageModel, _>(
        "typical",
        &["Doublets_Split_Volatile"],
        typical::split_store(None)?,
    )?;
    cleanup::stop_on_interrupt()?;
    // Disposable servers of the kinds BENCHMARK_SERVERS names (default: Redis).
    for server in Server::from_env(compare.spec, None)? {
        let modes = Mode::ALL.map(|m| server.backend(m));
        let modes = modes.each_ref().map(String::as_str);
        let links = server.store(LinkRequest::KEYS, false, Mode::ALL[0])?;
        compare
            .suite::<LinkRequest, LinksModel, _>("links", &modes, links)
            .and(server.release())?;
        let typical = server.store(UsageRequest::KEYS, false, Mode::ALL[0])?;
        compare
            .suite::<UsageRequest, UsageModel, _>("typical", &modes, typical)
            .and(server.release())?;
    }
    if !compare.over.is_empty() {
        bail!(
            "the harness adds more than its limit to a bare loop: {}",
            compare.over.join(", ")
        );
    }
    println!("every cell within its limit (Doublets 1.15×, Redis 1.1×) of its bare loop");
    Ok(())
}

struct Compare<'s> {
    spec: &'s Spec,
    sizes: [u64; 2],
    filter: String,
    /// The cells over their limit.
    over: Vec<String>,
}

impl Compare<'_> {
    /// Loads the suite's background into `store`, checked, then compares every operation as each
    /// of `backends` (the store's modes).
    fn suite<R: Request, M: Model<R>, S: Store<R> + Bare<R>>(
        &mut self,
        suite: &str,
        backends: &[&str],
        mut store: S,
    ) -> anyhow::Result<()> {
        let backend = backends.join(", ");
        let suite = self.spec.suite(suite).context("no such suite")?;
        let (requests, prepared) = harness::plan::<R>(suite, &self.sizes)?;
        let mut model = M::default();
        model.run(&requests, |_| {})?;
        let expected = suite
            .background_expected
            .tally(&self.sizes)
            .map_err(anyhow::Error::msg)?;
        let (mut background, _) =
            Background::load(&mut store, &mut model, &requests, expected, 0, &backend)?;
        for (k, backend) in backends.iter().enumerate() {
            store.switch(k);
            let limit = if backend.starts_with("Doublets") {
                1.15
            } else {
                1.1
            };
            for prepared in &prepared {
                let cell = format!("{}/{}/{backend}", suite.id, prepared.operation.id);
                if !cell.contains(&self.filter) {
                    continue;
                }
                // The measured iteration is only ever timed after its checked one, as in the bench.
                harness::cell(prepared, &mut store, &mut background, &cell, |_| {})?;
                let (bench, bare, ratio) = compare(&mut store, prepared, &cell);
                if ratio > limit {
                    self.over.push(format!("{cell} {ratio:.2}×"));
                }
                println!(
                    "{cell:<52} {:>9.1} ns {:>9.1} ns {ratio:>6.2}×",
                    bench * 1e9,
                    bare * 1e9
                );
            }
        }
        background.verify(&mut store, &backend)?;
        Ok(())
    }
}

/// Seconds per iteration: the bench's, the bare loop's, and the median of the rounds' ratios. The
/// two alternate iteration by iteration, so that whatever else the machine does falls on both
/// alike, each going first in every other pair, so that neither always inherits the caches the
/// other left; the ratio is taken round by round, where the two sides ran side by side.
fn compare<R: Request, S: Store<R> + Bare<R>>(
    store: &mut S,
    prepared: &Prepared<'_, R>,
    cell: &str,
) -> (f64, f64, f64) {
    let (mut bench, mut bare, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    let bare_loop = |store: &mut S| {
        let began = Instant::now();
        black_box(store.bare(&prepared.work));
        let elapsed = began.elapsed();
        store.bare(&prepared.undo);
        elapsed
    };
    for _ in 0..ROUNDS {
        let (mut timed, mut count) = ([Duration::ZERO; 2], 0u32);
        let start = Instant::now();
        // At least MIN_PAIRS pairs: a round trip varies more than an in-process call.
        while start.elapsed() < ROUND || count < MIN_PAIRS {
            if count % 2 == 0 {
                timed[0] += prepared.measure(store, cell);
                timed[1] += bare_loop(store);
            } else {
                timed[1] += bare_loop(store);
                timed[0] += prepared.measure(store, cell);
            }
            count += 1;
        }
        let [ours, theirs] = timed.map(|t| t.as_secs_f64() / f64::from(count));
        bench.push(ours);
        bare.push(theirs);
        ratios.push(ours / theirs);
    }
    (median(bench), median(bare), median(ratios))
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The doublets calls a batch stands for, with nothing around them but a sum of what they return,
/// so that no call can be optimised away.
trait Bare<R> {
    fn bare(&mut self, batch: &[R]) -> u64;

    /// Readies the store for its k-th backend (a Redis store's mode).
    fn switch(&mut self, _k: usize) {}
}

/// redis-rs as its user calls it: the same commands, sent one by one, in one MULTI/EXEC, or
/// pipelined in windows of at most `window` bytes of commands, every reply read as its user reads
/// it ([`read`]).
impl<R: RedisRequest> Bare<R> for RedisStore {
    fn bare(&mut self, batch: &[R]) -> u64 {
        if batch.is_empty() {
            return 0; // an empty pipeline is not a command
        }
        let mut pairs = Vec::with_capacity(batch.len());
        let sum = match self.mode {
            Mode::NonTransaction => batch.iter().try_fold(0u64, |sum, r| {
                let command = r.command(self.calls);
                let reply = command.query::<Value>(&mut self.con)?;
                Ok(sum.wrapping_add(read(hgetall(&command), &reply)))
            }),
            Mode::Transaction => {
                let mut pipe = redis::pipe();
                pipe.atomic();
                batch.iter().for_each(|r| {
                    let command = r.command(self.calls);
                    pairs.push(hgetall(&command));
                    pipe.add_command(command);
                });
                pipe.query::<Vec<Value>>(&mut self.con)
                    .map(|replies| read_all(&pairs, &replies))
            }
            Mode::Pipeline => {
                let (mut pipe, mut bytes, mut replies) = (redis::pipe(), 0, Vec::new());
                for request in batch {
                    let command = request.command(self.calls);
                    let size: usize = command.args_iter().map(arg_bytes).sum();
                    if bytes > 0 && bytes + size > self.window {
                        let window = pipe.query::<Vec<Value>>(&mut self.con);
                        replies.extend(window.expect("a bare Redis window failed"));
                        (pipe, bytes) = (redis::pipe(), 0);
                    }
                    bytes += size;
                    pairs.push(hgetall(&command));
                    pipe.add_command(command);
                }
                pipe.query::<Vec<Value>>(&mut self.con).map(|last| {
                    replies.extend(last);
                    read_all(&pairs, &replies)
                })
            }
        };
        sum.expect("a bare Redis batch failed")
    }

    fn switch(&mut self, k: usize) {
        self.mode = Mode::ALL[k];
    }
}

/// Whether a command's reply alternates ids with text: HGETALL's field names are the links' ids,
/// its values their "source:target".
fn hgetall(command: &redis::Cmd) -> bool {
    matches!(command.args_iter().next(), Some(Arg::Simple(b"HGETALL")))
}

/// A reply as its user reads it, the same in experiments/harness-overhead: an integer as a number,
/// an array's ids as numbers (every item; every other one after HGETALL), any other reply kept as
/// it came.
fn read(pairs: bool, reply: &Value) -> u64 {
    match reply {
        Value::Int(n) => *n as u64,
        Value::Array(items) | Value::Set(items) => items
            .iter()
            .step_by(if pairs { 2 } else { 1 })
            .map(|item| redis::from_redis_value_ref::<u64>(item).expect("a bare reply's id"))
            .fold(0, u64::wrapping_add),
        _ => 1,
    }
}

fn read_all(pairs: &[bool], replies: &[Value]) -> u64 {
    pairs
        .iter()
        .zip(replies)
        .map(|(&pairs, reply)| read(pairs, reply))
        .fold(0, u64::wrapping_add)
}

impl<S: Doublets<u64>> Bare<LinkRequest> for DoubletsLinks<S> {
    fn bare(&mut self, batch: &[LinkRequest]) -> u64 {
        let store = self.store_mut();
        let any = store.constants().any;
        let mut sum = 0u64;
        for request in batch {
            let id = match *request {
                LinkRequest::CreatePoint => store.create_point(),
                LinkRequest::Create { source, target } => store.create_link(source, target),
                LinkRequest::Update { id, source, target } => store.update(id, source, target),
                LinkRequest::Delete { id } => store.delete(id),
                LinkRequest::Each(q) => {
                    let query = [
                        q.id.unwrap_or(any),
                        q.source.unwrap_or(any),
                        q.target.unwrap_or(any),
                    ];
                    store.each_by(query, |link| {
                        sum = sum.wrapping_add(link.index);
                        Flow::Continue
                    });
                    Ok(0)
                }
            };
            sum = sum.wrapping_add(id.unwrap_or(0));
        }
        sum
    }
}

/// The typical structures are the store's own composition of doublets calls: the bare loop runs
/// each request's calls without the batch's validation and the harness's tally.
impl<S: Doublets<u64>> Bare<UsageRequest> for DoubletsUsage<S> {
    fn bare(&mut self, batch: &[UsageRequest]) -> u64 {
        let mut sum = 0u64;
        for request in batch {
            let _ = self.run_one(*request, &mut |entry| sum = sum.wrapping_add(entry.value));
        }
        sum
    }
}
