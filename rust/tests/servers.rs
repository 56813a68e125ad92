//! Servers by capability: a server with scripts only runs the links library as a script, a server
//! with neither functions nor scripts is refused before any work, and Garnet (the .NET tool this
//! repository pins) passes every check Redis passes, started by the tests or reached as a server a
//! person runs, and answers a pipeline of tens of megabytes in the spec's windows. Every server
//! here is a real one the test starts on a free loopback port.

mod common;

use std::time::Duration;

use redis_vs_doublets::{
    harness::Prepared,
    links::{LinkRequest, LinksModel},
    payload::PayloadRequest,
    resp::store::{Mode, RedisStore},
    resp::{library::Scripting, server::Server},
    store::{Model, Request, Store},
    typical::{UsageModel, UsageRequest},
};

/// A disposable Redis with `args` added to its start command.
fn redis_with(args: &[&str]) -> anyhow::Result<Server> {
    let mut kind = common::kind("redis");
    kind.start.extend(args.iter().map(|a| a.to_string()));
    Server::start(&kind, None)
}

/// Starts a disposable Garnet, one test at a time: each start runs the spec's `dotnet tool
/// restore`, and on a fresh clone the tests, running in parallel, restored at once and raced for one
/// package file ("being used by another process"), so the first `cargo test` failed and the next
/// passed. The bench starts its servers one after another and never races so.
fn garnet(kind: &redis_vs_doublets::spec::ServerKind) -> anyhow::Result<Server> {
    static STARTING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_at_a_time = STARTING.lock().unwrap_or_else(|e| e.into_inner());
    Server::start(kind, None)
}

/// `rename-command` arguments that take each of `commands` away.
fn without(commands: &[&'static str]) -> Vec<&'static str> {
    commands
        .iter()
        .flat_map(|c| ["--rename-command", c, ""])
        .collect()
}

/// Loads both suites' backgrounds and runs every operation, checked, in every mode.
fn every_check_passes(server: &Server) {
    suite::<LinkRequest, LinksModel>(server, "links", &[60, 12], 72);
    suite::<UsageRequest, UsageModel>(server, "typical", &[40, 9], 49);
}

fn suite<R: Request, M: Model<R>>(server: &Server, id: &str, sizes: &[u64], reaches: u64)
where
    redis_vs_doublets::resp::store::RedisStore: redis_vs_doublets::store::Store<R>,
{
    let mut store = common::redis(server, Mode::Pipeline);
    let mut model = M::default();
    let name = server.kind.name.as_str();
    let mut background = common::load(&mut store, &mut model, id, sizes, reaches, name);
    let reports = Store::<R>::reading(&mut store).unwrap().is_some();
    assert_eq!(reports, server.kind.split_missing.is_none(), "{name}");
    for mode in Mode::ALL {
        store.mode = mode;
        common::every_operation(
            &mut store,
            &mut background,
            id,
            sizes,
            &server.backend(mode),
        );
    }
}

#[test]
fn a_server_with_scripts_only_runs_the_library_as_a_script() {
    let server = redis_with(&without(&["FUNCTION", "FCALL", "FCALL_RO"])).unwrap();
    assert_eq!(server.scripting, Scripting::Scripts);
    every_check_passes(&server);
}

#[test]
fn a_server_without_scripting_is_refused_before_any_work() {
    let error = redis_with(&without(&[
        "FUNCTION",
        "FCALL",
        "FCALL_RO",
        "EVAL",
        "EVALSHA",
        "EVAL_RO",
        "EVALSHA_RO",
        "SCRIPT",
    ]))
    .err()
    .map(|e| format!("{e:#}"))
    .expect("refused");
    assert!(
        error.contains(
            "has neither functions (FUNCTION, FCALL) nor scripts (it lacks SCRIPT, EVALSHA)"
        ),
        "{error}"
    );
}

#[test]
fn garnet_without_lua_is_refused_before_any_work() {
    let mut kind = common::kind("garnet");
    kind.start.retain(|a| a != "--lua");
    let error = garnet(&kind)
        .err()
        .map(|e| format!("{e:#}"))
        .expect("refused");
    assert!(
        error.contains("Garnet 2.2.8")
            && error.contains("Lua scripting support disabled")
            && error.contains("Garnet: --lua"),
        "{error}"
    );
}

#[test]
fn garnet_passes_every_check_redis_passes() {
    let server = garnet(&common::kind("garnet")).unwrap();
    assert_eq!(server.describe(), "Garnet 2.2.8");
    assert_eq!(server.scripting, Scripting::Scripts);
    every_check_passes(&server);
    // The same Garnet reached as a server a person runs: identified from INFO server.
    let theirs = Server::at(server.url.clone(), &common::spec().servers).unwrap();
    assert_eq!(
        (theirs.kind.id.as_str(), theirs.backend(Mode::Pipeline)),
        ("garnet", "Garnet_Pipeline".to_string())
    );
}

/// One measured iteration of payload_20kib at N = 1,000 (1,000 SET+GET pairs of 20 KiB: 20 MB of
/// commands, 20 MB of replies) on `store`, in a thread: whether it finished within 20 s (it takes
/// well under one).
fn twenty_megabytes_finish(store: RedisStore) -> bool {
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let (spec, mut store) = (common::spec(), store);
        let operation = spec.suite("payload").unwrap().operations.iter();
        let prepared = Prepared::<PayloadRequest>::new(
            operation.clone().find(|o| o.id == "payload_20kib").unwrap(),
            &[1000, 1000],
        )
        .unwrap();
        prepared.measure(&mut store, "payload_20kib/Garnet_Pipeline");
        done.send(()).unwrap();
    });
    finished.recv_timeout(Duration::from_secs(20)).is_ok()
}

/// redis-rs writes a whole pipeline before it reads a reply, and Garnet stops reading while its
/// replies wait: without windows a pipeline of 20 MB never finishes (the connection is reset
/// minutes later), with the spec's it takes a fraction of a second.
#[test]
fn garnet_answers_a_pipeline_of_twenty_megabytes_in_the_specs_windows() {
    let server = garnet(&common::kind("garnet")).unwrap();
    let windowed = common::redis(&server, Mode::Pipeline);
    assert_eq!(windowed.window, 1 << 20);
    assert!(
        twenty_megabytes_finish(windowed),
        "the windowed pipeline hung"
    );
    let whole = RedisStore {
        window: usize::MAX,
        ..common::redis(&server, Mode::Pipeline)
    };
    assert!(
        !twenty_megabytes_finish(whole),
        "Garnet answered 20 MB written before any reply was read: the windows may not be needed"
    );
}

#[test]
fn redis_is_identified_by_its_version_field() {
    let server = common::server();
    let theirs = Server::at(server.url.clone(), &common::spec().servers).unwrap();
    assert_eq!(theirs.kind.id, "redis");
    assert_eq!(theirs.scripting, Scripting::Functions);
    assert!(
        theirs.describe().starts_with("Redis 7."),
        "{}",
        theirs.describe()
    );
}

#[test]
fn redis_over_a_unix_socket_passes_every_check_in_a_folder_only_this_user_enters() {
    use std::os::unix::fs::PermissionsExt;
    let server = Server::start(&common::kind("redis-unix"), None).unwrap();
    let socket = server
        .url
        .strip_prefix("redis+unix://")
        .and_then(|rest| rest.split_once('?'))
        .map(|(path, _)| std::path::PathBuf::from(path))
        .unwrap_or_else(|| panic!("not a socket: {}", server.url));
    let folder = socket.parent().unwrap().to_path_buf();
    let mode = std::fs::metadata(&folder).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700, "{}", folder.display());
    assert!(
        server.digest(),
        "a disposable server checks itself by its digest"
    );
    every_check_passes(&server);
    // The backends are named after the server, and its folder goes with it.
    assert_eq!(server.backend(Mode::Pipeline), "RedisUnix_Pipeline");
    // A person's server is told by its transport too: the same Redis through its socket is
    // RedisUnix, through its port Redis.
    let servers = common::spec().servers;
    let (_, port): (String, u16) = redis::cmd("CONFIG")
        .arg(&["GET", "port"])
        .query(&mut server.connect().unwrap())
        .unwrap();
    for (url, id) in [
        (server.url.clone(), "redis-unix"),
        (format!("redis://127.0.0.1:{port}/0"), "redis"),
    ] {
        assert_eq!(Server::at(url, &servers).unwrap().kind.id, id);
    }
    drop(server);
    assert!(!folder.exists(), "{} was left behind", folder.display());
}
