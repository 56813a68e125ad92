//! A server on a host of its own (a network namespace, a veth pair and a delaying relay): it
//! passes every check of the links suite in every mode over the network, its round trip is at
//! least the one the spec gives it, and nothing of the network outlives it, nor one a killed run
//! left.

mod common;

use std::process::Command;

use redis_vs_doublets::{
    links::{LinkRequest, LinksModel},
    network::Netns,
    resp::server::Server,
    resp::store::{Mode, RedisRequest},
};

const SIZES: [u64; 2] = [10, 5];

fn namespaces() -> String {
    let output = Command::new("ip").args(["netns", "list"]).output().unwrap();
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn a_server_on_a_host_of_its_own_passes_every_check_and_leaves_nothing() {
    let kind = common::kind("redis-rack");
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        let error = Server::start(&kind, None).err().unwrap().to_string();
        assert!(error.contains("which needs root"), "{error}");
        return;
    }
    // A namespace a killed run left behind (its process no longer exists) goes with the next run.
    let stale = "rvd-4000000000-0";
    assert!(Command::new("ip")
        .args(["netns", "add", stale])
        .status()
        .unwrap()
        .success());

    let server = Server::start(&kind, None).unwrap();
    assert!(!namespaces().contains(stale), "{}", namespaces());
    let netns = server.disposable.as_ref().unwrap().netns.as_ref().unwrap();
    let name = netns.name.clone();
    assert!(
        server.url.contains(&netns.host.to_string()),
        "{}",
        server.url
    );
    assert!(namespaces().contains(&name));
    // The relay delays each way by half the round trip: no round trip is shorter.
    let mut con = server.connect().unwrap();
    for _ in 0..20 {
        let started = std::time::Instant::now();
        let _: String = redis::cmd("PING").query(&mut con).unwrap();
        let took = started.elapsed().as_micros() as u64;
        assert!(took >= kind.round_trip_us.unwrap(), "{took} µs");
    }
    drop(con);
    for mode in Mode::ALL {
        let mut store = server.store(LinkRequest::KEYS, false, mode).unwrap();
        let mut model = LinksModel::default();
        let backend = server.backend(mode);
        let mut background = common::load(&mut store, &mut model, "links", &SIZES, 20, &backend);
        common::every_operation(&mut store, &mut background, "links", &SIZES, &backend);
        drop(background);
        drop(store);
        server.release().unwrap();
    }
    drop(server);
    assert!(!namespaces().contains(&name), "{name} outlived its server");
    let links = String::from_utf8_lossy(
        &Command::new("ip")
            .args(["-o", "link"])
            .output()
            .unwrap()
            .stdout,
    )
    .into_owned();
    assert!(
        !links.contains(&format!("rvh{}x", std::process::id())),
        "{links}"
    );

    // Two networks at once get subnets of their own.
    let first = Netns::create("first", 200, 6379).unwrap();
    let second = Netns::create("second", 200, 6379).unwrap();
    assert_ne!(first.server, second.server);
    assert_ne!(first.host, second.host);
}
