//! The check after each cell, by digest where a store has one: one link or key changed behind the
//! bench's back during the measured iterations fails the cell, on every store that has a digest,
//! and the digest catches a change no probe reads. After a read-only cell, a count of changes that
//! has not moved stands for the digest; a change beside the cell moves it.

mod common;

use redis_vs_doublets::{
    harness::{self, Background, Prepared, Proof},
    links::{self, LinkRequest, LinksModel},
    resp::store::Mode,
    store::{Model, Request, Store},
    typical::{self, UsageModel, UsageRequest},
};

const SIZES: [u64; 2] = [10, 5];

/// The suite's `operation` as one cell whose measured iterations also run `sabotage` on the store
/// (through the store, outside anything the harness knows of): the cell's error.
fn sabotaged<R: Request, S: Store<R>, M: Model<R>>(
    store: &mut S,
    suite: &str,
    operation: &str,
    sabotage: &[R],
) -> String {
    let spec = common::spec();
    let prepared = prepared::<R>(&spec, suite, operation);
    let mut model = M::default();
    let mut background: Background<'_, M> =
        common::load(store, &mut model, suite, &SIZES, 20, "sabotaged");
    assert!(
        background.digest.is_some(),
        "the store under test has a digest"
    );
    harness::cell(&prepared, store, &mut background, "cell", |store| {
        prepared.measure(store, "cell");
        store.run(sabotage, |_| {}).unwrap();
    })
    .expect_err("a link changed behind the bench's back passed the check")
    .to_string()
}

fn prepared<'s, R: Request>(
    spec: &'s redis_vs_doublets::spec::Spec,
    suite: &str,
    operation: &str,
) -> Prepared<'s, R> {
    let suite = spec.suite(suite).unwrap();
    let operation = suite.operations.iter().find(|o| o.id == operation).unwrap();
    Prepared::new(operation, &SIZES).unwrap()
}

fn assert_caught(error: &str, store: &str) {
    assert!(
        error.contains("cell: the background is damaged")
            && error.contains("its digest is")
            && error.contains("(after the measured iterations)"),
        "{store}: {error}"
    );
}

/// Link 3 of the background set to (0, 0): no operation of the suite does that.
const A_LINK_CHANGED: [LinkRequest; 1] = [LinkRequest::Update {
    id: 3,
    source: 0,
    target: 0,
}];

#[test]
fn a_link_changed_behind_the_bench_fails_the_cell_on_every_store_with_a_digest() {
    let error = sabotaged::<_, _, LinksModel>(
        &mut links::united_store(None).unwrap(),
        "links",
        "update",
        &A_LINK_CHANGED,
    );
    assert_caught(&error, "Doublets_United_Volatile");
    let error = sabotaged::<_, _, LinksModel>(
        &mut links::split_store(None).unwrap(),
        "links",
        "each_all",
        &A_LINK_CHANGED,
    );
    assert_caught(&error, "Doublets_Split_Volatile");
    let server = common::server();
    assert!(server.digest(), "a disposable Redis has a digest");
    for mode in Mode::ALL {
        let error = sabotaged::<_, _, LinksModel>(
            &mut common::redis(&server, mode),
            "links",
            "create",
            &A_LINK_CHANGED,
        );
        assert_caught(&error, &server.backend(mode));
    }
}

#[test]
fn redis_counts_its_changes_so_a_read_only_cell_needs_no_digest_unless_something_wrote() {
    let spec = common::spec();
    let server = common::server();
    let mut store = common::redis(&server, Mode::Transaction);
    let mut model = LinksModel::default();
    let mut background: Background<'_, LinksModel> =
        common::load(&mut store, &mut model, "links", &SIZES, 20, "Redis");
    assert!(background.changes.is_some(), "Redis counts its changes");
    let cell = |store: &mut _, background: &mut Background<'_, LinksModel>, op| {
        let prepared = prepared::<LinkRequest>(&spec, "links", op);
        harness::cell(&prepared, store, background, op, |store| {
            prepared.measure(store, op);
        })
        .unwrap()
        .proof
    };
    assert_eq!(
        cell(&mut store, &mut background, "each_all"),
        Proof::Unchanged
    );
    assert_eq!(cell(&mut store, &mut background, "update"), Proof::Digest);
    assert_eq!(
        cell(&mut store, &mut background, "each_outgoing"),
        Proof::Unchanged,
        "the digest after a writing cell is a proof to count from"
    );
    // A link set and set back by another client leaves the store as loaded but moves the count:
    // the digest then decides, and finds the background.
    let mut behind = server.connect().unwrap();
    let field: String = redis::cmd("HGET")
        .arg(&["links", "3"])
        .query(&mut behind)
        .unwrap();
    redis::cmd("HSET")
        .arg(&["links", "3", &field])
        .exec(&mut behind)
        .unwrap();
    assert_eq!(
        cell(&mut store, &mut background, "each_identity"),
        Proof::Digest
    );
    // A link changed behind a read-only cell fails it.
    let error = sabotaged::<_, _, LinksModel>(
        &mut common::redis(&server, Mode::Pipeline),
        "links",
        "each_all",
        &A_LINK_CHANGED,
    );
    assert_caught(&error, "Redis_Pipeline each_all");
}

#[test]
fn a_key_changed_behind_the_bench_fails_the_cell_in_typical_usage() {
    // Key 2 of the background holds 2; 7 is a value no operation writes there.
    let changed = [UsageRequest::Set(2, 7)];
    for (name, error) in [
        (
            "Doublets_United_Volatile",
            sabotaged::<_, _, UsageModel>(
                &mut typical::united_store(None).unwrap(),
                "typical",
                "kv_get",
                &changed,
            ),
        ),
        (
            "Doublets_Split_Volatile",
            sabotaged::<_, _, UsageModel>(
                &mut typical::split_store(None).unwrap(),
                "typical",
                "kv_set",
                &changed,
            ),
        ),
        (
            "Redis_Pipeline",
            sabotaged::<_, _, UsageModel>(
                &mut common::redis(&common::server(), Mode::Pipeline),
                "typical",
                "queue_push",
                &changed,
            ),
        ),
    ] {
        assert_caught(&error, name);
    }
}

#[test]
fn the_digest_catches_what_no_probe_reads() {
    // A key of the background set to expire in an hour: it still answers every probe as before,
    // and the key count stays, but the store no longer holds the background for good.
    let server = common::server();
    let mut store = common::redis(&server, Mode::Pipeline);
    let mut model = LinksModel::default();
    let mut background: Background<'_, LinksModel> =
        common::load(&mut store, &mut model, "links", &SIZES, 20, "Redis");
    let mut behind = server.connect().unwrap();
    redis::cmd("PEXPIRE")
        .arg(&["out:3", "3600000"])
        .exec(&mut behind)
        .unwrap();
    let error = background
        .verify(&mut store, "Redis")
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("Redis: the store's digest is")
            && error.contains("beyond what the probes read"),
        "{error}"
    );
}

#[test]
fn a_store_without_a_digest_is_read_back_whole() {
    // The models have no digest: their checks are the probes', which still find a changed link.
    let mut store = LinksModel::default();
    let mut model = LinksModel::default();
    let mut background: Background<'_, LinksModel> =
        common::load(&mut store, &mut model, "links", &SIZES, 20, "model");
    assert!(background.digest.is_none());
    store.run(&A_LINK_CHANGED, |_| {}).unwrap();
    let error = background
        .verify(&mut store, "model")
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("model: the background is damaged") && !error.contains("digest"),
        "{error}"
    );
}
