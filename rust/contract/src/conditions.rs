//! What a round records of its conditions, fixed here so that the bench and the report agree.

/// PINGs per calibration: about 0.1 s at this machine's 40-90 µs a round trip, enough for a p99.
pub const PINGS: usize = 2_000;

/// Above this share of the machine's CPU time used by other processes while it ran, a run is
/// marked busy, and the report leaves its figures out unless told to allow it: a single busy
/// process on a 2-CPU machine is 50%, a build beside the bench spread Redis cells 10-30×.
pub const BUSY_ABOVE: f64 = 0.10;
