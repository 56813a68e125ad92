//! The payload suite: values of real sizes written with SET and read back with GET, byte for byte,
//! on the RESP servers (doublets stores numbers and links, not byte strings, so it does not run
//! there; the spec says why).

mod model;
mod redis_requests;

pub use model::PayloadModel;

use std::{fmt, sync::Arc};

use anyhow::bail;

use crate::store::Request;

/// Keys run from 1 to the largest Redis counter.
pub const MAX_KEY: u64 = i64::MAX as u64;

/// The largest value a request may write: 1 MiB keeps a whole iteration well within memory.
pub const MAX_SIZE: u64 = 1 << 20;

/// What a request reports: a key and a number (a value's size in bytes, a counter, or how many
/// keys a DEL removed). The spec's expected results count the key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Stored {
    pub key: u64,
    pub value: u64,
}

impl Stored {
    pub const fn new(key: u64, value: u64) -> Self {
        Self { key, value }
    }
}

/// The bytes key `key` holds at `size` bytes: splitmix64's stream seeded by the key, so that
/// values differ per key and carry every byte from 0 to 255 (text encodings included would
/// damage them). Both languages make the same bytes.
pub fn value(key: u64, size: usize) -> Value {
    const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut state = key.wrapping_mul(GOLDEN);
    let mut bytes = Vec::with_capacity(size);
    while bytes.len() < size {
        state = state.wrapping_add(GOLDEN);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let take = (size - bytes.len()).min(8);
        bytes.extend_from_slice(&z.to_le_bytes()[..take]);
    }
    Value(bytes.into())
}

/// A value, built once before anything is measured and shared by the requests that write or
/// expect it.
#[derive(Clone, PartialEq, Eq)]
pub struct Value(pub Arc<[u8]>);

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} bytes", self.0.len())
    }
}

/// What is wrong with `found` as the reply to GET `key`, which must be exactly `expected`: the
/// first differing byte, or the lengths.
pub fn difference(key: &str, expected: &[u8], found: &[u8]) -> Option<String> {
    let at = expected
        .iter()
        .zip(found)
        .position(|(e, f)| e != f)
        .unwrap_or(expected.len().min(found.len()));
    if at == expected.len() && at == found.len() {
        None
    } else if at == expected.len().min(found.len()) {
        Some(format!(
            "GET {key} returned {} bytes, expected {} (equal up to byte {at})",
            found.len(),
            expected.len()
        ))
    } else {
        Some(format!(
            "GET {key}: byte {at} is 0x{:02x}, expected 0x{:02x}",
            found[at], expected[at]
        ))
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PayloadRequest {
    /// SET the key to its value: reports (key, size).
    Set(u64, Value),
    /// GET the key, which must hold exactly this value: reports (key, size); a missing key
    /// reports nothing, and any other bytes fail the request.
    Get(u64, Value),
    /// INCR the key's counter: reports (key, the new count).
    Incr(u64),
    /// GET the key's counter (probes only): reports (key, count) when it exists.
    Counter(u64),
    /// DEL the key and its counter: reports (key, how many of the two existed) when any did.
    Del(u64),
}

impl PayloadRequest {
    pub fn key(&self) -> u64 {
        match self {
            Self::Set(k, _) | Self::Get(k, _) => *k,
            Self::Incr(k) | Self::Counter(k) | Self::Del(k) => *k,
        }
    }
}

impl Request for PayloadRequest {
    type Found = Stored;

    fn build(verb: &str, args: &[Option<u64>]) -> Result<Self, String> {
        let arity = match verb {
            "set" | "get" => 2,
            "incr" | "del" => 1,
            _ => {
                return Err(format!(
                    "unknown request \"{verb}\" (payload: set, get, incr, del)"
                ))
            }
        };
        if args.len() != arity {
            return Err(format!(
                "{verb} takes {arity} arguments, got {}",
                args.len()
            ));
        }
        let Some(args) = args.iter().copied().collect::<Option<Vec<u64>>>() else {
            return Err(format!("{verb} takes numbers, not *"));
        };
        let key = args[0];
        if !(1..=MAX_KEY).contains(&key) {
            return Err(format!("{verb}: the key {key} is not from 1 to {MAX_KEY}"));
        }
        let sized = |size: u64| -> Result<Value, String> {
            if !(1..=MAX_SIZE).contains(&size) {
                return Err(format!(
                    "{verb}: a value of {size} bytes is not from 1 to {MAX_SIZE} bytes"
                ));
            }
            Ok(value(key, size as usize))
        };
        Ok(match verb {
            "set" => Self::Set(key, sized(args[1])?),
            "get" => Self::Get(key, sized(args[1])?),
            "incr" => Self::Incr(key),
            _ => Self::Del(key),
        })
    }

    fn id(found: &Stored) -> u64 {
        found.key
    }

    fn reads(&self) -> bool {
        matches!(self, Self::Get(..) | Self::Counter(_))
    }
}

/// Fails unless `found` is exactly the value a GET of `key` expects.
pub fn check_value(key: u64, expected: &Value, found: &[u8]) -> anyhow::Result<()> {
    match difference(&format!("p:{key}"), &expected.0, found) {
        Some(wrong) => bail!("{wrong}"),
        None => Ok(()),
    }
}
