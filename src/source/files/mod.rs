//! Documents from files: Extended JSON and `mongodump` BSON, with the
//! time-series buckets a dump holds unpacked into measurements.

pub mod bsoncolumn;
pub mod buckets;
pub mod ejson;
pub mod file;
pub mod names;

pub use file::FileSource;
