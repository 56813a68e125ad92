//! The payload suite on real servers: every operation passes the bench's cell sequence in every
//! mode and in pipeline windows of any size, and a client whose GET returns one damaged byte fails the cell, naming the key and the
//! byte. The values carry bytes no text encoding keeps.

mod common;

use redis::{ConnectionLike, RedisResult, Value};
use redis_vs_doublets::{
    harness,
    payload::{self, PayloadModel, PayloadRequest},
    resp::store::{Mode, RedisStore},
    store::Request,
};

const SIZES: [u64; 2] = [30, 6];

/// Every mode with the spec's pipeline windows, then pipelines in windows smaller than a command
/// (each alone) and in windows that split the SET+GET pairs of 2 KiB and 20 KiB between them:
/// every reply still reaches its own request.
#[test]
fn every_operation_passes_its_checks_in_every_mode_and_any_windows() {
    let server = common::server();
    let spec_windows = Mode::ALL.map(|mode| common::redis(&server, mode));
    let small_windows = [1, 5_000, 50_000].map(|window| RedisStore {
        window,
        ..common::redis(&server, Mode::Pipeline)
    });
    for mut store in spec_windows.into_iter().chain(small_windows) {
        let mut model = PayloadModel::default();
        let mut background = common::load(&mut store, &mut model, "payload", &SIZES, 36, "Redis");
        let backend = format!("Redis_{}", store.mode);
        common::every_operation(&mut store, &mut background, "payload", &SIZES, &backend);
    }
}

#[test]
fn values_differ_per_key_and_hold_bytes_text_would_change() {
    let (a, b) = (payload::value(1, 2048), payload::value(2, 2048));
    assert_ne!(a, b);
    assert!(
        std::str::from_utf8(&a.0).is_err(),
        "a value should not be valid UTF-8"
    );
    assert_eq!(
        payload::value(7, 20480).0[..2048],
        payload::value(7, 2048).0[..]
    );
    // The same bytes as the C# side makes (PayloadTests.ValuesAreTheRustOnes).
    assert_eq!(
        &payload::value(1, 8).0[..],
        &[0xf4, 0x65, 0xb9, 0xa1, 0x6a, 0x9e, 0x78, 0x6e]
    );
}

/// A connection that changes byte 19 of every bulk string longer than 19 bytes it returns, as a
/// client that re-encodes a value would.
struct Damaging<C>(C);

fn damage(value: &mut Value) {
    match value {
        Value::BulkString(bytes) if bytes.len() > 19 => bytes[19] ^= 0x6a,
        Value::Array(items) => items.iter_mut().for_each(damage),
        _ => {}
    }
}

impl<C: ConnectionLike> ConnectionLike for Damaging<C> {
    fn req_packed_command(&mut self, cmd: &[u8]) -> RedisResult<Value> {
        let mut reply = self.0.req_packed_command(cmd)?;
        damage(&mut reply);
        Ok(reply)
    }

    fn req_packed_commands(
        &mut self,
        cmd: &[u8],
        offset: usize,
        count: usize,
    ) -> RedisResult<Vec<Value>> {
        let mut replies = self.0.req_packed_commands(cmd, offset, count)?;
        replies.iter_mut().for_each(damage);
        Ok(replies)
    }

    fn get_db(&self) -> i64 {
        self.0.get_db()
    }

    fn check_connection(&mut self) -> bool {
        self.0.check_connection()
    }

    fn is_open(&self) -> bool {
        self.0.is_open()
    }
}

#[test]
fn a_client_that_damages_one_byte_fails_the_cell() {
    let server = common::server();
    let spec = common::spec();
    let operation = spec
        .suite("payload")
        .unwrap()
        .operations
        .iter()
        .find(|o| o.id == "payload_2kib")
        .unwrap();
    let prepared = harness::Prepared::<PayloadRequest>::new(operation, &SIZES).unwrap();
    for mode in Mode::ALL {
        // The background's values are 16 bytes, which the damage leaves alone: the load passes.
        let plain = common::redis(&server, mode);
        let mut store = RedisStore {
            con: Damaging(plain.con),
            mode,
            calls: plain.calls,
            window: plain.window,
            digest: plain.digest,
            changes: plain.changes,
            split: plain.split,
            restarts: None,
        };
        let mut model = PayloadModel::default();
        let mut background = common::load(&mut store, &mut model, "payload", &SIZES, 36, "Redis");
        let mut measured = false;
        let error = harness::cell(
            &prepared,
            &mut store,
            &mut background,
            "payload_2kib/damaged",
            |_| measured = true,
        )
        .expect_err("a damaged value must fail the cell");
        let key = SIZES[0] + 1;
        let expected = payload::value(key, 2048).0[19];
        assert!(!measured, "{mode}: the damaged cell was measured");
        assert!(
            format!("{error:#}").contains(&format!(
                "GET p:{key}: byte 19 is 0x{:02x}, expected 0x{expected:02x}",
                expected ^ 0x6a
            )),
            "{mode}: {error:#}"
        );
    }
}

#[test]
fn requests_refuse_what_no_store_should_run() {
    for (verb, args, why) in [
        ("set", vec![Some(1), Some(0)], "0 bytes is not from 1"),
        (
            "set",
            vec![Some(1), Some((1 << 20) + 1)],
            "is not from 1 to 1048576",
        ),
        ("get", vec![Some(0), Some(1)], "the key 0 is not from 1"),
        ("get", vec![None, Some(1)], "numbers, not *"),
        ("incr", vec![], "takes 1 arguments"),
        ("append", vec![Some(1)], "unknown request \"append\""),
    ] {
        let error = PayloadRequest::build(verb, &args).unwrap_err();
        assert!(error.contains(why), "{verb} {args:?}: {error}");
    }
}
