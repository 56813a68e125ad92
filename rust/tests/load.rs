//! The load measurement's cell on real stores: concurrent clients are checked reply by reply, a
//! store that answers one request wrongly fails the cell (no figure), the clients stop by
//! themselves, and redis-benchmark beside a server leaves nothing behind.

mod common;

use std::time::{Duration, Instant};

use redis_vs_doublets::{
    links::{self, Link, LinkRequest, LinksModel},
    load::{self, Shared, Timing},
    redis_benchmark,
    resp::store::Mode,
    spec::Spec,
    store::{Census, Request, Store},
    typical::{UsageModel, UsageRequest},
};

const TIMING: Timing = Timing {
    warm_up: Duration::from_millis(50),
    measured: Duration::from_millis(200),
};

fn operation<'s>(spec: &'s Spec, suite: &str, id: &str) -> &'s redis_vs_doublets::spec::Operation {
    let suite = spec.suite(suite).unwrap();
    suite.operations.iter().find(|o| o.id == id).unwrap()
}

/// A client that reports one wrong link: on its `at`-th call, the first link it found gets
/// another id. The store itself is untouched, so only the reply check can catch it.
struct Damaging<C> {
    inner: C,
    calls: u32,
    at: u32,
}

impl<C: Store<LinkRequest>> Store<LinkRequest> for Damaging<C> {
    fn run(&mut self, batch: &[LinkRequest], mut found: impl FnMut(Link)) -> anyhow::Result<()> {
        self.calls += 1;
        let mut first = self.calls == self.at;
        self.inner.run(batch, |mut link| {
            if std::mem::take(&mut first) {
                link.id += 1;
            }
            found(link)
        })
    }

    fn census(&mut self) -> anyhow::Result<Census> {
        self.inner.census()
    }
}

#[test]
fn doublets_clients_share_one_store_and_every_reply_is_checked() {
    let spec = common::spec();
    let sizes = [256, 256];
    for id in ["each_outgoing", "update"] {
        let store = Shared::new(links::united_store(None).unwrap());
        let mut main = store.client();
        let mut model = LinksModel::default();
        let mut background = common::load(&mut main, &mut model, "links", &sizes, 256, id);
        let op = operation(&spec, "links", id);
        let plans = load::plans(op, &sizes, background.model, 4, 16).unwrap();
        assert_eq!(plans.len(), 4);
        let clients: Vec<_> = (0..4).map(|_| store.client()).collect();
        let started = Instant::now();
        let (requests, per_second, latency) =
            load::cell(&mut main, &mut background, clients, &plans, TIMING, id).unwrap();
        // The clients stop by themselves once the time is up.
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(
            requests > 0 && per_second > 0.0,
            "{id}: {requests} requests"
        );
        assert!(latency.p50 > 0 && latency.p50 <= latency.p99 && latency.p99 <= latency.max);
    }
}

#[test]
fn a_wrong_reply_under_load_fails_the_cell() {
    let spec = common::spec();
    let sizes = [256, 256];
    let store = Shared::new(links::split_store(None).unwrap());
    let mut main = store.client();
    let mut model = LinksModel::default();
    let mut background = common::load(&mut main, &mut model, "links", &sizes, 256, "damaged");
    let op = operation(&spec, "links", "each_concrete");
    let plans = load::plans(op, &sizes, background.model, 2, 16).unwrap();
    let clients = vec![
        Damaging {
            inner: store.client(),
            calls: 0,
            at: u32::MAX,
        },
        Damaging {
            inner: store.client(),
            calls: 0,
            at: 1000,
        },
    ];
    let Err(e) = load::cell(
        &mut main,
        &mut background,
        clients,
        &plans,
        TIMING,
        "damaged",
    ) else {
        panic!("a damaged reply gave figures");
    };
    let e = format!("{e:#}");
    assert!(
        e.contains("client 2 of 2") && e.contains("a wrong reply"),
        "{e}"
    );
}

/// A client held up on its first call for longer than the whole run, as a starved writer is.
struct Stalled<C> {
    inner: C,
    stall: Option<Duration>,
}

impl<C: Store<LinkRequest>> Store<LinkRequest> for Stalled<C> {
    fn run(&mut self, batch: &[LinkRequest], found: impl FnMut(Link)) -> anyhow::Result<()> {
        if let Some(stall) = self.stall.take() {
            std::thread::sleep(stall);
        }
        self.inner.run(batch, found)
    }

    fn census(&mut self) -> anyhow::Result<Census> {
        self.inner.census()
    }
}

#[test]
fn a_client_kept_waiting_shows_as_its_slow_batch() {
    let sizes = [256, 256];
    let store = Shared::new(links::united_store(None).unwrap());
    let mut main = store.client();
    let mut model = LinksModel::default();
    let mut background = common::load(&mut main, &mut model, "links", &sizes, 256, "stalled");
    let spec = common::spec();
    let op = operation(&spec, "links", "update");
    let plans = load::plans(op, &sizes, background.model, 2, 16).unwrap();
    let stall = TIMING.warm_up + TIMING.measured + Duration::from_millis(50);
    let clients = vec![
        Stalled {
            inner: store.client(),
            stall: None,
        },
        Stalled {
            inner: store.client(),
            stall: Some(stall),
        },
    ];
    // Its one batch began in the warm-up and ended after the measured time: it counts, and its
    // wait is the maximum, rather than the client counting as having done nothing.
    let (_, _, latency) = load::cell(
        &mut main,
        &mut background,
        clients,
        &plans,
        TIMING,
        "stalled",
    )
    .unwrap();
    assert!(latency.max >= stall.as_nanos() as u64, "{latency:?}");
}

#[test]
fn server_clients_are_checked_and_redis_benchmark_leaves_nothing() {
    let spec = common::spec();
    let sizes = [200, 200];
    let server = common::server();
    let mut main = common::redis(&server, Mode::Pipeline);
    let mut model = UsageModel::default();
    let mut background = common::load(&mut main, &mut model, "typical", &sizes, 400, "Redis");
    for (id, depth) in [
        ("kv_set", 1),
        ("counter_increment", 16),
        ("set_contains", 16),
    ] {
        let op = operation(&spec, "typical", id);
        let plans = load::plans::<UsageRequest, _>(op, &sizes, background.model, 3, depth).unwrap();
        let mode = if depth == 1 {
            Mode::NonTransaction
        } else {
            Mode::Pipeline
        };
        let clients: Vec<_> = (0..3).map(|_| server.join(mode).unwrap()).collect();
        let (requests, _, _) =
            load::cell(&mut main, &mut background, clients, &plans, TIMING, id).unwrap();
        assert!(requests > 0, "{id}");
    }
    let report = redis_benchmark::run(&server, "get", 2, 16, 2_000, 200).unwrap();
    assert!(report.per_second > 0.0 && report.p50_ms <= report.max_ms);
    // Its keys are gone, and the suite's are exactly as loaded.
    background
        .verify(&mut main, "after redis-benchmark")
        .unwrap();
}

#[test]
fn an_operation_the_model_refuses_or_a_share_too_small_is_an_error() {
    let spec = common::spec();
    let op = operation(&spec, "links", "update");
    let mut model = LinksModel::default();
    // 8 links for 4 clients leave each 2 steps: fewer than a batch of 16 requests (8 steps).
    let e = load::plans::<LinkRequest, _>(op, &[8, 8], &mut model, 4, 16)
        .err()
        .unwrap();
    assert!(e.to_string().contains("fewer than one batch"), "{e}");
    // With no background in the model, updating link 1 is refused before anything runs.
    let e = load::plans::<LinkRequest, _>(op, &[64, 64], &mut model, 1, 16)
        .err()
        .unwrap();
    assert!(e.to_string().contains("the model refuses"), "{e}");
    assert!(LinkRequest::build("each", &[None, Some(1), None])
        .unwrap()
        .reads());
}
