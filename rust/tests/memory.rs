//! The memory measurement on real stores and a real Redis server: what an almost empty store
//! reports, and that a store failing its check yields no figure.

mod common;

use redis_vs_doublets::{
    links::{self, LinkRequest, LinksModel},
    load_spec, memory,
};

#[test]
fn stores_holding_almost_nothing_report_almost_nothing() {
    let spec = load_spec().unwrap();
    let suite = spec.suite("links").unwrap();
    let sizes = [1, 1];
    let united = memory::doublets::<LinkRequest, LinksModel, _>(
        suite,
        "Doublets_United_Volatile",
        &sizes,
        || links::united_store(None),
    )
    .unwrap();
    assert_eq!(
        united.accounted,
        2 * 64,
        "the one link and the header record"
    );
    assert!(united.reserved.unwrap() >= united.accounted);
    let server = common::server();
    let redis = memory::redis::<LinkRequest, LinksModel>(&server, suite, &sizes, false).unwrap();
    // Redis' first writes to a database allocate about 145 KiB once, whatever they hold.
    assert!(
        redis.accounted < 256 * 1024,
        "one link takes {} bytes of used_memory",
        redis.accounted
    );
    assert_eq!(
        redis.allocator.as_deref().map(|a| a.is_empty()),
        Some(false)
    );
}

#[test]
fn a_store_that_fails_its_check_gives_no_figure() {
    let spec = load_spec().unwrap();
    let suite = spec.suite("links").unwrap();
    let error = memory::doublets::<LinkRequest, LinksModel, _>(suite, "lossy", &[30, 1], || {
        Ok(common::Forgetful::new(links::split_store(None)?, 3))
    })
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("lossy: the background is damaged"),
        "{error}"
    );
}
