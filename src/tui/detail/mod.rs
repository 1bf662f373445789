//! The detail pane's text on each tab, built from the model alone: the
//! views draw it, and `update` measures how far it scrolls.

pub mod findings;
pub mod highlight;
pub mod indexes;
pub mod parts;
pub mod schema;
pub mod workload;
