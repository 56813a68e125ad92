//! What a round records of its machine: a calibration against a real server, and the CPU time
//! other processes used, which busy processes beside the run (not started by it) mark busy.

mod common;

use std::{process::Command, time::Duration};

use redis_vs_doublets::{
    calibration::{self, Moment},
    provenance,
};

/// The number just before `unit` in `text`.
fn before(text: &str, unit: &str) -> f64 {
    let head = &text[..text
        .find(unit)
        .unwrap_or_else(|| panic!("{unit} in {text}"))];
    head.rsplit(' ').next().unwrap().parse().unwrap()
}

#[test]
fn a_calibration_times_pings_to_a_real_server_and_the_cpu_loop() {
    let server = common::server();
    calibration::record(Moment::Start, Some(("Redis", &server.url))).unwrap();
    calibration::record(Moment::End, None).unwrap();
    let recorded = calibration::recorded();
    let [(start_key, start), (end_key, end)] = &recorded[..] else {
        panic!("two calibrations: {recorded:?}");
    };
    assert_eq!(
        (*start_key, *end_key),
        ("calibration_start", "calibration_end")
    );
    let (median, p99) = (before(start, " µs median"), before(start, " µs p99"));
    assert!(median > 0.0 && median <= p99, "{start}");
    assert!(
        start.contains("(2000 PINGs to Redis)") && before(start, " ms") > 0.0,
        "{start}"
    );
    // Without a server, the loop alone.
    assert!(
        end.starts_with("loop ") && before(end, " ms") > 0.0,
        "{end}"
    );
    // A server that does not answer is an error that names it, and records nothing.
    let e = calibration::record(Moment::End, Some(("Nowhere", "redis://127.0.0.1:1"))).unwrap_err();
    assert!(
        format!("{e:#}").contains("cannot connect to Nowhere"),
        "{e:#}"
    );
    assert_eq!(calibration::recorded().len(), 2);
}

#[test]
fn processes_outside_the_run_that_take_the_cpus_make_it_busy() {
    provenance::begin();
    // A busy loop per CPU, orphaned at once (the shell that starts them exits), so that they are
    // not this run's processes, and gone before the conditions are read.
    let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
    let loops = format!("for i in $(seq {cpus}); do timeout 2 sh -c 'while :; do :; done' & done");
    assert!(Command::new("sh")
        .args(["-c", &loops])
        .status()
        .unwrap()
        .success());
    std::thread::sleep(Duration::from_millis(2500));
    let conditions = provenance::common();
    let get = |key| {
        conditions
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_str())
    };
    let others = get("other_processes").unwrap();
    assert!(before(others, "% of the CPU time") > 30.0, "{others}");
    assert_eq!(get("machine"), Some("busy"));
}
