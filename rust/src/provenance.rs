//! The conditions a run measured under, written into its result file: what a reader needs to
//! reproduce a number or to tell two numbers apart.

use std::process::Command;

mod built_info {
    include!(concat!(env!("OUT_DIR"), "/built.rs"));
}

/// The locked version of a dependency of this crate.
pub fn dependency(name: &str) -> String {
    let version = built_info::DEPENDENCIES
        .iter()
        .find(|(n, _)| *n == name)
        .map_or("unknown", |(_, v)| v);
    format!("{name} {version}")
}

/// The machine's CPU time when the run began, from which [`common`] tells the share stolen since
/// and the share other processes used.
static BEGAN: std::sync::OnceLock<Option<CpuTime>> = std::sync::OnceLock::new();

pub use contract::conditions::BUSY_ABOVE;

/// Marks the start of a run, for the steal time and other processes' CPU time [`common`] reports
/// (the first call counts).
pub fn begin() {
    BEGAN.get_or_init(CpuTime::now);
}

/// The whole machine's CPU time so far, and this process tree's, in clock ticks: the first line
/// of /proc/stat, and /proc/<pid>/stat of this process and each process it started.
#[derive(Clone, Copy)]
struct CpuTime {
    steal: u64,
    /// Time the CPUs ran processes (user, nice and system; interrupts are the kernel's own).
    busy: u64,
    total: u64,
    /// This process and its descendants (the disposable servers), with the children it has
    /// already waited for.
    own: u64,
}

impl CpuTime {
    fn now() -> Option<Self> {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        let ticks: Vec<u64> = stat
            .lines()
            .next()?
            .strip_prefix("cpu ")?
            .split_whitespace()
            .map(|t| t.parse().ok())
            .collect::<Option<_>>()?;
        // user nice system idle iowait irq softirq steal guest guest_nice: guest time is already
        // counted in user and nice.
        Some(Self {
            steal: *ticks.get(7)?,
            busy: ticks.iter().take(3).sum(),
            total: ticks.iter().take(8).sum(),
            own: own_ticks()?,
        })
    }
}

/// The CPU time of this process and every process descended from it, living or waited for
/// (utime, stime, cutime and cstime of /proc/<pid>/stat), in clock ticks.
fn own_ticks() -> Option<u64> {
    let me = std::process::id();
    // pid -> (parent, ticks) of every process whose stat can be read.
    let mut processes = std::collections::HashMap::new();
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue; // it ended since the folder was read
        };
        // The fields after the command, which is in parentheses and may hold spaces.
        // Some are negative (tpgid is -1 without a terminal).
        let fields: Vec<i64> = stat
            .rsplit_once(')')
            .map(|(_, rest)| {
                let fields = rest.split_whitespace().skip(1); // the state, a letter
                fields.map_while(|f| f.parse().ok()).collect()
            })
            .unwrap_or_default();
        if let (Some(&parent), Some(times)) = (fields.first(), fields.get(10..14)) {
            let ticks = times.iter().sum::<i64>().max(0) as u64;
            processes.insert(pid, (parent as u32, ticks));
        }
    }
    let descends = |mut pid: u32| loop {
        if pid == me {
            return true;
        }
        match processes.get(&pid) {
            Some(&(parent, _)) if parent != 0 && parent != pid => pid = parent,
            _ => return false,
        }
    };
    Some(
        processes
            .iter()
            .filter(|(&pid, _)| descends(pid))
            .map(|(_, &(_, t))| t)
            .sum(),
    )
}

/// The share of the machine's CPU time the hypervisor gave to others since [`begin`]: what a
/// noisy neighbour took from this run.
fn steal() -> String {
    match (BEGAN.get().copied().flatten(), CpuTime::now()) {
        (Some(then), Some(now)) if now.total > then.total => format!(
            "{:.2}% of the CPU time while it ran",
            100.0 * (now.steal - then.steal) as f64 / (now.total - then.total) as f64
        ),
        _ => "unknown".into(),
    }
}

/// The share of the machine's CPU time that processes other than this run's used since [`begin`],
/// and whether that makes the run busy: "1.2% of the CPU time while it ran (quiet)".
fn others() -> (String, &'static str) {
    match (BEGAN.get().copied().flatten(), CpuTime::now()) {
        (Some(then), Some(now)) if now.total > then.total => {
            let used = (now.busy - then.busy).saturating_sub(now.own.saturating_sub(then.own));
            let share = used as f64 / (now.total - then.total) as f64;
            let busy = if share > BUSY_ABOVE { "busy" } else { "quiet" };
            (
                format!("{:.1}% of the CPU time while it ran", 100.0 * share),
                busy,
            )
        }
        _ => ("unknown".into(), "unknown"),
    }
}

/// The hypervisor the machine runs under, by its CPUID signature (leaf 0x40000000), or "none"
/// where the CPU says it runs on bare metal.
fn hypervisor() -> String {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::__cpuid;
        // CPUID exists on every x86_64 CPU; leaf 1 and the hypervisor leaves only read.
        let (flags, leaf) = (__cpuid(1), __cpuid(0x4000_0000));
        if flags.ecx & (1 << 31) == 0 {
            return "none".into();
        }
        let bytes: Vec<u8> = [leaf.ebx, leaf.ecx, leaf.edx]
            .iter()
            .flat_map(|r| r.to_le_bytes())
            .filter(|&b| b != 0)
            .collect();
        let signature = String::from_utf8_lossy(&bytes).trim().to_string();
        match signature.as_str() {
            "KVMKVMKVM" => "KVM".into(),
            "Microsoft Hv" => "Hyper-V".into(),
            "VMwareVMware" => "VMware".into(),
            "XenVMMXenVMM" => "Xen".into(),
            "TCGTCGTCGTCG" => "QEMU (TCG)".into(),
            "" => "unnamed".into(),
            other => other.into(),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        "unknown".into()
    }
}

/// The clock of the first CPU as the kernel last saw it, which a VM's host or frequency scaling
/// may change between runs.
fn cpu_mhz() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find_map(|l| l.strip_prefix("cpu MHz"))
                .and_then(|l| l.split_once(':'))
                .and_then(|(_, m)| m.trim().parse::<f64>().ok())
        })
        .map_or("unknown".into(), |mhz| format!("{mhz:.0}"))
}

/// Provenance every run shares, whatever its language: commit, date, CPU (model, clock,
/// hypervisor, the time stolen from the run, the time other processes used and so whether the
/// machine was quiet), placement, OS, CI run, and the calibrations it recorded.
pub fn common() -> Vec<(&'static str, String)> {
    let mut lines = vec![
        ("commit", commit()),
        (
            "date",
            humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
        ),
    ];
    lines.push(("cpu", cpu()));
    lines.push(("cpu_mhz", cpu_mhz()));
    lines.push(("hypervisor", hypervisor()));
    lines.push(("steal", steal()));
    let (others, machine) = others();
    lines.push(("other_processes", others));
    lines.push(("machine", machine.to_string()));
    lines.push((
        "cpus",
        std::thread::available_parallelism()
            .map_or(0, |n| n.get())
            .to_string(),
    ));
    lines.push(("memory", memory()));
    lines.push(("placement", placement()));
    lines.push(("os", os()));
    lines.push(("kernel", kernel()));
    if let Some(run) = ci_run() {
        lines.push(("ci_run", run));
    }
    lines.extend(crate::calibration::recorded());
    lines
}

/// The servers a run used, each with its version and how it ran the library:
/// "Redis 7.0.15 (functions: FUNCTION LOAD, FCALL); Garnet 2.2.8 (scripts: SCRIPT LOAD, EVALSHA)".
pub fn servers(servers: &[crate::resp::server::Server]) -> String {
    let described: Vec<String> = servers
        .iter()
        .map(|s| format!("{} ({})", s.describe(), s.scripting.describe()))
        .collect();
    described.join("; ")
}

/// The servers on hosts of their own ([`crate::network`]), each with its network and the round
/// trip measured to it (200 PINGs): "RedisRack: a veth pair to …, round trip 231 µs median, …".
/// `None` where none is.
pub fn networks(servers: &[crate::resp::server::Server]) -> anyhow::Result<Option<String>> {
    let mut described = Vec::new();
    for server in servers {
        let Some(netns) = server.disposable.as_ref().and_then(|d| d.netns.as_ref()) else {
            continue;
        };
        let name = &server.kind.name;
        described.push(format!("{name}: {}", netns.measured(name, &server.url)?));
    }
    Ok((!described.is_empty()).then(|| described.join("; ")))
}

/// The servers that refused the readings of a split ([`crate::resp::server::Server::split_refused`]),
/// each with its words: "Redis: NOPERM …". `None` where none did.
pub fn unsplit(servers: &[crate::resp::server::Server]) -> Option<String> {
    let refused: Vec<String> = servers
        .iter()
        .filter_map(|s| Some(format!("{}: {}", s.kind.name, s.split_refused.as_ref()?)))
        .collect();
    (!refused.is_empty()).then(|| refused.join("; "))
}

/// The Rust side's own provenance.
pub fn rust() -> Vec<(&'static str, String)> {
    vec![
        ("language", "rust".to_string()),
        ("toolchain", built_info::RUSTC_VERSION.to_string()),
        (
            "client",
            dependency("redis").replacen("redis", "redis-rs", 1),
        ),
        ("doublets", dependency("doublets")),
    ]
}

/// The commit measured: GITHUB_SHA in CI, else the checkout's HEAD, marked "+changes" when the
/// work tree differs from it (such numbers are not the commit's).
fn commit() -> String {
    if let Ok(sha) = std::env::var("GITHUB_SHA") {
        return sha;
    }
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    match git(&["rev-parse", "HEAD"]) {
        Some(head) if git(&["status", "--porcelain"]).is_some_and(|s| !s.is_empty()) => {
            format!("{head}+changes")
        }
        Some(head) => head,
        None => "unknown".into(),
    }
}

fn cpu() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = info
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, m)| m.trim());
    model.unwrap_or("unknown").to_string()
}

/// "unpinned", or the CPUs this process is pinned to ("1", "0-1"). A disposable redis-server
/// inherits the same set, so `taskset -c 1 cargo bench` pins both to one CPU.
fn placement() -> String {
    let allowed = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
                .map(|v| v.trim().to_string())
        });
    let online = std::fs::read_to_string("/sys/devices/system/cpu/online")
        .ok()
        .map(|s| s.trim().to_string());
    match (allowed, online) {
        (Some(allowed), Some(online)) if allowed == online => "unpinned".into(),
        (Some(allowed), _) => allowed,
        _ => "unknown".into(),
    }
}

/// The machine's memory, as /proc/meminfo gives it ("23.5 GiB").
fn memory() -> String {
    let info = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let kib = info
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
    kib.map_or("unknown".into(), |kib| {
        format!("{:.1} GiB", kib as f64 / 1024.0 / 1024.0)
    })
}

fn kernel() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map_or("unknown".into(), |v| format!("Linux {}", v.trim()))
}

fn os() -> String {
    let release = std::fs::read_to_string("/etc/os-release").unwrap_or_default();
    let name = release
        .lines()
        .find_map(|l| l.strip_prefix("PRETTY_NAME="))
        .map(|n| n.trim_matches('"').to_string());
    name.unwrap_or_else(|| std::env::consts::OS.to_string())
}

fn ci_run() -> Option<String> {
    let var = |name| std::env::var(name).ok();
    Some(format!(
        "{}/{}/actions/runs/{}",
        var("GITHUB_SERVER_URL")?,
        var("GITHUB_REPOSITORY")?,
        var("GITHUB_RUN_ID")?
    ))
}

pub use contract::fingerprint::{checkout, fingerprint, measured};

#[cfg(test)]
mod tests {
    #[test]
    fn the_work_of_a_process_this_one_started_counts_as_its_own() {
        // A fixed amount of work (about 0.4 s of CPU here), however busy the machine: waited for,
        // it joins this process's children's time, which a run subtracts from the machine's.
        let before = super::own_ticks().unwrap();
        let work = "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done";
        let status = std::process::Command::new("sh").args(["-c", work]).status();
        assert!(status.unwrap().success());
        let after = super::own_ticks().unwrap();
        assert!(after - before >= 20, "{before} → {after} ticks");
    }
}
