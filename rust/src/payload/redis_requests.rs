//! Payload requests as the commands a cache's user sends: the value under `p:{key}`, its counter
//! under `n:{key}`.

use anyhow::bail;
use redis::{Cmd, Value};

use super::{check_value, PayloadRequest, Stored};
use crate::resp::{
    library::Calls,
    reply::{command, number},
    store::RedisRequest,
};

impl RedisRequest for PayloadRequest {
    const KEYS: &'static [&'static str] = &["p:*", "n:*"];

    fn command(&self, _: &Calls) -> Cmd {
        match self {
            PayloadRequest::Set(k, v) => command("SET", (format!("p:{k}"), &v.0[..])),
            PayloadRequest::Get(k, _) => command("GET", format!("p:{k}")),
            PayloadRequest::Incr(k) => command("INCR", format!("n:{k}")),
            PayloadRequest::Counter(k) => command("GET", format!("n:{k}")),
            PayloadRequest::Del(k) => command("DEL", (format!("p:{k}"), format!("n:{k}"))),
        }
    }

    fn decode(&self, reply: Value, found: &mut impl FnMut(Stored)) -> anyhow::Result<()> {
        match (self, reply) {
            (_, Value::ServerError(e)) => bail!("{self:?}: the server answered {e:?}"),
            (PayloadRequest::Get(..) | PayloadRequest::Counter(_), Value::Nil) => {}
            (PayloadRequest::Set(k, v), Value::Okay) => found(Stored::new(*k, v.0.len() as u64)),
            (PayloadRequest::Get(k, v), Value::BulkString(bytes)) => {
                check_value(*k, v, &bytes)?;
                found(Stored::new(*k, bytes.len() as u64));
            }
            (PayloadRequest::Incr(k) | PayloadRequest::Counter(k), reply) => {
                found(Stored::new(*k, number(&reply)?))
            }
            (PayloadRequest::Del(k), reply) => match number(&reply)? {
                0 => {}
                removed => found(Stored::new(*k, removed)),
            },
            (request, other) => bail!("{request:?}: unexpected reply {other:?}"),
        }
        Ok(())
    }
}
