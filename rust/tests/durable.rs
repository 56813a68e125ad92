//! Durable stores (doublets on files, Redis with its append-only file): every operation of both
//! suites passes every check with the store closed and opened again from its files after each
//! cell; files that lost a write fail the cell; the run's folder is refused on tmpfs or short of
//! space, and nothing is left behind.

mod common;

use std::{
    os::unix::fs::FileExt,
    path::{Path, PathBuf},
};

use redis_vs_doublets::{
    durable::{self, Folder},
    harness::{self, Prepared},
    links::{self, LinkRequest, LinksModel},
    repository,
    resp::server::Server,
    resp::store::{Mode, RedisRequest},
    spec::Spec,
    store::{Census, Model, Request, Store},
    typical::{self, UsageModel, UsageRequest},
};

const SIZES: [u64; 2] = [10, 5];

/// A run folder in target/, which lies on the disk the build uses (the system's temporary folder
/// may be tmpfs), as BENCHMARK_DURABLE_DIR would name it.
fn folder(spec: &Spec) -> Folder {
    stopping(spec, "close")
}

/// [`folder`], its stores stopping before each restart as BENCHMARK_DURABLE_STOP=`stop` says.
fn stopping(spec: &Spec, stop: &str) -> Folder {
    let target = repository().join("target");
    std::fs::create_dir_all(&target).unwrap();
    let dir = target.display().to_string();
    let get = |var: &str| {
        if var == spec.durable_dir_env {
            Some(dir.clone())
        } else {
            (var == spec.durable_stop_env).then(|| stop.to_string())
        }
    };
    Folder::new(spec, get, 1 << 20).unwrap()
}

/// Every operation of `suite` on `store` as the bench runs it: each cell must end with a restart
/// and the check after it.
fn every_cell<R: Request, M: Model<R>>(store: &mut impl Store<R>, suite: &str, name: &str) {
    let spec = common::spec();
    let mut model = M::default();
    let mut background = common::load(store, &mut model, suite, &SIZES, 20, name);
    for operation in &spec.suite(suite).unwrap().operations {
        let prepared = Prepared::<R>::new(operation, &SIZES).unwrap();
        let cell = format!("{}/{name}", operation.id);
        let took = harness::cell(&prepared, store, &mut background, &cell, |store| {
            prepared.measure(store, &cell);
        })
        .unwrap();
        assert!(took.restart.is_some(), "{cell}: no restart");
    }
}

#[test]
fn every_operation_passes_every_check_with_a_restart_after_each_cell() {
    let spec = common::spec();
    let run = folder(&spec);
    assert!(
        run.describe.contains("not tmpfs") && run.describe.contains("fdatasync of 4 KiB"),
        "{}",
        run.describe
    );
    let mut left: Vec<PathBuf> = Vec::new();
    let mut files = |folder: Option<&Path>| left.push(folder.unwrap().to_path_buf());

    let mut store = links::united_store(Some(run.store("links-united").unwrap())).unwrap();
    files(store.folder());
    every_cell::<_, LinksModel>(&mut store, "links", "Doublets_United_NonVolatile");
    drop(store);
    let mut store = links::split_store(Some(run.store("links-split").unwrap())).unwrap();
    files(store.folder());
    every_cell::<_, LinksModel>(&mut store, "links", "Doublets_Split_NonVolatile");
    drop(store);
    let mut store = typical::united_store(Some(run.store("typical-united").unwrap())).unwrap();
    files(store.folder());
    every_cell::<_, UsageModel>(&mut store, "typical", "Doublets_United_NonVolatile");
    drop(store);
    let mut store = typical::split_store(Some(run.store("typical-split").unwrap())).unwrap();
    files(store.folder());
    every_cell::<_, UsageModel>(&mut store, "typical", "Doublets_Split_NonVolatile");
    drop(store);

    for folder in &left {
        assert!(!folder.exists(), "{} outlived its store", folder.display());
    }
    let path = run.path().to_path_buf();
    drop(run);
    assert!(!path.exists(), "{} outlived the run", path.display());
}

/// A store whose files lose one write before each restart: the bytes at `offset` of `file` in its
/// folder are zeroed, as if the link's last write there had never reached the file.
struct LostWrite<S> {
    inner: S,
    file: PathBuf,
    offset: u64,
}

impl<R: Request, S: Store<R>> Store<R> for LostWrite<S> {
    fn run(&mut self, batch: &[R], found: impl FnMut(R::Found)) -> anyhow::Result<()> {
        self.inner.run(batch, found)
    }

    fn census(&mut self) -> anyhow::Result<Census> {
        self.inner.census()
    }

    fn digest(&mut self) -> anyhow::Result<Option<String>> {
        self.inner.digest()
    }

    fn restart(&mut self) -> anyhow::Result<bool> {
        let file = std::fs::OpenOptions::new().write(true).open(&self.file)?;
        file.write_all_at(&[0; 16], self.offset)?;
        self.inner.restart()
    }
}

/// The cell `update` on `store` with a lost write: the cell's error.
fn lost<S: Store<LinkRequest>>(store: S, file: PathBuf, offset: u64) -> String {
    let spec = common::spec();
    let suite = spec.suite("links").unwrap();
    let update = suite.operations.iter().find(|o| o.id == "update").unwrap();
    let prepared = Prepared::<LinkRequest>::new(update, &SIZES).unwrap();
    let mut store = LostWrite {
        inner: store,
        file,
        offset,
    };
    let mut model = LinksModel::default();
    let mut background = common::load(&mut store, &mut model, "links", &SIZES, 20, "lost");
    harness::cell(&prepared, &mut store, &mut background, "cell", |store| {
        prepared.measure(store, "cell");
    })
    .expect_err("a store that lost a write passed its restart")
    .to_string()
}

#[test]
fn files_that_lost_a_write_fail_the_cell_after_the_restart() {
    let spec = common::spec();
    let run = folder(&spec);
    // Link 3's source and target: in the united store's one file a link takes 64 bytes, in the
    // split store's data file 16.
    let store = links::united_store(Some(run.store("united").unwrap())).unwrap();
    let file = store.folder().unwrap().join("links");
    let error = lost(store, file, 3 * 64);
    let split = links::split_store(Some(run.store("split").unwrap())).unwrap();
    let file = split.folder().unwrap().join("data");
    for (store, error) in [("united", error), ("split", lost(split, file, 3 * 16))] {
        assert!(
            error.contains("cell: the background is damaged")
                && error.contains("(after closing the store and opening it again)"),
            "{store}: {error}"
        );
    }
}

#[test]
fn a_folder_on_tmpfs_or_short_of_space_is_refused_before_any_work() {
    let spec = common::spec();
    let shm = Path::new("/dev/shm");
    let (dir_env, tmpfs_env) = (&spec.durable_dir_env, &spec.durable_tmpfs_env);
    let on = |dir: &str, tmpfs: Option<&str>| {
        let (dir, tmpfs) = (dir.to_string(), tmpfs.map(String::from));
        move |var: &str| {
            if var == dir_env {
                Some(dir.clone())
            } else if var == tmpfs_env {
                tmpfs.clone()
            } else {
                None
            }
        }
    };
    if shm.is_dir()
        && std::fs::read_to_string("/proc/mounts")
            .unwrap()
            .contains(" /dev/shm tmpfs ")
    {
        let error = Folder::new(&spec, on("/dev/shm", None), 1)
            .err()
            .unwrap()
            .to_string();
        assert!(
            error.contains("BENCHMARK_DURABLE_DIR=/dev/shm is on tmpfs")
                && error.contains("BENCHMARK_DURABLE_ALLOW_TMPFS=1"),
            "{error}"
        );
        let allowed = Folder::new(&spec, on("/dev/shm", Some("1")), 1).unwrap();
        assert!(
            allowed.describe.contains("tmpfs, allowed"),
            "{}",
            allowed.describe
        );
    }
    let target = repository().join("target").display().to_string();
    let error = Folder::new(&spec, on(&target, None), u64::MAX)
        .err()
        .unwrap()
        .to_string();
    assert!(
        error.contains("MiB free, but the durable stores' files need about"),
        "{error}"
    );
    let error = Folder::new(&spec, on("/no/such/folder", None), 1)
        .err()
        .unwrap()
        .to_string();
    assert!(
        error.contains("BENCHMARK_DURABLE_DIR=/no/such/folder: not a folder"),
        "{error}"
    );
    let error = Folder::new(
        &spec,
        |var| (var == spec.durable_stop_env).then(|| "-9".into()),
        1,
    )
    .err()
    .unwrap()
    .to_string();
    assert!(
        error.contains("BENCHMARK_DURABLE_STOP=\"-9\": say how a durable store stops"),
        "{error}"
    );
    let needed = durable::needed(&spec, &["doublets-file".to_string()], &[1_000_000, 1000]);
    assert!(needed > 80 << 20, "{needed}");
    assert_eq!(
        durable::needed(&spec, &["doublets".to_string()], &[1000, 100]),
        0
    );
}

#[test]
fn the_file_stores_keep_the_typical_suites_set_and_queue_across_a_restart() {
    let spec = common::spec();
    let run = folder(&spec);
    let mut store = typical::split_store(Some(run.store("typical").unwrap())).unwrap();
    let mut model = UsageModel::default();
    let background = common::load(&mut store, &mut model, "typical", &SIZES, 20, "typical");
    let digest = background.digest.clone();
    assert!(store.restart().unwrap());
    assert_eq!(store.digest().unwrap(), digest);
    let mut found = Vec::new();
    store
        .run(&[UsageRequest::LPop, UsageRequest::SIsMember(3)], |e| {
            found.push(e)
        })
        .unwrap();
    assert_eq!(found.len(), 2, "{found:?}");
}

/// Garnet on its append-only file, committed before each answer: every operation of both suites
/// passes every check with the server stopped and started again on its files after each cell, in
/// the mode that sends the most writes at once (the other modes differ only in framing).
#[test]
fn a_durable_garnet_passes_every_check_with_a_restart_after_each_cell() {
    let spec = common::spec();
    let run = folder(&spec);
    let server = Server::start(&common::kind("garnet-aof"), Some(&run)).unwrap();
    let name = server.backend(Mode::Pipeline);
    let mut store = server
        .store(LinkRequest::KEYS, false, Mode::Pipeline)
        .unwrap();
    every_cell::<_, LinksModel>(&mut store, "links", &name);
    server.release().unwrap();
    let mut store = server
        .store(UsageRequest::KEYS, false, Mode::Pipeline)
        .unwrap();
    every_cell::<_, UsageModel>(&mut store, "typical", &name);
}

/// A durable Redis (its append-only file fsynced once a second, and before each answer) in every
/// mode, both suites: every cell ends with the server restarted on its file and checked whole.
#[test]
fn a_durable_redis_passes_every_check_with_a_restart_after_each_cell() {
    let spec = common::spec();
    let run = folder(&spec);
    for id in ["redis-aof", "redis-aof-always"] {
        let server = Server::start(&common::kind(id), Some(&run)).unwrap();
        assert!(server.digest());
        for mode in Mode::ALL {
            let name = server.backend(mode);
            let mut store = server.store(LinkRequest::KEYS, false, mode).unwrap();
            every_cell::<_, LinksModel>(&mut store, "links", &name);
            server.release().unwrap();
            let mut store = server.store(UsageRequest::KEYS, false, mode).unwrap();
            every_cell::<_, UsageModel>(&mut store, "typical", &name);
            server.release().unwrap();
        }
        // The last restart rewrote the file it had read (so the next reads one cell's writes).
        let mut con = redis::Client::open(server.url.as_str())
            .unwrap()
            .get_connection()
            .unwrap();
        let info: String = redis::cmd("INFO")
            .arg("persistence")
            .query(&mut con)
            .unwrap();
        assert!(info.contains("aof_rewrites:1\r\n"), "{id}: {info}");
    }
    let error = Server::start(&common::kind("redis-aof"), None)
        .err()
        .unwrap()
        .to_string();
    assert!(
        error.contains("RedisAof keeps its data in files"),
        "{error}"
    );
}

/// A Redis that stops writing its file in the middle of a cell (a key written and deleted behind
/// the bench's back, the deletion after CONFIG SET appendonly no): the server holds the
/// background, its file does not, and the cell fails once the server has restarted on it.
#[test]
fn a_redis_whose_file_lost_a_write_fails_the_cell_after_the_restart() {
    let spec = common::spec();
    let run = folder(&spec);
    let server = Server::start(&common::kind("redis-aof-always"), Some(&run)).unwrap();
    let mut store = server
        .store(LinkRequest::KEYS, false, Mode::Pipeline)
        .unwrap();
    let suite = spec.suite("links").unwrap();
    let each_all = suite
        .operations
        .iter()
        .find(|o| o.id == "each_all")
        .unwrap();
    let prepared = Prepared::<LinkRequest>::new(each_all, &SIZES).unwrap();
    let mut model = LinksModel::default();
    let mut background = common::load(&mut store, &mut model, "links", &SIZES, 20, "lost");
    let mut beside = redis::Client::open(server.url.as_str())
        .unwrap()
        .get_connection()
        .unwrap();
    let error = harness::cell(&prepared, &mut store, &mut background, "cell", |store| {
        prepared.measure(store, "cell");
        let _: () = redis::cmd("SET")
            .arg("lost")
            .arg(1)
            .query(&mut beside)
            .unwrap();
        let _: () = redis::cmd("CONFIG")
            .arg("SET")
            .arg("appendonly")
            .arg("no")
            .query(&mut beside)
            .unwrap();
        let _: () = redis::cmd("DEL").arg("lost").query(&mut beside).unwrap();
    })
    .expect_err("a server whose file lost a write passed its restart")
    .to_string();
    assert!(
        error.contains("(after closing the store and opening it again)"),
        "{error}"
    );
}

/// Stopped as a crash of their process leaves them (BENCHMARK_DURABLE_STOP=kill): Redis, its file
/// fsynced before each answer, killed with SIGKILL, and a doublets store opened again without a
/// sync, still hold every write they acknowledged, in every mode of the links suite.
#[test]
fn killed_stores_keep_every_write_they_acknowledged() {
    let spec = common::spec();
    let run = stopping(&spec, "kill");
    assert!(
        run.describe.contains("a server gets SIGKILL"),
        "{}",
        run.describe
    );
    let server = Server::start(&common::kind("redis-aof-always"), Some(&run)).unwrap();
    let pid = server.disposable.as_ref().unwrap().pid();
    for mode in Mode::ALL {
        let mut store = server.store(LinkRequest::KEYS, false, mode).unwrap();
        every_cell::<_, LinksModel>(&mut store, "links", &server.backend(mode));
        server.release().unwrap();
    }
    assert_ne!(
        server.disposable.as_ref().unwrap().pid(),
        pid,
        "never restarted"
    );
    let mut store = links::united_store(Some(run.store("killed").unwrap())).unwrap();
    every_cell::<_, LinksModel>(&mut store, "links", "Doublets_United_NonVolatile");
}
