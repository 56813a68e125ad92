//! The memory measurement on real stores and a real Redis server: what an almost empty store
//! reports, and that a store failing its check yields no figure.

mod common;

use redis_vs_doublets::{
    links::{self, Link, LinkRequest, LinksModel},
    load_spec,
    memory::{self, Blocks, Footprint},
    redis_server::Server,
    store::{Census, Store},
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
        links::united_store,
    )
    .unwrap();
    assert_eq!(
        united.accounted,
        2 * 64,
        "the one link and the header record"
    );
    assert!(united.reserved.unwrap() >= united.accounted);
    let server = Server::new(None).unwrap();
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

/// A store that drops every third link it creates (it sets it to (0, 0)) and says nothing.
struct Lossy<S> {
    inner: S,
    created: u32,
}

impl<S: Store<LinkRequest>> Store<LinkRequest> for Lossy<S> {
    fn run(&mut self, batch: &[LinkRequest], mut found: impl FnMut(Link)) -> anyhow::Result<()> {
        for request in batch {
            let mut reported = Vec::new();
            self.inner
                .run(std::slice::from_ref(request), |l| reported.push(l))?;
            if *request == LinkRequest::CreatePoint {
                self.created += 1;
            }
            if *request == LinkRequest::CreatePoint && self.created % 3 == 0 {
                let id = reported[0].id;
                self.inner.run(
                    &[LinkRequest::Update {
                        id,
                        source: 0,
                        target: 0,
                    }],
                    |_| {},
                )?;
            }
            reported.into_iter().for_each(&mut found);
        }
        Ok(())
    }

    fn census(&mut self) -> anyhow::Result<Census> {
        self.inner.census()
    }
}

impl<S: Footprint> Footprint for Lossy<S> {
    fn blocks(&self) -> &Blocks {
        self.inner.blocks()
    }
}

#[test]
fn a_store_that_fails_its_check_gives_no_figure() {
    let spec = load_spec().unwrap();
    let suite = spec.suite("links").unwrap();
    let error = memory::doublets::<LinkRequest, LinksModel, _>(suite, "lossy", &[30, 1], || {
        Ok(Lossy {
            inner: links::split_store()?,
            created: 0,
        })
    })
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("lossy: the background is damaged"),
        "{error}"
    );
}
