//! docshape: the real shape of MongoDB data, and what in it will hurt.
//!
//! The library is the pure core plus the sources: `source` yields raw BSON
//! documents, `profile` infers their shape in one pass, `report` renders it.
//! `audit` runs that journey; `cli` runs the commands over it, and the
//! binary parses the command line and hands it to `cli`.

pub mod advise;
pub mod audit;
pub mod cli;
pub mod config;
pub mod diff;
pub mod fmt;
pub mod growth;
pub mod i18n;
pub mod lesson;
pub mod paths;
pub mod profile;
pub mod relate;
pub mod report;
pub mod rules;
pub mod secret;
pub mod seed;
pub mod source;
pub mod target;
pub mod tui;
pub mod workload;
