//! The doublets stores' memory: each block on the heap or mapped from a file, and counted as it
//! grows, since doublets keeps its blocks private. The stores of both suites and the C ABI open
//! their stores here; the memory measurement ([`crate::memory`]) reads the counts.

use std::{
    mem::MaybeUninit,
    path::Path,
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    },
};

use anyhow::{anyhow, Context};
use doublets::{
    data::LinksConstants,
    mem::{FileMapped, Global, RawMem},
    parts::{DataPart, IndexPart, LinkPart},
    split, unit,
};

/// A memory block of a doublets store that tells how many items it holds: doublets keeps its
/// blocks private, so the store's memory is handed to it wrapped. Only growing and shrinking,
/// which are rare, do any extra work.
pub struct Counted<M> {
    inner: M,
    len: Arc<AtomicUsize>,
}

impl<M: RawMem> RawMem for Counted<M> {
    type Item = M::Item;

    fn allocated(&self) -> &[Self::Item] {
        self.inner.allocated()
    }

    fn allocated_mut(&mut self) -> &mut [Self::Item] {
        self.inner.allocated_mut()
    }

    unsafe fn grow(
        &mut self,
        cap: usize,
        fill: impl FnOnce(usize, (&mut [Self::Item], &mut [MaybeUninit<Self::Item>])),
    ) -> doublets::mem::Result<&mut [Self::Item]> {
        let before = self.inner.allocated().len();
        // SAFETY: the caller's guarantee for `fill` is passed on unchanged.
        let grown = unsafe { self.inner.grow(cap, fill)? };
        // `grow` returns the new part only.
        self.len.store(before + grown.len(), Ordering::Relaxed);
        Ok(grown)
    }

    fn shrink(&mut self, cap: usize) -> doublets::mem::Result<()> {
        self.inner.shrink(cap)?;
        self.len
            .store(self.inner.allocated().len(), Ordering::Relaxed);
        Ok(())
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

/// Where a memory block of a doublets store lies: on the heap, or in a file mapped into memory
/// (a durable store's). One type for both, so that a store's type does not depend on where its
/// memory lies: the store keeps its own pointer into the block, so only growing and shrinking,
/// which are rare, pass through here.
pub enum Place<T> {
    Heap(Global<T>),
    File(FileMapped<T>),
}

impl<T> RawMem for Place<T> {
    type Item = T;

    fn allocated(&self) -> &[T] {
        match self {
            Place::Heap(m) => m.allocated(),
            Place::File(m) => m.allocated(),
        }
    }

    fn allocated_mut(&mut self) -> &mut [T] {
        match self {
            Place::Heap(m) => m.allocated_mut(),
            Place::File(m) => m.allocated_mut(),
        }
    }

    unsafe fn grow(
        &mut self,
        cap: usize,
        fill: impl FnOnce(usize, (&mut [T], &mut [MaybeUninit<T>])),
    ) -> doublets::mem::Result<&mut [T]> {
        // SAFETY: the caller's guarantee for `fill` is passed on unchanged.
        unsafe {
            match self {
                Place::Heap(m) => m.grow(cap, fill),
                Place::File(m) => m.grow(cap, fill),
            }
        }
    }

    fn shrink(&mut self, cap: usize) -> doublets::mem::Result<()> {
        match self {
            Place::Heap(m) => m.shrink(cap),
            Place::File(m) => m.shrink(cap),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        match self {
            Place::Heap(m) => m.size_hint(),
            Place::File(m) => m.size_hint(),
        }
    }
}

/// A doublets store with links and their indexes in one memory block.
pub type United = unit::Store<u64, Counted<Place<LinkPart<u64>>>>;
/// A doublets store with the links' data and the index trees in two blocks.
pub type Split = split::Store<u64, Counted<Place<DataPart<u64>>>, Counted<Place<IndexPart<u64>>>>;

/// A united store with `constants`: on the heap, or mapped from the file `links` in `folder`
/// (created when missing, opened with the links it holds when not). Creating it on the heap
/// reserves and zero-fills 64 MiB.
pub fn united(
    folder: Option<&Path>,
    constants: LinksConstants<u64>,
) -> anyhow::Result<(United, Blocks)> {
    let mut blocks = Blocks::default();
    let memory = blocks.block(folder.map(|f| f.join("links")).as_deref())?;
    let store = United::with_constants(memory, constants)
        .map_err(|e| anyhow!("cannot create a united store: {e}"))?;
    Ok((store, blocks))
}

/// A split store with `constants`: on the heap, or mapped from the files `data` and `index` in
/// `folder`. Creating it on the heap reserves and zero-fills 80 MiB.
pub fn split(
    folder: Option<&Path>,
    constants: LinksConstants<u64>,
) -> anyhow::Result<(Split, Blocks)> {
    let mut blocks = Blocks::default();
    let data = blocks.block(folder.map(|f| f.join("data")).as_deref())?;
    let index = blocks.block(folder.map(|f| f.join("index")).as_deref())?;
    let store = Split::with_constants(data, index, constants)
        .map_err(|e| anyhow!("cannot create a split store: {e}"))?;
    Ok((store, blocks))
}

/// The memory blocks of one doublets store, as counted by their [`Counted`] wrappers.
#[derive(Clone, Default)]
pub struct Blocks(Vec<(Arc<AtomicUsize>, usize)>);

impl Blocks {
    /// A new block, counted in this set: on the heap, or mapped from the file `file` (created
    /// when missing, opened with what it holds when not).
    pub fn block<T>(
        &mut self,
        file: Option<&std::path::Path>,
    ) -> anyhow::Result<Counted<Place<T>>> {
        let inner = match file {
            None => Place::Heap(Global::new()),
            Some(path) => Place::File(
                FileMapped::from_path(path)
                    .with_context(|| format!("opening {}", path.display()))?,
            ),
        };
        let len = Arc::new(AtomicUsize::new(0));
        self.0.push((len.clone(), std::mem::size_of::<T>()));
        Ok(Counted { inner, len })
    }

    /// The bytes the blocks have reserved (allocated and zero-filled, used or not).
    pub fn reserved(&self) -> u64 {
        self.0
            .iter()
            .map(|(len, size)| (len.load(Ordering::Relaxed) * size) as u64)
            .sum()
    }

    /// The bytes one link takes across the blocks (a record in each).
    pub fn per_link(&self) -> u64 {
        self.0.iter().map(|(_, size)| *size as u64).sum()
    }
}

/// A doublets store whose memory blocks can be counted.
pub trait Footprint {
    fn blocks(&self) -> &Blocks;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_count_what_their_memory_holds() {
        let mut blocks = Blocks::default();
        let mut data = blocks.block::<[u64; 2]>(None).unwrap();
        let mut index = blocks.block::<[u64; 8]>(None).unwrap();
        assert_eq!((blocks.reserved(), blocks.per_link()), (0, 80));
        // SAFETY: the fill initializes every new item.
        unsafe {
            data.grow(2, |_, (_, new)| {
                new.iter_mut().for_each(|i| {
                    i.write([0; 2]);
                })
            })
            .unwrap();
            assert_eq!(blocks.reserved(), 2 * 16, "a first growth");
            data.grow(10, |_, (_, new)| {
                new.iter_mut().for_each(|i| {
                    i.write([0; 2]);
                })
            })
            .unwrap();
            index
                .grow(4, |_, (_, new)| {
                    new.iter_mut().for_each(|i| {
                        i.write([0; 8]);
                    })
                })
                .unwrap();
        }
        assert_eq!(blocks.reserved(), 12 * 16 + 4 * 64, "growths add up");
        data.shrink(5).unwrap();
        assert_eq!(blocks.reserved(), 7 * 16 + 4 * 64);
    }
}
