//! docshape's integration tests, one binary: a module per concern. Each
//! module that needs a MongoDB-wire server gets its own (see
//! `common::uri`), as when every module was a binary of its own, so their
//! databases never meet.

mod common;
mod migrate;
mod scenarios;
mod support;

mod bsoncolumn;
mod class;
mod corpus;
mod diff;
mod e2e_files;
mod e2e_server;
mod early_findings;
mod exercises;
// The lesson when-to-reference's large copies (29 MB of avatars, a 15 MB
// post) get a server of their own: with the other exercises they overflow
// the in-memory test server's cache.
#[path = "exercises/when_to_reference.rs"]
mod exercises_when_to_reference;
// So do refine-by-workload's six copies of the contacts data set (60 MB
// each).
#[path = "exercises/refine_by_workload.rs"]
mod exercises_refine_by_workload;
mod expiry_and_numbers;
mod extremes;
mod formats;
mod fuzz_regressions;
mod hostile;
mod hostile_server;
mod html_report;
mod index_kinds;
mod inflight;
mod layering;
mod lessons;
mod matcher_diff;
mod migrations;
mod migrations_design;
mod migrations_new_rules;
mod migrations_patterns;
mod migrations_types;
mod profile_reference;
mod query;
mod real_apps;
mod refbench;
mod relationships;
mod rules;
mod scripts_on_real_data;
mod secrets_readonly;
mod seed;
mod stability;
mod teaching_sets;
mod tui_e2e;
mod tui_hostile;
mod tui_learn;
mod tui_perf;
mod tui_picker;
mod tui_query;
mod tui_screens;
mod tui_update;
mod tui_widths;
mod two_way;
mod typed_exports;
mod workload;
mod workload_profile;
mod workload_rules;
mod workload_sample;
