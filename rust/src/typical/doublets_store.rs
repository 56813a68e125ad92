//! The typical-usage structures as links in doublets 0.18. Numbers are external references (raw
//! numbers), so a key or a value can never be mistaken for a link id.
//!
//! - a key-value pair is the link (key, value): GET is the index search [*, key, *];
//! - a set member is the link (set, member), where `set` is a point link: SISMEMBER is the search
//!   for that pair;
//! - the queue is a singly linked list: the node of a value is the link (next, value), the last
//!   node's next is 0, and the head link `queue` = (first, last) points at both ends (0, 0 when
//!   empty), so RPUSH and LPOP follow link ids only; RPOP finds the node before the last by the
//!   search [*, last, *].
//!
//! Every change is ordered so that no two links ever share a (source, target) pair, which would
//! corrupt doublets' indexes: a new node starts at (0, 0), which is never indexed.

use std::path::Path;

use anyhow::bail;
use doublets::{
    data::{Flow, LinksConstants},
    sequences::{AddressToRawNumberConverter, RawNumberToAddressConverter},
    Doublets, Link,
};

use super::{Entry, UsageRequest, MAX};
use crate::{
    blocks::{self, Blocks, Footprint, Split, United},
    durable::{Reopen, StoreFolder},
    store::{Census, Request, SharedRead, Store},
};

pub struct DoubletsUsage<S> {
    store: S,
    any: u64,
    /// The point link every set member starts at.
    set: u64,
    /// The head link (first, last) of the queue.
    queue: u64,
    blocks: Blocks,
    /// A durable store's folder and how it opens its files again (declared after the store, so
    /// the folder goes once nothing maps them).
    files: Option<Reopen<S>>,
}

impl<S> Footprint for DoubletsUsage<S> {
    fn blocks(&self) -> &Blocks {
        &self.blocks
    }
}

/// The united store (one memory block), with external references: on the heap, or mapped from a
/// file in `folder`.
pub fn united_store(folder: Option<StoreFolder>) -> anyhow::Result<DoubletsUsage<United>> {
    DoubletsUsage::open(folder, |files| {
        blocks::united(files, LinksConstants::external())
    })
}

/// The split store (data and indexes apart), with external references: on the heap, or mapped
/// from two files in `folder`.
pub fn split_store(folder: Option<StoreFolder>) -> anyhow::Result<DoubletsUsage<Split>> {
    DoubletsUsage::open(folder, |files| {
        blocks::split(files, LinksConstants::external())
    })
}

fn raw(number: u64) -> u64 {
    debug_assert!(
        (1..=MAX).contains(&number),
        "requests are validated before they run"
    );
    AddressToRawNumberConverter::new()
        .convert(number)
        .expect("numbers up to i64::MAX have a raw form")
}

fn number(raw: u64) -> u64 {
    RawNumberToAddressConverter::new().convert(raw)
}

impl<S: Doublets<u64>> DoubletsUsage<S> {
    /// Opens the store with `open` (on the heap, or from files in `folder`) and makes the set's
    /// and the queue's own links.
    fn open(
        folder: Option<StoreFolder>,
        open: fn(Option<&Path>) -> anyhow::Result<(S, Blocks)>,
    ) -> anyhow::Result<Self> {
        let (mut store, blocks, files) = Reopen::open(folder, open)?;
        let any = store.constants().any;
        let set = store.create_point()?;
        let queue = store.create()?;
        Ok(Self {
            store,
            any,
            set,
            queue,
            blocks,
            files,
        })
    }

    /// Where a durable store keeps its files.
    pub fn folder(&self) -> Option<&Path> {
        self.files.as_ref().map(Reopen::folder)
    }

    /// One request, which must already be validated ([`UsageRequest::check`]).
    pub fn run_one(
        &mut self,
        request: UsageRequest,
        found: &mut impl FnMut(Entry),
    ) -> anyhow::Result<()> {
        let (any, set, queue) = (self.any, self.set, self.queue);
        let s = &mut self.store;
        let key_link = |s: &S, key: u64| -> Option<Link<u64>> { s.find([any, raw(key), any]) };
        match request {
            UsageRequest::Get(k) => get(s, any, k, found),
            UsageRequest::Set(k, v) => {
                match key_link(s, k) {
                    Some(link) => s.update(link.index, raw(k), raw(v))?,
                    None => s.create_link(raw(k), raw(v))?,
                };
                found(Entry::new(k, v));
            }
            UsageRequest::Del(k) => {
                if let Some(link) = key_link(s, k) {
                    s.delete(link.index)?;
                    found(Entry::new(k, k));
                }
            }
            UsageRequest::Incr(k) => {
                let value = match key_link(s, k) {
                    Some(link) => {
                        let value = number(link.target);
                        if value >= MAX {
                            bail!("INCR {k}: {value} + 1 would overflow");
                        }
                        s.update(link.index, raw(k), raw(value + 1))?;
                        value + 1
                    }
                    None => {
                        s.create_link(raw(k), raw(1))?;
                        1
                    }
                };
                found(Entry::new(k, value));
            }
            UsageRequest::RPush(v) => {
                rpush(s, queue, v)?;
                found(Entry::new(0, v));
            }
            UsageRequest::LPush(v) => {
                lpush(s, queue, v)?;
                found(Entry::new(0, v));
            }
            UsageRequest::LPop => {
                if let Some(v) = lpop(s, queue)? {
                    found(Entry::new(0, v));
                }
            }
            UsageRequest::RPop => {
                if let Some(v) = rpop(s, any, queue)? {
                    found(Entry::new(0, v));
                }
            }
            UsageRequest::SAdd(m) => {
                if s.search(set, raw(m)).is_none() {
                    s.create_link(set, raw(m))?;
                    found(Entry::new(0, m));
                }
            }
            UsageRequest::SRem(m) => {
                if let Some(id) = s.search(set, raw(m)) {
                    s.delete(id)?;
                    found(Entry::new(0, m));
                }
            }
            UsageRequest::SIsMember(m) => contains(s, set, m, found),
            UsageRequest::Queue => walk(s, queue, found)?,
            UsageRequest::Members => {
                s.each_by([any, set, any], |link| {
                    // The set's own point link starts at `set` too.
                    if link.index != set {
                        found(Entry::new(0, number(link.target)));
                    }
                    Flow::Continue
                });
            }
        }
        Ok(())
    }
}

/// The queue's first and last node (0 when it is empty): the queue link's source and target.
fn ends<S: Doublets<u64>>(s: &S, queue: u64) -> anyhow::Result<(u64, u64)> {
    let head = s.try_get_link(queue)?;
    Ok((head.source, head.target))
}

/// RPUSH: a new last node, which the old last node points to.
fn rpush<S: Doublets<u64>>(s: &mut S, queue: u64, v: u64) -> anyhow::Result<()> {
    let (first, last) = ends(s, queue)?;
    let node = s.create()?;
    if last != 0 {
        let tail = s.try_get_link(last)?;
        s.update(last, node, tail.target)?;
    }
    s.update(node, 0, raw(v))?;
    s.update(queue, if first == 0 { node } else { first }, node)?;
    Ok(())
}

/// LPUSH: a new first node, pointing to the old first.
fn lpush<S: Doublets<u64>>(s: &mut S, queue: u64, v: u64) -> anyhow::Result<()> {
    let (first, last) = ends(s, queue)?;
    let node = s.create_link(first, raw(v))?;
    s.update(queue, node, if last == 0 { node } else { last })?;
    Ok(())
}

/// LPOP: the first node's value, the node deleted; none from an empty queue.
fn lpop<S: Doublets<u64>>(s: &mut S, queue: u64) -> anyhow::Result<Option<u64>> {
    let (first, last) = ends(s, queue)?;
    if first == 0 {
        return Ok(None);
    }
    let head = s.try_get_link(first)?;
    s.delete(first)?;
    s.update(queue, head.source, if head.source == 0 { 0 } else { last })?;
    Ok(Some(number(head.target)))
}

/// RPOP: the last node's value, the node deleted and the one before it made last.
fn rpop<S: Doublets<u64>>(s: &mut S, any: u64, queue: u64) -> anyhow::Result<Option<u64>> {
    let (first, last) = ends(s, queue)?;
    if last == 0 {
        return Ok(None);
    }
    let tail = s.try_get_link(last)?;
    // The head link starts at `first`; when first == last it is the only link starting there,
    // and there is no node before the last.
    let before = if first == last {
        None
    } else {
        s.find([any, last, any])
    };
    s.delete(last)?;
    match before {
        Some(node) => {
            s.update(node.index, 0, node.target)?;
            s.update(queue, first, node.index)?;
        }
        None => {
            s.update(queue, 0, 0)?;
        }
    }
    Ok(Some(number(tail.target)))
}

/// The whole queue, first to last, each value with its position (a check's probe).
fn walk<S: Doublets<u64>>(s: &S, queue: u64, found: &mut impl FnMut(Entry)) -> anyhow::Result<()> {
    let (mut id, _) = ends(s, queue)?;
    let links = s.count();
    for position in 1.. {
        if id == 0 {
            break;
        }
        if position > links {
            bail!("the queue does not end: it has more nodes than the store has links");
        }
        let node = s.try_get_link(id)?;
        found(Entry::new(position, number(node.target)));
        id = node.source;
    }
    Ok(())
}

/// GET: the value of the link (key, value), if there is one.
#[inline]
fn get<S: Doublets<u64>>(s: &S, any: u64, k: u64, found: &mut impl FnMut(Entry)) {
    if let Some(link) = s.find([any, raw(k), any]) {
        found(Entry::new(k, number(link.target)));
    }
}

/// SISMEMBER: whether the link (set, member) exists.
#[inline]
fn contains<S: Doublets<u64>>(s: &S, set: u64, m: u64, found: &mut impl FnMut(Entry)) {
    if s.search(set, raw(m)).is_some() {
        found(Entry::new(0, m));
    }
}

impl<S: Doublets<u64>> SharedRead<UsageRequest> for DoubletsUsage<S> {
    fn read(&self, batch: &[UsageRequest], mut found: impl FnMut(Entry)) -> anyhow::Result<()> {
        UsageRequest::validate(batch)?;
        for request in batch {
            match *request {
                UsageRequest::Get(k) => get(&self.store, self.any, k, &mut found),
                UsageRequest::SIsMember(m) => contains(&self.store, self.set, m, &mut found),
                other => bail!("{other:?} is not a shared read"),
            }
        }
        Ok(())
    }
}

impl<S: Doublets<u64>> Store<UsageRequest> for DoubletsUsage<S> {
    fn run(&mut self, batch: &[UsageRequest], mut found: impl FnMut(Entry)) -> anyhow::Result<()> {
        UsageRequest::validate(batch)?;
        for request in batch {
            self.run_one(*request, &mut found)?;
        }
        Ok(())
    }

    fn census(&mut self) -> anyhow::Result<Census> {
        let any = self.any;
        Ok(Census(vec![(
            "links",
            self.store.count_by([any, any, any]),
        )]))
    }

    fn digest(&mut self) -> anyhow::Result<Option<String>> {
        Ok(Some(crate::digest::shown(&self.store)))
    }

    /// The set's and the queue's links keep their ids: they are links of the files.
    fn restart(&mut self) -> anyhow::Result<bool> {
        let Some(files) = &self.files else {
            return Ok(false);
        };
        (self.store, self.blocks) = files.again()?;
        Ok(true)
    }
}
