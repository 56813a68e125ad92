//! Where a server cell's time goes: the server's own execution of the native commands, what its
//! scripts (the links library's Lua) add, what MULTI/EXEC adds, the server's CPU, and the rest of
//! the end-to-end time (round trip, protocol and client), beside the bench process's own CPU.
//!
//! The server's figures come from `INFO cpu commandstats`, read just before and just after the
//! work of each accounted iteration: differences, so nothing on the server is reset. Redis counts
//! a command that a script or EXEC runs under its own name, and the script's or EXEC's time
//! includes it, so the commands' times nest:
//!
//! - native: every data command's time, wherever it ran;
//! - script: the scripts' time less the data commands they ran;
//! - transaction: MULTI's and EXEC's time less what EXEC ran.
//!
//! An iteration's requests are all script calls or none (an operation either changes links, through
//! the library, or reads them natively), which is what lets the nesting be undone. And every
//! request is one command, so the server must have counted exactly the iteration's requests (as
//! script calls or as data commands): an iteration it counted otherwise is refused rather than
//! split wrongly, which makes the split a cross-check of what the bench says it sent.

use std::{collections::BTreeMap, fmt};

use anyhow::{anyhow, bail, Context};

use crate::grouped::Grouped;

/// Commands that run others and count their time in their own.
const SCRIPTS: [&str; 6] = [
    "fcall",
    "fcall_ro",
    "evalsha",
    "evalsha_ro",
    "eval",
    "eval_ro",
];
const TRANSACTION: [&str; 2] = ["multi", "exec"];
/// Commands about the connection, not the data: the readings' own INFO (which the next reading
/// counts), and what a client sends on its own when it connects or checks a connection (a pooled
/// client may open one during an iteration). They are neither the work nor its execution.
const CONNECTION: [&str; 6] = ["info", "ping", "echo", "select", "hello", "auth"];

/// What a server reports at one moment: per command, its calls and microseconds so far, and its
/// CPU time (user and system) so far.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reading {
    pub commands: BTreeMap<String, (u64, u64)>,
    pub cpu_us: f64,
}

impl Reading {
    /// The command that gives a reading, and its reply parsed: `INFO cpu commandstats`.
    pub const SECTIONS: [&'static str; 2] = ["cpu", "commandstats"];

    /// Parses INFO's `cmdstat_get:calls=3,usec=5,…` and `used_cpu_sys:0.1` lines.
    pub fn parse(info: &str) -> anyhow::Result<Self> {
        let mut reading = Reading::default();
        let (mut sys, mut user) = (None, None);
        for line in info.lines().map(str::trim) {
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            if let Some(command) = key.strip_prefix("cmdstat_") {
                let field = |name: &str| -> anyhow::Result<u64> {
                    value
                        .split(',')
                        .find_map(|f| f.strip_prefix(name)?.strip_prefix('='))
                        .ok_or_else(|| anyhow!("INFO commandstats: no {name} in {line:?}"))?
                        .parse()
                        .with_context(|| format!("INFO commandstats: {name} in {line:?}"))
                };
                reading
                    .commands
                    .insert(command.to_string(), (field("calls")?, field("usec")?));
            } else if key == "used_cpu_sys" {
                sys = Some(seconds(value, line)?);
            } else if key == "used_cpu_user" {
                user = Some(seconds(value, line)?);
            }
        }
        match (sys, user) {
            (Some(sys), Some(user)) => reading.cpu_us = (sys + user) * 1e6,
            _ => bail!("INFO cpu: no used_cpu_sys and used_cpu_user in the reply"),
        }
        Ok(reading)
    }

    /// What the server did between `before` and this reading: per-iteration figures of one
    /// iteration of `requests` requests.
    pub fn since(&self, before: &Reading, requests: usize) -> anyhow::Result<Usage> {
        let mut usage = Usage {
            server_cpu_us: self.cpu_us - before.cpu_us,
            ..Usage::default()
        };
        let (mut scripts, mut exec, mut script_calls, mut native_calls) = (0, 0, 0, 0);
        // Each command's calls and microseconds between the readings.
        let since = |command: &String, &(calls, usec): &(u64, u64)| {
            let (calls_before, usec_before) =
                before.commands.get(command).copied().unwrap_or((0, 0));
            (
                calls.saturating_sub(calls_before),
                usec.saturating_sub(usec_before),
            )
        };
        for (command, now) in &self.commands {
            let (calls, usec) = since(command, now);
            match command.as_str() {
                c if CONNECTION.contains(&c) || c.starts_with("client|") => {}
                c if SCRIPTS.contains(&c) => {
                    scripts += usec;
                    script_calls += calls;
                }
                c if TRANSACTION.contains(&c) => exec += usec,
                _ => {
                    usage.native_us += usec as f64;
                    native_calls += calls;
                }
            }
        }
        // The cross-check nothing in the bench can fake: every request is one command, so the
        // server counted exactly the iteration's requests, as script calls where the work calls
        // the library and as data commands where it does not. Anything else (a request that sent
        // more, a script beside native commands, another client on the server) would make the
        // split wrong, so it is refused.
        let (calls, what) = match script_calls {
            0 => (native_calls, "data commands"),
            _ => (script_calls, "script calls"),
        };
        if calls != requests as u64 {
            // Listed only here: a split iteration that passes allocates nothing for it.
            let counted: Vec<String> = self
                .commands
                .iter()
                .map(|(command, now)| (command, since(command, now).0))
                .filter(|&(_, calls)| calls > 0)
                .map(|(command, calls)| format!("{command} {calls}"))
                .collect();
            bail!(
                "the server counted {calls} {what} for the iteration's {requests} requests of \
                 one command each ({}): its time cannot be split (another client on the server, \
                 or a request that sent more than its command)",
                counted.join(", ")
            );
        }
        let inside_exec = if script_calls > 0 {
            usage.script_us = scripts as f64 - usage.native_us;
            scripts as f64
        } else {
            usage.native_us
        };
        if exec > 0 {
            usage.transaction_us = exec as f64 - inside_exec;
        }
        Ok(usage)
    }
}

fn seconds(value: &str, line: &str) -> anyhow::Result<f64> {
    value
        .trim()
        .parse()
        .with_context(|| format!("INFO cpu: {line:?}"))
}

/// What the server did for one iteration's work, in microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Usage {
    pub native_us: f64,
    pub script_us: f64,
    pub transaction_us: f64,
    pub server_cpu_us: f64,
}

/// A cell's accounted iterations, each figure the mean of one iteration, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Split {
    /// How many iterations were accounted.
    pub iterations: u32,
    /// The work's end-to-end time, timed as the measured iterations are.
    pub wall_ns: f64,
    /// The server's time in the data commands, wherever they ran.
    pub native_ns: f64,
    /// What the scripts (the links library's Lua) took beyond the commands they ran.
    pub script_ns: f64,
    /// What MULTI and EXEC took beyond the commands EXEC ran.
    pub transaction_ns: f64,
    /// The server's CPU time (user and system).
    pub server_cpu_ns: f64,
    /// The bench process's CPU time during the work (the client's side, every thread).
    pub client_cpu_ns: f64,
}

impl Split {
    /// Adds one iteration.
    pub fn add(&mut self, usage: Usage, wall_ns: f64, client_cpu_ns: f64) {
        self.iterations += 1;
        self.wall_ns += wall_ns;
        self.native_ns += usage.native_us * 1e3;
        self.script_ns += usage.script_us * 1e3;
        self.transaction_ns += usage.transaction_us * 1e3;
        self.server_cpu_ns += usage.server_cpu_us * 1e3;
        self.client_cpu_ns += client_cpu_ns;
    }

    /// The sums of [`Split::add`] as means of one iteration.
    pub fn mean(mut self) -> Self {
        let n = f64::from(self.iterations.max(1));
        for figure in self.figures_mut() {
            *figure /= n;
        }
        self
    }

    fn figures_mut(&mut self) -> [&mut f64; 6] {
        [
            &mut self.wall_ns,
            &mut self.native_ns,
            &mut self.script_ns,
            &mut self.transaction_ns,
            &mut self.server_cpu_ns,
            &mut self.client_cpu_ns,
        ]
    }

    /// The server's own execution: native commands, scripts and MULTI/EXEC.
    pub fn execution_ns(&self) -> f64 {
        self.native_ns + self.script_ns + self.transaction_ns
    }

    /// The rest of the end-to-end time: the round trip, the protocol and the client.
    pub fn rest_ns(&self) -> f64 {
        (self.wall_ns - self.execution_ns()).max(0.0)
    }

    /// One iteration from the texts of its two readings ([`Reading::parse`], [`Reading::since`]).
    pub fn add_readings(
        &mut self,
        (before, after): (&str, &str),
        requests: usize,
        wall_ns: f64,
        client_cpu_ns: f64,
    ) -> anyhow::Result<()> {
        let usage = Reading::parse(after)?.since(&Reading::parse(before)?, requests)?;
        self.add(usage, wall_ns, client_cpu_ns);
        Ok(())
    }

    /// The result file's line of `cell` (OPERATION/BACKEND), which [`Split::parse`] reads back.
    pub fn line(&self, cell: &str) -> String {
        let ns = |v: f64| Grouped(v.max(0.0).round() as u64);
        format!(
            "split {cell} ... wall {} ns, native {} ns, script {} ns, transaction {} ns, server cpu {} ns, client cpu {} ns, {} iterations",
            ns(self.wall_ns),
            ns(self.native_ns),
            ns(self.script_ns),
            ns(self.transaction_ns),
            ns(self.server_cpu_ns),
            ns(self.client_cpu_ns),
            self.iterations
        )
    }

    /// Reads what follows "split " in a result file: the cell's name and its figures.
    pub fn parse(text: &str) -> Result<(String, Split), String> {
        let bad = || {
            format!("a split line reads \"split OPERATION/BACKEND ... wall N ns, native N ns, script N ns, transaction N ns, server cpu N ns, client cpu N ns, K iterations\", got {text:?}")
        };
        let (name, figures) = text.split_once(" ... ").ok_or_else(bad)?;
        let parts: Vec<&str> = figures.split(", ").collect();
        let names = [
            "wall",
            "native",
            "script",
            "transaction",
            "server cpu",
            "client cpu",
        ];
        if parts.len() != names.len() + 1 {
            return Err(bad());
        }
        let mut split = Split::default();
        for ((part, label), figure) in parts.iter().zip(names).zip(split.figures_mut()) {
            *figure = part
                .strip_prefix(label)
                .and_then(|v| v.trim().strip_suffix(" ns"))
                .and_then(|v| v.replace(',', "").parse().ok())
                .ok_or_else(bad)?;
        }
        split.iterations = parts[names.len()]
            .strip_suffix(" iterations")
            .and_then(|v| v.parse().ok())
            .filter(|&n| n > 0)
            .ok_or_else(bad)?;
        Ok((name.trim().to_string(), split))
    }
}

impl fmt::Display for Split {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let us = |ns: f64| ns / 1e3;
        write!(
            f,
            "{:.1} µs end to end: {:.1} µs executing ({:.1} native, {:.1} script, {:.1} MULTI/EXEC), {:.1} µs server CPU, {:.1} µs client CPU, over {} iterations",
            us(self.wall_ns),
            us(self.execution_ns()),
            us(self.native_ns),
            us(self.script_ns),
            us(self.transaction_ns),
            us(self.server_cpu_ns),
            us(self.client_cpu_ns),
            self.iterations
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(commands: &[(&str, u64, u64)], cpu: f64) -> Reading {
        Reading {
            commands: commands
                .iter()
                .map(|&(c, calls, usec)| (c.to_string(), (calls, usec)))
                .collect(),
            cpu_us: cpu,
        }
    }

    #[test]
    fn reads_info_cpu_and_commandstats() {
        let info = "# CPU\r\nused_cpu_sys:0.023986\r\nused_cpu_user:0.010000\r\n\r\n# Commandstats\r\ncmdstat_set:calls=400,usec=394,usec_per_call=0.99,rejected_calls=0,failed_calls=0\r\ncmdstat_config|resetstat:calls=1,usec=59,usec_per_call=59.00\r\n";
        let r = Reading::parse(info).unwrap();
        assert_eq!(r.commands["set"], (400, 394));
        assert_eq!(r.commands["config|resetstat"], (1, 59));
        assert!((r.cpu_us - 33_986.0).abs() < 1e-6);
        assert!(Reading::parse("# Commandstats\r\n").is_err());
    }

    #[test]
    fn scripts_and_exec_are_split_from_the_commands_they_ran() {
        let before = reading(&[("set", 10, 10), ("info", 1, 20)], 100.0);
        // Two FCALLs ran 20 SETs (40 µs) in 100 µs, inside one MULTI/EXEC of 130 µs.
        let after = reading(
            &[
                ("set", 30, 50),
                ("fcall", 2, 100),
                ("multi", 1, 1),
                ("exec", 1, 130),
                ("info", 2, 40),
            ],
            400.0,
        );
        let usage = after.since(&before, 2).unwrap();
        assert_eq!(
            usage,
            Usage {
                native_us: 40.0,
                script_us: 60.0,
                transaction_us: 31.0,
                server_cpu_us: 300.0
            }
        );
        // Native commands alone in a transaction: EXEC's own is what it took beyond them.
        let after = reading(&[("set", 12, 14), ("multi", 1, 1), ("exec", 1, 6)], 101.0);
        let usage = after.since(&before, 2).unwrap();
        assert_eq!(
            (usage.native_us, usage.script_us, usage.transaction_us),
            (4.0, 0.0, 3.0)
        );
        // A script beside native commands cannot be undone.
        let after = reading(&[("set", 30, 50), ("fcall", 1, 100)], 101.0);
        let error = after.since(&before, 2).unwrap_err().to_string();
        assert!(
            error.contains("counted 1 script calls for the iteration's 2 requests")
                && error.contains("(fcall 1, set 20)"),
            "{error}"
        );
    }

    #[test]
    fn the_server_counts_exactly_the_requests_sent() {
        let before = reading(&[("get", 10, 10)], 0.0);
        // A client's own PING and CLIENT SETINFO are not the work; a GET from elsewhere is.
        let sent = reading(
            &[("get", 13, 13), ("ping", 1, 1), ("client|setinfo", 2, 2)],
            1.0,
        );
        assert_eq!(sent.since(&before, 3).unwrap().native_us, 3.0);
        for requests in [2, 4] {
            let error = sent.since(&before, requests).unwrap_err().to_string();
            assert!(
                error.contains(&format!(
                    "counted 3 data commands for the iteration's {requests} requests"
                )),
                "{error}"
            );
        }
    }

    #[test]
    fn a_line_reads_back() {
        let mut split = Split::default();
        let usage = Usage {
            native_us: 2.0,
            script_us: 3.0,
            transaction_us: 0.0,
            server_cpu_us: 9.0,
        };
        split.add(usage, 30_000.0, 4_000.0);
        split.add(usage, 50_000.0, 6_000.0);
        let split = split.mean();
        assert_eq!(split.wall_ns, 40_000.0);
        let line = split.line("create/Redis_Pipeline");
        assert_eq!(line, "split create/Redis_Pipeline ... wall 40,000 ns, native 2,000 ns, script 3,000 ns, transaction 0 ns, server cpu 9,000 ns, client cpu 5,000 ns, 2 iterations");
        let (name, back) = Split::parse(line.strip_prefix("split ").unwrap()).unwrap();
        assert_eq!((name.as_str(), back), ("create/Redis_Pipeline", split));
        assert!(Split::parse("create/Redis_Pipeline ... wall 1 ns").is_err());
    }
}
