//! A network between two hosts of the project's own, for a server whose spec gives a round trip
//! (`round_trip_us`): a network namespace (the server's host) joined to this one by a veth pair.
//! The server binds the namespace's address; the bench reaches it through a [`Relay`] on the
//! pair's host end that delays each way by half the round trip, as a client reaches a server on
//! another host of the rack or region. (The delay is the relay's rather than `tc … netem`'s
//! because this machine's kernel has no netem; a relay delays alike on every kernel.) Creating
//! one needs root (`ip netns`); it is removed, with its pair, when dropped, on an interrupt, and
//! by the next run where a killed one left it.

use std::{
    net::{Ipv4Addr, SocketAddr},
    process::Command,
    sync::Mutex,
    time::Duration,
};

use anyhow::{bail, Context};

use crate::relay::Relay;

/// The namespaces that exist now, for the interrupt handler.
static NAMESPACES: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// The prefix of every namespace a run makes, followed by its process id and a number.
const PREFIX: &str = "rvd-";

/// A namespace with a server's end of a veth pair: removed when dropped.
pub struct Netns {
    /// Its name, for `ip netns exec`.
    pub name: String,
    /// The host end of the pair, in this namespace.
    host_end: String,
    /// The address the server binds, in the namespace.
    pub server: Ipv4Addr,
    /// The address the bench connects to, at the pair's host end, where the relay listens.
    pub host: Ipv4Addr,
    /// The delay the relay adds each way, in µs: half the round trip.
    pub delay_us: u64,
    relay: Option<Relay>,
}

impl Netns {
    /// Makes a namespace for `server` (its name, for messages) whose `port` is reached from here
    /// at the host address, `round_trip_us` plus what the pair and the relay cost away.
    pub fn create(server: &str, round_trip_us: u64, port: u16) -> anyhow::Result<Self> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            bail!(
                "{server} runs on a host of its own (a network namespace with a veth pair), which \
                 needs root: run the bench as root, or leave it out of BENCHMARK_SERVERS"
            );
        }
        remove_stale();
        let pid = std::process::id();
        let taken = run(&["ip", "-o", "-4", "addr", "show"], server)?;
        let subnet = (0..=255u8)
            .find(|n| !taken.contains(&format!("10.213.{n}.")))
            .with_context(|| format!("{server}: every subnet 10.213.N.0/30 is taken"))?;
        let mut netns = Netns {
            name: format!("{PREFIX}{pid}-{subnet}"),
            host_end: format!("rvh{pid}x{subnet}"),
            server: Ipv4Addr::new(10, 213, subnet, 2),
            host: Ipv4Addr::new(10, 213, subnet, 1),
            delay_us: round_trip_us / 2,
            relay: None,
        };
        let server_end = format!("rvs{pid}x{subnet}");
        run(&["ip", "netns", "add", &netns.name], server)?;
        NAMESPACES
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(netns.name.clone());
        let inside = |command: &[&str]| netns.exec(&words(command));
        let steps: Vec<Vec<String>> = vec![
            words(&[
                "ip",
                "link",
                "add",
                &netns.host_end,
                "type",
                "veth",
                "peer",
                "name",
                &server_end,
            ]),
            words(&["ip", "link", "set", &server_end, "netns", &netns.name]),
            words(&[
                "ip",
                "addr",
                "add",
                &format!("{}/30", netns.host),
                "dev",
                &netns.host_end,
            ]),
            words(&["ip", "link", "set", &netns.host_end, "up"]),
            inside(&[
                "ip",
                "addr",
                "add",
                &format!("{}/30", netns.server),
                "dev",
                &server_end,
            ]),
            inside(&["ip", "link", "set", &server_end, "up"]),
            inside(&["ip", "link", "set", "lo", "up"]),
        ];
        for step in &steps {
            let step: Vec<&str> = step.iter().map(String::as_str).collect();
            if let Err(e) = run(&step, server) {
                netns.remove();
                return Err(e);
            }
        }
        let delay = Duration::from_micros(netns.delay_us);
        match Relay::start(
            SocketAddr::from((netns.host, port)),
            SocketAddr::from((netns.server, port)),
            delay,
        ) {
            Ok(relay) => netns.relay = Some(relay),
            Err(e) => {
                netns.remove();
                return Err(e.context(format!("{server}'s network")));
            }
        }
        Ok(netns)
    }

    /// The command that runs `args` inside the namespace.
    pub fn exec(&self, args: &[String]) -> Vec<String> {
        words(&["ip", "netns", "exec", &self.name])
            .into_iter()
            .chain(args.iter().cloned())
            .collect()
    }

    /// "a veth pair to network namespace rvd-… (10.213.0.2), a relay at its host end delaying
    /// each way by 100 µs (…)".
    pub fn describe(&self) -> String {
        format!(
            "a veth pair to network namespace {} ({}), a relay at its host end delaying each way by \
             {} µs (its threads run in the bench, so the split's client CPU counts them)",
            self.name, self.server, self.delay_us
        )
    }

    /// What [`describe`](Self::describe) says with the round trip measured to the server `name`
    /// at `url` over it (200 PINGs), for the result file's network line.
    pub fn measured(&self, name: &str, url: &str) -> anyhow::Result<String> {
        let round_trip = crate::calibration::round_trip(name, url, 200)?;
        Ok(format!("{}, {round_trip}", self.describe()))
    }

    fn remove(&mut self) {
        // The relay first, which closes the connections it relays.
        self.relay.take();
        // Deleting the namespace deletes its end of the pair, which deletes the other end; the
        // host end goes by itself where the pair never reached the namespace.
        remove(&self.name);
        Command::new("ip")
            .args(["link", "del", &self.host_end])
            .output()
            .ok();
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        self.remove();
    }
}

fn words(words: &[&str]) -> Vec<String> {
    words.iter().map(|s| s.to_string()).collect()
}

/// Runs `command`, its output when it succeeds, else an error with its words.
fn run(command: &[&str], server: &str) -> anyhow::Result<String> {
    let output = Command::new(command[0])
        .args(&command[1..])
        .output()
        .map_err(|e| {
            anyhow::anyhow!(
                "{server} needs `{}` ({e}): install iproute2, or leave it out of BENCHMARK_SERVERS",
                command[0]
            )
        })?;
    if !output.status.success() {
        bail!(
            "{server}: `{}` failed: {}",
            command.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

fn remove(name: &str) {
    Command::new("ip")
        .args(["netns", "del", name])
        .output()
        .ok();
    NAMESPACES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|n| n != name);
}

/// For the interrupt handler: removes every namespace this run made.
pub fn remove_all() {
    let names = std::mem::take(&mut *NAMESPACES.lock().unwrap_or_else(|e| e.into_inner()));
    names.iter().for_each(|name| remove(name));
}

/// Removes the namespaces of runs that no longer exist (killed before they could remove them).
fn remove_stale() {
    let Ok(output) = Command::new("ip").args(["netns", "list"]).output() else {
        return;
    };
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let name = line.split_whitespace().next().unwrap_or("");
        let pid = name
            .strip_prefix(PREFIX)
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok());
        if let Some(pid) = pid {
            if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
                remove(name);
            }
        }
    }
}
