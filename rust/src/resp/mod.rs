//! A RESP server (Redis, Garnet) as the benches use it, in rooms that depend one way (each on
//! those above it only):
//!
//! - [`reply`]: commands by name, replies read as numbers or lists.
//! - [`process`]: the disposable servers a run starts, stops and restarts.
//! - [`library`]: the links library, named after its content; functions or a script (reply).
//! - [`store`]: a server as a store, in the three modes the benches compare (library, process).
//! - [`cleanup`]: what a run wrote to a server it did not start, removed however the run ends
//!   (library, process).
//! - [`server`]: REDIS_URL's server or a disposable one, claimed and left as it was found (all).

pub mod cleanup;
pub mod library;
pub mod process;
pub mod reply;
pub mod server;
pub mod store;
