//! Links in doublets 0.18, in memory: the united and the split store.

use std::path::Path;

use anyhow::bail;
use doublets::{
    data::{Flow, LinksConstants},
    Doublets,
};

use super::{Link, LinkRequest, Query};
use crate::{
    blocks::{self, Blocks, Footprint, Split, United},
    durable::{Reopen, StoreFolder},
    store::{Census, SharedRead, Store},
};

/// A doublets store answering link requests. Workloads reach it only after the model has run
/// them, so no duplicate pair and no two-part query ever gets here.
pub struct DoubletsLinks<S> {
    store: S,
    any: u64,
    blocks: Blocks,
    /// A durable store's folder and how it opens its files again (declared after the store, so
    /// the folder goes once nothing maps them).
    files: Option<Reopen<S>>,
}

impl<S: Doublets<u64>> DoubletsLinks<S> {
    /// Opens the store with `open`: on the heap, or from files in `folder`.
    fn open(
        folder: Option<StoreFolder>,
        open: fn(Option<&Path>) -> anyhow::Result<(S, Blocks)>,
    ) -> anyhow::Result<Self> {
        let (store, blocks, files) = Reopen::open(folder, open)?;
        let any = store.constants().any;
        Ok(Self {
            store,
            any,
            blocks,
            files,
        })
    }

    pub fn store(&self) -> &S {
        &self.store
    }

    pub fn store_mut(&mut self) -> &mut S {
        &mut self.store
    }

    /// Where a durable store keeps its files.
    pub fn folder(&self) -> Option<&Path> {
        self.files.as_ref().map(Reopen::folder)
    }
}

/// Links and their indexes in one memory block: on the heap, or mapped from a file in `folder`.
pub fn united_store(folder: Option<StoreFolder>) -> anyhow::Result<DoubletsLinks<United>> {
    DoubletsLinks::open(folder, |files| blocks::united(files, LinksConstants::new()))
}

/// Link data and index trees in separate blocks: on the heap, or mapped from two files in
/// `folder`.
pub fn split_store(folder: Option<StoreFolder>) -> anyhow::Result<DoubletsLinks<Split>> {
    DoubletsLinks::open(folder, |files| blocks::split(files, LinksConstants::new()))
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

    fn restart(&mut self) -> anyhow::Result<bool> {
        let Some(files) = &self.files else {
            return Ok(false);
        };
        (self.store, self.blocks) = files.again()?;
        Ok(true)
    }
}
