//! Each round's machine as the method page shows it: the round trip and CPU loop it calibrated at
//! its start and end, the CPU time other processes used, steal, and whether it was quiet, so that a
//! reader sees the round trip that set a round's server figures and which rounds shared the machine.

use serde::Serialize;

use crate::{
    format::Lang,
    tables::{Environment, Table},
    view::language_name,
};

/// One input of one language and size (every suite of it shares the input).
#[derive(Clone, Serialize, PartialEq)]
pub struct Row {
    size: String,
    language: String,
    /// "1", or "1 (redis; redis; FreeRedis)" for a piece of a round.
    round: String,
    /// "65 → 67 (p99 103 → 150)", in µs.
    round_trip: String,
    /// "105 → 102", in ms.
    cpu_loop: String,
    other_processes: String,
    steal: String,
    machine: String,
}

/// A row per input of every table, each language and size once, in table order.
pub fn rows(tables: &[Table], lang: Lang) -> Vec<Row> {
    let mut rows: Vec<Row> = Vec::new();
    for t in tables {
        for e in &t.environment {
            let row = row(t, e, lang);
            if !rows.contains(&row) {
                rows.push(row);
            }
        }
    }
    rows
}

fn row(t: &Table, e: &Environment, lang: Lang) -> Row {
    let unrecorded = || match lang {
        Lang::En => "not recorded".to_string(),
        Lang::Ru => "не записано".to_string(),
    };
    let (start, end) = (
        e.calibration_start.as_deref().map(Calibration::parse),
        e.calibration_end.as_deref().map(Calibration::parse),
    );
    let both = |of: &dyn Fn(&Calibration) -> Option<f64>, unit: &str| match (&start, &end) {
        (Some(s), Some(e)) => match (of(s), of(e)) {
            (Some(a), Some(b)) => format!("{a:.0} → {b:.0}{unit}"),
            _ => "—".into(),
        },
        _ => unrecorded(),
    };
    // A round without a server calibrated its loop alone: "—" for its round trip.
    let round_trip = match start.as_ref().map(|s| s.median_us.is_some()) {
        Some(true) => format!(
            "{} (p99 {})",
            both(&|c| c.median_us, ""),
            both(&|c| c.p99_us, "")
        ),
        Some(false) => "—".into(),
        None => unrecorded(),
    };
    let share = |value: &Option<String>| {
        value.as_deref().map_or_else(unrecorded, |v| {
            let share = v.split(" of ").next().unwrap_or(v);
            share.replace('.', &lang.decimal_separator().to_string())
        })
    };
    Row {
        size: crate::format::sizes(t.background, t.operations, lang),
        language: language_name(&t.language).to_string(),
        round: match &e.part {
            Some(part) => format!("{} ({part})", e.round),
            None => e.round.to_string(),
        },
        round_trip,
        cpu_loop: both(&|c| c.loop_ms, ""),
        other_processes: share(&e.other_processes),
        steal: share(&e.steal),
        machine: match (e.machine.as_deref(), lang) {
            (None, _) => unrecorded(),
            (Some("quiet"), Lang::Ru) => "тихая".into(),
            (Some("busy"), Lang::Ru) => "занята".into(),
            (Some(other), _) => other.into(),
        },
    }
}

/// The figures of one calibration line, as rust/src/calibration.rs writes it: "round trip 65 µs
/// median, 103 µs p99 (2000 PINGs to Redis); loop 105 ms" (no round trip without a server).
struct Calibration {
    median_us: Option<f64>,
    p99_us: Option<f64>,
    loop_ms: Option<f64>,
}

impl Calibration {
    fn parse(text: &str) -> Self {
        let between = |before: &str, after: &str| {
            let rest = &text[text.find(before)? + before.len()..];
            rest[..rest.find(after)?].trim().parse().ok()
        };
        Calibration {
            median_us: between("round trip ", " µs median"),
            p99_us: between("median, ", " µs p99"),
            loop_ms: between("loop ", " ms"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_calibration_line_gives_its_figures_and_a_line_without_a_server_its_loop() {
        let c = Calibration::parse(
            "round trip 65 µs median, 103 µs p99 (2000 PINGs to Redis); loop 105 ms",
        );
        assert_eq!(
            (c.median_us, c.p99_us, c.loop_ms),
            (Some(65.0), Some(103.0), Some(105.0))
        );
        let c = Calibration::parse("loop 98 ms");
        assert_eq!((c.median_us, c.p99_us, c.loop_ms), (None, None, Some(98.0)));
    }
}
