//! Link requests as RESP commands: changes call the library in `redis/links.lua` (as functions or
//! as a script, as the server's [`Calls`] say), queries are one native read each.

use anyhow::{bail, Context};
use redis::{Cmd, ConnectionLike, Value};

use super::{Link, LinkRequest, Query};
use crate::resp::{
    library::Calls,
    reply::{command, items, number, text_number},
    store::{RedisRequest, RedisStore, CHUNK},
};

const NO_ARGUMENTS: [u64; 0] = [];

/// Splits the stored "source:target", reading both numbers in place.
fn endpoints(value: &Value) -> anyhow::Result<(u64, u64)> {
    if let Value::BulkString(bytes) = value {
        if let Some(colon) = bytes.iter().position(|&b| b == b':') {
            return Ok((
                text_number(&bytes[..colon])?,
                text_number(&bytes[colon + 1..])?,
            ));
        }
    }
    bail!("a stored link should read \"source:target\", got {value:?}")
}

impl RedisRequest for LinkRequest {
    const KEYS: &'static [&'static str] = &["links", "links:*", "out:*", "in:*", "pair:*"];

    fn command(&self, calls: &Calls) -> Cmd {
        match *self {
            LinkRequest::CreatePoint => calls.create_point.with(&NO_ARGUMENTS),
            LinkRequest::Create { source, target } => calls.create.with((source, target)),
            LinkRequest::Update { id, source, target } => calls.update.with((id, source, target)),
            LinkRequest::Delete { id } => calls.delete.with(id),
            LinkRequest::Each(Query { id: Some(id), .. }) => command("HGET", ("links", id)),
            LinkRequest::Each(Query {
                source: Some(s),
                target: Some(t),
                ..
            }) => command("SMEMBERS", format!("pair:{s}:{t}")),
            LinkRequest::Each(Query {
                source: Some(s), ..
            }) => command("HGETALL", format!("out:{s}")),
            LinkRequest::Each(Query {
                target: Some(t), ..
            }) => command("HGETALL", format!("in:{t}")),
            LinkRequest::Each(_) => command("HGETALL", "links"),
        }
    }

    fn decode(&self, reply: Value, found: &mut impl FnMut(Link)) -> anyhow::Result<()> {
        match *self {
            LinkRequest::CreatePoint => found(Link::point(number(&reply)?)),
            LinkRequest::Create { source, target } => {
                found(Link::new(number(&reply)?, source, target))
            }
            LinkRequest::Update { source, target, .. } => {
                found(Link::new(number(&reply)?, source, target))
            }
            LinkRequest::Delete { .. } => found(Link::new(number(&reply)?, 0, 0)),
            LinkRequest::Each(Query { id: Some(id), .. }) => {
                if reply != Value::Nil {
                    let (s, t) = endpoints(&reply)?;
                    found(Link::new(id, s, t));
                }
            }
            LinkRequest::Each(Query {
                source: Some(s),
                target: Some(t),
                ..
            }) => {
                for id in items(reply)? {
                    found(Link::new(number(&id)?, s, t));
                }
            }
            LinkRequest::Each(q) => {
                let items = items(reply)?;
                for pair in items.chunks_exact(2) {
                    let id = number(&pair[0])?;
                    found(match q {
                        Query {
                            source: Some(s), ..
                        } => Link::new(id, s, number(&pair[1])?),
                        Query {
                            target: Some(t), ..
                        } => Link::new(id, number(&pair[1])?, t),
                        _ => {
                            let (s, t) = endpoints(&pair[1])?;
                            Link::new(id, s, t)
                        }
                    });
                }
            }
        }
        Ok(())
    }

    /// Runs of point creations go to `create_points`, a chunk per call, which loads a million
    /// links several times faster than one FCALL each.
    fn load<C: ConnectionLike>(
        store: &mut RedisStore<C>,
        batch: &[Self],
        found: &mut impl FnMut(Link),
    ) -> anyhow::Result<()> {
        let mut rest = batch;
        while !rest.is_empty() {
            let points = rest
                .iter()
                .take_while(|r| **r == LinkRequest::CreatePoint)
                .count();
            if points == 0 {
                let others = rest
                    .iter()
                    .take_while(|r| **r != LinkRequest::CreatePoint)
                    .count();
                for chunk in rest[..others].chunks(CHUNK) {
                    store.pipelined(chunk, false, found)?;
                }
                rest = &rest[others..];
                continue;
            }
            let mut pipe = redis::pipe();
            let counts: Vec<usize> = (0..points)
                .step_by(CHUNK)
                .map(|start| CHUNK.min(points - start))
                .collect();
            for &count in &counts {
                pipe.add_command(store.calls.create_points.with(count));
            }
            let firsts: Vec<u64> = pipe.query(&mut store.con).context("loading point links")?;
            for (first, count) in firsts.into_iter().zip(counts) {
                (first..first + count as u64).for_each(|id| found(Link::point(id)));
            }
            rest = &rest[points..];
        }
        Ok(())
    }
}
