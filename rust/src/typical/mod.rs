//! The typical-Redis-usage suite: a key-value map, counters, a queue and a set, as Redis users keep
//! them, and as links in doublets.

mod doublets_store;
mod model;
mod redis_requests;

pub use doublets_store::{split_store, united_store, DoubletsUsage};
pub use model::UsageModel;

use crate::store::Request;

/// Keys, values and members run from 1 to the largest Redis counter.
pub const MAX: u64 = i64::MAX as u64;

/// What a request reports: a key (or a queue position, or 0) and a value. The spec's expected
/// results count the value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Entry {
    pub key: u64,
    pub value: u64,
}

impl Entry {
    pub const fn new(key: u64, value: u64) -> Self {
        Self { key, value }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UsageRequest {
    /// GET: reports (key, value) when the key exists.
    Get(u64),
    /// SET: reports (key, value).
    Set(u64, u64),
    /// DEL: reports (key, key) when the key existed.
    Del(u64),
    /// INCR: reports (key, the new value); a missing key counts from 0.
    Incr(u64),
    /// RPUSH to the queue: reports (0, value).
    RPush(u64),
    /// LPUSH to the queue: reports (0, value).
    LPush(u64),
    /// LPOP from the queue: reports (0, value) unless the queue is empty.
    LPop,
    /// RPOP from the queue: reports (0, value) unless the queue is empty.
    RPop,
    /// SADD to the set: reports (0, member) when it was not there.
    SAdd(u64),
    /// SREM from the set: reports (0, member) when it was there.
    SRem(u64),
    /// SISMEMBER: reports (0, member) when it is there.
    SIsMember(u64),
    /// The whole queue (LRANGE 0 -1): reports (position from 1, value) for each entry.
    Queue,
    /// The whole set (SMEMBERS): reports (0, member) for each member.
    Members,
}

impl UsageRequest {
    /// Every number must be from 1 to [`MAX`]; every store checks a whole batch before running it.
    pub fn check(&self) -> anyhow::Result<()> {
        let numbers: &[u64] = match self {
            Self::Get(k) | Self::Del(k) | Self::Incr(k) => &[*k],
            Self::Set(k, v) => &[*k, *v],
            Self::RPush(v)
            | Self::LPush(v)
            | Self::SAdd(v)
            | Self::SRem(v)
            | Self::SIsMember(v) => &[*v],
            Self::LPop | Self::RPop | Self::Queue | Self::Members => &[],
        };
        match numbers.iter().find(|n| !(1..=MAX).contains(*n)) {
            Some(n) => anyhow::bail!(
                "{self:?}: {n} is not from 1 to {MAX}; keys, values and members must be"
            ),
            None => Ok(()),
        }
    }
}

impl Request for UsageRequest {
    type Found = Entry;

    fn build(verb: &str, args: &[Option<u64>]) -> Result<Self, String> {
        let arity = match verb {
            "lpop" | "rpop" | "queue" | "members" => 0,
            "get" | "del" | "incr" | "rpush" | "lpush" | "sadd" | "srem" | "sismember" => 1,
            "set" => 2,
            _ => {
                return Err(format!(
                    "unknown request \"{verb}\" (typical: get, set, del, incr, rpush, lpush, lpop, rpop, sadd, srem, sismember, queue, members)"
                ))
            }
        };
        if args.len() != arity {
            return Err(format!(
                "{verb} takes {arity} arguments, got {}",
                args.len()
            ));
        }
        let number = |k: usize| args[k].ok_or_else(|| format!("{verb} takes numbers, not *"));
        let request = match verb {
            "get" => Self::Get(number(0)?),
            "set" => Self::Set(number(0)?, number(1)?),
            "del" => Self::Del(number(0)?),
            "incr" => Self::Incr(number(0)?),
            "rpush" => Self::RPush(number(0)?),
            "lpush" => Self::LPush(number(0)?),
            "lpop" => Self::LPop,
            "rpop" => Self::RPop,
            "sadd" => Self::SAdd(number(0)?),
            "srem" => Self::SRem(number(0)?),
            "sismember" => Self::SIsMember(number(0)?),
            "queue" => Self::Queue,
            _ => Self::Members,
        };
        request.check().map_err(|e| e.to_string())?;
        Ok(request)
    }

    fn id(found: &Entry) -> u64 {
        found.value
    }

    fn reads(&self) -> bool {
        // The whole-queue and whole-set reads are checks' probes, never run under load.
        matches!(self, Self::Get(_) | Self::SIsMember(_))
    }

    fn validate(batch: &[Self]) -> anyhow::Result<()> {
        batch.iter().try_for_each(Self::check)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_requests_and_refuses_numbers_out_of_range() {
        assert_eq!(
            UsageRequest::build("set", &[Some(3), Some(4)]),
            Ok(UsageRequest::Set(3, 4))
        );
        assert_eq!(UsageRequest::build("lpop", &[]), Ok(UsageRequest::LPop));
        assert!(UsageRequest::build("get", &[Some(0)])
            .unwrap_err()
            .contains("0 is not from 1"));
        assert!(UsageRequest::build("sadd", &[Some(MAX + 1)])
            .unwrap_err()
            .contains("is not from 1"));
        assert!(UsageRequest::build("get", &[None])
            .unwrap_err()
            .contains("not *"));
        assert!(UsageRequest::build("hset", &[])
            .unwrap_err()
            .contains("unknown request"));
        assert!(UsageRequest::build("set", &[Some(1)])
            .unwrap_err()
            .contains("takes 2"));
    }
}
