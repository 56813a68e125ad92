//! The suites this crate implements, by the spec's id: the one place a suite's id meets its types
//! (its requests, the model that checks them, its doublets stores). Code that runs any suite is a
//! [`Visit`], which [`visit`] hands the types of the suite the spec names.

use crate::{
    blocks::{self, Footprint},
    durable::StoreFolder,
    links, payload,
    resp::store::RedisRequest,
    store::{Model, SharedRead},
    typical,
};

/// A suite's requests and the model every reply is checked against.
pub trait Suite {
    type Request: RedisRequest<Found: Sync> + Sync;
    type Model: Model<Self::Request>;
}

/// A suite doublets runs too: its store of each layout, on the heap or on files in `folder`.
pub trait Doublets: Suite {
    type United: SharedRead<Self::Request> + Footprint + Send + Sync;
    type Split: SharedRead<Self::Request> + Footprint + Send + Sync;
    fn united(folder: Option<StoreFolder>) -> anyhow::Result<Self::United>;
    fn split(folder: Option<StoreFolder>) -> anyhow::Result<Self::Split>;
}

/// Work done for a suite, whichever it is.
pub trait Visit: Sized {
    type Output;
    /// For a suite only servers run.
    fn servers<S: Suite>(self) -> Self::Output;
    /// For a suite doublets runs too: by default, the same as for one only servers run.
    fn doublets<S: Doublets>(self) -> Self::Output {
        self.servers::<S>()
    }
}

/// Runs `work` with the types of the suite `id`; an error names the suites there are.
pub fn visit<V: Visit>(id: &str, work: V) -> Result<V::Output, String> {
    Ok(match id {
        "links" => work.doublets::<Links>(),
        "typical" => work.doublets::<Typical>(),
        "payload" => work.servers::<Payload>(),
        _ => {
            return Err(format!(
                "no store implements the suite \"{id}\" (known: links, typical, payload)"
            ))
        }
    })
}

/// The links-storage suite ([`links`]).
pub struct Links;
/// The typical-Redis-usage suite ([`typical`]).
pub struct Typical;
/// The payload suite ([`payload`]): servers only.
pub struct Payload;

impl Suite for Links {
    type Request = links::LinkRequest;
    type Model = links::LinksModel;
}

impl Doublets for Links {
    type United = links::DoubletsLinks<blocks::United>;
    type Split = links::DoubletsLinks<blocks::Split>;
    fn united(folder: Option<StoreFolder>) -> anyhow::Result<Self::United> {
        links::united_store(folder)
    }
    fn split(folder: Option<StoreFolder>) -> anyhow::Result<Self::Split> {
        links::split_store(folder)
    }
}

impl Suite for Typical {
    type Request = typical::UsageRequest;
    type Model = typical::UsageModel;
}

impl Doublets for Typical {
    type United = typical::DoubletsUsage<blocks::United>;
    type Split = typical::DoubletsUsage<blocks::Split>;
    fn united(folder: Option<StoreFolder>) -> anyhow::Result<Self::United> {
        typical::united_store(folder)
    }
    fn split(folder: Option<StoreFolder>) -> anyhow::Result<Self::Split> {
        typical::split_store(folder)
    }
}

impl Suite for Payload {
    type Request = payload::PayloadRequest;
    type Model = payload::PayloadModel;
}
