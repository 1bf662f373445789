//! The query language a user types to browse a collection: parsed to BSON,
//! run on this machine over files, and sent to a server or scanned for.

pub mod browse;
pub mod matcher;
pub mod parse;

pub use browse::{Browse, Explain, Stop};
pub use parse::{Query, QueryText};
