//! The spec loader: the real spec loads, and every malformed one names its file, line and column.

use redis_vs_doublets::{checked, load_spec, spec::Spec};

const MINIMAL: &str = r#"
sizes:
  - { symbol: B, key: background_links, env: TEST_B, default: 10, min: 1, description: { en: b, ru: б } }
  - { symbol: N, key: operations, env: TEST_N, default: 2, min: 1, max: B, description: { en: n, ru: н } }
families:
  - { id: doublets, env_value: doublets, sampling: { mode: linear, samples: 10, warm_up_seconds: 1, measurement_seconds: 2 } }
family_env: TEST_FAMILY
backends:
  - { name: Doublets_United_Volatile, family: doublets, layout: united, description: { en: u, ru: у } }
suites:
  - id: links
    name: { en: Links, ru: Связи }
    unit: { en: link, ru: связь }
    reads: [each]
    backends: [Doublets_United_Volatile]
    background: { description: { en: p, ru: т }, for: 1 to B, do: [create_point], expected: { ids: 1 to B } }
    operations:
      - id: create
        name: Create
        description: { en: c, ru: с }
        for: B+1 to B+N
        do: [create_point]
        expected: { ids: B+1 to B+N }
        undo: { for: B+N down to B+1, do: [delete i] }
    memory_per_request: { harness: 400, doublets: 100 }
"#;

fn parse(text: &str) -> Result<Spec, String> {
    checked(Spec::parse(text, "test.yaml")).map_err(|e| e.to_string())
}

fn error_of(from: &str, to: &str) -> String {
    assert!(MINIMAL.contains(from), "the fixture has no {from:?}");
    parse(&MINIMAL.replacen(from, to, 1)).expect_err("the spec should be refused")
}

#[test]
fn the_real_spec_loads_with_every_operation() {
    let spec = load_spec().unwrap();
    let links = spec.suite("links").unwrap();
    let names: Vec<_> = links.operations.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Create",
            "Update",
            "Delete",
            "Each All",
            "Each Identity",
            "Each Concrete",
            "Each Outgoing",
            "Each Incoming"
        ]
    );
    assert_eq!(links.backends.len(), 28);
    assert!(spec.families.iter().all(|f| f.sampling.samples >= 10));
}

#[test]
fn minimal_spec_resolves_expected_results() {
    let spec = parse(MINIMAL).unwrap();
    let create = &spec.suites[0].operations[0];
    let tally = create.expected.tally(&[10, 2]).unwrap();
    assert_eq!((tally.count(), tally.sum()), (2, 11 + 12));
}

#[test]
fn error_unknown_field_names_line_and_column() {
    let e = error_of(
        "    name: { en: Links",
        "    title: x\n    name: { en: Links",
    );
    assert!(e.starts_with("test.yaml:"), "{e}");
    assert!(e.contains("title"), "{e}");
    assert!(e.contains("line 12 column 5"), "{e}");
}

#[test]
fn error_wrong_type() {
    let e = error_of("default: 10", "default: ten");
    assert!(e.contains("test.yaml") && e.contains("line 3"), "{e}");
}

#[test]
fn error_duplicate_key() {
    let e = error_of(
        "        name: Create",
        "        name: Create\n        name: Again",
    );
    assert!(e.to_lowercase().contains("duplicate"), "{e}");
}

#[test]
fn error_unknown_request() {
    let e = error_of(
        "do: [create_point]\n        expected",
        "do: [create_many]\n        expected",
    );
    assert!(e.starts_with("test.yaml:22:14:"), "{e}");
    assert!(e.contains("unknown request \"create_many\""), "{e}");
}

#[test]
fn error_unknown_suite() {
    let e = error_of("  - id: links", "  - id: graphs");
    assert!(
        e.contains("no store implements the suite \"graphs\""),
        "{e}"
    );
}

#[test]
fn error_duplicate_operation() {
    let extra = "        undo: { for: B+N down to B+1, do: [delete i] }\n      - id: create\n        name: Again\n        description: { en: c, ru: с }\n        do: [each * * *]\n        expected: { ids: 1 to B }\n";
    let e = error_of(
        "        undo: { for: B+N down to B+1, do: [delete i] }\n",
        extra,
    );
    assert!(
        e.contains("operation \"create\" is declared twice") && e.starts_with("test.yaml:25:13:"),
        "{e}"
    );
}

#[test]
fn error_bad_expression_and_range() {
    assert!(error_of("for: B+1 to B+N", "for: B+1 to B*N").contains("expected + or -"));
    assert!(error_of("for: B+1 to B+N", "for: B+1..B+N").contains("not a range"));
    assert!(error_of("do: [delete i]", "do: [delete K]").contains("\"K\""));
    assert!(error_of("max: B", "max: N").contains("sizes declared above"));
}

#[test]
fn error_unknown_backend_and_family() {
    assert!(error_of(
        "backends: [Doublets_United_Volatile]",
        "backends: [Doublets_Other]"
    )
    .contains("unknown backend"));
    assert!(
        error_of("family: doublets, layout", "family: cassandra, layout")
            .contains("unknown family")
    );
    assert!(error_of("layout: united, ", "").contains("names its layout (united or split)"));
    assert!(error_of("layout: united", "layout: diagonal").contains("unknown variant `diagonal`"));
    assert!(error_of(
        "env_value: doublets,",
        "env_value: doublets, default: false,"
    )
    .contains("no family runs by default"));
    assert!(error_of(
        "env_value: doublets,",
        "env_value: doublets, durable: { en: d, ru: д },"
    )
    .contains("a durable family needs durable_dir_env and durable_tmpfs_env"));
}

#[test]
fn a_durable_server_takes_dir_and_says_when_a_write_is_durable() {
    let real = std::fs::read_to_string(redis_vs_doublets::spec_path()).unwrap();
    let error = parse(&real.replacen("--dir, \"{dir}\", ", "", 1))
        .map(drop)
        .unwrap_err();
    assert!(
        error.contains("start: a durable server takes {dir}, the folder its files go in"),
        "{error}"
    );
    let error = parse(&real.replacen(
        "--port, \"{port}\", --bind, 127.0.0.1, --save",
        "--port, \"{port}\", --bind, 127.0.0.1, --dir, \"{dir}\", --save",
        1,
    ))
    .map(drop)
    .unwrap_err();
    assert!(
        error.contains("start: {dir} is the folder of a durable server's files"),
        "{error}"
    );
    let spec = load_spec().unwrap();
    let none: Vec<String> = Vec::new();
    assert!(spec.durable(&none, &["redis-aof"]));
    assert!(!spec.durable(&none, &["redis", "redis-unix"]));
    assert!(spec.durable(&["doublets-file".to_string()], &[]));
}

#[test]
fn sizes_come_from_the_environment_with_clear_errors() {
    let spec = parse(MINIMAL).unwrap();
    let env = |pairs: &'static [(&'static str, &'static str)]| {
        move |name: &str| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    };
    assert_eq!(spec.sizes_from(env(&[])).unwrap(), vec![10, 2]);
    assert_eq!(
        spec.sizes_from(env(&[("TEST_B", "1_000"), ("TEST_N", "1000")]))
            .unwrap(),
        vec![1000, 1000]
    );
    let e = spec.sizes_from(env(&[("TEST_N", "11")])).unwrap_err();
    assert!(e.contains("TEST_N=11 is more than B = 10"), "{e}");
    assert!(spec
        .sizes_from(env(&[("TEST_B", "lots")]))
        .unwrap_err()
        .contains("TEST_B=\"lots\" is not a whole number"));
    assert!(spec
        .sizes_from(env(&[("TEST_B", "0")]))
        .unwrap_err()
        .contains("below its minimum"));
    let unknown = spec.families_from(Some("redis".into())).unwrap_err();
    assert!(
        unknown.contains("TEST_FAMILY=\"redis\": \"redis\" is not one of doublets"),
        "{unknown}"
    );
    assert_eq!(
        spec.families_from(Some("doublets".into())).unwrap().len(),
        1
    );
}

#[test]
fn servers_are_picked_by_id_and_their_backends_named_after_them() {
    let spec = load_spec().unwrap();
    let ids = |value: Option<&str>| -> Result<Vec<String>, String> {
        spec.servers_from(value.map(String::from))
            .map(|servers| servers.iter().map(|s| s.id.clone()).collect())
    };
    assert_eq!(ids(None).unwrap(), ["redis"]);
    assert_eq!(ids(Some(" ")).unwrap(), ["redis"]);
    assert_eq!(ids(Some("redis,garnet")).unwrap(), ["redis", "garnet"]);
    let unknown = ids(Some("redis,keydb")).unwrap_err();
    assert!(
        unknown.contains(
            "BENCHMARK_SERVERS=\"redis,keydb\": \"keydb\" is not one of redis, redis-unix, redis-aof, redis-aof-always, redis-rack, redis-region, garnet, garnet-aof"
        ),
        "{unknown}"
    );
    assert!(ids(Some("garnet,garnet"))
        .unwrap_err()
        .contains("names garnet twice"));
    assert_eq!(spec.server_of("Garnet_Pipeline").unwrap().id, "garnet");
    assert!(spec.server_of("Doublets_Split_Volatile").is_none());
    let families = vec!["doublets".to_string(), "redis".to_string()];
    assert!(!spec.runs("Garnet_Pipeline", &families, &["redis"]));
    assert!(spec.runs("Garnet_Pipeline", &families, &["redis", "garnet"]));
    assert!(spec.runs("Doublets_Split_Volatile", &families, &[]));
    let cells = |servers: &[&str], clients| {
        spec.schedule(&families, servers, clients, &[1000, 100])
            .cells
    };
    let (one, two) = (cells(&["redis"], None), cells(&["redis", "garnet"], None));
    let operations: usize = spec.suites.iter().map(|s| s.operations.len()).sum();
    assert_eq!(
        two - one,
        3 * operations,
        "three modes for each operation of every suite"
    );
    // C# runs each server cell through every client, but not the modes a client cannot run.
    let every = spec.clients_from(None).unwrap();
    let through_clients = cells(&["redis"], Some(&every));
    let payload = spec.suite("payload").unwrap().operations.len();
    assert_eq!(
        through_clients - one,
        2 * 3 * operations - payload,
        "two more clients in three modes, less FreeRedis's payload transactions"
    );
    // BENCHMARK_CLIENTS picks some of them, in the order given, each once.
    let picked = |value: &str| {
        spec.clients_from(Some(value.to_string()))
            .map(|c| c.iter().map(|c| c.id.clone()).collect::<Vec<_>>())
    };
    assert_eq!(
        picked("CSRedisCore, FreeRedis").unwrap(),
        ["CSRedisCore", "FreeRedis"]
    );
    let free_redis = spec.clients_from(Some("FreeRedis".into())).unwrap();
    let through_one = cells(&["redis"], Some(&free_redis));
    assert_eq!(
        through_one,
        one - payload,
        "FreeRedis in place of redis-rs, less its payload transactions"
    );
    let unknown = picked("FreeRedis,Jedis").unwrap_err();
    assert!(
        unknown.contains(
            "BENCHMARK_CLIENTS=\"FreeRedis,Jedis\": \"Jedis\" is not one of StackExchange.Redis, FreeRedis, CSRedisCore"
        ),
        "{unknown}"
    );
    assert!(picked("FreeRedis,FreeRedis")
        .unwrap_err()
        .contains("names FreeRedis twice"));

    let real = std::fs::read_to_string(redis_vs_doublets::spec_path()).unwrap();
    let misnamed = real.replacen("name: Garnet_Pipeline", "name: Redis_Pipeline2", 1);
    let e = parse(&misnamed).unwrap_err();
    assert!(
        e.contains("a Garnet backend's name starts with Garnet_"),
        "{e}"
    );
    let unpicked = real.replacen("client_env: BENCHMARK_CLIENTS\n", "", 1);
    let e = parse(&unpicked).unwrap_err();
    assert!(e.contains("clients need client_env"), "{e}");
    let nowhere = real.replacen("server: garnet", "server: keydb", 1);
    let e = parse(&nowhere).unwrap_err();
    assert!(e.contains("unknown server \"keydb\""), "{e}");
}

#[test]
fn the_pipeline_backends_describe_the_specs_window() {
    // The descriptions say the window in words (the README prints them); they must say the one the
    // spec sets, in both languages.
    let spec = load_spec().unwrap();
    let windows: Vec<usize> = spec.servers.iter().map(|s| s.pipeline_window).collect();
    assert!(windows.windows(2).all(|w| w[0] == w[1]), "{windows:?}");
    let mib = windows[0] / (1 << 20);
    assert_eq!(mib << 20, windows[0], "a window of whole MiB");
    let pipelines: Vec<_> = spec
        .backends
        .iter()
        .filter(|b| b.name.ends_with("_Pipeline"))
        .collect();
    assert_eq!(pipelines.len(), spec.servers.len());
    for backend in pipelines {
        let d = &backend.description;
        assert!(
            d.en.contains(&format!("{mib} MiB")),
            "{}: {}",
            backend.name,
            d.en
        );
        assert!(
            d.ru.contains(&format!("{mib} МиБ")),
            "{}: {}",
            backend.name,
            d.ru
        );
    }
}

#[test]
fn the_load_section_names_operations_that_run_one_i_at_a_time() {
    let spec = load_spec().unwrap();
    let load = spec.load.as_ref().unwrap();
    assert!(load.clients.contains(&load.latency_clients));
    let suites: Vec<&str> = load.operations.iter().map(|o| o.suite.as_str()).collect();
    assert!(suites.contains(&"links") && suites.contains(&"typical"));

    let real = std::fs::read_to_string(redis_vs_doublets::spec_path()).unwrap();
    let refused = |from: &str, to: &str| -> String {
        assert!(real.contains(from), "{from}");
        parse(&real.replacen(from, to, 1)).unwrap_err()
    };
    let e = refused("- { id: each_concrete }", "- { id: each_sideways }");
    assert!(
        e.contains("no suite has an operation \"each_sideways\"") && e.contains(":"),
        "{e}"
    );
    let e = refused("- { id: each_concrete }", "- { id: payload_1b }");
    assert!(
        e.contains("payload_1b: the load measures clients beside doublets' shared store, and no doublets store runs the suite payload"),
        "{e}"
    );
    // Its work runs B down to B-N+1: not one i of 1..=N at a time.
    let e = refused("- { id: each_concrete }", "- { id: kv_delete }");
    assert!(
        e.contains("kv_delete: the load runs an operation one i at a time"),
        "{e}"
    );
    // A pair (work and undo) per i cannot be cut into batches of 3.
    let e = refused("  batch: 16\n", "  batch: 3\n");
    assert!(
        e.contains("a pipeline or batch of 3 would split its 2 requests"),
        "{e}"
    );
    let e = refused("  latency_clients: 8\n", "  latency_clients: 5\n");
    assert!(e.contains("latency_clients must be one of clients"), "{e}");
    let e = refused("  depths: [1, 16]\n", "  depths: [0, 16]\n");
    assert!(e.contains("above 0"), "{e}");
    let e = refused("  client_depths: [1]\n", "  client_depths: []\n");
    assert!(
        e.contains("client_depths and batch are whole numbers above 0"),
        "{e}"
    );
    let e = refused("  client_depths: [1]\n", "  client_depths: [1, 3]\n");
    assert!(
        e.contains("a pipeline or batch of 3 would split its 2 requests"),
        "{e}"
    );
}

/// The spec counts by what it measures: a reworded description, a comment or a Russian name
/// keeps the fingerprint; a changed sampling, start flag or request changes it.
#[test]
fn the_fingerprint_follows_what_the_spec_measures_not_its_prose() {
    use redis_vs_doublets::provenance::fingerprint;
    let spec = std::fs::read_to_string(redis_vs_doublets::spec_path()).unwrap();
    let root = std::env::temp_dir().join(format!("rvd-spec-fingerprint-{}", std::process::id()));
    std::fs::create_dir_all(root.join("spec")).unwrap();
    let of = |text: &str| {
        std::fs::write(root.join(redis_vs_doublets::spec::SPEC_PATH), text).unwrap();
        fingerprint(&root, &["spec".to_string()]).unwrap()
    };
    let published = of(&spec);
    // (from, to, whether the change is to what is measured)
    for (from, to, measured) in [
        ("ждёт без конца", "не ждёт вечно", false),
        (
            "# What RedisVSDoublets measures",
            "# What this benchmark",
            false,
        ),
        (
            "in one process with no persistence",
            "in one process, no persistence",
            false,
        ),
        (
            "install: \"apt-get install -y",
            "install: \"apt install",
            false,
        ),
        ("measurement_seconds: 1 }", "measurement_seconds: 2 }", true),
        ("--loglevel, warning,", "--loglevel, notice,", true),
        // What is published, and how long it takes, is a plan, not what a result measured.
        (
            "{ background: 1000, operations: 100, rounds: 6,",
            "{ background: 1000, operations: 100, rounds: 9,",
            false,
        ),
        (
            "pipeline_window_bytes: 1048576",
            "pipeline_window_bytes: 1048577",
            true,
        ),
    ] {
        assert!(spec.contains(from), "the spec no longer says {from:?}");
        let changed = of(&spec.replacen(from, to, 1));
        assert_eq!(
            changed != published,
            measured,
            "{from:?} (measured: {measured})"
        );
    }
    std::fs::remove_dir_all(&root).unwrap();
}

/// The fingerprint both languages compute: SHA-1 over each file's path, length and bytes in path
/// order, build outputs left out (target; bin and obj beside a .csproj, while a Cargo `src/bin`
/// counts). The C# tests expect the same value
/// for the same files (SpecTests.FingerprintIsTheRustOne).
#[test]
fn the_fingerprint_covers_exactly_the_listed_files() {
    use redis_vs_doublets::provenance::fingerprint;
    let root = std::env::temp_dir().join(format!("rvd-fingerprint-{}", std::process::id()));
    let write = |path: &str, text: &str| {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("a/x.txt", "hi\n");
    write("b.txt", "yo");
    write("a/p.csproj", "<Project />");
    write("a/bin/ignored.dll", "built");
    write("a/obj/ignored", "built");
    write("a/target/ignored", "built");
    write("a/src/bin/main.rs", "fn main() {}");
    write("c.txt", "not listed");
    let paths = ["a".to_string(), "b.txt".to_string()];
    let expected = "4a3e81ce36876bdb8b28410da7ed9e0021168b0e";
    assert_eq!(fingerprint(&root, &paths).unwrap(), expected);
    // Build outputs and unlisted files change nothing; one changed byte changes it.
    write("a/bin/ignored.dll", "rebuilt");
    write("c.txt", "changed");
    assert_eq!(fingerprint(&root, &paths).unwrap(), expected);
    write("a/x.txt", "hi!");
    assert_ne!(fingerprint(&root, &paths).unwrap(), expected);
    write("a/x.txt", "hi\n");
    write("a/src/bin/main.rs", "fn main() { load() }");
    assert_ne!(fingerprint(&root, &paths).unwrap(), expected);
    let missing = fingerprint(&root, &["nowhere".to_string()])
        .unwrap_err()
        .to_string();
    assert!(
        missing.contains("spec fingerprint: nowhere does not exist"),
        "{missing}"
    );
    std::fs::remove_dir_all(&root).unwrap();
}

/// The real spec with `from` replaced: its error.
fn real_error(from: &str, to: &str) -> String {
    let real = std::fs::read_to_string(redis_vs_doublets::spec_path()).unwrap();
    assert!(real.contains(from), "the real spec has no {from:?}");
    parse(&real.replacen(from, to, 1)).expect_err("the spec should be refused")
}

#[test]
fn clients_and_left_out_families_are_checked_with_their_line() {
    let e = real_error("        mode: Transaction\n", "        mode: Batch\n");
    assert!(
        e.contains("not_run: the mode \"Batch\" is not NonTransaction, Transaction or Pipeline")
            && e.starts_with("test.yaml:"),
        "{e}"
    );
    let e = real_error("      - suite: payload\n", "      - suite: cache\n");
    assert!(e.contains("not_run: unknown suite \"cache\""), "{e}");
    let e = real_error("      - server: redis-unix\n", "      - server: valkey\n");
    assert!(e.contains("not_run: unknown server \"valkey\""), "{e}");
    let e = real_error(
        "      - suite: payload\n        mode: Transaction\n",
        "      -\n",
    );
    assert!(
        e.contains("not_run: an entry needs a suite, a mode or a server"),
        "{e}"
    );
    let e = real_error("    suffix: FreeRedis\n", "");
    assert!(e.contains("exactly one client must be the default"), "{e}");
    let e = real_error("    suffix: CSRedisCore\n", "    suffix: CS-Redis\n");
    assert!(
        e.contains("the client suffix \"CS-Redis\" must be letters and digits"),
        "{e}"
    );
    let e = real_error(
        "    backends: [Redis_NonTransaction, Redis_Transaction, Redis_Pipeline, RedisUnix_NonTransaction",
        "    backends: [Doublets_Split_Volatile, Redis_NonTransaction, Redis_Transaction, Redis_Pipeline, RedisUnix_NonTransaction",
    );
    assert!(e.contains("the suite leaves the family doublets out, but lists its backend Doublets_Split_Volatile"), "{e}");
    let spec = redis_vs_doublets::load_spec().unwrap();
    let (backend, client) = spec
        .backend_client("Garnet_Transaction_CSRedisCore")
        .unwrap();
    assert_eq!(
        (backend.name.as_str(), client.id.as_str()),
        ("Garnet_Transaction", "CSRedisCore")
    );
    assert_eq!(
        spec.backend_client("Redis_Pipeline").unwrap().1.id,
        "StackExchange.Redis"
    );
    assert!(spec.backend_client("Doublets_Split_Volatile").is_none());
    assert!(spec.backend_client("Redis_Pipeline_Jedis").is_none());
}

/// The publish plan names only servers, languages and sizes the spec has, with a figure for every
/// load and memory size, and says where.
#[test]
fn the_publish_plan_is_checked_against_the_spec() {
    let spec = std::fs::read_to_string(redis_vs_doublets::spec_path()).unwrap();
    let parse_real =
        |text: &str| checked(Spec::parse(text, "benchmarks.yaml")).map_err(|e| e.to_string());
    let published = parse_real(&spec).unwrap().publish.unwrap();
    assert!(published.bench.iter().any(|b| b.background == 1000));
    for (from, to, expected) in [
        (
            "  servers: [redis, garnet]\n  # A size",
            "  servers: [redis, keydb]\n  # A size",
            "\"keydb\" is not one of the spec's servers",
        ),
        (
            "servers: { csharp: [redis] }",
            "servers: { go: [redis] }",
            "servers are per language (rust, csharp)",
        ),
        (
            "load_minutes: { rust: [4.5, 9]",
            "load_minutes: { rust: [4.5]",
            "one figure per load size (2)",
        ),
        (
            "    - { minutes: 40, servers: [redis] }\n",
            "",
            "memory: one run per memory size (5), not 4",
        ),
        (
            "{ background: 1000, operations: 100, rounds: 6,",
            "{ background: 1000, operations: 2000, rounds: 6,",
            "N must be from 1 to B",
        ),
    ] {
        assert!(spec.contains(from), "the spec no longer says {from:?}");
        let e = parse_real(&spec.replacen(from, to, 1)).unwrap_err();
        assert!(
            e.contains("benchmarks.yaml:") && e.contains("publish: ") && e.contains(expected),
            "{e}"
        );
    }
}

#[test]
fn a_schedule_of_some_cells_loads_only_the_stores_they_run_on() {
    let spec = load_spec().unwrap();
    let redis = vec!["redis".to_string()];
    let sizes = [1000, 100];
    let all = spec.schedule(&redis, &["redis"], None, &sizes);
    let creates = spec.schedule_of(&redis, &["redis"], None, &sizes, &|cell| {
        cell.starts_with("create/")
    });
    assert_eq!(creates.cells, 3, "create in three modes");
    let links = spec.suite("links").unwrap();
    assert_eq!(
        creates.loads,
        spec.load_seconds(links, "Redis_Pipeline", "rust", &sizes)
    );
    assert!(creates.seconds() < all.seconds());
    let cells = spec.cells(&redis, &["redis"]);
    assert_eq!(cells.len(), all.cells);
    assert!(cells.contains(&"create/Redis_Pipeline".to_string()));
}

#[test]
fn the_schedule_counts_loads_and_the_checks_a_cell_needs() {
    let spec = load_spec().unwrap();
    let sizes = [1_000_000, 1000];
    let redis = vec!["redis".to_string()];
    let plan = |servers: &[&str], clients| spec.schedule(&redis, servers, clients, &sizes);
    let (on_redis, on_garnet) = (plan(&["redis"], None), plan(&["garnet"], None));
    assert_eq!(on_redis.cells, on_garnet.cells);
    assert_eq!(
        on_redis.sampling,
        on_redis.cells as f64 * 1.5,
        "1.5 s a server cell"
    );
    assert!(on_redis.loads > 0.0 && on_redis.checks > 0.0);
    // One load per suite and store: three modes, or C#'s clients, share it.
    let every = spec.clients_from(None).unwrap();
    let through_clients = plan(&["redis"], Some(&every));
    assert_eq!(through_clients.loads, on_redis.loads);
    assert!(through_clients.checks > on_redis.checks);
    // Redis counts its changes, so its read-only cells need no check; Garnet reads every one back.
    let links = spec.suite("links").unwrap();
    let read_only = links
        .operations
        .iter()
        .find(|o| o.id == "each_all")
        .unwrap();
    let writes = links.operations.iter().find(|o| o.id == "update").unwrap();
    let check = |op, backend| spec.check_seconds(links, op, backend, "rust", &sizes);
    assert_eq!(check(read_only, "Redis_Pipeline"), 0.0);
    assert!(check(writes, "Redis_Pipeline") > 0.0);
    assert!(check(read_only, "Garnet_Pipeline") > 0.0);
    // A durable store pays its restart and a whole check after every cell, reading or writing.
    let aof = spec.servers.iter().find(|s| s.id == "redis-aof").unwrap();
    let whole = check(writes, "Redis_Pipeline");
    let restart = check(read_only, "RedisAof_Pipeline");
    assert!(
        (restart - (aof.restart_seconds + whole)).abs() < 1e-9,
        "{restart}"
    );
    assert!((check(writes, "RedisAof_Pipeline") - (restart + whole)).abs() < 1e-9);
    assert!(
        check(read_only, "Doublets_United_NonVolatile")
            > check(read_only, "Doublets_United_Volatile")
    );
    // A cell whose fewest iterations outlast its sampling is planned at their length: each_all
    // reports every link, and a server cell runs 11 iterations at least.
    let beyond = |backend, client, sizes: &[u64]| {
        spec.cell_seconds(links, read_only, backend, client, "csharp", sizes)
            .beyond
    };
    assert!(beyond("Redis_Pipeline", None, &sizes) > 0.0);
    assert!(
        beyond("Redis_Pipeline", Some("FreeRedis"), &sizes)
            > 10.0 * beyond("Redis_Pipeline", None, &sizes)
    );
    // At B = 1,000 sampling outlasts them, and what lies beyond it is the iteration that ends the
    // warm-up and the split's iterations: each as long as its request and reporting every link.
    let split = spec.split.as_ref().unwrap();
    let per_request = |mode: &str, store: &str| links.overhead_us.request[mode][store];
    let iteration =
        (links.overhead_us.found["redis"] * 1000.0 + per_request("Pipeline", "redis")) / 1e6;
    assert!(
        (beyond("Redis_Pipeline", None, &[1000, 100])
            - (1.0 + f64::from(split.iterations)) * iteration)
            .abs()
            < 1e-9
    );
    // Garnet's time is not split.
    let iteration =
        (links.overhead_us.found["garnet"] * 1000.0 + per_request("Pipeline", "garnet")) / 1e6;
    assert!((beyond("Garnet_Pipeline", None, &[1000, 100]) - iteration).abs() < 1e-9);
    // A cell of N round trips, each undone by N more, is planned at its fewest iterations too:
    // at N = 1,000 through FreeRedis, 10 samples of one iteration outlast the 1 s of sampling.
    let create = links.operations.iter().find(|o| o.id == "create").unwrap();
    let cell = |backend, client| {
        spec.cell_seconds(links, create, backend, client, "csharp", &[10_000, 1000])
            .beyond
    };
    let iteration = 2000.0 * per_request("NonTransaction", "FreeRedis") / 1e6;
    let samples = spec.family("redis").sampling.samples as f64;
    assert!(
        cell("Redis_NonTransaction", Some("FreeRedis")) >= iteration + samples * iteration - 1.0,
        "{}",
        cell("Redis_NonTransaction", Some("FreeRedis"))
    );
    assert!(cell("Redis_Pipeline", None) < cell("Redis_NonTransaction", None));
    // The costs scale with the background.
    let small = spec.schedule(&redis, &["redis"], None, &[1000, 100]);
    assert!((on_redis.loads / small.loads - 1000.0).abs() < 1e-6);
    // A suite's overheads name each of its stores.
    let real = std::fs::read_to_string(redis_vs_doublets::spec_path()).unwrap();
    let error = parse(&real.replacen(
        "redis-aof-always: 28, garnet: 19",
        "redis-aof-always: 28",
        1,
    ))
    .map(drop)
    .unwrap_err();
    assert!(
        error.contains("overhead_us: load: garnet is missing"),
        "{error}"
    );
    let error = parse(&real.replacen(
        "redis-aof-always: 28, garnet: 19",
        "redis-aof-always: 28, garnet: 19, keydb: 1",
        1,
    ))
    .map(drop)
    .unwrap_err();
    assert!(
        error.contains("overhead_us: load: \"keydb\" is no store of the suite (they are doublets, doublets-file, redis, redis-unix, redis-aof, redis-aof-always, redis-rack, redis-region, garnet, garnet-aof)"),
        "{error}"
    );
    // A request's cost names a mode of the suite's backends.
    let error = parse(&real.replacen(
        "        Pipeline: { redis: 10,",
        "        Pipelined: { redis: 10,",
        1,
    ))
    .map(drop)
    .unwrap_err();
    assert!(
        error.contains("overhead_us: request: \"Pipelined\" is no mode of the suite's backends (they are NonTransaction, NonVolatile, Pipeline, Transaction, Volatile)"),
        "{error}"
    );
}

/// The C# harness checks a loaded Doublets store from .NET through the C ABI, which costs it more
/// than Rust: its rounds are planned at its own costs (`overhead_us.csharp`), and what those leave
/// out at the suite's.
#[test]
fn each_harness_is_planned_at_its_own_costs() {
    let spec = load_spec().unwrap();
    let links = spec.suite("links").unwrap();
    let own = links.overhead_us.csharp.as_deref().expect("C#'s own costs");
    // At B = 1,000,000 a microsecond per link is a second.
    let sizes = [1_000_000, 1000];
    let load = |backend, language| spec.load_seconds(links, backend, language, &sizes);
    let united = "Doublets_United_Volatile";
    assert!((load(united, "rust") - links.overhead_us.load["doublets"]).abs() < 1e-9);
    assert!((load(united, "csharp") - own.load["doublets"]).abs() < 1e-9);
    assert!(load(united, "csharp") > load(united, "rust"));
    assert_eq!(
        load("Redis_Pipeline", "csharp"),
        load("Redis_Pipeline", "rust")
    );
    // A round of Doublets alone: C#'s loads cost more, its cells the same.
    let doublets = vec!["doublets".to_string()];
    let every = spec.clients_from(None).unwrap();
    let rust = spec.schedule(&doublets, &[], None, &sizes);
    let csharp = spec.schedule(&doublets, &[], Some(&every), &sizes);
    assert!(csharp.loads > rust.loads, "{csharp:?} {rust:?}");
    // Each Doublets layout is a store of its own, loaded once a suite (payload leaves Doublets out).
    let typical = spec.suite("typical").unwrap();
    let layouts = |language| {
        [links, typical]
            .iter()
            .flat_map(|suite| {
                ["Doublets_United_Volatile", "Doublets_Split_Volatile"]
                    .map(|b| spec.load_seconds(suite, b, language, &sizes))
            })
            .sum::<f64>()
    };
    assert!((rust.loads - layouts("rust")).abs() < 1e-9, "{rust:?}");
    assert!(
        (csharp.loads - layouts("csharp")).abs() < 1e-9,
        "{csharp:?}"
    );
    assert_eq!(
        (csharp.cells, csharp.sampling, csharp.checks),
        (rust.cells, rust.sampling, rust.checks)
    );
    // C#'s own costs name the suite's stores or clients, and have no C# of their own.
    let real = std::fs::read_to_string(redis_vs_doublets::spec_path()).unwrap();
    let refused = |from: &str, to: &str| parse(&real.replacen(from, to, 1)).map(drop).unwrap_err();
    let error = refused(
        "csharp: { load: { doublets: 9.5,",
        "csharp: { load: { keydb: 1, doublets: 9.5,",
    );
    assert!(
        error.contains("overhead_us: csharp: load: \"keydb\" is no store of the suite or client"),
        "{error}"
    );
    let error = refused(
        "csharp: { load: { doublets: 9.5, doublets-file: 9.5 } }",
        "csharp: { load: { doublets: 9.5 }, csharp: { load: {} } }",
    );
    assert!(
        error.contains(
            "overhead_us: csharp: csharp: the C# harness's costs have no csharp of their own"
        ),
        "{error}"
    );
}

/// The C# harness reads no spec itself: it gets the file as written (N a symbol, not YAML 1.1's
/// false), the sizes the run's variables choose, and the work as terms it only evaluates, or this
/// side's refusal.
#[test]
fn the_csharp_harness_gets_the_spec_as_written_and_the_runs_choices() {
    use redis_vs_doublets::handoff::for_csharp;
    use serde_json::json;
    let given = |name: &'static str, value: &'static str| {
        move |v: &str| (v == name).then(|| value.to_string())
    };
    let handed: serde_json::Value = serde_json::from_str(
        &for_csharp(MINIMAL, "test.yaml", given("TEST_B", "20"), 1 << 40).unwrap(),
    )
    .unwrap();
    assert_eq!(handed["document"]["sizes"][1]["symbol"], "N");
    assert_eq!(handed["sizes"], json!([20, 2]));
    assert_eq!(handed["families"], json!(["doublets"]));
    let create = &handed["suites"][0]["operations"][0];
    assert_eq!(create["work"]["range"]["text"], "B+1 to B+N");
    assert_eq!(
        create["work"]["range"]["from"],
        json!([{ "sign": 1, "kind": "size", "value": 0 }, { "sign": 1, "kind": "number", "value": 1 }])
    );
    assert_eq!(create["undo"]["range"]["descending"], true);
    assert_eq!(
        create["undo"]["requests"][0]["args"],
        json!([[{ "sign": 1, "kind": "i", "value": 0 }]])
    );
    let real = std::fs::read_to_string(redis_vs_doublets::spec_path()).unwrap();
    let handed: serde_json::Value =
        serde_json::from_str(&for_csharp(&real, "spec.yaml", |_| None, 1 << 40).unwrap()).unwrap();
    let each_all = &handed["suites"][0]["operations"][3];
    assert_eq!(
        each_all["work"]["requests"][0]["args"],
        json!([null, null, null])
    );
    let refused = for_csharp(MINIMAL, "test.yaml", given("TEST_N", "50"), 1 << 40).unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("TEST_N=50 is more than B = 10"),
        "{refused}"
    );
}
