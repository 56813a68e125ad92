//! Typical-usage requests as the native Redis commands people use: strings `k:{key}`, the list
//! `queue`, the set `members`.

use anyhow::bail;
use redis::{Cmd, Value};

use super::{Entry, UsageRequest};
use crate::resp::{
    library::Calls,
    reply::{command, items, number},
    store::RedisRequest,
};

fn key(k: u64) -> String {
    format!("k:{k}")
}

impl RedisRequest for UsageRequest {
    const KEYS: &'static [&'static str] = &["k:*", "queue", "members"];

    fn command(&self, _: &Calls) -> Cmd {
        match *self {
            UsageRequest::Get(k) => command("GET", key(k)),
            UsageRequest::Set(k, v) => command("SET", (key(k), v)),
            UsageRequest::Del(k) => command("DEL", key(k)),
            UsageRequest::Incr(k) => command("INCR", key(k)),
            UsageRequest::RPush(v) => command("RPUSH", ("queue", v)),
            UsageRequest::LPush(v) => command("LPUSH", ("queue", v)),
            UsageRequest::LPop => command("LPOP", "queue"),
            UsageRequest::RPop => command("RPOP", "queue"),
            UsageRequest::SAdd(m) => command("SADD", ("members", m)),
            UsageRequest::SRem(m) => command("SREM", ("members", m)),
            UsageRequest::SIsMember(m) => command("SISMEMBER", ("members", m)),
            UsageRequest::Queue => command("LRANGE", ("queue", 0, -1)),
            UsageRequest::Members => command("SMEMBERS", "members"),
        }
    }

    fn decode(&self, reply: Value, found: &mut impl FnMut(Entry)) -> anyhow::Result<()> {
        if let Value::ServerError(e) = reply {
            bail!("{self:?}: Redis answered {e:?}");
        }
        // Replies that say "done" (1) or "not there" (0, nil) report the request's own number.
        let done = |reply: &Value| -> anyhow::Result<bool> {
            Ok(match reply {
                Value::Nil => false,
                Value::Okay => true,
                other => number(other)? == 1,
            })
        };
        match *self {
            UsageRequest::Get(k) if reply != Value::Nil => found(Entry::new(k, number(&reply)?)),
            UsageRequest::Get(_) => {}
            UsageRequest::Set(k, v) if done(&reply)? => found(Entry::new(k, v)),
            UsageRequest::Del(k) if done(&reply)? => found(Entry::new(k, k)),
            UsageRequest::Incr(k) => found(Entry::new(k, number(&reply)?)),
            UsageRequest::RPush(v) | UsageRequest::LPush(v) => {
                number(&reply)?;
                found(Entry::new(0, v));
            }
            UsageRequest::LPop | UsageRequest::RPop if reply != Value::Nil => {
                found(Entry::new(0, number(&reply)?))
            }
            UsageRequest::SAdd(m) | UsageRequest::SRem(m) | UsageRequest::SIsMember(m)
                if done(&reply)? =>
            {
                found(Entry::new(0, m))
            }
            UsageRequest::Queue => {
                for (position, value) in (1..).zip(items(reply)?) {
                    found(Entry::new(position, number(&value)?));
                }
            }
            UsageRequest::Members => {
                for member in items(reply)? {
                    found(Entry::new(0, number(&member)?));
                }
            }
            _ => {}
        }
        Ok(())
    }
}
