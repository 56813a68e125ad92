//! The plain model of the typical-usage structures: what Redis and doublets must both answer.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use anyhow::bail;

use super::{Entry, UsageRequest, MAX};
use crate::store::{Census, Model, Request, Store};

#[derive(Clone, Debug, Default)]
pub struct UsageModel {
    map: BTreeMap<u64, u64>,
    queue: VecDeque<u64>,
    set: BTreeSet<u64>,
}

impl UsageModel {
    pub fn get(&self, key: u64) -> Option<u64> {
        self.map.get(&key).copied()
    }

    pub fn queue(&self) -> impl Iterator<Item = u64> + '_ {
        self.queue.iter().copied()
    }
}

impl Store<UsageRequest> for UsageModel {
    fn run(&mut self, batch: &[UsageRequest], mut found: impl FnMut(Entry)) -> anyhow::Result<()> {
        UsageRequest::validate(batch)?;
        for request in batch {
            match *request {
                UsageRequest::Get(k) => self
                    .get(k)
                    .into_iter()
                    .for_each(|v| found(Entry::new(k, v))),
                UsageRequest::Set(k, v) => {
                    self.map.insert(k, v);
                    found(Entry::new(k, v));
                }
                UsageRequest::Del(k) => {
                    if self.map.remove(&k).is_some() {
                        found(Entry::new(k, k));
                    }
                }
                UsageRequest::Incr(k) => {
                    let value = self.get(k).unwrap_or(0);
                    if value >= MAX {
                        bail!("INCR {k}: {value} + 1 would overflow");
                    }
                    self.map.insert(k, value + 1);
                    found(Entry::new(k, value + 1));
                }
                UsageRequest::RPush(v) => {
                    self.queue.push_back(v);
                    found(Entry::new(0, v));
                }
                UsageRequest::LPush(v) => {
                    self.queue.push_front(v);
                    found(Entry::new(0, v));
                }
                UsageRequest::LPop => self
                    .queue
                    .pop_front()
                    .into_iter()
                    .for_each(|v| found(Entry::new(0, v))),
                UsageRequest::RPop => self
                    .queue
                    .pop_back()
                    .into_iter()
                    .for_each(|v| found(Entry::new(0, v))),
                UsageRequest::SAdd(m) => {
                    if self.set.insert(m) {
                        found(Entry::new(0, m));
                    }
                }
                UsageRequest::SRem(m) => {
                    if self.set.remove(&m) {
                        found(Entry::new(0, m));
                    }
                }
                UsageRequest::SIsMember(m) => {
                    if self.set.contains(&m) {
                        found(Entry::new(0, m));
                    }
                }
                UsageRequest::Queue => {
                    (1..)
                        .zip(self.queue.iter())
                        .for_each(|(position, &v)| found(Entry::new(position, v)));
                }
                UsageRequest::Members => self.set.iter().for_each(|&m| found(Entry::new(0, m))),
            }
        }
        Ok(())
    }

    fn census(&mut self) -> anyhow::Result<Census> {
        Ok(Census(vec![
            ("keys", self.map.len() as u64),
            ("queue items", self.queue.len() as u64),
            ("members", self.set.len() as u64),
        ]))
    }
}

impl Model<UsageRequest> for UsageModel {
    /// The whole queue in order, the whole set, and each key and member from 1 to `up_to` and in use.
    fn probes(&self, up_to: u64) -> Vec<UsageRequest> {
        let keys: BTreeSet<u64> = (1..=up_to).chain(self.map.keys().copied()).collect();
        let members: BTreeSet<u64> = (1..=up_to).chain(self.set.iter().copied()).collect();
        let mut probes = vec![UsageRequest::Queue, UsageRequest::Members];
        probes.extend(keys.into_iter().map(UsageRequest::Get));
        probes.extend(members.into_iter().map(UsageRequest::SIsMember));
        probes
    }

    /// The whole queue and set (one request each), and every number a found entry names, as a
    /// key and as a member.
    fn probes_around(&self, found: &[Entry]) -> Vec<UsageRequest> {
        let numbers: BTreeSet<u64> = found
            .iter()
            .flat_map(|e| [e.key, e.value])
            .filter(|n| (1..=MAX).contains(n))
            .collect();
        let mut probes = vec![UsageRequest::Queue, UsageRequest::Members];
        probes.extend(numbers.iter().copied().map(UsageRequest::Get));
        probes.extend(numbers.iter().copied().map(UsageRequest::SIsMember));
        probes
    }
}
