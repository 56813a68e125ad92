//! The typical-usage stores against the model, on both doublets stores and a real Redis server in
//! each mode: random workloads, the queue's order, edge cases, refused numbers, and every undo.

mod common;

use common::config;
use proptest::prelude::*;
use redis_vs_doublets::{
    harness,
    resp::store::Mode,
    store::Store,
    typical::{self, Entry, UsageModel, UsageRequest, MAX},
};

/// Keys and members from a small range, so requests meet each other; values sometimes at the top
/// of the range, to cover the raw-number encoding's ends.
fn small() -> impl Strategy<Value = u64> {
    1..12u64
}

fn value() -> impl Strategy<Value = u64> {
    prop_oneof![4 => 1..20u64, 1 => (MAX - 50)..=(MAX - 1)]
}

fn request() -> impl Strategy<Value = UsageRequest> {
    prop_oneof![
        2 => small().prop_map(UsageRequest::Get),
        2 => (small(), value()).prop_map(|(k, v)| UsageRequest::Set(k, v)),
        1 => small().prop_map(UsageRequest::Del),
        1 => small().prop_map(UsageRequest::Incr),
        2 => value().prop_map(UsageRequest::RPush),
        1 => value().prop_map(UsageRequest::LPush),
        2 => Just(UsageRequest::LPop),
        1 => Just(UsageRequest::RPop),
        2 => value().prop_map(UsageRequest::SAdd),
        1 => value().prop_map(UsageRequest::SRem),
        1 => value().prop_map(UsageRequest::SIsMember),
        1 => Just(UsageRequest::Queue),
        1 => Just(UsageRequest::Members),
    ]
}

fn workloads() -> impl Strategy<Value = Vec<Vec<UsageRequest>>> {
    prop::collection::vec(prop::collection::vec(request(), 1..6), 1..25)
}

/// An INCR of the largest counter would fail in every store; the random workloads leave it out,
/// and `counters_refuse_to_overflow` covers it.
fn valid(model: &UsageModel, request: &UsageRequest) -> Option<UsageRequest> {
    match *request {
        UsageRequest::Incr(k) if model.get(k) == Some(MAX) => None,
        r => Some(r),
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn united_store_matches_the_model(batches in workloads()) {
        common::replay(&mut typical::united_store(None).unwrap(), &batches, valid)?;
    }

    #[test]
    fn split_store_matches_the_model(batches in workloads()) {
        common::replay(&mut typical::split_store(None).unwrap(), &batches, valid)?;
    }
}

#[test]
fn redis_matches_the_model_in_every_mode() {
    common::redis_in_every_mode(workloads(), valid);
}

/// Runs the same requests on every store, one at a time, and returns what each reported.
fn on_every_store(
    requests: &[UsageRequest],
    check: impl Fn(&str, Vec<anyhow::Result<Vec<Entry>>>),
) {
    let one = |store: &mut dyn FnMut(&UsageRequest) -> anyhow::Result<Vec<Entry>>| -> Vec<_> {
        requests.iter().map(&mut *store).collect()
    };
    let mut model = UsageModel::default();
    check(
        "model",
        one(&mut |r| harness::run(&mut model, std::slice::from_ref(r))),
    );
    let mut united = typical::united_store(None).unwrap();
    check(
        "united",
        one(&mut |r| harness::run(&mut united, std::slice::from_ref(r))),
    );
    let mut split = typical::split_store(None).unwrap();
    check(
        "split",
        one(&mut |r| harness::run(&mut split, std::slice::from_ref(r))),
    );
    let server = common::server();
    for mode in Mode::ALL {
        let mut redis = common::redis(&server, mode);
        check(
            mode.name(),
            one(&mut |r| harness::run(&mut redis, std::slice::from_ref(r))),
        );
    }
}

fn values(result: &anyhow::Result<Vec<Entry>>) -> Vec<u64> {
    result.as_ref().unwrap().iter().map(|e| e.value).collect()
}

#[test]
fn the_queue_keeps_its_order_through_mixed_pushes_and_pops() {
    use UsageRequest::*;
    let requests = [
        LPop,
        RPop,
        RPush(1),
        RPush(2),
        LPush(3),
        RPush(4),
        LPop,
        RPop,
        RPush(5),
        LPush(6),
        Queue,
        LPop,
        LPop,
        LPop,
        LPop,
        Queue,
    ];
    on_every_store(&requests, |store, results| {
        let got: Vec<Vec<u64>> = results.iter().map(values).collect();
        let empty = Vec::<u64>::new;
        assert_eq!(got[0], empty(), "{store}: LPOP of an empty queue");
        assert_eq!(got[1], empty(), "{store}: RPOP of an empty queue");
        assert_eq!(got[6], [3], "{store}: LPOP after LPUSH 3");
        assert_eq!(got[7], [4], "{store}: RPOP after RPUSH 4");
        let queue: Vec<(u64, u64)> = results[10]
            .as_ref()
            .unwrap()
            .iter()
            .map(|e| (e.key, e.value))
            .collect();
        assert_eq!(
            queue,
            [(1, 6), (2, 1), (3, 2), (4, 5)],
            "{store}: the queue in order"
        );
        assert_eq!(
            got[11..15],
            [vec![6], vec![1], vec![2], vec![5]],
            "{store}: pops in order"
        );
        assert_eq!(got[15], empty(), "{store}: the queue ends empty");
    });
}

#[test]
fn missing_keys_and_members_report_nothing() {
    use UsageRequest::*;
    let requests = [
        Get(7),
        Del(7),
        SRem(7),
        SIsMember(7),
        Set(7, 70),
        Get(7),
        Del(7),
        Get(7),
        Incr(7),
        Incr(7),
    ];
    on_every_store(&requests, |store, results| {
        let got: Vec<Vec<u64>> = results.iter().map(values).collect();
        assert_eq!(
            got,
            [
                vec![],
                vec![],
                vec![],
                vec![],
                vec![70],
                vec![70],
                vec![7],
                vec![],
                vec![1],
                vec![2]
            ],
            "{store}"
        );
    });
}

#[test]
fn numbers_out_of_range_are_refused_before_anything_is_written() {
    use UsageRequest::*;
    for bad in [
        Set(0, 1),
        Set(1, MAX + 1),
        Get(0),
        RPush(u64::MAX),
        SAdd(0),
        Incr(MAX + 7),
    ] {
        // The bad request comes last in its batch: the good ones before it must not run either.
        let batch = [Set(1, 1), RPush(1), SAdd(1), bad];
        let mut stores_checked = 0;
        let mut check =
            |name: &str, store: &mut dyn FnMut(&[UsageRequest]) -> anyhow::Result<Vec<Entry>>| {
                let error = store(&batch).unwrap_err().to_string();
                assert!(
                    error.contains("is not from 1 to 9223372036854775807"),
                    "{name}: {error}"
                );
                let after = store(&[Get(1), Queue, Members]).unwrap();
                assert_eq!(after, [], "{name}: {bad:?} let earlier requests write");
                stores_checked += 1;
            };
        check("model", &mut |b| {
            harness::run(&mut UsageModel::default(), b)
        });
        let mut united = typical::united_store(None).unwrap();
        check("united", &mut |b| harness::run(&mut united, b));
        let mut split = typical::split_store(None).unwrap();
        check("split", &mut |b| harness::run(&mut split, b));
        let server = common::server();
        for mode in Mode::ALL {
            let mut redis = common::redis(&server, mode);
            check(mode.name(), &mut |b| harness::run(&mut redis, b));
        }
        assert_eq!(stores_checked, 6);
    }
}

#[test]
fn counters_refuse_to_overflow() {
    use UsageRequest::*;
    on_every_store(&[Set(3, MAX), Incr(3), Get(3)], |store, results| {
        assert!(results[1].is_err(), "{store}: INCR of {MAX} should fail");
        assert_eq!(
            values(&results[2]),
            [MAX],
            "{store}: the counter is unchanged"
        );
    });
}

const SIZES: [u64; 2] = [40, 9];

fn every_operation_is_undone(store: &mut impl Store<UsageRequest>, name: &str) {
    let mut model = UsageModel::default();
    let mut background = common::load(store, &mut model, "typical", &SIZES, 49, name);
    common::every_operation(store, &mut background, "typical", &SIZES, name);
    assert_eq!(
        model.queue().collect::<Vec<_>>(),
        (1..=40).collect::<Vec<_>>()
    );
}

#[test]
fn every_operation_is_undone_on_every_store() {
    every_operation_is_undone(&mut typical::united_store(None).unwrap(), "united");
    every_operation_is_undone(&mut typical::split_store(None).unwrap(), "split");
    let server = common::server();
    for mode in Mode::ALL {
        every_operation_is_undone(&mut common::redis(&server, mode), mode.name());
    }
}
