//! What the machine could do while a round ran, measured at its start and at its end: the loopback
//! round trip of PINGs to the round's first server (the floor under every one-request-per-round-
//! trip figure) and a fixed CPU-bound loop (the floor under every Doublets figure). Two rounds whose
//! calibrations differ measured different machines, whatever their code; the report prints each
//! round's beside its figures. Both languages record it through this module (C# by the C ABI), and
//! [`crate::provenance::common`] writes what was recorded into the result file.

use std::{
    hint::black_box,
    sync::Mutex,
    time::{Duration, Instant},
};

use anyhow::Context;

pub use contract::conditions::PINGS;

/// Steps of the CPU-bound loop: about 0.1 s here.
const STEPS: u64 = 50_000_000;

/// When a calibration is taken, and the key its result file line has.
#[derive(Clone, Copy)]
pub enum Moment {
    /// Before the round's first cell, its servers up.
    Start,
    /// After its last cell.
    End,
}

impl Moment {
    fn key(self) -> &'static str {
        match self {
            Moment::Start => "calibration_start",
            Moment::End => "calibration_end",
        }
    }
}

/// Each calibration of this process, in order.
static RECORDED: Mutex<Vec<(&'static str, String)>> = Mutex::new(Vec::new());

/// Calibrates now and records it for the result file: the round trip to `server` (its name and a
/// redis:// URL, or none when the round runs no server) and the loop.
pub fn record(moment: Moment, server: Option<(&str, &str)>) -> anyhow::Result<()> {
    let round_trip = match server {
        Some((name, url)) => format!("{}; ", round_trip(name, url, PINGS)?),
        None => String::new(),
    };
    let text = format!("{round_trip}loop {:.0} ms", cpu_loop().as_secs_f64() * 1e3);
    let mut recorded = RECORDED.lock().unwrap_or_else(|e| e.into_inner());
    recorded.push((moment.key(), text));
    Ok(())
}

/// What [`record`] recorded, in order.
pub fn recorded() -> Vec<(&'static str, String)> {
    RECORDED.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// "round trip 38 µs median, 95 µs p99 (2,000 PINGs to Redis)": PING touches no data, so it is
/// safe on any server, a REDIS_URL one included.
pub fn round_trip(name: &str, url: &str, pings: usize) -> anyhow::Result<String> {
    let mut connection = redis::Client::open(url)
        .and_then(|c| c.get_connection())
        .with_context(|| format!("calibration: cannot connect to {name}"))?;
    let mut took: Vec<Duration> = (0..pings)
        .map(|_| {
            let started = Instant::now();
            redis::cmd("PING")
                .query::<String>(&mut connection)
                .map(|_| started.elapsed())
        })
        .collect::<Result<_, _>>()
        .with_context(|| format!("calibration: PING to {name}"))?;
    took.sort_unstable();
    let at = |q: f64| took[((took.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1e6;
    Ok(format!(
        "round trip {:.0} µs median, {:.0} µs p99 ({pings} PINGs to {name})",
        at(0.5),
        at(0.99)
    ))
}

/// A fixed amount of integer work (xorshift steps), timed: the same work every round, so its
/// time says how fast the CPU ran this round.
fn cpu_loop() -> Duration {
    let started = Instant::now();
    let mut x = black_box(0x9e37_79b9_7f4a_7c15_u64);
    for _ in 0..STEPS {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    black_box(x);
    started.elapsed()
}
