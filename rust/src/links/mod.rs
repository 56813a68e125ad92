//! The links-storage suite: links (id, source, target) created, updated, deleted and queried.

mod doublets_store;
mod model;
mod redis_requests;

pub use doublets_store::{split_store, united_store, DoubletsLinks};
pub use model::LinksModel;

use crate::store::Request;

/// Values stay below 2^63 so that every store (doublets reserves the top of u64 for its constants,
/// Redis counts in i64) means the same number by them.
pub const MAX_VALUE: u64 = i64::MAX as u64;

/// A link as the stores report it. A deleted link is reported as (id, 0, 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Link {
    pub id: u64,
    pub source: u64,
    pub target: u64,
}

impl Link {
    pub const fn new(id: u64, source: u64, target: u64) -> Self {
        Self { id, source, target }
    }

    pub const fn point(id: u64) -> Self {
        Self::new(id, id, id)
    }
}

/// A three-part query; `None` matches anything. Only the shapes every store answers with one native
/// read are allowed (see [`LinkRequest::build`]), and doublets is always asked with three parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Query {
    pub id: Option<u64>,
    pub source: Option<u64>,
    pub target: Option<u64>,
}

impl Query {
    pub fn matches(&self, link: &Link) -> bool {
        self.id.is_none_or(|v| v == link.id)
            && self.source.is_none_or(|v| v == link.source)
            && self.target.is_none_or(|v| v == link.target)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkRequest {
    /// Creates the link (id, id): reports it.
    CreatePoint,
    /// Creates the link (id, source, target): reports it.
    Create { source: u64, target: u64 },
    /// Sets a link's source and target: reports the link after the change.
    Update { id: u64, source: u64, target: u64 },
    /// Deletes a link: reports (id, 0, 0).
    Delete { id: u64 },
    /// Reports every link the query matches.
    Each(Query),
}

fn value(args: &[Option<u64>], k: usize, what: &str) -> Result<u64, String> {
    match args[k] {
        None => Err(format!("{what} cannot be *")),
        Some(v) if v > MAX_VALUE => Err(format!("{what} {v} is above {MAX_VALUE}")),
        Some(v) => Ok(v),
    }
}

fn id(args: &[Option<u64>], k: usize) -> Result<u64, String> {
    match value(args, k, "an id")? {
        0 => Err("an id cannot be 0 (null)".into()),
        v => Ok(v),
    }
}

impl Request for LinkRequest {
    type Found = Link;

    fn build(verb: &str, args: &[Option<u64>]) -> Result<Self, String> {
        let arity = match verb {
            "create_point" => 0,
            "delete" => 1,
            "create" => 2,
            "update" | "each" => 3,
            _ => {
                return Err(format!(
                "unknown request \"{verb}\" (links: create_point, create, update, delete, each)"
            ))
            }
        };
        if args.len() != arity {
            return Err(format!(
                "{verb} takes {arity} arguments, got {}",
                args.len()
            ));
        }
        Ok(match verb {
            "create_point" => Self::CreatePoint,
            "create" => Self::Create {
                source: value(args, 0, "a source")?,
                target: value(args, 1, "a target")?,
            },
            "update" => Self::Update {
                id: id(args, 0)?,
                source: value(args, 1, "a source")?,
                target: value(args, 2, "a target")?,
            },
            "delete" => Self::Delete { id: id(args, 0)? },
            _ => {
                let part = |k: usize| match args[k] {
                    None => Ok(None),
                    Some(_) => id(args, k).map(Some),
                };
                let query = Query {
                    id: part(0)?,
                    source: part(1)?,
                    target: part(2)?,
                };
                match (query.id, query.source, query.target) {
                    (None, None, None)
                    | (Some(_), None, None)
                    | (None, Some(_), _)
                    | (None, None, Some(_)) => {}
                    _ => {
                        return Err(
                            "a query names an id alone, or a source and/or a target, or nothing"
                                .into(),
                        )
                    }
                }
                Self::Each(query)
            }
        })
    }

    fn id(found: &Link) -> u64 {
        found.id
    }

    fn reads(&self) -> bool {
        matches!(self, Self::Each(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_requests_and_refuses_bad_ones() {
        assert_eq!(
            LinkRequest::build("update", &[Some(3), Some(0), Some(0)]),
            Ok(LinkRequest::Update {
                id: 3,
                source: 0,
                target: 0
            })
        );
        assert_eq!(
            LinkRequest::build("each", &[None, Some(2), None]),
            Ok(LinkRequest::Each(Query {
                id: None,
                source: Some(2),
                target: None
            }))
        );
        assert!(LinkRequest::build("each", &[Some(1), Some(2), None])
            .unwrap_err()
            .contains("a query names"));
        assert!(LinkRequest::build("each", &[None, Some(0), None])
            .unwrap_err()
            .contains("null"));
        assert!(LinkRequest::build("delete", &[])
            .unwrap_err()
            .contains("takes 1"));
        assert!(LinkRequest::build("merge", &[])
            .unwrap_err()
            .contains("unknown request"));
        assert!(LinkRequest::build("create", &[Some(u64::MAX), Some(1)])
            .unwrap_err()
            .contains("above"));
    }
}
