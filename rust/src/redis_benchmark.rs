//! redis-benchmark, the server's own load generator, run beside the load measurement's server
//! cells (same server, clients and depth), so that a reader sees how much of a figure is the
//! client. It writes its own keys into the database the run claimed; they are removed right after
//! it, and the background check that follows proves the suite's keys untouched.

use std::process::{Command, Stdio};

use anyhow::{bail, Context};

use crate::resp::{process::ends_with_this_process, server::Server};

/// The keys redis-benchmark writes for a test, so that the run can remove them (`get` runs `set`
/// first: GET of keys that do not exist would measure a cheaper path).
fn written(test: &str) -> anyhow::Result<(&'static str, &'static [&'static str])> {
    Ok(match test {
        "get" => ("set,get", &["key:*"]),
        "set" => ("set", &["key:*"]),
        "incr" => ("incr", &["counter:*"]),
        "sadd" => ("sadd", &["myset"]),
        other => bail!(
            "redis-benchmark test \"{other}\" is not one the load knows (get, set, incr, sadd)"
        ),
    })
}

/// What redis-benchmark reports for one test.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub per_second: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}

/// Why redis-benchmark cannot run against `server`, if it cannot: it needs a password on its
/// command line, where other users of the machine could read it.
pub fn unavailable(server: &Server) -> Option<String> {
    let client = redis::Client::open(server.url.as_str()).ok()?;
    let info = client.get_connection_info();
    match info.addr() {
        redis::ConnectionAddr::Tcp(..) if info.redis_settings().password().is_none() => None,
        redis::ConnectionAddr::Tcp(..) => Some(format!(
            "{} needs a password, which redis-benchmark takes on its command line only",
            server.shown()
        )),
        _ => Some(format!("{} is not a plain TCP address", server.shown())),
    }
}

/// Runs `test` with `clients` connections, pipelines of `depth` and `requests` requests over
/// keys drawn from `keys`, then removes what it wrote.
pub fn run(
    server: &Server,
    test: &str,
    clients: usize,
    depth: usize,
    requests: u64,
    keys: u64,
) -> anyhow::Result<Report> {
    let (tests, patterns) = written(test)?;
    let client = redis::Client::open(server.url.as_str())?;
    let info = client.get_connection_info();
    let redis::ConnectionAddr::Tcp(host, port) = info.addr() else {
        bail!("{} is not a plain TCP address", server.shown());
    };
    let mut command = Command::new("redis-benchmark");
    command
        .args(["-h", host, "-p", &port.to_string()])
        .args(["--dbnum", &info.redis_settings().db().to_string()])
        .args(["-c", &clients.to_string(), "-P", &depth.to_string()])
        .args(["-n", &requests.to_string(), "-r", &keys.to_string()])
        .args(["-t", tests, "--csv"])
        .stdin(Stdio::null());
    ends_with_this_process(&mut command);
    server.will_write(patterns);
    let output = command.output().context(
        "cannot run redis-benchmark (it comes with redis-server: apt-get install -y redis-server)",
    );
    let removed = server.remove(patterns);
    let output = output?;
    removed?;
    if !output.status.success() {
        bail!(
            "redis-benchmark failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    parse(&String::from_utf8_lossy(&output.stdout), test)
}

/// Reads the row of `test` from redis-benchmark's `--csv` output (7.0: "test","rps",
/// "avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms",
/// "max_latency_ms"), by the header's names.
pub fn parse(csv: &str, test: &str) -> anyhow::Result<Report> {
    let fields = |line: &str| -> Vec<String> {
        line.split(',')
            .map(|f| f.trim().trim_matches('"').to_string())
            .collect()
    };
    let mut lines = csv.lines().filter(|l| !l.trim().is_empty());
    let header = fields(lines.next().context("redis-benchmark printed nothing")?);
    let row = lines
        .map(fields)
        .find(|row| row.first().is_some_and(|t| t.eq_ignore_ascii_case(test)))
        .with_context(|| format!("redis-benchmark printed no {test} row:\n{csv}"))?;
    let column = |name: &str| -> anyhow::Result<f64> {
        let k = header
            .iter()
            .position(|h| h == name)
            .with_context(|| format!("redis-benchmark's header has no {name}: {header:?}"))?;
        row.get(k)
            .and_then(|v| v.parse().ok())
            .with_context(|| format!("redis-benchmark's {name} is not a number: {row:?}"))
    };
    Ok(Report {
        per_second: column("rps")?,
        p50_ms: column("p50_latency_ms")?,
        p99_ms: column("p99_latency_ms")?,
        max_ms: column("max_latency_ms")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_csv_by_its_header() {
        let csv = "\"test\",\"rps\",\"avg_latency_ms\",\"min_latency_ms\",\"p50_latency_ms\",\
                   \"p95_latency_ms\",\"p99_latency_ms\",\"max_latency_ms\"\n\
                   \"SET\",\"86956.52\",\"0.319\",\"0.096\",\"0.303\",\"0.455\",\"0.575\",\"1.423\"\n\
                   \"GET\",\"90909.09\",\"0.300\",\"0.090\",\"0.295\",\"0.431\",\"0.551\",\"1.111\"\n";
        assert_eq!(
            parse(csv, "get").unwrap(),
            Report {
                per_second: 90909.09,
                p50_ms: 0.295,
                p99_ms: 0.551,
                max_ms: 1.111
            }
        );
        assert!(parse(csv, "incr")
            .unwrap_err()
            .to_string()
            .contains("no incr row"));
        assert!(parse("", "get").is_err());
    }
}
