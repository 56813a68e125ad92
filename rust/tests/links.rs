//! The links stores against the model, on real doublets stores and a real Redis server these tests
//! start themselves: random workloads, every operation's undo, and damage the checks must catch.

mod common;

use common::config;
use proptest::prelude::*;
use redis_vs_doublets::{
    harness::{self, Prepared},
    links::{self, LinkRequest, LinksModel, Query},
    load_spec,
    resp::store::{Mode, RedisRequest},
    resp::{cleanup::redact, library::LIBRARY, server::Server},
    store::Store,
};

const ANY: Query = Query {
    id: None,
    source: None,
    target: None,
};

/// What a test does to a store, given as choices the current model turns into valid requests.
#[derive(Clone, Debug)]
enum Action {
    CreatePoint,
    Create(u8, u8),
    Update(u8, u8, u8),
    Reset(u8),
    Delete(u8),
    Identity(u8),
    Outgoing(u8),
    Incoming(u8),
    Concrete(u8),
    All,
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        4 => Just(Action::CreatePoint),
        3 => (any::<u8>(), any::<u8>()).prop_map(|(a, b)| Action::Create(a, b)),
        3 => (any::<u8>(), any::<u8>(), any::<u8>()).prop_map(|(a, b, c)| Action::Update(a, b, c)),
        1 => any::<u8>().prop_map(Action::Reset),
        3 => any::<u8>().prop_map(Action::Delete),
        1 => any::<u8>().prop_map(Action::Identity),
        1 => any::<u8>().prop_map(Action::Outgoing),
        1 => any::<u8>().prop_map(Action::Incoming),
        1 => any::<u8>().prop_map(Action::Concrete),
        1 => Just(Action::All),
    ]
}

/// The request for an action in the model's current state, or none when the action would be
/// invalid (no links yet) or create a duplicate pair, which no workload may do.
fn request(model: &LinksModel, action: &Action) -> Option<LinkRequest> {
    let ids: Vec<u64> = model.links().map(|l| l.id).collect();
    let pick = |k: u8| (!ids.is_empty()).then(|| ids[k as usize % ids.len()]);
    // Queries also probe ids past the end and ids deleted before.
    let probe = |k: u8| u64::from(k) % (model.next_id() + 2) + 1;
    let fresh = |s: u64, t: u64| model.search(s, t).is_none();
    Some(match *action {
        Action::CreatePoint => {
            let id = model.next_id();
            fresh(id, id).then_some(LinkRequest::CreatePoint)?
        }
        Action::Create(a, b) => {
            let (source, target) = (pick(a)?, pick(b)?);
            (fresh(source, target) && source != target && fresh(model.next_id(), model.next_id()))
                .then_some(LinkRequest::Create { source, target })?
        }
        Action::Update(a, b, c) => {
            let (id, source, target) = (pick(a)?, pick(b)?, pick(c)?);
            fresh(source, target).then_some(LinkRequest::Update { id, source, target })?
        }
        Action::Reset(a) => LinkRequest::Update {
            id: pick(a)?,
            source: 0,
            target: 0,
        },
        Action::Delete(a) => LinkRequest::Delete { id: pick(a)? },
        Action::Identity(a) => LinkRequest::Each(Query {
            id: Some(probe(a)),
            ..ANY
        }),
        Action::Outgoing(a) => LinkRequest::Each(Query {
            source: Some(probe(a)),
            ..ANY
        }),
        Action::Incoming(a) => LinkRequest::Each(Query {
            target: Some(probe(a)),
            ..ANY
        }),
        Action::Concrete(a) => {
            let link = model.get(pick(a)?)?;
            if link.source == 0 {
                return None;
            }
            LinkRequest::Each(Query {
                source: Some(link.source),
                target: Some(link.target),
                ..ANY
            })
        }
        Action::All => LinkRequest::Each(ANY),
    })
}

fn workloads() -> impl Strategy<Value = Vec<Vec<Action>>> {
    prop::collection::vec(prop::collection::vec(action(), 1..6), 1..25)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn united_store_matches_the_model(batches in workloads()) {
        common::replay(&mut links::united_store(None).unwrap(), &batches, request)?;
    }

    #[test]
    fn split_store_matches_the_model(batches in workloads()) {
        common::replay(&mut links::split_store(None).unwrap(), &batches, request)?;
    }
}

#[test]
fn redis_matches_the_model_in_every_mode() {
    common::redis_in_every_mode(workloads(), request);
}

const SIZES: [u64; 2] = [60, 12];

/// Runs every operation through the bench's cell sequence on a store loaded with the background.
fn every_operation_is_undone(store: &mut impl Store<LinkRequest>, name: &str) {
    let mut model = LinksModel::default();
    let mut background = common::load(store, &mut model, "links", &SIZES, 72, name);
    common::every_operation(store, &mut background, "links", &SIZES, name);
    assert_eq!(model.len(), 60);
}

#[test]
fn every_operation_is_undone_on_doublets() {
    every_operation_is_undone(&mut links::united_store(None).unwrap(), "united");
    every_operation_is_undone(&mut links::split_store(None).unwrap(), "split");
}

#[test]
fn every_operation_is_undone_on_redis_in_every_mode_after_one_load() {
    let server = common::server();
    let mut store = common::redis(&server, Mode::Pipeline);
    let mut model = LinksModel::default();
    let mut background = common::load(&mut store, &mut model, "links", &SIZES, 72, "redis");
    for mode in Mode::ALL {
        store.mode = mode;
        common::every_operation(&mut store, &mut background, "links", &SIZES, mode.name());
    }
}

fn loaded_model(count: u64) -> (Vec<LinkRequest>, LinksModel) {
    let background = vec![LinkRequest::CreatePoint; count as usize];
    let mut model = LinksModel::default();
    model.run(&background, |_| {}).unwrap();
    (background, model)
}

#[test]
fn a_store_that_loses_links_fails_the_load() {
    let (background, mut model) = loaded_model(20);
    let mut store = common::Forgetful::new(links::united_store(None).unwrap(), 5);
    let tally = redis_vs_doublets::spec::Tally::new(20, 210);
    let error = harness::load(&mut store, &mut model, &background, tally, "forgetful")
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("forgetful: the background is damaged")
            && error.contains("missing Link { id: 5, source: 5, target: 5 }"),
        "{error}"
    );
}

#[test]
fn a_store_that_loses_links_fails_the_checked_iteration() {
    let spec = load_spec().unwrap();
    let delete = spec
        .suite("links")
        .unwrap()
        .operations
        .iter()
        .find(|o| o.id == "delete")
        .unwrap();
    let prepared: Prepared<'_, LinkRequest> = Prepared::new(delete, &[10, 10]).unwrap();
    let (background, mut model) = loaded_model(10);
    let mut store = common::Forgetful::new(links::split_store(None).unwrap(), 5);
    store.inner.run(&background, |_| {}).unwrap();
    let mut background = harness::Background {
        census: store.census().unwrap(),
        model: &mut model,
        reaches: 20,
        digest: None,
        changes: None,
        split: None,
    };
    // The undo reports all ten links created again, but two of them are gone: the check right
    // after it fails, blaming the delete cell before anything is measured.
    let mut measured = false;
    let error = harness::cell(
        &prepared,
        &mut store,
        &mut background,
        "delete/forgetful",
        |_| {
            measured = true;
        },
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("delete/forgetful: the background is damaged")
            && error.contains("after the checked iteration and its undo"),
        "{error}"
    );
    assert!(!measured, "a cell whose undo fails is never measured");
}

#[test]
fn a_wrong_answer_fails_the_checked_iteration() {
    let spec = load_spec().unwrap();
    let identity = spec
        .suite("links")
        .unwrap()
        .operations
        .iter()
        .find(|o| o.id == "each_identity")
        .unwrap();
    let prepared: Prepared<'_, LinkRequest> = Prepared::new(identity, &[10, 5]).unwrap();
    let (background, mut model) = loaded_model(10);
    let mut store = links::united_store(None).unwrap();
    store.run(&background, |_| {}).unwrap();
    store.run(&[LinkRequest::Delete { id: 3 }], |_| {}).unwrap();
    let error = prepared
        .check(&mut store, &mut model, "each_identity/united")
        .unwrap_err()
        .to_string();
    assert_eq!(error, "each_identity/united: expected 5 ids summing to 15, found 4 ids summing to 12 (missing Link { id: 3, source: 3, target: 3 })");
}

#[test]
fn a_stale_redis_index_entry_is_caught() {
    let server = common::server();
    let mut store = common::redis(&server, Mode::Pipeline);
    let (background, mut model) = loaded_model(30);
    let tally = redis_vs_doublets::spec::Tally::new(30, 465);
    harness::load(&mut store, &mut model, &background, tally, "redis").unwrap();
    redis::cmd("HSET")
        .arg("out:7")
        .arg(31)
        .arg(9)
        .exec(&mut store.con)
        .unwrap();
    let error = harness::verify(&mut store, &mut model, "redis", 0)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("source: Some(7)") && error.contains("id: 31"),
        "{error}"
    );
}

#[test]
fn redis_functions_check_arguments_before_writing() {
    let server = common::server();
    let mut con = server.claim(&[], false).unwrap();
    let fcall = |con: &mut redis::Connection, args: &[&str]| -> Result<redis::Value, String> {
        redis::cmd("FCALL")
            .arg(format!("{}_{}", LIBRARY.name, args[0]))
            .arg(0)
            .arg(&args[1..])
            .query(con)
            .map_err(|e| e.to_string())
    };
    assert_eq!(fcall(&mut con, &["create_point"]), Ok(redis::Value::Int(1)));
    let refused = [
        (
            &["update", "1", "2:3", "4"][..],
            "source must be a whole number",
        ),
        (&["update", "1", "5"], "target is missing"),
        (&["update", "9", "1", "1"], "link 9 does not exist"),
        (&["create", "01", "1"], "source must be a whole number"),
        (
            &["create", "18446744073709551616", "1"],
            "source must be a whole number",
        ),
        (&["delete", "-1"], "id must be a whole number"),
        (&["create_points", "0"], "count must be from 1"),
    ];
    for (args, message) in refused {
        let error = fcall(&mut con, args).unwrap_err();
        assert!(error.contains(message), "{args:?}: {error}");
    }
    // Nothing was written by the refused calls.
    let links: Vec<String> = redis::cmd("HGETALL").arg("links").query(&mut con).unwrap();
    assert_eq!(links, ["1", "1:1"]);
    let keys: u64 = redis::cmd("DBSIZE").query(&mut con).unwrap();
    assert_eq!(keys, 5, "links, out:1, in:1, pair:1:1 and links:allocated");
}

/// A server a person runs: the tests reach it through REDIS_URL, as a user's run would.
fn someone_elses(disposable: &Server) -> Server {
    Server::at(disposable.url.clone(), &common::spec().servers).unwrap()
}

fn keys(con: &mut redis::Connection) -> Vec<String> {
    let mut keys: Vec<String> = redis::cmd("KEYS").arg("*").query(con).unwrap();
    keys.sort();
    keys
}

fn libraries(con: &mut redis::Connection) -> Vec<String> {
    let list: Vec<redis::Value> = redis::cmd("FUNCTION").arg("LIST").query(con).unwrap();
    list.into_iter()
        .filter_map(|library| {
            let fields = redis_vs_doublets::resp::reply::items(library).ok()?;
            let at = fields
                .iter()
                .position(|f| *f == redis::Value::BulkString(b"library_name".to_vec()))?;
            redis::from_redis_value::<String>(fields[at + 1].clone()).ok()
        })
        .collect()
}

#[test]
fn a_non_empty_database_is_refused_whatever_it_holds_unless_allowed() {
    let disposable = common::server();
    let mut con = disposable.connect().unwrap();
    for (key, value) in [("someone:else", "data"), ("redisvsdoublets:owner", "1")] {
        redis::cmd("SET")
            .arg(key)
            .arg(value)
            .exec(&mut con)
            .unwrap();
        let foreign = someone_elses(&disposable);
        for error in [
            foreign.preflight(false).unwrap_err().to_string(),
            foreign
                .claim(LinkRequest::KEYS, false)
                .err()
                .unwrap()
                .to_string(),
        ] {
            assert!(
                error.contains("holds 1 keys, and a run needs it empty")
                    && error.contains("BENCHMARK_ALLOW_FLUSH=1"),
                "{key}: {error}"
            );
        }
        assert_eq!(
            keys(&mut con),
            [key],
            "a refused database is left as it was"
        );
        redis::cmd("DEL").arg(key).exec(&mut con).unwrap();
    }
    redis::cmd("SET")
        .arg("someone:else")
        .arg("data")
        .exec(&mut con)
        .unwrap();
    someone_elses(&disposable)
        .claim(LinkRequest::KEYS, true)
        .unwrap();
    assert!(
        keys(&mut con).iter().all(|k| k != "someone:else"),
        "allowed: emptied"
    );
}

#[test]
fn a_run_leaves_the_database_and_the_users_functions_as_it_found_them() {
    let disposable = common::server();
    let mut con = disposable.connect().unwrap();
    // A user's own library named like the project's old one, with a function of the same name.
    let users =
        "#!lua name=links\nredis.register_function('links_create_point', function() return 7 end)";
    redis::cmd("FUNCTION")
        .arg("LOAD")
        .arg(users)
        .exec(&mut con)
        .unwrap();
    for _ in 0..2 {
        let server = someone_elses(&disposable);
        let mut store = server
            .store(LinkRequest::KEYS, false, Mode::Pipeline)
            .unwrap();
        let mut model = LinksModel::default();
        let mut background = common::load(&mut store, &mut model, "links", &SIZES, 72, "redis");
        common::every_operation(&mut store, &mut background, "links", &SIZES, "redis");
        assert!(libraries(&mut con).contains(&LIBRARY.name));
        drop(server);
        assert_eq!(
            keys(&mut con),
            Vec::<String>::new(),
            "the run's keys are gone"
        );
        assert_eq!(
            libraries(&mut con),
            ["links"],
            "only the user's library is left"
        );
        let reply: i64 = redis::cmd("FCALL")
            .arg("links_create_point")
            .arg(0)
            .query(&mut con)
            .unwrap();
        assert_eq!(reply, 7, "the user's function is untouched");
    }
}

#[test]
fn a_library_already_loaded_is_used_and_left_in_place() {
    let disposable = common::server();
    let mut con = disposable.connect().unwrap();
    redis::cmd("FUNCTION")
        .arg("LOAD")
        .arg(&LIBRARY.code)
        .exec(&mut con)
        .unwrap();
    let server = someone_elses(&disposable);
    server.claim(LinkRequest::KEYS, false).unwrap();
    drop(server);
    assert_eq!(
        libraries(&mut con),
        std::slice::from_ref(&LIBRARY.name),
        "not this run's to remove"
    );
}

#[test]
fn the_library_is_named_after_its_content() {
    assert!(
        LIBRARY.name.starts_with("rvd_") && LIBRARY.name.len() == 16,
        "{}",
        LIBRARY.name
    );
    assert!(!LIBRARY.code.contains("__LIBRARY__"));
    assert!(LIBRARY
        .code
        .starts_with(&format!("#!lua name={}\n", LIBRARY.name)));
    assert!(!LIBRARY.script.starts_with("#!lua") && LIBRARY.code.ends_with(&LIBRARY.script));
    assert_eq!(LIBRARY.sha.len(), 40);
}

#[test]
fn passwords_never_reach_messages() {
    assert_eq!(
        redact("redis://user:s3cret@127.0.0.1:6379/0"),
        "redis://user:***@127.0.0.1:6379/0"
    );
    assert_eq!(redact("redis://:s3cret@host/0"), "redis://:***@host/0");
    assert_eq!(
        redact("redis://127.0.0.1:6379/0"),
        "redis://127.0.0.1:6379/0"
    );
    let error = match Server::at(
        "redis://:s3cret@127.0.0.1:1/0".into(),
        &common::spec().servers,
    ) {
        Ok(_) => panic!("nothing listens on port 1"),
        Err(e) => format!("{e:#}"),
    };
    assert!(
        !error.contains("s3cret") && error.contains("***"),
        "{error}"
    );
}

#[test]
fn a_stale_key_beyond_every_probe_is_caught_by_the_count() {
    let server = common::server();
    let mut store = common::redis(&server, Mode::Pipeline);
    let mut model = LinksModel::default();
    let mut background = common::load(&mut store, &mut model, "links", &SIZES, 72, "redis");
    // A leftover pair entry for ids no probe reaches (B+N = 72).
    redis::cmd("SADD")
        .arg("pair:500:500")
        .arg(500)
        .exec(&mut store.con)
        .unwrap();
    let error = background
        .verify(&mut store, "redis")
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("the store holds 183 keys, but held 182 keys"),
        "{error}"
    );
}

#[test]
fn a_disposable_server_stops_when_dropped() {
    let server = common::server();
    let url = server.url.clone();
    server.connect().unwrap();
    drop(server);
    assert!(redis::Client::open(url.as_str())
        .unwrap()
        .get_connection()
        .is_err());
}

/// A server a person runs may deny its user the readings that split a cell's time (here an ACL
/// that allows INFO server and persistence alone): the run keeps going, every cell passes its
/// checks unsplit, and the server's words say why. Nothing of the user's settings is changed.
#[test]
fn a_server_that_refuses_the_readings_runs_every_cell_unsplit_and_says_why() {
    let disposable = common::server();
    let mut con = disposable.connect().unwrap();
    redis::cmd("ACL")
        .arg(&[
            "SETUSER", "bench", "on", ">secret", "~*", "&*", "+@all", "-info",
        ])
        .arg(&["+info|server", "+info|persistence"])
        .exec(&mut con)
        .unwrap();
    let url = disposable
        .url
        .replacen("redis://", "redis://bench:secret@", 1);
    let server = Server::at(url, &common::spec().servers).unwrap();
    let words = server.split_refused.clone().expect("refused");
    assert!(
        words.contains("NOPERM") && words.contains("'info'"),
        "{words}"
    );
    assert!(!server.splits());
    server.preflight(false).unwrap();
    let mut store = server
        .store(LinkRequest::KEYS, false, Mode::Pipeline)
        .unwrap();
    let mut model = LinksModel::default();
    let mut background = common::load(&mut store, &mut model, "links", &SIZES, 72, "redis");
    assert_eq!(Store::<LinkRequest>::reading(&mut store).unwrap(), None);
    common::every_operation(&mut store, &mut background, "links", &SIZES, "redis");
    assert_eq!(
        redis_vs_doublets::provenance::unsplit(std::slice::from_ref(&server)),
        Some(format!("Redis: {words}"))
    );
}
