//! Replays spec/scenarios.yaml, which the C# tests replay too, against every store.

mod common;

use redis_vs_doublets::{
    harness, links,
    links::{Link, LinkRequest, LinksModel},
    resp::store::Mode,
    store::{Request, Store},
    typical,
    typical::{Entry, UsageModel, UsageRequest},
};
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Scenarios {
    scenarios: Vec<Scenario>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Scenario {
    name: String,
    suite: String,
    steps: Vec<Step>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Step {
    #[serde(rename = "do")]
    request: String,
    finds: Option<Vec<Vec<u64>>>,
    #[serde(default)]
    fails: bool,
}

/// A found item as the scenario file writes it.
trait Tuple {
    fn tuple(&self) -> Vec<u64>;
}

impl Tuple for Link {
    fn tuple(&self) -> Vec<u64> {
        vec![self.id, self.source, self.target]
    }
}

impl Tuple for Entry {
    fn tuple(&self) -> Vec<u64> {
        vec![self.key, self.value]
    }
}

fn scenarios(suite: &str) -> Vec<Scenario> {
    let path = redis_vs_doublets::spec_path().with_file_name("scenarios.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let all: Scenarios =
        serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    all.scenarios
        .into_iter()
        .filter(|s| s.suite == suite)
        .collect()
}

fn replay<R: Request>(store: &mut impl Store<R>, scenario: &Scenario, name: &str)
where
    R::Found: Tuple,
{
    assert!(
        scenario.steps.iter().all(|s| s.fails != s.finds.is_some()),
        "{}: each step has finds or fails",
        scenario.name
    );
    for (k, step) in scenario.steps.iter().enumerate() {
        let mut words = step.request.split_whitespace();
        let verb = words.next().unwrap();
        let args: Vec<Option<u64>> = words
            .map(|w| (w != "*").then(|| w.parse().unwrap()))
            .collect();
        let result = R::build(verb, &args)
            .map_err(anyhow::Error::msg)
            .and_then(|r| harness::run(store, &[r]));
        let place = format!(
            "{name}: \"{}\", step {} ({})",
            scenario.name,
            k + 1,
            step.request
        );
        match (&step.finds, result) {
            (Some(want), Ok(got)) => assert_eq!(
                &got.iter().map(Tuple::tuple).collect::<Vec<_>>(),
                want,
                "{place}"
            ),
            (None, Err(_)) => {}
            (_, result) => panic!(
                "{place}: expected {}, got {result:?}",
                if step.fails { "a refusal" } else { "results" }
            ),
        }
    }
}

/// Replays a suite's scenarios on its model, both doublets stores and Redis in each mode.
macro_rules! on_every_store {
    ($suite:literal, $request:ty, $model:ty, $stores:ident) => {{
        let server = common::server();
        for scenario in scenarios($suite) {
            replay(&mut <$model>::default(), &scenario, "model");
            replay(
                &mut $stores::united_store(None).unwrap(),
                &scenario,
                "united",
            );
            replay(&mut $stores::split_store(None).unwrap(), &scenario, "split");
            for mode in Mode::ALL {
                replay::<$request>(&mut common::redis(&server, mode), &scenario, mode.name());
            }
        }
    }};
}

#[test]
fn links_scenarios_on_every_store() {
    on_every_store!("links", LinkRequest, LinksModel, links);
}

#[test]
fn typical_scenarios_on_every_store() {
    on_every_store!("typical", UsageRequest, UsageModel, typical);
}
