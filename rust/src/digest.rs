//! A digest of everything a store holds, computed where the data is, so that the check after each
//! cell proves the whole background intact without reading it back through the client: about four
//! queries a link cost 17–20 s a server cell at B = 1,000,000, and minutes through the slower .NET
//! clients.
//!
//! Doublets: one pass over its links in id order. Its index trees are not hashed: they are derived
//! from the links, and every cell's checked iteration queries through them. Redis: `DEBUG DIGEST`
//! (every key, type and value of the server), on the disposable servers the run starts with the
//! debug command enabled. A store with no digest (Garnet, a server the run did not start, the
//! models) keeps the full check by probes.

use std::hash::{DefaultHasher, Hash, Hasher};

use doublets::{data::Flow, Doublets};

/// Every link's (id, source, target), in id order, and their count, hashed: equal for two passes
/// over the same links in the same process (a digest is only ever compared with one taken in the
/// same run). The C# harness takes it through the C ABI (`doublets_digest`).
pub fn of_links(store: &impl Doublets<u64>) -> u64 {
    let any = store.constants().any;
    let mut hasher = DefaultHasher::new();
    let mut count = 0u64;
    store.each_by([any, any, any], |link| {
        (link.index, link.source, link.target).hash(&mut hasher);
        count += 1;
        Flow::Continue
    });
    count.hash(&mut hasher);
    hasher.finish()
}

/// [`of_links`] as a store's digest.
pub fn shown(store: &impl Doublets<u64>) -> String {
    format!("{:016x}", of_links(store))
}
