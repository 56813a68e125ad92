//! Where the durable stores keep their files (a family with [`crate::spec::Family::durable`]): a
//! temporary folder the run makes, only this user can enter and the run removes however it ends
//! (Ctrl-C too), inside the folder the spec's durable_dir_env names, else the system's temporary
//! folder. Each store's files lie in a folder of their own, removed with the store. Before any
//! work, a folder on tmpfs is refused (it keeps nothing across a restart of the machine, so a
//! durable cell there would measure nothing durable) unless durable_tmpfs_env is 1, and so is one
//! with less free space than the stores' files need.

use std::{
    ffi::CString,
    os::unix::{ffi::OsStrExt, fs::DirBuilderExt},
    path::{Path, PathBuf},
    sync::Mutex,
    time::Instant,
};

use anyhow::{bail, Context};

use crate::spec::Spec;

/// The bytes the durable stores' files need at `sizes`: the largest of one store (the run holds one
/// at a time), its reservation (80 MiB, the split store's) and the spec's memory per background
/// request of its family.
pub fn needed(spec: &Spec, families: &[String], sizes: &[u64]) -> u64 {
    let durable: Vec<&str> = spec
        .families
        .iter()
        .filter(|f| f.durable.is_some() && families.contains(&f.id))
        .map(|f| f.id.as_str())
        .collect();
    spec.suites
        .iter()
        .flat_map(|suite| {
            let requests = suite.background.count(sizes).unwrap_or(0) as u64;
            durable.iter().map(move |family| {
                (80 << 20) + requests * suite.memory_per_request.get(*family).copied().unwrap_or(0)
            })
        })
        .max()
        .unwrap_or(0)
}

/// tmpfs's `f_type` in statfs (linux/magic.h).
const TMPFS_MAGIC: i64 = 0x0102_1994;

/// The run folders that exist now, for the interrupt handler.
static FOLDERS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The run's folder for durable stores: removed when dropped.
pub struct Folder {
    path: PathBuf,
    /// How its stores stop before each restart.
    pub stop: Stop,
    /// The folder it lies in, that folder's file system and device, the disk's fsync latency and
    /// how stores stop before a restart, for the conditions.
    pub describe: String,
}

/// How a durable store stops before it is opened again (the spec's durable_stop_env).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// As a store is shut down: a server gets SIGTERM (Redis fsyncs its file and exits), an
    /// in-process store syncs its files (fsync) and closes them.
    Close,
    /// As a crash of its process leaves it: a server gets SIGKILL (kill -9), an in-process store
    /// is opened again without syncing, from what the kernel holds of its files, which is what
    /// the bench's process would leave if killed.
    Kill,
}

/// One store's folder inside the run's: removed when dropped, after the store that uses it.
pub struct StoreFolder {
    path: PathBuf,
    /// How the store stops before each restart.
    pub stop: Stop,
}

impl StoreFolder {
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for StoreFolder {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.path).ok();
    }
}

impl Folder {
    /// Makes the run's folder where `get` says (the spec's durable_dir_env), refusing tmpfs unless
    /// durable_tmpfs_env is 1, and a file system with less than `needed` bytes free.
    pub fn new(
        spec: &Spec,
        get: impl Fn(&str) -> Option<String>,
        needed: u64,
    ) -> anyhow::Result<Self> {
        let variable = &spec.durable_dir_env;
        let (parent, named) = match get(variable).filter(|v| !v.trim().is_empty()) {
            Some(dir) => (
                PathBuf::from(dir.trim()),
                format!("{variable}={}", dir.trim()),
            ),
            None => {
                let dir = std::env::temp_dir();
                let named = format!(
                    "{} (the system's temporary folder; {variable} picks another)",
                    dir.display()
                );
                (dir, named)
            }
        };
        if !parent.is_dir() {
            bail!("{named}: not a folder");
        }
        let stop_variable = &spec.durable_stop_env;
        let stop = match get(stop_variable).as_deref().map(str::trim) {
            None | Some("" | "close") => Stop::Close,
            Some("kill") => Stop::Kill,
            Some(other) => bail!(
                "{stop_variable}={other:?}: say how a durable store stops before each restart: \
                 close (the default: SIGTERM for a server, a sync and a close for a store in the \
                 bench) or kill (SIGKILL for a server, no sync for a store in the bench)"
            ),
        };
        let stat = statfs(&parent).with_context(|| named.clone())?;
        let tmpfs = stat.f_type as i64 == TMPFS_MAGIC;
        if tmpfs && get(&spec.durable_tmpfs_env).is_none_or(|v| v.trim() != "1") {
            bail!(
                "{named} is on tmpfs, which keeps nothing across a restart of the machine, so durable \
                 cells there would measure nothing durable: name a folder on a disk in {variable}, \
                 or set {}=1 to measure there anyway",
                spec.durable_tmpfs_env
            );
        }
        let free = stat.f_bavail as u64 * stat.f_bsize as u64;
        if free < needed {
            bail!(
                "{named} has {} MiB free, but the durable stores' files need about {} MiB: free \
                 some space or name another folder in {variable}",
                free >> 20,
                needed.div_ceil(1 << 20)
            );
        }
        // tempfile makes it with a name no other run has, for this user alone (0700).
        let path = tempfile::Builder::new()
            .prefix("redis-vs-doublets-")
            .tempdir_in(&parent)
            .with_context(|| format!("{named}: making the run's folder"))?
            .keep();
        FOLDERS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(path.clone());
        let mut folder = Folder {
            describe: String::new(),
            stop,
            path,
        };
        let fsync = fdatasync_micros(&folder.path)?;
        folder.describe = format!(
            "{} on {} ({}), fdatasync of 4 KiB {fsync:.0} µs (median of 100); {}",
            parent.display(),
            mount(&folder.path).unwrap_or_else(|| "an unknown file system".into()),
            if tmpfs { "tmpfs, allowed" } else { "not tmpfs" },
            match stop {
                Stop::Close => "before each restart a server gets SIGTERM, a store syncs and closes its files",
                Stop::Kill => "before each restart a server gets SIGKILL, a store is opened again without a sync",
            }
        );
        Ok(folder)
    }

    /// A new folder for one store's files.
    pub fn store(&self, name: &str) -> anyhow::Result<StoreFolder> {
        let path = self.path.join(name);
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&path)
            .with_context(|| format!("making {}", path.display()))?;
        Ok(StoreFolder {
            path,
            stop: self.stop,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.path).ok();
        FOLDERS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|p| p != &self.path);
    }
}

/// For the interrupt handler: removes every run folder that exists now.
pub fn remove_all() {
    for path in FOLDERS.lock().unwrap_or_else(|e| e.into_inner()).drain(..) {
        std::fs::remove_dir_all(path).ok();
    }
}

fn statfs(path: &Path) -> anyhow::Result<libc::statfs> {
    let c = CString::new(path.as_os_str().as_bytes())?;
    let mut stat = std::mem::MaybeUninit::<libc::statfs>::uninit();
    // SAFETY: a valid C string and a buffer of the struct's size.
    if unsafe { libc::statfs(c.as_ptr(), stat.as_mut_ptr()) } != 0 {
        return Err(std::io::Error::last_os_error()).context("statfs");
    }
    // SAFETY: statfs filled it.
    Ok(unsafe { stat.assume_init() })
}

/// The file system type and the device of the mount that holds `path`, as `df -T` names them,
/// from /proc/self/mountinfo (the longest mount point that contains it).
fn mount(path: &Path) -> Option<String> {
    let path = path.canonicalize().ok()?;
    let info = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    info.lines()
        .filter_map(|line| {
            let (left, right) = line.split_once(" - ")?;
            let point = left.split(' ').nth(4)?;
            let mut right = right.split(' ');
            let (kind, device) = (right.next()?, right.next()?);
            path.starts_with(point).then(|| {
                (
                    point.len(),
                    format!("{kind} ({device}, mounted at {point})"),
                )
            })
        })
        .max_by_key(|(len, _)| *len)
        .map(|(_, text)| text)
}

/// The median time of 100 fdatasync calls after writing 4 KiB to a file in `folder`, in µs: what
/// a write that must be on the disk before it is acknowledged costs here at least.
fn fdatasync_micros(folder: &Path) -> anyhow::Result<f64> {
    use std::{io::Write, os::fd::AsRawFd};
    let path = folder.join("fsync-probe");
    let mut file = std::fs::File::create(&path).context("the fsync probe")?;
    let block = [0x5a_u8; 4096];
    let mut times = Vec::with_capacity(100);
    for _ in 0..100 {
        file.write_all(&block)?;
        let start = Instant::now();
        // SAFETY: a file this function opened.
        if unsafe { libc::fdatasync(file.as_raw_fd()) } != 0 {
            return Err(std::io::Error::last_os_error()).context("fdatasync");
        }
        times.push(start.elapsed().as_secs_f64() * 1e6);
    }
    drop(file);
    std::fs::remove_file(&path).ok();
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
}

/// Syncs every file in a store's folder (fsync: whatever the store wrote through its mapping of
/// them is then on the disk), before the store is opened again from them.
pub fn sync(folder: &Path) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(folder)? {
        let path = entry?.path();
        std::fs::File::open(&path)
            .and_then(|f| f.sync_all())
            .with_context(|| format!("syncing {}", path.display()))?;
    }
    Ok(())
}

/// How a durable doublets store opens its files again: its folder (removed when this is dropped,
/// after the store, which a struct drops first when declared first) and the function that opened
/// them, which builds the store from what they hold.
pub struct Reopen<S> {
    folder: StoreFolder,
    open: fn(Option<&Path>) -> anyhow::Result<(S, crate::blocks::Blocks)>,
}

impl<S> Reopen<S> {
    /// Opens a store with `open`: on the heap without a folder, else mapped from files in it.
    pub fn open(
        folder: Option<StoreFolder>,
        open: fn(Option<&Path>) -> anyhow::Result<(S, crate::blocks::Blocks)>,
    ) -> anyhow::Result<(S, crate::blocks::Blocks, Option<Self>)> {
        let (store, blocks) = open(folder.as_ref().map(StoreFolder::path))?;
        Ok((store, blocks, folder.map(|folder| Reopen { folder, open })))
    }

    /// Syncs the store's files (fsync: whatever it wrote through its mapping is then on the
    /// disk), unless it stops as if killed, and opens the store again from them. The caller then
    /// drops the old store, which unmaps them: both map the same pages of the same files meanwhile.
    pub fn again(&self) -> anyhow::Result<(S, crate::blocks::Blocks)> {
        if self.folder.stop == Stop::Close {
            sync(self.folder.path())?;
        }
        (self.open)(Some(self.folder.path()))
    }

    /// The folder of the store's files.
    pub fn folder(&self) -> &Path {
        self.folder.path()
    }
}
