//! The plain model of a links store: what every store must answer, and the guard that keeps
//! duplicate (source, target) pairs, which corrupt doublets' indexes, out of every workload.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{bail, Context};

use super::{Link, LinkRequest, Query};
use crate::store::{Census, Model, Store};

/// Links with the same indexes the stores keep, and doublets' id reuse: the most recently deleted
/// id first; deleting the highest id shrinks the range past every free id below it.
#[derive(Clone, Debug, Default)]
pub struct LinksModel {
    links: BTreeMap<u64, (u64, u64)>,
    outgoing: BTreeSet<(u64, u64)>,
    incoming: BTreeSet<(u64, u64)>,
    pairs: BTreeMap<(u64, u64), u64>,
    free: Vec<u64>,
    allocated: u64,
}

impl LinksModel {
    pub fn len(&self) -> usize {
        self.links.len()
    }

    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
    }

    /// The id the next create will get.
    pub fn next_id(&self) -> u64 {
        self.free.last().copied().unwrap_or(self.allocated + 1)
    }

    /// The link with this source and target, if any (null endpoints are never paired).
    pub fn search(&self, source: u64, target: u64) -> Option<u64> {
        self.pairs.get(&(source, target)).copied()
    }

    pub fn get(&self, id: u64) -> Option<Link> {
        self.links.get(&id).map(|&(s, t)| Link::new(id, s, t))
    }

    pub fn links(&self) -> impl Iterator<Item = Link> + '_ {
        self.links.iter().map(|(&id, &(s, t))| Link::new(id, s, t))
    }

    fn index(&mut self, id: u64, source: u64, target: u64) -> anyhow::Result<()> {
        if source != 0 && target != 0 {
            if let Some(other) = self.search(source, target) {
                bail!("({source}, {target}) would duplicate link {other}: doublets corrupts its indexes on duplicate pairs");
            }
            self.pairs.insert((source, target), id);
        }
        if source != 0 {
            self.outgoing.insert((source, id));
        }
        if target != 0 {
            self.incoming.insert((target, id));
        }
        self.links.insert(id, (source, target));
        Ok(())
    }

    fn unindex(&mut self, id: u64) -> anyhow::Result<()> {
        let (source, target) = self
            .links
            .remove(&id)
            .with_context(|| format!("link {id} does not exist"))?;
        self.pairs.remove(&(source, target));
        self.outgoing.remove(&(source, id));
        self.incoming.remove(&(target, id));
        Ok(())
    }

    fn create(&mut self, source: Option<u64>, target: Option<u64>) -> anyhow::Result<Link> {
        let id = self.next_id();
        let link = Link::new(id, source.unwrap_or(id), target.unwrap_or(id));
        self.index(id, link.source, link.target)?;
        if self.free.last() == Some(&id) {
            self.free.pop();
        } else {
            self.allocated += 1;
        }
        Ok(link)
    }

    fn delete(&mut self, id: u64) -> anyhow::Result<Link> {
        self.unindex(id)?;
        if id < self.allocated {
            self.free.push(id);
        } else {
            self.allocated -= 1;
            while self.allocated > 0 && !self.links.contains_key(&self.allocated) {
                let unused = self.allocated;
                self.free.retain(|&f| f != unused);
                self.allocated -= 1;
            }
        }
        Ok(Link::new(id, 0, 0))
    }

    fn each(&self, query: Query, found: &mut impl FnMut(Link)) {
        let ids: Vec<u64> = match (query.id, query.source, query.target) {
            (Some(id), ..) => vec![id],
            (None, Some(s), Some(t)) => self.search(s, t).into_iter().collect(),
            (None, Some(s), None) => self
                .outgoing
                .range((s, 0)..=(s, u64::MAX))
                .map(|&(_, id)| id)
                .collect(),
            (None, None, Some(t)) => self
                .incoming
                .range((t, 0)..=(t, u64::MAX))
                .map(|&(_, id)| id)
                .collect(),
            (None, None, None) => self.links.keys().copied().collect(),
        };
        for link in ids.into_iter().filter_map(|id| self.get(id)) {
            if query.matches(&link) {
                found(link);
            }
        }
    }
}

impl Store<LinkRequest> for LinksModel {
    fn run(&mut self, batch: &[LinkRequest], mut found: impl FnMut(Link)) -> anyhow::Result<()> {
        for request in batch {
            match *request {
                LinkRequest::CreatePoint => found(self.create(None, None)?),
                LinkRequest::Create { source, target } => {
                    found(self.create(Some(source), Some(target))?)
                }
                LinkRequest::Update { id, source, target } => {
                    let before = self
                        .get(id)
                        .with_context(|| format!("link {id} does not exist"))?;
                    self.unindex(id)?;
                    if let Err(e) = self.index(id, source, target) {
                        self.index(id, before.source, before.target)?;
                        return Err(e);
                    }
                    found(Link::new(id, source, target));
                }
                LinkRequest::Delete { id } => found(self.delete(id)?),
                LinkRequest::Each(query) => self.each(query, &mut found),
            }
        }
        Ok(())
    }

    fn census(&mut self) -> anyhow::Result<Census> {
        Ok(Census(vec![("links", self.links.len() as u64)]))
    }
}

impl Model<LinkRequest> for LinksModel {
    fn probes(&self, up_to: u64) -> Vec<LinkRequest> {
        let any = Query {
            id: None,
            source: None,
            target: None,
        };
        let mut probes = vec![LinkRequest::Each(any)];
        for id in 1..=self.allocated.max(up_to) {
            probes.push(LinkRequest::Each(Query {
                id: Some(id),
                ..any
            }));
            probes.push(LinkRequest::Each(Query {
                source: Some(id),
                ..any
            }));
            probes.push(LinkRequest::Each(Query {
                target: Some(id),
                ..any
            }));
        }
        for link in self.links() {
            if link.source != 0 && link.target != 0 {
                probes.push(LinkRequest::Each(Query {
                    source: Some(link.source),
                    target: Some(link.target),
                    ..any
                }));
            }
        }
        probes
    }

    /// Every id a found link names (itself, its source, its target), probed three ways, and the
    /// pairs of the links the model holds at those ids.
    fn probes_around(&self, found: &[Link]) -> Vec<LinkRequest> {
        let ids: BTreeSet<u64> = found
            .iter()
            .flat_map(|l| [l.id, l.source, l.target])
            .filter(|&id| id != 0)
            .collect();
        let any = Query {
            id: None,
            source: None,
            target: None,
        };
        let mut probes = Vec::new();
        for &id in &ids {
            probes.extend([
                LinkRequest::Each(Query {
                    id: Some(id),
                    ..any
                }),
                LinkRequest::Each(Query {
                    source: Some(id),
                    ..any
                }),
                LinkRequest::Each(Query {
                    target: Some(id),
                    ..any
                }),
            ]);
            if let Some(&(source, target)) = self.links.get(&id) {
                if source != 0 && target != 0 {
                    probes.push(LinkRequest::Each(Query {
                        source: Some(source),
                        target: Some(target),
                        ..any
                    }));
                }
            }
        }
        probes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(model: &mut LinksModel, request: LinkRequest) -> anyhow::Result<Vec<Link>> {
        let mut found = Vec::new();
        model.run(&[request], |l| found.push(l))?;
        Ok(found)
    }

    #[test]
    fn reuses_ids_like_doublets() {
        let mut m = LinksModel::default();
        for _ in 0..5 {
            run(&mut m, LinkRequest::CreatePoint).unwrap();
        }
        run(&mut m, LinkRequest::Delete { id: 2 }).unwrap();
        run(&mut m, LinkRequest::Delete { id: 3 }).unwrap();
        run(&mut m, LinkRequest::Delete { id: 5 }).unwrap();
        // 5 was the highest: the range shrinks to 4; 3 is reused first, then 2, then 5.
        assert_eq!(
            run(&mut m, LinkRequest::CreatePoint).unwrap(),
            vec![Link::point(3)]
        );
        assert_eq!(
            run(&mut m, LinkRequest::CreatePoint).unwrap(),
            vec![Link::point(2)]
        );
        assert_eq!(
            run(&mut m, LinkRequest::CreatePoint).unwrap(),
            vec![Link::point(5)]
        );
        run(&mut m, LinkRequest::Delete { id: 4 }).unwrap();
        run(&mut m, LinkRequest::Delete { id: 5 }).unwrap();
        // Deleting 5 shrinks past the free 4 as well.
        assert_eq!(
            run(&mut m, LinkRequest::CreatePoint).unwrap(),
            vec![Link::point(4)]
        );
    }

    #[test]
    fn refuses_duplicate_pairs_and_keeps_the_link() {
        let mut m = LinksModel::default();
        run(&mut m, LinkRequest::CreatePoint).unwrap();
        run(&mut m, LinkRequest::CreatePoint).unwrap();
        let error = run(
            &mut m,
            LinkRequest::Create {
                source: 1,
                target: 1,
            },
        )
        .unwrap_err();
        assert!(error.to_string().contains("duplicate link 1"), "{error}");
        assert!(run(
            &mut m,
            LinkRequest::Update {
                id: 2,
                source: 1,
                target: 1
            }
        )
        .is_err());
        assert_eq!(m.get(2), Some(Link::point(2)));
        assert_eq!(m.len(), 2);
        // Null endpoints are never paired: any number of links may rest at (0, 0).
        run(
            &mut m,
            LinkRequest::Update {
                id: 1,
                source: 0,
                target: 0,
            },
        )
        .unwrap();
        run(
            &mut m,
            LinkRequest::Update {
                id: 2,
                source: 0,
                target: 0,
            },
        )
        .unwrap();
        assert!(run(&mut m, LinkRequest::Delete { id: 7 }).is_err());
    }
}
