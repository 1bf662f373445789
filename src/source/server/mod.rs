//! Documents from a live MongoDB deployment, and what the server recorded
//! of its workload.

pub mod mongo;
pub mod workload;

pub use mongo::MongoSource;
pub use workload::{OpCounts, ProfilerDb};
