//! What the store tests share: replaying random workloads against the model.
// Each test binary that includes this module uses only part of it.
#![allow(dead_code)]

use proptest::{prelude::*, test_runner::TestCaseError};
use redis_vs_doublets::{
    blocks::{Blocks, Footprint},
    harness,
    links::{Link, LinkRequest},
    resp::server::Server,
    resp::store::{Mode, RedisStore},
    spec::{ServerKind, Spec, SplitPlan},
    store::{Census, Model, Request, Store},
};

/// A store that silently forgets every `every`-th link it creates (it sets it to (0, 0)), while
/// reporting it created: the damage every check must catch.
pub struct Forgetful<S> {
    pub inner: S,
    every: u32,
    created: u32,
}

impl<S> Forgetful<S> {
    pub fn new(inner: S, every: u32) -> Self {
        Self {
            inner,
            every,
            created: 0,
        }
    }
}

impl<S: Store<LinkRequest>> Store<LinkRequest> for Forgetful<S> {
    fn run(&mut self, batch: &[LinkRequest], mut found: impl FnMut(Link)) -> anyhow::Result<()> {
        for request in batch {
            let mut reported = Vec::new();
            self.inner
                .run(std::slice::from_ref(request), |l| reported.push(l))?;
            if *request == LinkRequest::CreatePoint {
                self.created += 1;
                if self.created % self.every == 0 {
                    let forgotten = LinkRequest::Update {
                        id: reported[0].id,
                        source: 0,
                        target: 0,
                    };
                    self.inner.run(&[forgotten], |_| {})?;
                }
            }
            reported.into_iter().for_each(&mut found);
        }
        Ok(())
    }

    fn census(&mut self) -> anyhow::Result<Census> {
        self.inner.census()
    }
}

impl<S: Footprint> Footprint for Forgetful<S> {
    fn blocks(&self) -> &Blocks {
        self.inner.blocks()
    }
}

pub fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 48,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

pub fn spec() -> Spec {
    redis_vs_doublets::load_spec().unwrap()
}

/// The spec's server `id`.
pub fn kind(id: &str) -> ServerKind {
    spec().servers.into_iter().find(|s| s.id == id).unwrap()
}

/// A disposable Redis, as a run without REDIS_URL starts it.
pub fn server() -> Server {
    Server::start(&kind("redis"), None).unwrap()
}

/// A Redis store on a freshly emptied database of `server`, a disposable one (which holds only
/// what the tests wrote, so no key patterns are needed to clean it).
pub fn redis(server: &Server, mode: Mode) -> RedisStore {
    assert!(
        server.disposable.is_some(),
        "tests empty only their own servers"
    );
    server.store(&[], false, mode).unwrap()
}

/// Loads a suite's background at `sizes` into the store and the model, checked.
pub fn load<'m, R: Request, M: Model<R>>(
    store: &mut impl Store<R>,
    model: &'m mut M,
    suite: &str,
    sizes: &[u64],
    reaches: u64,
    name: &str,
) -> harness::Background<'m, M> {
    let spec = redis_vs_doublets::load_spec().unwrap();
    let suite = spec.suite(suite).unwrap();
    let background: Vec<R> = harness::requests(&suite.background, sizes, "background").unwrap();
    model.run(&background, |_| {}).unwrap();
    let expected = suite.background_expected.tally(sizes).unwrap();
    harness::Background::load(store, model, &background, expected, reaches, name)
        .unwrap()
        .0
}

/// Every operation of a suite through the bench's own cell sequence, with one measured iteration
/// and two that split its time where the store reports it: a server's execution lies within the
/// end-to-end time, and a script's share appears exactly where the work calls the library.
pub fn every_operation<R: Request, M: Model<R>>(
    store: &mut impl Store<R>,
    background: &mut harness::Background<'_, M>,
    suite: &str,
    sizes: &[u64],
    name: &str,
) {
    let spec = redis_vs_doublets::load_spec().unwrap();
    background.split = spec.split.clone().map(|plan| SplitPlan {
        iterations: 2,
        seconds: 0.05,
        ..plan
    });
    let reports = store.reading().unwrap().is_some();
    for operation in &spec.suite(suite).unwrap().operations {
        let prepared = harness::Prepared::<R>::new(operation, sizes).unwrap();
        let cell = format!("{}/{name}", operation.id);
        let took = harness::cell(&prepared, store, background, &cell, |store| {
            prepared.measure(store, &cell);
        })
        .unwrap();
        assert_eq!(took.split.is_some(), reports, "{cell}: {:?}", took.split);
        if let Some(split) = took.split {
            assert!(
                split.iterations >= 1 && split.server_cpu_ns > 0.0,
                "{cell}: {split}"
            );
            assert!(split.execution_ns() < split.wall_ns, "{cell}: {split}");
            let scripts = suite == "links" && operation.writes();
            assert_eq!(split.script_ns > 0.0, scripts, "{cell}: {split}");
            if !name.ends_with("Transaction") || name.ends_with("NonTransaction") {
                assert_eq!(split.transaction_ns, 0.0, "{cell}: {split}");
            }
        }
    }
}

/// Replays random workloads on Redis in every mode, each case on a freshly emptied database of
/// one disposable server.
pub fn redis_in_every_mode<R: Request, M: Model<R>, A: std::fmt::Debug>(
    workloads: impl Strategy<Value = Vec<Vec<A>>>,
    request: impl Fn(&M, &A) -> Option<R> + Copy,
) where
    RedisStore: Store<R>,
{
    let server = server();
    for mode in Mode::ALL {
        let mut runner = proptest::test_runner::TestRunner::new(config());
        runner
            .run(&workloads, |batches| {
                replay(&mut redis(&server, mode), &batches, request)
            })
            .unwrap_or_else(|e| panic!("{mode}: {e}"));
    }
}

/// Runs batches of actions on the model and the store: `request` turns an action into a request
/// in the model's current state (or none, when it would be invalid there). Both must report the
/// same for every batch and hold the same at the end.
pub fn replay<R: Request, M: Model<R>, A>(
    store: &mut impl Store<R>,
    batches: &[Vec<A>],
    request: impl Fn(&M, &A) -> Option<R>,
) -> Result<(), TestCaseError> {
    let mut model = M::default();
    for actions in batches {
        let mut batch = Vec::new();
        let mut want = Vec::new();
        for action in actions {
            if let Some(request) = request(&model, action) {
                model
                    .run(std::slice::from_ref(&request), |l| want.push(l))
                    .map_err(|e| TestCaseError::fail(e.to_string()))?;
                batch.push(request);
            }
        }
        want.sort_unstable();
        let got = harness::run(store, &batch)
            .map_err(|e| TestCaseError::fail(format!("{batch:?}: {e:#}")))?;
        prop_assert_eq!(got, want, "batch {:?}", batch);
    }
    harness::verify(store, &mut model, "store", 0)
        .map_err(|e| TestCaseError::fail(format!("{e:#}")))?;
    Ok(())
}
