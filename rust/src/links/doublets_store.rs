//! Links in doublets 0.18, in memory: the united and the split store.

use anyhow::{anyhow, bail};
use doublets::{data::Flow, split, unit, Doublets};

use super::{Link, LinkRequest, Query};
use crate::{
    memory::{Blocks, Footprint},
    store::{Census, SharedRead, Store},
};

/// A doublets store answering link requests. Workloads reach it only after the model has run
/// them, so no duplicate pair and no two-part query ever gets here.
pub struct DoubletsLinks<S> {
    store: S,
    any: u64,
    blocks: Blocks,
}

impl<S: Doublets<u64>> DoubletsLinks<S> {
    /// The store and the memory blocks it was given.
    fn new(store: S, blocks: Blocks) -> Self {
        let any = store.constants().any;
        Self { store, any, blocks }
    }

    pub fn store(&self) -> &S {
        &self.store
    }

    pub fn store_mut(&mut self) -> &mut S {
        &mut self.store
    }
}

/// Links and their indexes in one memory block. Creating it reserves and zero-fills 64 MiB.
pub fn united_store() -> anyhow::Result<DoubletsLinks<impl Doublets<u64>>> {
    let mut blocks = Blocks::default();
    let store = unit::Store::<u64, _>::new(blocks.block())
        .map_err(|e| anyhow!("cannot create a united store: {e}"))?;
    Ok(DoubletsLinks::new(store, blocks))
}

/// Link data and index trees in separate blocks. Creating it reserves and zero-fills 80 MiB.
pub fn split_store() -> anyhow::Result<DoubletsLinks<impl Doublets<u64>>> {
    let mut blocks = Blocks::default();
    let (data, index) = (blocks.block(), blocks.block());
    let store = split::Store::<u64, _, _>::new(data, index)
        .map_err(|e| anyhow!("cannot create a split store: {e}"))?;
    Ok(DoubletsLinks::new(store, blocks))
}

impl<S> Footprint for DoubletsLinks<S> {
    fn blocks(&self) -> &Blocks {
        &self.blocks
    }
}

/// Reports every link `q` matches; doublets is always asked with three parts.
#[inline]
fn each<S: Doublets<u64>>(store: &S, any: u64, q: Query, found: &mut impl FnMut(Link)) {
    let query = [
        q.id.unwrap_or(any),
        q.source.unwrap_or(any),
        q.target.unwrap_or(any),
    ];
    store.each_by(query, |link| {
        found(Link::new(link.index, link.source, link.target));
        Flow::Continue
    });
}

impl<S: Doublets<u64>> SharedRead<LinkRequest> for DoubletsLinks<S> {
    fn read(&self, batch: &[LinkRequest], mut found: impl FnMut(Link)) -> anyhow::Result<()> {
        for request in batch {
            match *request {
                LinkRequest::Each(q) => each(&self.store, self.any, q, &mut found),
                other => bail!("{other:?} writes: it needs the store alone"),
            }
        }
        Ok(())
    }
}

impl<S: Doublets<u64>> Store<LinkRequest> for DoubletsLinks<S> {
    fn run(&mut self, batch: &[LinkRequest], mut found: impl FnMut(Link)) -> anyhow::Result<()> {
        let any = self.any;
        let store = &mut self.store;
        for request in batch {
            match *request {
                LinkRequest::CreatePoint => found(Link::point(store.create_point()?)),
                LinkRequest::Create { source, target } => found(Link::new(
                    store.create_link(source, target)?,
                    source,
                    target,
                )),
                LinkRequest::Update { id, source, target } => {
                    found(Link::new(store.update(id, source, target)?, source, target))
                }
                LinkRequest::Delete { id } => found(Link::new(store.delete(id)?, 0, 0)),
                LinkRequest::Each(q) => each(store, any, q, &mut found),
            }
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
}
