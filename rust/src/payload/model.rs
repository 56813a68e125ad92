//! The plain model of the payload suite: which keys hold a value of what size, and the counters.

use std::collections::BTreeMap;

use anyhow::bail;

use super::{value, PayloadRequest, Stored};
use crate::store::{Census, Model, Store};

#[derive(Clone, Debug, Default)]
pub struct PayloadModel {
    /// Each key's value size (its bytes follow from the key and the size).
    sizes: BTreeMap<u64, usize>,
    counters: BTreeMap<u64, u64>,
}

impl Store<PayloadRequest> for PayloadModel {
    fn run(
        &mut self,
        batch: &[PayloadRequest],
        mut found: impl FnMut(Stored),
    ) -> anyhow::Result<()> {
        for request in batch {
            match request {
                PayloadRequest::Set(k, v) => {
                    self.sizes.insert(*k, v.0.len());
                    found(Stored::new(*k, v.0.len() as u64));
                }
                PayloadRequest::Get(k, v) => match self.sizes.get(k) {
                    None => {}
                    Some(&size) if size == v.0.len() => found(Stored::new(*k, size as u64)),
                    Some(size) => bail!(
                        "GET p:{k} holds {size} bytes, but the request expects {}",
                        v.0.len()
                    ),
                },
                PayloadRequest::Incr(k) => {
                    let count = self.counters.entry(*k).or_default();
                    *count += 1;
                    found(Stored::new(*k, *count));
                }
                PayloadRequest::Counter(k) => {
                    if let Some(&count) = self.counters.get(k) {
                        found(Stored::new(*k, count));
                    }
                }
                PayloadRequest::Del(k) => {
                    let removed = u64::from(self.sizes.remove(k).is_some())
                        + u64::from(self.counters.remove(k).is_some());
                    if removed > 0 {
                        found(Stored::new(*k, removed));
                    }
                }
            }
        }
        Ok(())
    }

    fn census(&mut self) -> anyhow::Result<Census> {
        Ok(Census(vec![(
            "keys",
            (self.sizes.len() + self.counters.len()) as u64,
        )]))
    }
}

impl PayloadModel {
    /// GET of the key's value (of no bytes where it holds none, so any value fails it) and of
    /// its counter.
    fn probe(&self, key: u64, probes: &mut Vec<PayloadRequest>) {
        let size = self.sizes.get(&key).copied().unwrap_or(0);
        probes.push(PayloadRequest::Get(key, value(key, size)));
        probes.push(PayloadRequest::Counter(key));
    }
}

impl Model<PayloadRequest> for PayloadModel {
    fn probes(&self, up_to: u64) -> Vec<PayloadRequest> {
        let last = [
            up_to,
            self.sizes.keys().next_back().copied().unwrap_or(0),
            self.counters.keys().next_back().copied().unwrap_or(0),
        ]
        .into_iter()
        .max()
        .unwrap_or(0);
        let mut probes = Vec::new();
        (1..=last).for_each(|key| self.probe(key, &mut probes));
        probes
    }

    fn probes_around(&self, found: &[Stored]) -> Vec<PayloadRequest> {
        let mut keys: Vec<u64> = found.iter().map(|f| f.key).collect();
        keys.dedup();
        let mut probes = Vec::new();
        keys.into_iter()
            .for_each(|key| self.probe(key, &mut probes));
        probes
    }
}
